"""Time one FERET split with every method of the shipped config, per method; and the
whole table's time from the per-run times of a results store.

Per method (``--k``, default 5, split 0; the config's parameters and cross-validation):
the CPU seconds of the warm-up, of the parameter search (methods the config tunes),
of ``fit`` and of ``predict``, with BLAS pinned to ``--threads`` threads (default 1,
as each of 2 processes of ``fdlsr run --jobs 2`` on 2 cores). With ``--ref REF``
(a git commit or branch) each method is timed twice, the code at REF then this
checkout, each in a fresh process (one per method and version, alternating), and the
ratio is printed. With ``--store DIR`` it also sums the per-run times of the store's
rows of the config (tuning + fit + predict, each method's setting as configured now)
and estimates the wall time of the whole table with ``--jobs 2`` on 2 cores (CPU
time / 2, plus one warm-up per method and process): an estimate, not a measurement.

    python benchmarks/bench_table.py [--methods ...] [--ref main] [--store docs/results/feret]
"""

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def time_method(name, k, split, threads, data_dir):
    """CPU seconds of warm-up, search, fit and predict of ``name`` (this fdlsr)."""
    from threadpoolctl import threadpool_limits

    from fdlsr._experiments import evaluation
    from fdlsr._experiments.config import load_config
    from fdlsr._experiments.samples import prepare
    from fdlsr._experiments.splits import run_random_state, seeded
    from fdlsr.datasets import load_dataset
    from fdlsr.model_selection._split import per_class_split

    config = load_config("feret")
    ex = config.experiment
    ex.methods = [name]
    ex.params = {m: p for m, p in ex.params.items() if m.lower() == name.lower()}
    ex.cv = [m for m in ex.cv if m.lower() == name.lower()]
    (chosen,) = ex.resolved()
    method, params, tuned = chosen.method, chosen.params, chosen.tuned
    dataset = load_dataset("feret", data_dir=data_dir)
    X, y = prepare(dataset), np.asarray(dataset.y)
    train, test = per_class_split(y, k, ex.seed, split)
    warnings.simplefilter("ignore")
    with threadpool_limits(threads):
        start = time.process_time()
        evaluation.warm_up(method, X, y, train, test, seeded(method, params, 0))
        warm = time.process_time() - start
        clock = time.process_time
        evaluation.time.perf_counter = (
            clock  # the evaluation's timers read CPU time here
        )
        row = evaluation.evaluate_split(
            method,
            X,
            y,
            train,
            test,
            params=params,
            tuned=tuned,
            seed=ex.seed + split,
            cv_folds=ex.cv_folds,
            random_state=run_random_state(ex.seed, split),
        )
    return {
        "warm_up": warm,
        "tune": row["tune_time"],
        "fit": row["fit_time"],
        "predict": row["predict_time"],
        "accuracy": row["accuracy"],
    }


def in_process(src, name, args):
    """``time_method`` in a fresh Python importing fdlsr from ``src``."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2]);"
        "from bench_table import time_method;"
        "print(json.dumps(time_method(sys.argv[3], int(sys.argv[4]), int(sys.argv[5]),"
        " int(sys.argv[6]), sys.argv[7] or None)))"
    )
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run(
        [sys.executable, "-c", code, str(src), str(Path(__file__).parent), name]
        + [str(args.k), str(args.split), str(args.threads), args.data_dir or ""],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def export(ref, into):
    """The ``src`` folder of the git commit ``ref``, unpacked under ``into``."""
    archive = Path(into) / "src.tar"
    subprocess.run(
        ["git", "-C", str(ROOT), "archive", "-o", str(archive), ref, "src"], check=True
    )
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return Path(into) / "src"


def estimate(store, jobs=2):
    """Summed per-run CPU times of the store's FERET rows as the config sets them now."""
    from fdlsr._experiments.config import load_config
    from fdlsr._experiments.planning import experiment_runs
    from fdlsr._experiments.rows import row_key
    from fdlsr._experiments.store_folder import read_rows
    from fdlsr.datasets import load_dataset

    ex = load_config("feret").experiment
    keys = {unit.key for unit in experiment_runs(ex, load_dataset("feret"))}
    rows = [r for r in read_rows(store) if row_key(r) in keys]
    per_method = {}
    for r in rows:
        seconds = (
            r.get("tune_time", 0) + r.get("fit_time", 0) + r.get("predict_time", 0)
        )
        per_method[r["method"]] = per_method.get(r["method"], 0.0) + seconds
    return rows, len(keys), per_method


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="+", help="default: every method")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--split", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--ref", help="git ref to compare with")
    parser.add_argument("--store", help="results store to estimate the table from")
    parser.add_argument("--data-dir", default=os.environ.get("FDLSR_DATA_DIR"))
    args = parser.parse_args()
    from fdlsr._experiments.registry import METHODS

    names = args.methods or list(METHODS)
    print(
        f"FERET k={args.k} split {args.split}, BLAS {args.threads} thread(s), CPU "
        f"seconds; load average {os.getloadavg()[0]:.1f} at the start"
    )
    here = ROOT / "src"
    with tempfile.TemporaryDirectory() as tmp:
        old = export(args.ref, tmp) if args.ref else None
        header = f"{'method':20s} {'warm-up':>8s} {'tune':>8s} {'fit':>8s} {'predict':>8s} {'acc %':>6s}"
        print(header + ("   total old/new" if old else ""))
        sums = {}
        for name in names:
            versions = [("old", old), ("new", here)] if old else [("", here)]
            found = {}
            for label, src in versions:
                t = in_process(src, name, args)
                found[label] = t
                for key in ("warm_up", "tune", "fit", "predict"):
                    sums[label, key] = sums.get((label, key), 0.0) + t[key]
                print(
                    f"{(name + ' ' + label).strip():20s} {t['warm_up']:8.2f} {t['tune']:8.2f} "
                    f"{t['fit']:8.2f} {t['predict']:8.2f} {100 * t['accuracy']:6.1f}",
                    flush=True,
                )
            if old:
                total = {
                    v: sum(found[v][key] for key in ("tune", "fit", "predict"))
                    for v in found
                }
                print(f"{'':20s} tune+fit+predict {total['old'] / total['new']:.2f}x")
        for label in {label for label, _ in sums}:
            print(
                f"sum {label or 'all'}: warm-up {sums[label, 'warm_up']:.1f} s, "
                f"tune+fit+predict "
                f"{sum(sums[label, key] for key in ('tune', 'fit', 'predict')):.1f} s"
            )
    if args.store:
        rows, total, per_method = estimate(args.store)
        cpu = sum(per_method.values())
        print(
            f"{args.store}: {len(rows)} of the config's {total} rows stored; their "
            f"tune+fit+predict times sum to {cpu:.0f} s; whole table with --jobs 2 on 2 "
            f"cores, estimated: {cpu / 2 / 60:.1f} min plus warm-ups"
        )
        for method, seconds in sorted(per_method.items(), key=lambda x: -x[1]):
            print(f"  {method:20s} {seconds:8.1f} s")


if __name__ == "__main__":
    main()
