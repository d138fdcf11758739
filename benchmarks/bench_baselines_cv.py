"""The span-fitted baselines on FERET under GridSearchCV: fdlsr's against scikit-learn's.

One FERET split (k = 5 by default: n = 1000, d = 1600, c = 200, unit-normalised), the
protocol's inner cross-validation (3 stratified folds) over each method's grid, run
twice in one process with BLAS pinned to one thread: with fdlsr's estimators (fitted
in the span of the training samples) and with scikit-learn's own (GridSearchCV of the
plain estimator, same parameters). Prints the C each chooses, the mean fold accuracy
of every C, the CPU seconds of each search and their ratio, then the refit and test
accuracy of the chosen C. ``--old`` adds LinearSVC as it was before (``dual="auto"``,
which picks liblinear's dual solver here; slow: minutes). ``--fold`` instead times
single fits on the first inner fold, for every C: fdlsr's, scikit-learn's on the
same parameters, and LinearSVC's old dual solver (and prints each fold accuracy).

    python benchmarks/bench_baselines_cv.py [--k 5] [--split 0] [--old] [--fold]
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np
from sklearn import linear_model, svm
from sklearn.model_selection import GridSearchCV
from threadpoolctl import threadpool_limits

from fdlsr._experiments.registry import get_method
from fdlsr._experiments.samples import prepare
from fdlsr._experiments.splits import inner_cv
from fdlsr.datasets import load_dataset
from fdlsr.model_selection._split import per_class_split


def search(estimator, grid, X, y, cv):
    start = time.process_time()
    found = GridSearchCV(estimator, grid, cv=cv, refit=False).fit(X, y)
    return found, time.process_time() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--split", type=int, default=0)
    parser.add_argument("--data-dir", default=os.environ.get("FDLSR_DATA_DIR"))
    parser.add_argument("--old", action="store_true")
    parser.add_argument("--fold", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    dataset = load_dataset("feret", data_dir=args.data_dir)
    X, y = prepare(dataset), np.asarray(dataset.y)
    train, test = per_class_split(y, args.k, 0, args.split)
    cv = inner_cv(args.k, 0 + args.split)  # the protocol's folds for this split
    print(f"FERET k={args.k} split {args.split}: load {os.getloadavg()[0]:.1f}")
    plain = {
        "LinearSVC": [("scikit-learn", svm.LinearSVC)],
        "LogisticRegression": [("scikit-learn", linear_model.LogisticRegression)],
    }
    if args.old:
        plain["LinearSVC"].append(("old dual=auto", svm.LinearSVC))
    if args.fold:
        plain["LinearSVC"].append(("old dual=auto", svm.LinearSVC))
        fit, held = next(cv.split(X[train], y[train]))
        with threadpool_limits(1):
            fold_fits(
                plain, X[train][fit], y[train][fit], X[train][held], y[train][held]
            )
        return
    with threadpool_limits(1):
        for name, references in plain.items():
            method = get_method(name)
            grid = {"C": method.grid["C"]}
            ours, ours_time = search(method.build(), grid, X[train], y[train], cv)
            print(f"{name}: grid C {grid['C']}")
            show(" fdlsr", ours, ours_time)
            for label, factory in references:
                params = dict(method.params)
                if label.startswith("old"):
                    params.pop("dual")
                found, seconds = search(factory(**params), grid, X[train], y[train], cv)
                show(f" {label}", found, seconds)
                print(f"   CPU ratio {label} / fdlsr: {seconds / ours_time:.1f}")
            C = ours.best_params_["C"]
            start = time.process_time()
            model = method.build(C=C).fit(X[train], y[train])
            refit = time.process_time() - start
            print(
                f"   refit C={C:g}: {refit:.1f} s CPU, "
                f"test accuracy {100 * model.score(X[test], y[test]):.1f}%"
            )
            sys.stdout.flush()


def fold_fits(plain, X, y, X_held, y_held):
    for name, references in plain.items():
        method = get_method(name)
        for C in method.grid["C"]:
            for label, factory in [("fdlsr", method.build), *references]:
                params = {**method.params, "C": C}
                if label.startswith("old"):
                    params.pop("dual")
                start = time.process_time()
                model = factory(**params).fit(X, y)
                seconds = time.process_time() - start
                print(
                    f"{name} C={C:g} {label}: {seconds:.2f} s CPU, fold accuracy "
                    f"{100 * model.score(X_held, y_held):.1f}%, n_iter {model.n_iter_}",
                    flush=True,
                )


def show(label, found, seconds):
    scores = ", ".join(f"{100 * s:.1f}" for s in found.cv_results_["mean_test_score"])
    print(
        f"  {label}: C={found.best_params_['C']:g}, fold accuracy % [{scores}], "
        f"{seconds:.1f} s CPU"
    )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
