"""Command line: ``fdlsr`` runs FDLSR on scikit-learn's bundled digits.

A first, minimal front-end; experiments on other datasets come with ``fdlsr run``.
"""

import argparse
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer

from .estimator import FDLSR


def split_per_class(y, k, rng):
    train = np.concatenate(
        [rng.permutation(np.flatnonzero(y == c))[:k] for c in np.unique(y)]
    )
    return train, np.setdiff1d(np.arange(y.size), train)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="fdlsr",
        description="Fit FDLSR on scikit-learn's bundled digits: k random training "
        "images per class, the rest for testing, repeated over random splits.",
    )
    parser.add_argument("--splits", type=int, default=10, help="random splits (10)")
    parser.add_argument(
        "-k",
        type=int,
        nargs="+",
        default=[5, 10, 20, 40],
        help="training samples per class (5 10 20 40)",
    )
    args = parser.parse_args(argv)
    X, y = load_digits(return_X_y=True)
    print(
        "FDLSR on digits (1797 images, 64 features, 10 classes), "
        f"{args.splits} random splits; accuracy % mean +- std"
    )
    print(f"{'k':>4} {'accuracy':>16} {'train s':>9} {'test s':>9}")
    for k in args.k:
        acc, fit_t, test_t = [], [], []
        for seed in range(args.splits):
            train, test = split_per_class(y, k, np.random.default_rng(seed))
            model = make_pipeline(Normalizer(), FDLSR(alpha=1e-2, beta=1e-3, lam=1e-1))
            start = time.perf_counter()
            model.fit(X[train], y[train])
            fit_t.append(time.perf_counter() - start)
            start = time.perf_counter()
            acc.append(100 * np.mean(model.predict(X[test]) == y[test]))
            test_t.append(time.perf_counter() - start)
        print(
            f"{k:>4} {np.mean(acc):>8.2f} +- {np.std(acc, ddof=1):5.2f}"
            f" {np.mean(fit_t):>9.4f} {np.mean(test_t):>9.4f}"
        )


if __name__ == "__main__":
    main()
