"""The LSR family on FERET: parameter selection, one timed split, the 10-split protocol.

Every fit sees unit-normalised samples (as in the paper) and the splits of ``fdlsr
run``: ``per_class_split(y, k, 0, split)``, ``k`` random images per person for
training, splits 0..9.

    python benchmarks/lsr_family_feret.py select    # inner CV on one training set
    python benchmarks/lsr_family_feret.py single    # k=5, seed 0: accuracy, median times
    python benchmarks/lsr_family_feret.py protocol  # 10 splits x k=2..5

``select`` never looks at a test set: it cross-validates on the training images of
split (k=5, seed 0), leaving one image per person out in each of 5 folds. Results
(one row per method x split x setting) and the environment go to ``--out``
(default ``benchmarks/results``) as CSV and JSON.
"""

import argparse
import csv
import itertools
import json
import time
from pathlib import Path

import numpy as np
from sklearn.preprocessing import normalize
from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
from fdlsr._common.neighbors import NearestProjection  # noqa: E402
from fdlsr._experiments.environment import environment  # noqa: E402
from fdlsr._experiments.registry import METHODS  # noqa: E402
from fdlsr._testing import load_shared, shared_data_dir  # noqa: E402
from fdlsr.model_selection._split import per_class_split  # noqa: E402

# Table III of the FDLSR paper (mean accuracy %, k = 2, 3, 4, 5 images per person).
PAPER = {
    "DLSR": [46.15, 60.75, 71.45, 79.20],
    "ReLSR": [46.48, 61.78, 73.13, 80.18],
    "GReLSR": [49.62, 61.91, 70.15, 74.55],
    "DRR": [43.47, 58.85, 70.52, 77.75],
    "LRDLSR": [63.84, 81.10, 87.68, 90.93],
}


def timed(f, repeats=1):
    """``(result, median seconds)`` of ``repeats`` calls of ``f``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - start)
    return out, float(np.median(times))


def write(rows, out, name, threads):
    out.mkdir(parents=True, exist_ok=True)
    with open(out / f"{name}.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    (out / f"{name}.env.json").write_text(
        json.dumps({**environment(), "blas_threads": threads}, indent=1)
    )
    print(f"wrote {out / name}.csv")


def select(X, y, methods, out, threads, name, params=None):
    """Grid search by leave-one-image-per-person-out CV on one training set.

    ``params`` fixes settings outside the grid (e.g. the decision rule).
    """
    params = params or {}
    train, _ = per_class_split(y, 5, 0, 0)
    Xt, yt = X[train], y[train]
    rng = np.random.default_rng(0)
    folds = np.empty(yt.size, dtype=int)
    for c in np.unique(yt):
        idx = np.flatnonzero(yt == c)
        folds[idx] = rng.permutation(idx.size)
    rows = []
    for method in methods:
        names = sorted(method.grid)
        for values in itertools.product(*(method.grid[n] for n in names)):
            grid_params = dict(zip(names, values, strict=True))
            accs = []
            for f in range(5):
                model = method.build(**params, **grid_params)
                model.fit(Xt[folds != f], yt[folds != f])
                accs.append(model.score(Xt[folds == f], yt[folds == f]))
            rows.append(
                {
                    "method": method.name,
                    "params": json.dumps({**params, **grid_params}),
                    "cv_accuracy": 100 * float(np.mean(accs)),
                }
            )
            print(rows[-1], flush=True)
    write(rows, out, name, threads)


def other_rule(model, X_train, y_train, X_test):
    """Predictions of a fitted model under the decision rule it was not built with."""
    if model.decision_rule == "nearest_neighbor":
        return model.classes_[np.argmax(model.transform(X_test), axis=1)], "argmax"
    codes = np.searchsorted(model.classes_, y_train)
    neighbors = NearestProjection(model.transform(X_train), codes, len(model.classes_))
    scores = neighbors.scores(model.transform(X_test))
    return model.classes_[np.argmax(scores, axis=1)], "1-NN"


def evaluate(
    X, y, methods, ks, seeds, out, name, threads, both_rules, repeats=1, params=None
):
    params = params or {}
    rows = []
    for k, seed in itertools.product(ks, seeds):
        train, test = per_class_split(y, k, 0, seed)
        for method in methods:
            model = method.build(**params)
            model.fit(X[train[:50]], y[train[:50]])  # warm-up
            model, fit_s = timed(lambda m=model, t=train: m.fit(X[t], y[t]), repeats)
            pred, predict_s = timed(lambda m=model, t=test: m.predict(X[t]), repeats)
            row = {
                "method": method.name,
                "dataset": "feret",
                "k": k,
                "seed": seed,
                "accuracy": 100 * float(np.mean(pred == y[test])),
                "fit_s": fit_s,
                "predict_s": predict_s,
                "n_iter": getattr(model, "n_iter_", ""),
                "params": json.dumps({**method.params, **params}),
            }
            rows.append(row)
            print(row, flush=True)
            if both_rules:
                (pred, rule), predict_s = timed(
                    lambda m=model, t=test, r=train: other_rule(m, X[r], y[r], X[t])
                )
                rows.append(
                    {
                        **row,
                        "method": f"{method.name} [{rule}]",
                        "accuracy": 100 * float(np.mean(pred == y[test])),
                        "predict_s": predict_s,
                    }
                )
    write(rows, out, name, threads)
    summarise(rows)


def summarise(rows):
    methods = list(dict.fromkeys(r["method"] for r in rows))
    ks = sorted({r["k"] for r in rows})
    print("| method | " + " | ".join(f"k={k}" for k in ks) + " | fit s | predict s |")
    print("|---" * (len(ks) + 3) + "|")
    for m in methods:
        cells = []
        for k in ks:
            acc = [r["accuracy"] for r in rows if r["method"] == m and r["k"] == k]
            paper = PAPER.get(m, [None] * 4)[k - 2] if 2 <= k <= 5 else None
            ref = f" ({paper:.2f})" if paper is not None else ""
            cells.append(
                f"{np.mean(acc):.2f} +- {np.std(acc, ddof=1) if len(acc) > 1 else 0:.2f}{ref}"
            )
        mine = [r for r in rows if r["method"] == m and r["k"] == max(ks)]
        fit = np.median([r["fit_s"] for r in mine])
        pred = np.median([r["predict_s"] for r in mine])
        print(f"| {m} | " + " | ".join(cells) + f" | {fit:.3f} | {pred:.3f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["select", "single", "protocol"])
    parser.add_argument("--methods", nargs="*", default=None)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument(
        "--both-rules",
        action="store_true",
        help="also score each fitted model with the other decision rule",
    )
    parser.add_argument(
        "--params",
        type=json.loads,
        default=None,
        help="JSON overrides of the registered parameters, e.g. '{\"lam\": 0.1}'",
    )
    parser.add_argument("--name", default=None, help="output file name (no suffix)")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="BLAS threads (1 is steadiest on a shared machine)",
    )
    args = parser.parse_args()
    X, y = load_shared("feret", shared_data_dir(__file__))
    X = normalize(X)
    methods = [
        m
        for m in METHODS.values()
        if m.family == "relaxed" and (args.methods is None or m.name in args.methods)
    ]
    with threadpool_limits(limits=args.threads, user_api="blas"):
        if args.mode == "select":
            select(
                X,
                y,
                [m for m in methods if m.grid],
                args.out,
                args.threads,
                args.name or "lsr_family_feret_select",
                params=args.params,
            )
        elif args.mode == "single":
            evaluate(
                X,
                y,
                methods,
                [5],
                [0],
                args.out,
                args.name or "lsr_family_feret_single",
                args.threads,
                args.both_rules,
                repeats=3,
                params=args.params,
            )
        else:
            evaluate(
                X,
                y,
                methods,
                [2, 3, 4, 5],
                range(10),
                args.out,
                args.name or "lsr_family_feret_protocol",
                args.threads,
                args.both_rules,
                params=args.params,
            )


if __name__ == "__main__":
    main()
