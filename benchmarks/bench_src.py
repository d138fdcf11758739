"""SRC's solvers on FERET: feature-sign search (the default) against coordinate descent.

One FERET split per k (split 0, unit-normalised, seed 0), BLAS pinned to one thread,
both solvers in one process, alternating: CPU seconds of ``predict`` (the coding of
every test sample), the test accuracy of each and the share of test samples on which
their predictions agree.

    python benchmarks/bench_src.py [--k 5 2] [--repeats 1]
"""

import argparse
import os
import time

import numpy as np
from threadpoolctl import threadpool_limits

from fdlsr._experiments.samples import prepare
from fdlsr.datasets import load_dataset
from fdlsr.model_selection._split import per_class_split
from fdlsr.representation import SRC


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, nargs="+", default=[5, 2])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--data-dir", default=os.environ.get("FDLSR_DATA_DIR"))
    args = parser.parse_args()
    dataset = load_dataset("feret", data_dir=args.data_dir)
    X, y = prepare(dataset), np.asarray(dataset.y)
    print(f"load average {os.getloadavg()[0]:.1f}")
    for k in args.k:
        train, test = per_class_split(y, k, 0, 0)
        best, predicted = {}, {}
        with threadpool_limits(1):
            for _ in range(args.repeats):
                for solver in ("feature_sign", "cd"):
                    model = SRC(solver=solver).fit(X[train], y[train])
                    start = time.process_time()
                    predicted[solver] = model.predict(X[test])
                    seconds = time.process_time() - start
                    best[solver] = min(best.get(solver, np.inf), seconds)
        accuracy = {s: 100 * np.mean(p == y[test]) for s, p in predicted.items()}
        agree = 100 * np.mean(predicted["cd"] == predicted["feature_sign"])
        print(
            f"k={k}: predict CPU feature_sign {best['feature_sign']:.2f} s, cd "
            f"{best['cd']:.2f} s ({best['cd'] / best['feature_sign']:.1f}x); accuracy "
            f"{accuracy['feature_sign']:.2f}% / {accuracy['cd']:.2f}%; predictions "
            f"agree on {agree:.2f}% of {test.size} test samples",
            flush=True,
        )


if __name__ == "__main__":
    main()
