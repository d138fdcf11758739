"""FDDL's and LRSDL's code step (``_lrsdl_solver.update_codes``: FISTA on the codes)
before and after a change, in one process, alternately.

A whole FDDL fit at FERET k = 5 is about 500 of these FISTA iterations plus the
dictionary steps, 20 to 30 CPU seconds: under the shared machine's load its time
moves by more than a change of a few percent in the iteration. This times the
iteration alone: on the protocol's split (FERET or ORL, k training images per
person, unit-normalised, in the basis of the samples' span as the fit works),
with one atom per training sample (the registry's FDDL) and, for LRSDL, 5 shared
atoms (the first sample of 5 classes), ``--iterations`` FISTA iterations from zero
codes (``tol = 0``: all of them run), BLAS on ``--threads`` threads (CPU seconds on
one, wall seconds on more: the elementwise terms of the gradient now run on the slab
threads, which only a machine with idle cores can show). Each version runs
``--repeats`` times, alternating; it prints the median CPU seconds per iteration
of each, their ratio, and whether the codes are equal bit for bit.

    python benchmarks/bench_code_step.py [--dataset feret] [--k 5]
        [--iterations 40] [--repeats 5] [--threads 1 8] [--before 655845e]
"""

import argparse
import itertools
import os
import time

import numpy as np
from threadpoolctl import threadpool_limits

from fdlsr._experiments.samples import prepare
from fdlsr.datasets import load_dataset
from fdlsr.dictionary import _lrsdl_solver as new_solver
from fdlsr.dictionary._class_blocks import ClassBlocks
from fdlsr.model_selection._split import per_class_split
from revision import import_revision


def code_problem(X, y, k, n_shared):
    """``Y`` (span coordinates, columns sorted by class), blocks, ``D``, ``D0``."""
    train, _ = per_class_split(y, k, 0, 0)
    order = np.argsort(y[train], kind="stable")
    Xt, yt = X[train][order], y[train][order]
    _, Y = np.linalg.qr(Xt.T)
    counts = np.bincount(np.searchsorted(np.unique(yt), yt))
    D = Y / np.linalg.norm(Y, axis=0)
    D0 = D[:, np.cumsum(counts)[:n_shared] - 1].copy()
    return Y, counts, D, D0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=["feret", "orl"], default="feret")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, nargs="+", default=[1])
    # the commit before the split gradient of FDDL's and LRSDL's FISTA step
    parser.add_argument("--before", default="655845e")
    parser.add_argument("--data-dir", default=os.environ.get("FDLSR_DATA_DIR"))
    args = parser.parse_args()
    dataset = load_dataset(args.dataset, data_dir=args.data_dir)
    X, y = prepare(dataset), np.asarray(dataset.y)
    old_solver = import_revision("methods.dictionary._lrsdl_solver", args.before)
    old_blocks = import_revision("methods.dictionary._class_blocks", args.before)
    print(
        f"{args.dataset.upper()} k={args.k}, before = {args.before}; median of "
        f"{args.repeats}, {args.iterations} FISTA iterations; "
        f"load average {os.getloadavg()[0]:.1f} at the start"
    )
    for (name, n_shared), threads in itertools.product(
        (("FDDL", 0), ("LRSDL", 5)), args.threads
    ):
        Y, counts, D, D0 = code_problem(X, y, args.k, n_shared)
        clock = time.process_time if threads == 1 else time.perf_counter
        versions = {
            "before": (old_solver, old_blocks.ClassBlocks(counts, counts)),
            "after": (new_solver, ClassBlocks(counts, counts)),
        }
        times = {v: [] for v in versions}
        codes = {}
        with threadpool_limits(threads):
            for _ in range(args.repeats):
                for version, (solver, blocks) in versions.items():
                    pen = solver.Penalties(1e-3, 5e-2, 2e-2)
                    X0 = np.zeros((D.shape[1], Y.shape[1]))
                    S0 = np.zeros((D0.shape[1], Y.shape[1]))
                    start = clock()
                    codes[version] = solver.update_codes(
                        Y, blocks, D, D0, X0, S0, pen, max_iter=args.iterations, tol=0.0
                    )
                    times[version].append(clock() - start)
        before, after = (np.median(times[v]) / args.iterations for v in versions)
        same = all(
            np.array_equal(a, b)
            for a, b in zip(codes["before"], codes["after"], strict=True)
        )
        print(
            f"{name:6s} {threads:2d} thread(s), {'CPU' if threads == 1 else 'wall'}: "
            f"{1e3 * before:7.2f} ms -> {1e3 * after:7.2f} ms per iteration "
            f"({before / after:.3f}x); codes {'equal bit for bit' if same else 'DIFFER'}",
            flush=True,
        )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
