"""FDLSR on a Dask array over a dask.distributed LocalCluster against the in-memory fit.

USPS in full (11,000 x 256, 10 digits), unit-normalised, as a Dask array of row chunks
on a LocalCluster of several single-threaded worker processes; prints the relative
difference of the projections and objectives, the agreement of the predictions and
both fit times.

    python benchmarks/bench_dask.py [--workers 2] [--chunk 1000]
"""

import argparse
import time

import dask.array as da
import numpy as np
from dask.distributed import Client, LocalCluster
from sklearn.preprocessing import normalize

from fdlsr import FDLSR
from fdlsr._testing import load_shared, shared_data_dir


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=1000)
    args = parser.parse_args()
    X, y = load_shared("usps", shared_data_dir(__file__))
    X = normalize(X)
    params = dict(alpha=1.0, beta=1e-2, lam=1.0)
    start = time.perf_counter()
    memory = FDLSR(**params).fit(X, y)
    memory_time = time.perf_counter() - start
    with (
        LocalCluster(
            n_workers=args.workers, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        Client(cluster),
    ):
        X_dask = da.from_array(X, chunks=(args.chunk, -1)).persist()
        start = time.perf_counter()
        model = FDLSR(**params).fit(X_dask, y)
        dask_time = time.perf_counter() - start
        predicted = model.predict(X_dask).compute()
    rel = np.linalg.norm(model.coef_ - memory.coef_) / np.linalg.norm(memory.coef_)
    obj = np.max(np.abs(model.objective_ / memory.objective_ - 1))
    print(
        f"USPS full n={X.shape[0]}, d={X.shape[1]}, {X.shape[0] // args.chunk} chunks,"
        f" {args.workers} workers: |Q_dask - Q| / |Q| = {rel:.1e}, max relative"
        f" objective difference {obj:.1e}, predictions equal on the training set:"
        f" {np.mean(predicted == memory.predict(X)):.4f};"
        f" fit in memory {memory_time:.1f} s, on the cluster {dask_time:.1f} s"
    )


if __name__ == "__main__":
    main()
