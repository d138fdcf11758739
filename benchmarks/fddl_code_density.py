"""How sparse are FDDL's and LRSDL's codes while FISTA iterates? (issue 13, goal 3)

Each FISTA step of their coding update multiplies a K x K matrix by the K x n codes
(FERET k = 5: 1000 x 1000 by 1000 x 1000). Sparse codes could make that product
cheaper: a sparse product would pay off only below a few percent of nonzeros, and a
dense product restricted to the atoms a block of samples uses only if those blocks
use few atoms. This script records the point at which every gradient is taken, for
the registry's FDDL and LRSDL on FERET k = 5, split 0 (unit-normalised), and prints
the share of nonzero codes and the share of atoms used by the samples of one class
(5 columns) and of 10 classes (50 columns).

    python benchmarks/fddl_code_density.py [--methods FDDL LRSDL]
"""

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

import fdlsr.dictionary._lrsdl_solver as solver
from bench_fit import feret_training
from fdlsr._experiments.registry import get_method


def atoms_used(codes, columns):
    """Mean share of rows with a nonzero entry in each block of ``columns`` columns."""
    n = codes.shape[1]
    return float(
        np.mean(
            [
                np.any(codes[:, s : s + columns] != 0, axis=1).mean()
                for s in range(0, n, columns)
            ]
        )
    )


def record(method, X, y):
    """Fit ``method`` and return, per FISTA step of the coding update, the share of
    nonzero codes and of atoms used per 5 and 50 samples."""
    seen = []
    fista = solver.fista

    def recording_fista(grad, X0, *args, **kwargs):
        def watched(V):
            # Every 10th step: the product dominates the step, not this check.
            if V.ndim == 2 and len(seen) % 10 == 0:
                seen.append((np.mean(V != 0), atoms_used(V, 5), atoms_used(V, 50)))
            elif V.ndim == 2:
                seen.append(None)
            return grad(V)

        return fista(watched, X0, *args, **kwargs)

    solver.fista = recording_fista
    try:
        start = time.process_time()
        get_method(method).build().fit(X, y)
        seconds = time.process_time() - start
    finally:
        solver.fista = fista
    return len(seen), np.array([s for s in seen if s is not None]), seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="+", default=["FDDL", "LRSDL"])
    args = parser.parse_args()
    X, y = feret_training()  # sorted: a class's samples side by side
    print(f"FERET k=5, split 0: n={X.shape[0]}, d={X.shape[1]}")
    with threadpool_limits(1):
        for method in args.methods:
            steps, stats, seconds = record(method, X, y)
            q = np.quantile(stats, [0.1, 0.5, 0.9], axis=0)
            print(
                f"{method}: {steps} coding steps (every 10th sampled), fit"
                f" {seconds:.1f} CPU s on one thread\n"
                f"  nonzero codes        10/50/90%: {q[0, 0]:.3f} {q[1, 0]:.3f} {q[2, 0]:.3f}\n"
                f"  atoms used, 1 class  10/50/90%: {q[0, 1]:.3f} {q[1, 1]:.3f} {q[2, 1]:.3f}\n"
                f"  atoms used, 10 classes        : {q[0, 2]:.3f} {q[1, 2]:.3f} {q[2, 2]:.3f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
