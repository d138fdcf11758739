"""FDDL and LRSDL with 1, 2, 4, 8 BLAS threads: do they use the cores they have?

Any registered dictionary method can be named with ``--methods`` (LC-KSVD2, LCLE: their
atoms are ``dictionary_`` where FDDL's and LRSDL's are ``components_``).

On FERET (k = 5 by default, the protocol's split and unit normalisation, the
registry's parameters), each method is fitted and predicted with BLAS limited to each
``--threads`` count in turn (threadpoolctl), ``--repeats`` times. Prints the best wall
seconds of fit and predict, the speed-up over one thread, the CPU seconds (all
threads), and the largest relative difference of the fitted atoms and the test
decision values from the one-thread fit (threads may round products differently).
With ``--parts`` it prints, for the fit at each thread count, the wall seconds of the
costliest functions (cProfile, own time): the parts that do not shrink with more
threads are the ones that run outside BLAS.

Thread counts above the machine's cores measure nothing but contention: the script
prints the cores it sees (``os.sched_getaffinity``) and the load average, and marks
such counts.

    python benchmarks/bench_fisher_threads.py [--methods FDDL LRSDL] [--threads 1 2 4 8]
        [--k 5] [--repeats 2] [--parts]
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


def relative(a, b):
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300))


def atoms(model):
    """The learned dictionary, whichever name the method gives it."""
    if hasattr(model, "components_"):
        return model.components_
    return model.dictionary_


def build(name):
    """The registered method, its random initialisation fixed (as ``fdlsr run`` fixes
    it per split): LRSDL draws its shared atoms' samples, and an unseeded draw would
    differ between thread counts for a reason that is not the threads."""
    model = get_method(name).build()
    if "random_state" in model.get_params():
        model.set_params(random_state=0)
    return model


def run(name, X, y, train, test, threads, repeats, parts):
    best = dict(fit=np.inf, predict=np.inf, fit_cpu=np.inf)
    model = decision = None
    with threadpool_limits(threads), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(repeats):
            model = build(name)
            wall, cpu = time.perf_counter(), time.process_time()
            model.fit(X[train], y[train])
            best["fit"] = min(best["fit"], time.perf_counter() - wall)
            best["fit_cpu"] = min(best["fit_cpu"], time.process_time() - cpu)
            wall = time.perf_counter()
            decision = model.decision_function(X[test])
            best["predict"] = min(best["predict"], time.perf_counter() - wall)
        if parts:
            profiler = cProfile.Profile(time.perf_counter)
            profiler.runcall(build(name).fit, X[train], y[train])
            print(f"--- {name}, {threads} thread(s): own wall time of the costliest")
            pstats.Stats(profiler).sort_stats("tottime").print_stats(10)
    return best, model, decision


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="+", default=["FDDL", "LRSDL"])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--split", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--parts", action="store_true")
    parser.add_argument("--data-dir", default=os.environ.get("FDLSR_DATA_DIR"))
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    dataset = load_dataset("feret", data_dir=args.data_dir)
    X, y = prepare(dataset), np.asarray(dataset.y)
    train, test = per_class_split(y, args.k, 0, args.split)
    print(
        f"FERET k={args.k} split {args.split}; {cores} cores; best of {args.repeats}; "
        f"load average {os.getloadavg()[0]:.1f} at the start"
    )
    print(
        f"{'method':6s} {'BLAS':>4s} {'fit s':>7s} {'speed-up':>8s} {'CPU s':>7s} "
        f"{'predict s':>9s} {'speed-up':>8s}  rel. diff from 1 thread (atoms, decision)"
    )
    for name in args.methods:
        base = None
        for threads in args.threads:
            best, model, decision = run(
                name, X, y, train, test, threads, args.repeats, args.parts
            )
            if base is None:
                base = (best, model, decision)
            b, m, dec = base
            diff = (
                relative(atoms(model), atoms(m)),
                relative(decision, dec),
            )
            note = "  (more threads than cores)" if threads > cores else ""
            print(
                f"{name:6s} {threads:4d} {best['fit']:7.2f} "
                f"{b['fit'] / best['fit']:7.2f}x {best['fit_cpu']:7.2f} "
                f"{best['predict']:9.2f} {b['predict'] / best['predict']:7.2f}x  "
                f"{diff[0]:.1e}, {diff[1]:.1e}{note}",
                flush=True,
            )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
