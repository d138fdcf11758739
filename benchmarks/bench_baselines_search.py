"""A tuned baseline's search over C: scikit-learn's GridSearchCV against the
registry's search (``cv_factory``), on every FERET run with an inner
cross-validation (k = 2..5, 10 splits), in one process, BLAS on one thread.

For each run, the protocol's inner cross-validation (``splits.inner_cv``: 3
stratified folds, shuffled with the run's seed) chooses C over the registered grid
twice, alternating which goes first:

* grid: ``GridSearchCV`` of the registered estimator (every C of every fold fitted
  from scratch), as ``evaluation.tune`` did before the method had a ``cv_factory``;
* search: ``evaluation.tune`` as it runs now (LinearSVC: every C of a fold in one
  batch, ``fdlsr._baselines.linear_svc_search``; LogisticRegression: each fold's span
  once and scikit-learn's L-BFGS steps without the bounds' bookkeeping,
  ``fdlsr._baselines.logistic_regression_search``).

When the two choices differ, the registered estimator is refitted with each on the
whole training split and both test accuracies are printed, with GridSearchCV's mean
validation accuracies. Per k: how many runs chose the same C, the mean
test-accuracy difference (search - grid), the CPU seconds of each and their ratio.
``--stored STORE`` also counts agreement with the C of a results store's rows.
``--explain`` prints, for a run whose choices differ, the search's mean fold
accuracies and GridSearchCV's again on the training samples times ``1 + 1e-15``
(what rounding alone moves); ``--first-split S`` starts at split S.

    python benchmarks/bench_baselines_search.py [--method LinearSVC | LogisticRegression]
        [--k 2 3 4 5] [--splits 10] [--first-split 0] [--stored docs/results/feret]
        [--explain]
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
from fdlsr._experiments.store_folder import read_store
from fdlsr.datasets import load_dataset
from fdlsr.model_selection._split import per_class_split


def grid_choice(method, X, y, cv):
    search = GridSearchCV(method.build(), method.grid, cv=cv, scoring="accuracy")
    search.set_params(refit=False).fit(X, y)
    return search.best_params_["C"], search.cv_results_["mean_test_score"]


def test_accuracy(method, C, X, y, train, test):
    return method.build(C=C).fit(X[train], y[train]).score(X[test], y[test])


def explain(method, X, y, cv):
    """The search's mean fold accuracies, and GridSearchCV's on ``X (1 + 1e-15)``."""
    search = method.cv_factory(grid=dict(method.grid), cv=cv, **method.params)
    search.set_params(refit=False).fit(X, y)
    text = ""
    if hasattr(search, "cv_scores_"):
        text += f"\n    search's means {np.round(search.cv_scores_.mean(axis=1), 4)}"
    choice, means = grid_choice(method, X * (1 + 1e-15), y, cv)
    return text + f"\n    grid's on X (1 + 1e-15): {np.round(means, 4)}, C {choice:g}"


def stored_choices(store, name):
    return {
        (row["k"], row["split"]): row["params"]["C"]
        for row in read_store(store).rows
        if row.get("method") == name and row.get("tuning") == "cv" and row.get("params")
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", default="LinearSVC")
    parser.add_argument("--k", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument("--first-split", type=int, default=0)
    parser.add_argument("--explain", action="store_true")
    parser.add_argument("--stored", help="a results store whose choices to compare")
    parser.add_argument("--data-dir", default=os.environ.get("FDLSR_DATA_DIR"))
    args = parser.parse_args()
    dataset = load_dataset("feret", data_dir=args.data_dir)
    X, y = prepare(dataset), np.asarray(dataset.y)
    method = get_method(args.method)
    stored = stored_choices(args.stored, args.method) if args.stored else {}
    print(
        f"FERET {args.method}, grid C = {method.grid['C']}; CPU seconds of each "
        f"search; load average {os.getloadavg()[0]:.1f} at the start"
    )
    warnings.simplefilter("ignore")
    totals = {"grid": 0.0, "search": 0.0}
    with threadpool_limits(1):
        for k in args.k:
            same, same_stored, cpu, diffs = 0, 0, {"grid": 0.0, "search": 0.0}, []
            for split in range(args.first_split, args.first_split + args.splits):
                train, test = per_class_split(y, k, 0, split)
                cv = inner_cv(k, 0 + split, 3)
                Xt, yt = X[train], y[train]
                order = ["grid", "search"] if split % 2 == 0 else ["search", "grid"]
                for which in order:
                    start = time.process_time()
                    if which == "grid":
                        grid, grid_means = grid_choice(method, Xt, yt, cv)
                    else:
                        chosen = tune(method, Xt, yt, cv, {})["C"]
                    cpu[which] += time.process_time() - start
                line = ""
                if chosen == grid:
                    same += 1
                    diffs.append(0.0)
                else:
                    a = test_accuracy(method, grid, X, y, train, test)
                    b = test_accuracy(method, chosen, X, y, train, test)
                    diffs.append(b - a)
                    line = (
                        f"  grid's mean fold accuracies {np.round(grid_means, 4)}; "
                        f"test accuracy {100 * a:.2f}% -> {100 * b:.2f}%"
                    )
                if chosen != grid and args.explain:
                    line += explain(method, Xt, yt, cv)
                if (k, split) in stored:
                    same_stored += chosen == stored[k, split]
                    line += f"  stored {stored[k, split]:g}"
                print(
                    f"  k={k} split {split}: C {grid:g} -> {chosen:g}{line}", flush=True
                )
            for which in cpu:
                totals[which] += cpu[which]
            print(
                f"k={k}: same C in {same}/{args.splits}"
                + (f" (as stored: {same_stored})" if stored else "")
                + f", mean test-accuracy difference {100 * np.mean(diffs):+.2f} points, "
                f"CPU {cpu['grid']:.1f} s -> {cpu['search']:.1f} s "
                f"({cpu['grid'] / cpu['search']:.2f}x)",
                flush=True,
            )
    print(
        f"all: CPU {totals['grid']:.1f} s -> {totals['search']:.1f} s "
        f"({totals['grid'] / totals['search']:.2f}x); load average "
        f"{os.getloadavg()[0]:.1f} at the end"
    )


if __name__ == "__main__":
    main()
