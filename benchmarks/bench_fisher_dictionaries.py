"""FDDL and LRSDL on FERET: accuracy, fit and predict time per split.

    FDLSR_DATA_DIR=../shared/data python benchmarks/bench_fisher_dictionaries.py \
        --k 5 --splits 1 --out results/fisher_dictionaries.csv

Splits are the paper's protocol (k random training images per person, the rest for
testing; the library's ``per_class_split(y, k, 0, split)`` for splits 0, 1, ..., as
``fdlsr run`` draws them). Samples are
unit-normalised as in the paper. One row per method x k x split; the environment is
printed first. Timings on a shared machine are noisy: compare within one run; the
``*_cpu_s`` columns (process CPU time, all threads) are less affected by other load.
"""

import argparse
import csv
import json
import time
from pathlib import Path

import numpy as np
from sklearn.preprocessing import normalize

from fdlsr._experiments.environment import environment
from fdlsr._testing import load_shared, shared_data_dir
from fdlsr.dictionary import FDDL, LRSDL
from fdlsr.model_selection._split import per_class_split

REPO = Path(__file__).resolve().parents[1]


def normalized_feret():
    X, y = load_shared("feret", shared_data_dir(__file__))
    return normalize(X), y


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, nargs="+", default=[5])
    parser.add_argument("--splits", type=int, default=1)
    parser.add_argument("--methods", nargs="+", default=["FDDL", "LRSDL"])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument(
        "--set", nargs="*", default=[], help="parameter overrides, name=value"
    )
    args = parser.parse_args(argv)
    overrides = {}
    for item in args.set:
        name, value = item.split("=")
        overrides[name] = float(value) if "." in value or "e" in value else int(value)
    print(json.dumps(environment()), flush=True)
    X, y = normalized_feret()
    factories = {"FDDL": FDDL, "LRSDL": LRSDL}
    rows = []
    for k in args.k:
        for seed in range(args.splits):
            train, test = per_class_split(y, k, 0, seed)
            for name in args.methods:
                model = factories[name](random_state=seed, **overrides)
                t0, c0 = time.perf_counter(), time.process_time()
                model.fit(X[train], y[train])
                t1, c1 = time.perf_counter(), time.process_time()
                accuracy = float(np.mean(model.predict(X[test]) == y[test]))
                t2, c2 = time.perf_counter(), time.process_time()
                row = dict(
                    method=name,
                    k=k,
                    split=seed,
                    accuracy=round(100 * accuracy, 2),
                    fit_s=round(t1 - t0, 2),
                    predict_s=round(t2 - t1, 2),
                    fit_cpu_s=round(c1 - c0, 2),
                    predict_cpu_s=round(c2 - c1, 2),
                    n_iter=model.n_iter_,
                    objective_first=float(model.objective_[0]),
                    objective_last=float(model.objective_[-1]),
                    n_shared_kept=model.shared_components_.shape[0],
                    **{f"param_{p}": v for p, v in overrides.items()},
                )
                rows.append(row)
                print(json.dumps(row), flush=True)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with open(args.out, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    for name in args.methods:
        for k in args.k:
            acc = [r["accuracy"] for r in rows if r["method"] == name and r["k"] == k]
            print(
                f"{name} k={k}: {np.mean(acc):.2f} +- {np.std(acc):.2f} over {len(acc)}"
            )


if __name__ == "__main__":
    main()
