"""The tuned LogisticRegression's search over C: a grid search from zero against
scikit-learn's warm-started C path, on every FERET run (k = 2..5 x 10 splits; k = 1 is
not tuned), in one process.

For each run, the protocol's inner cross-validation (``splits.inner_cv``: 3
stratified folds, shuffled with the run's seed) chooses C over the registered grid
twice, with BLAS on one thread:

* grid: scikit-learn's ``GridSearchCV`` of the registered estimator, each C of each
  fold fitted from zero (in the span of the fold's training samples);
* path: ``evaluation.tune``, i.e. ``LogisticRegressionCV`` (each fold's Cs in the
  grid's increasing order, each fit starting from the previous C's coefficients;
  the C of best mean fold accuracy, the first on ties, then its refit).

When the two choices differ, the registered estimator is refitted with each on the
whole training split and both test accuracies are printed. Per k: the fraction of
runs whose choice agrees, the mean test-accuracy difference (path - grid) and the CPU
ratio of the two searches.

    python benchmarks/bench_baselines_path.py [--k 2 3 4 5] [--splits 10]
"""

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.model_selection import GridSearchCV
from threadpoolctl import threadpool_limits

from fdlsr._experiments.evaluation import tune
from fdlsr._experiments.registry import get_method
from fdlsr._experiments.samples import prepare
from fdlsr._experiments.splits import inner_cv
from fdlsr.datasets import load_dataset
from fdlsr.model_selection._split import per_class_split


def grid_choice(method, X, y, cv):
    """The C of ``GridSearchCV`` over the registered grid, every fit from zero."""
    search = GridSearchCV(
        method.build(), {"C": method.grid["C"]}, cv=cv, scoring="accuracy", refit=False
    )
    return search.fit(X, y).best_params_["C"]


def test_accuracy(method, C, X, y, train, test):
    return method.build(C=C).fit(X[train], y[train]).score(X[test], y[test])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument("--data-dir", default=os.environ.get("FDLSR_DATA_DIR"))
    args = parser.parse_args()
    dataset = load_dataset("feret", data_dir=args.data_dir)
    X, y = prepare(dataset), np.asarray(dataset.y)
    method = get_method("LogisticRegression")
    print(
        f"FERET LogisticRegression, grid C = {method.grid['C']}; CPU seconds of each "
        f"search; load average {os.getloadavg()[0]:.1f} at the start"
    )
    warnings.simplefilter("ignore")
    with threadpool_limits(1):
        for k in args.k:
            same, cpu_grid, cpu_path, diffs = 0, 0.0, 0.0, []
            for split in range(args.splits):
                train, test = per_class_split(y, k, 0, split)
                cv = inner_cv(k, 0 + split, 3)
                start = time.process_time()
                grid = grid_choice(method, X[train], y[train], cv)
                cpu_grid += time.process_time() - start
                start = time.process_time()
                path = tune(method, X[train], y[train], cv, {})["C"]
                cpu_path += time.process_time() - start
                if path == grid:
                    same += 1
                    diffs.append(0.0)
                    line = "same"
                else:
                    a = test_accuracy(method, grid, X, y, train, test)
                    b = test_accuracy(method, path, X, y, train, test)
                    diffs.append(b - a)
                    line = f"test accuracy {100 * a:.2f}% -> {100 * b:.2f}%"
                print(
                    f"  k={k} split {split}: C {grid:g} -> {path:g}  {line}",
                    flush=True,
                )
            print(
                f"k={k}: same C in {same}/{args.splits}, mean test-accuracy difference "
                f"{100 * np.mean(diffs):+.2f} points, CPU {cpu_grid:.1f} s -> "
                f"{cpu_path:.1f} s ({cpu_grid / cpu_path:.2f}x)",
                flush=True,
            )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
