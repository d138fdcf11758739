"""FDDL and LRSDL on FERET: accuracy, fit and predict time per split.

    FDLSR_DATA_DIR=../shared/data python benchmarks/bench_fisher_dictionaries.py \
        --k 5 --splits 1 --out results/fisher_dictionaries.csv

Splits are the paper's protocol (k random training images per person, the rest for
testing; tests/conftest.py's ``split_per_class`` with seeds 0, 1, ...). Samples are
unit-normalised as in the paper. One row per method x k x split; the environment is
printed first. Timings on a shared machine are noisy: compare within one run; the
``*_cpu_s`` columns (process CPU time, all threads) are less affected by other load.
"""

import argparse
import csv
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import scipy.io
from sklearn.preprocessing import normalize
from threadpoolctl import threadpool_info

from fdlsr.methods.dictionary import FDDL, LRSDL

REPO = Path(__file__).resolve().parents[1]


def load_feret():
    data = Path(os.environ.get("FDLSR_DATA_DIR", REPO.parent / "shared" / "data"))
    entry = json.loads((data / "MANIFEST.json").read_text())["feret"]
    mat = scipy.io.loadmat(data / entry["file"])
    X = np.asarray(mat[entry["x"]], dtype=np.float64)
    if entry["samples"] == "columns":
        X = X.T
    return normalize(X), np.asarray(mat[entry["y"]]).ravel().astype(int)


def split_per_class(y, k, seed):
    rng = np.random.default_rng(seed)
    train = np.concatenate(
        [rng.permutation(np.flatnonzero(y == c))[:k] for c in np.unique(y)]
    )
    return train, np.setdiff1d(np.arange(y.size), train)


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
    env = {
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "blas": [
            (i.get("internal_api"), i.get("num_threads")) for i in threadpool_info()
        ],
        "load": os.getloadavg(),
    }
    print(json.dumps(env), flush=True)
    X, y = load_feret()
    factories = {"FDDL": FDDL, "LRSDL": LRSDL}
    rows = []
    for k in args.k:
        for seed in range(args.splits):
            train, test = split_per_class(y, k, seed)
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
