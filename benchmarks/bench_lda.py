"""The registered LDA against scikit-learn's own class, in one process.

On FERET (the protocol's splits and unit normalisation), scikit-learn's
``LinearDiscriminantAnalysis(solver="lsqr", shrinkage=...)`` (one shrunk covariance
per class) and the registered LDA (``fdlsr._baselines.estimators``: the pooled
covariance in one product, a Cholesky solve) are fitted alternately ``--repeats``
times with BLAS on ``--threads`` threads. Prints the best CPU seconds of each fit,
their ratio, and the relative difference of the test decision values (Frobenius).

    python benchmarks/bench_lda.py [--k 2 3 4 5] [--split 0] [--shrinkage 0.5 0.01]
        [--threads 1] [--repeats 3]
"""

import argparse
import os
import time

import numpy as np
from sklearn import discriminant_analysis
from threadpoolctl import threadpool_limits

from fdlsr._baselines.estimators import LinearDiscriminantAnalysis
from fdlsr._experiments.samples import prepare
from fdlsr.datasets import load_dataset
from fdlsr.model_selection._split import per_class_split


def best_fit(cls, kwargs, X, y, repeats):
    best, model = np.inf, None
    for _ in range(repeats):
        model = cls(**kwargs)
        start = time.process_time()
        model.fit(X, y)
        best = min(best, time.process_time() - start)
    return best, model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--split", type=int, default=0)
    parser.add_argument("--shrinkage", type=float, nargs="+", default=[0.5, 0.01])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data-dir", default=os.environ.get("FDLSR_DATA_DIR"))
    args = parser.parse_args()
    dataset = load_dataset("feret", data_dir=args.data_dir)
    X, y = prepare(dataset), np.asarray(dataset.y)
    print(
        f"FERET split {args.split}, BLAS {args.threads} thread(s), best of "
        f"{args.repeats}, CPU seconds; load average {os.getloadavg()[0]:.1f}"
    )
    print(f"{'k':>2s} {'shrinkage':>9s} {'scikit-learn':>12s} {'fdlsr':>8s} "
          f"{'ratio':>7s}  rel. diff of decision values")  # fmt: skip
    with threadpool_limits(args.threads):
        for k in args.k:
            train, test = per_class_split(y, k, 0, args.split)
            for shrinkage in args.shrinkage:
                kwargs = dict(solver="lsqr", shrinkage=shrinkage)
                times, models = {}, {}
                for name, cls in (
                    ("scikit-learn", discriminant_analysis.LinearDiscriminantAnalysis),
                    ("fdlsr", LinearDiscriminantAnalysis),
                ):
                    times[name], models[name] = best_fit(
                        cls, kwargs, X[train], y[train], args.repeats
                    )
                old = models["scikit-learn"].decision_function(X[test])
                new = models["fdlsr"].decision_function(X[test])
                diff = np.linalg.norm(new - old) / np.linalg.norm(old)
                print(
                    f"{k:2d} {shrinkage:9g} {times['scikit-learn']:12.3f} "
                    f"{times['fdlsr']:8.3f} {times['scikit-learn'] / times['fdlsr']:6.1f}x"
                    f"  {diff:.1e}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
