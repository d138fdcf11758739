"""Registered methods before and after a speed-up, fitted in one process.

On FERET (k = 5 by default: 1000 training images of 40 x 40; ``--dataset orl``: ORL,
k of 10 images of 40 persons; the protocol's split and unit normalisation), each method is fitted and predicted by the code at a git
revision (``--before``, default: the commit the speed-ups of issue 33 started from;
its registry and estimators imported beside this checkout's by ``revision.py``) and
by this checkout, alternately, ``--repeats`` times, with BLAS on ``--threads``
threads, with this checkout's registered parameters (``random_state=0`` where the
estimator draws). It prints the best (or, with ``--statistic median``, the median)
CPU and wall seconds of each fit, their ratios,
the predict CPU seconds, the load average, and how far apart the two fitted models
are: the largest relative difference (Frobenius) over the fitted arrays both have
(the dictionary, classifier, coefficients...), that of the test decision values, and
whether every prediction agrees.

``--profile`` prints, for one fit of each version, the functions where the time goes
(cProfile, own time).

    python benchmarks/bench_before_after.py [--methods LC-KSVD2 LCLE FDDL LRSDL LDA]
        [--dataset feret] [--k 5] [--splits 0 1 2] [--threads 1 2] [--repeats 2]
        [--statistic best] [--before REF] [--profile]
"""

import argparse
import cProfile
import os
import pstats
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from fdlsr._experiments.registry import get_method
from fdlsr._experiments.samples import prepare
from fdlsr.datasets import load_dataset
from fdlsr.model_selection._split import per_class_split
from revision import BEFORE, import_revision


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.process_time() - cpu, time.perf_counter() - wall


def relative(a, b):
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300))


def fitted_arrays(model):
    """The fitted array attributes of ``model`` (names ending in ``_``)."""
    return {
        name: value
        for name, value in vars(model).items()
        if name.endswith("_")
        and isinstance(value, np.ndarray)
        and value.dtype.kind == "f"
    }


def compare(name, X, y, train, test, threads, repeats, before, profile, statistic):
    method = get_method(name)
    old_registry = import_revision("methods.registry", before)
    versions = {"before": old_registry.METHODS[name].factory, "after": method.factory}
    params = dict(method.params)
    if (
        "random_state" in method.build().get_params()
        and params.get("random_state") is None
    ):
        params["random_state"] = 0
    times = {v: {"fit": [], "fit_wall": [], "predict": []} for v in versions}
    models = {}
    with threadpool_limits(threads), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(repeats):
            for version, cls in versions.items():
                model = cls(**params)
                _, fit_cpu, fit_wall = timed(lambda m=model: m.fit(X[train], y[train]))
                decision, pred_cpu, _ = timed(
                    lambda m=model: m.decision_function(X[test])
                )
                t = times[version]
                t["fit"].append(fit_cpu)
                t["fit_wall"].append(fit_wall)
                t["predict"].append(pred_cpu)
                models[version] = (model, decision)
        if profile:
            for version, cls in versions.items():
                print(f"--- {name} {version}: own time of the 12 costliest functions")
                profiler = cProfile.Profile()
                profiler.runcall(cls(**params).fit, X[train], y[train])
                pstats.Stats(profiler).sort_stats("tottime").print_stats(12)
    summary = np.min if statistic == "best" else np.median
    best = {
        v: {part: float(summary(values)) for part, values in t.items()}
        for v, t in times.items()
    }
    (old, old_dec), (new, new_dec) = models["before"], models["after"]
    old_arrays, new_arrays = fitted_arrays(old), fitted_arrays(new)
    diffs = {
        a: relative(new_arrays[a], old_arrays[a])
        for a in sorted(set(old_arrays) & set(new_arrays))
        if new_arrays[a].shape == old_arrays[a].shape
    }
    diffs["decision"] = relative(new_dec, old_dec)
    agree = np.array_equal(new.predict(X[test]), old.predict(X[test]))
    return best, diffs, agree


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="+", default=["LC-KSVD2", "LCLE"])
    parser.add_argument("--dataset", choices=["feret", "orl"], default="feret")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--splits", type=int, nargs="+", default=[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--statistic", choices=["best", "median"], default="best")
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--data-dir", default=os.environ.get("FDLSR_DATA_DIR"))
    args = parser.parse_args()
    dataset = load_dataset(args.dataset, data_dir=args.data_dir)
    X, y = prepare(dataset), np.asarray(dataset.y)
    print(
        f"{args.dataset.upper()} k={args.k}, before = {args.before}; "
        f"{args.statistic} of {args.repeats}, CPU "
        f"seconds (fit wall seconds in brackets); load average "
        f"{os.getloadavg()[0]:.1f} at the start"
    )
    print(
        f"{'method':9s} {'split':>5s} {'BLAS':>4s} {'fit before':>17s} "
        f"{'fit after':>17s} {'ratio':>6s} {'wall':>6s} {'predict':>13s} "
        "largest relative difference; predictions"
    )
    for name in args.methods:
        for split in args.splits:
            train, test = per_class_split(y, args.k, 0, split)
            for threads in args.threads:
                best, diffs, agree = compare(
                    name, X, y, train, test, threads, args.repeats, args.before,
                    args.profile, args.statistic,
                )  # fmt: skip
                b, a = best["before"], best["after"]
                shown = ", ".join(f"{k.rstrip('_')} {v:.1e}" for k, v in diffs.items())
                print(
                    f"{name:9s} {split:5d} {threads:4d} "
                    f"{b['fit']:7.2f} [{b['fit_wall']:6.2f}] "
                    f"{a['fit']:7.2f} [{a['fit_wall']:6.2f}] "
                    f"{b['fit'] / a['fit']:5.2f}x {b['fit_wall'] / a['fit_wall']:5.2f}x "
                    f"{b['predict']:5.2f}/{a['predict']:5.2f}  {shown}; "
                    f"{'all agree' if agree else 'SOME DIFFER'}",
                    flush=True,
                )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
