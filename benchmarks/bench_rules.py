"""The four decision rules of FDLSR on one fitted model: accuracy and predict time.

Every rule shares the fitted projection ``Q`` (``set_params(decision_rule=...)``
switches without refitting), so each comparison is the same model, process and test
samples. For each rule: accuracy, predict time (after a warm-up, ``perf_counter``),
its ratio to the paper's 1-NN rule, and the numbers a model fitted with that rule keeps
beside ``Q`` (1-NN and k-NN: the n x c training projections; nearest class mean:
c x c centroids; linear: nothing).

1. Synthetic deep-feature-sized data (``bench_scale.make_features``: Gaussian class
   centres plus noise, L2-normalised, float32), ``--n-samples`` x 512, 1,000 classes.
2. Real data with the paper's protocol: k training images per class, 10 random splits
   (``fdlsr.model_selection._split.per_class_split``, seed 0), unit-normalised samples
   and each dataset's FDLSR parameters from its shipped config. On FERET the 1-NN
   accuracies are compared, split by split, with the stored rows behind
   docs/tables/feret.md (the paper's Table III setting). Predict times there are the
   best of ``--repeats``; on the synthetic set, one run.

    python benchmarks/bench_rules.py [--n-samples 100000] [--n-test 10000]
        [--datasets feret:5 orl:5 coil20:10] [--out benchmarks/results/rules.csv]
"""

import argparse
import csv
import json
import os
import platform
import time
from pathlib import Path

import numpy as np
import sklearn

from bench_scale import make_features  # noqa: E402
from fdlsr import FDLSR  # noqa: E402
from fdlsr._experiments.config import load_config  # noqa: E402
from fdlsr._experiments.samples import prepare  # noqa: E402
from fdlsr.datasets import load_dataset  # noqa: E402
from fdlsr.model_selection._split import per_class_split  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
RULES = [
    ("nearest_neighbor", {}),
    ("knn", {"n_neighbors": 5, "weights": "uniform"}),
    ("knn", {"n_neighbors": 5, "weights": "distance"}),
    ("nearest_mean", {}),
    ("linear", {}),
]


def label(rule, knn):
    if rule != "knn":
        return rule
    return f"knn (k={knn['n_neighbors']}, {knn['weights']})"


def kept_numbers(rule, n, c):
    """Numbers a model fitted with ``rule`` keeps beside Q (c x d)."""
    if rule in ("nearest_neighbor", "knn"):
        return n * c + c * c
    return c * c


def time_rules(model, X_test, y_test, repeats=1):
    """Accuracy and predict time (best of ``repeats``) of every rule on the fitted
    ``model``."""
    out = []
    for rule, knn in RULES:
        model.set_params(decision_rule=rule, **knn)
        model.predict(X_test[:50])  # warm-up
        seconds = np.inf
        for _ in range(repeats):
            start = time.perf_counter()
            pred = model.predict(X_test)
            seconds = min(seconds, time.perf_counter() - start)
        out.append((label(rule, knn), rule, float(np.mean(pred == y_test)), seconds))
    model.set_params(decision_rule="nearest_neighbor")
    return out


def synthetic(args, rows):
    n, d, c = args.n_samples, 512, 1000
    X, y, _ = make_features(n + args.n_test, d, c, 0, 0.3)
    X_test, y_test = X[n:].copy(), y[n:]
    X, y = X[:n], y[:n]
    model = FDLSR(alpha=1e-2, beta=1e-3, lam=1e-1)
    start = time.perf_counter()
    model.fit(X, y)
    fit = time.perf_counter() - start
    name = f"synthetic {n}x{d}x{c} float32"
    print(f"\n{name}: fit {fit:.1f} s, {args.n_test} test samples", flush=True)
    for rule_label, rule, accuracy, seconds in time_rules(model, X_test, y_test):
        rows.append(
            dict(
                dataset=name,
                k="",
                split=0,
                rule=rule_label,
                accuracy=accuracy,
                predict_time=seconds,
                n_train=n,
                n_test=args.n_test,
                kept=kept_numbers(rule, n, c),
            )
        )
        print(
            f"  {rule_label:28s} {100 * accuracy:6.2f}%  {seconds:8.3f} s", flush=True
        )


def stored_feret_accuracies(k):
    path = REPO / "docs" / "results" / "feret" / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line]
    return {
        r["split"]: r["accuracy"]
        for r in rows
        if r["method"] == "FDLSR" and r["k"] == k and r["tuning"] == "fixed"
    }


def real(name, k, args, rows):
    config = load_config(name)
    params = config.experiment.params.get("FDLSR", {})
    dataset = load_dataset(name, data_dir=args.data_dir)
    X, y = prepare(dataset), np.asarray(dataset.y)
    c = np.unique(y).size
    print(f"\n{name} k={k} ({args.splits} splits, FDLSR {params}):", flush=True)
    for index in range(args.splits):
        train, test = per_class_split(y, k, 0, index)
        model = FDLSR(**params).fit(X[train], y[train])
        timed = time_rules(model, X[test], y[test], args.repeats)
        for rule_label, rule, accuracy, seconds in timed:
            rows.append(
                dict(
                    dataset=name,
                    k=k,
                    split=index,
                    rule=rule_label,
                    accuracy=accuracy,
                    predict_time=seconds,
                    n_train=train.size,
                    n_test=test.size,
                    kept=kept_numbers(rule, train.size, c),
                )
            )
    if name == "feret":
        stored = stored_feret_accuracies(k)
        ours = {
            r["split"]: r["accuracy"]
            for r in rows
            if r["dataset"] == "feret"
            and r["k"] == k
            and r["rule"] == "nearest_neighbor"
        }
        same = all(stored.get(i) == ours[i] for i in ours)
        print(
            f"  1-NN per-split accuracies equal the stored FERET table rows "
            f"(docs/results/feret): {same}",
            flush=True,
        )


def summary(rows):
    print("\n| data | rule | accuracy (%) | predict time (s) | time / 1-NN | kept |")
    print("|---|---|---|---|---|---|")
    groups = {}
    for r in rows:
        groups.setdefault((r["dataset"], r["k"]), {}).setdefault(r["rule"], []).append(
            r
        )
    for (dataset, k), by_rule in groups.items():
        base = np.mean([r["predict_time"] for r in by_rule["nearest_neighbor"]])
        where = f"{dataset} k={k}" if k != "" else dataset
        for rule, group in by_rule.items():
            acc = 100 * np.array([r["accuracy"] for r in group])
            spread = f" ± {acc.std(ddof=1):.2f}" if acc.size > 1 else ""
            t = np.mean([r["predict_time"] for r in group])
            print(
                f"| {where} | {rule} | {acc.mean():.2f}{spread} | {t:.4f} | "
                f"{t / base:.3f} | {group[0]['kept']:,} |"
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=100_000)
    parser.add_argument("--n-test", type=int, default=10_000)
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument(
        "--repeats", type=int, default=3, help="best-of timings on the real data"
    )
    parser.add_argument(
        "--datasets", nargs="*", default=["feret:5", "orl:5", "coil20:10"]
    )
    parser.add_argument("--data-dir", default=os.environ.get("FDLSR_DATA_DIR"))
    parser.add_argument("--out", default=None, help="CSV of every measurement")
    args = parser.parse_args()
    print(
        f"load average at start: {os.getloadavg()}; {os.cpu_count()} CPUs; "
        f"Python {platform.python_version()}, NumPy {np.__version__}, "
        f"scikit-learn {sklearn.__version__}",
        flush=True,
    )
    rows = []
    for item in args.datasets:
        name, k = item.split(":")
        real(name, int(k), args, rows)
    if args.n_samples:
        synthetic(args, rows)
    summary(rows)
    print(f"load average at end: {os.getloadavg()}")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        with open(args.out, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
