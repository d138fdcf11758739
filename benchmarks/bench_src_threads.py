"""SRC's feature-sign search with BLAS threads as set against one LAPACK thread.

``feature_sign_codes`` runs its many small solves (tens per test sample, each on the
active coefficients) with LAPACK on one thread; the plain loop over
``_feature_sign`` below runs them with the BLAS threads the process has (2 on the
2-core machines). USPS, ``--k`` training digits per class (split 0, unit-normalised),
the first ``--samples`` test digits, alternating, in one process: CPU and wall
milliseconds per test sample and the largest difference between the codes.

    python benchmarks/bench_src_threads.py [--k 30] [--samples 300] [--repeats 2]
"""

import argparse
import os
import time
import warnings

import numpy as np

from fdlsr._experiments.samples import prepare
from fdlsr.datasets import load_dataset
from fdlsr.model_selection._split import per_class_split
from fdlsr.representation import _src as src

LAM = 1e-2  # SRC's default


def threads_as_set(YD, G):
    codes = np.zeros_like(YD)
    for row, yd in enumerate(YD):
        codes[row], _ = src._feature_sign(yd, G, LAM, src.SIGN_ITER)
    return codes


def one_thread(YD, G):
    return src.feature_sign_codes(YD, G, LAM)[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=30)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--data-dir", default=os.environ.get("FDLSR_DATA_DIR"))
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    dataset = load_dataset("usps", data_dir=args.data_dir)
    X, y = prepare(dataset), np.asarray(dataset.y)
    train, test = per_class_split(y, args.k, 0, 0)
    D, Y = X[train], X[test[: args.samples]]
    G, YD = D @ D.T, Y @ D.T
    print(f"USPS k={args.k}: {len(train)} atoms, {len(Y)} test samples")
    codes = {}
    for _ in range(args.repeats):
        for name, code in (
            ("threads as set", threads_as_set),
            ("one thread", one_thread),
        ):
            load = os.getloadavg()[0]
            cpu, wall = time.process_time(), time.perf_counter()
            codes[name] = code(YD, G)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            print(
                f"{name:15s} {1000 * cpu / len(Y):6.2f} CPU ms, {1000 * wall / len(Y):6.2f}"
                f" wall ms per sample (load {load:.1f})",
                flush=True,
            )
    diff = np.abs(codes["threads as set"] - codes["one thread"]).max()
    print(f"largest difference between the codes: {diff:.1e}")


if __name__ == "__main__":
    main()
