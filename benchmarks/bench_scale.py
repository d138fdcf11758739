"""FDLSR on deep-feature-sized synthetic data: 1,000,000 x 512 float32, 1,000 classes.

Samples are Gaussian class centres (norm about ``--separation``) plus Gaussian noise
(norm about 1), L2-normalised (as the paper normalises), generated in chunks straight into one float32 array (2 GB). ``FDLSR.fit``
takes its blocked primal path by itself (the in-memory iteration would need four
1000 x 1e6 arrays): one pass over blocks of samples per iteration, the relaxed target
(n x c, 4 GB in float32) the only per-sample state. Then the paper's 1-NN rule for
10,000 test samples against the million training projections, in row chunks bounded
by ``working_memory``. Prints the times, the iteration rate (4 c n d flops per
iteration) against the measured float32 GEMM rate, the accuracy and the peak memory
(``ru_maxrss``) of the process.

    python benchmarks/bench_scale.py [--n-samples 1000000] [--n-test 10000]

With ``--memory`` it measures instead, with ``tracemalloc`` (NumPy reports its
allocations to it), the peak memory of ``FDLSR.fit`` on a scaled-down case, in
the dense (in-memory) and blocked iterations and with two decision rules, as a
ratio to the training data plus the c x n relaxed labels:

    python benchmarks/bench_scale.py --memory --n-samples 100000 --n-features 128 \
        --n-classes 100
"""

import argparse
import logging
import os
import resource
import sys
import time
import tracemalloc

import numpy as np
import sklearn

from bench_fit import gemm_rate  # noqa: E402
from fdlsr import FDLSR  # noqa: E402


def make_features(n, d, c, seed, separation, chunk=65536):
    """Class-structured unit vectors: a centre of norm about ``separation`` plus
    noise of norm about 1 (N(0, I/d)), then L2-normalised."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, separation / d**0.5, (c, d)).astype(np.float32)
    y = rng.permutation(np.arange(n) % c)
    X = np.empty((n, d), dtype=np.float32)
    for start in range(0, n, chunk):
        rows = slice(start, min(start + chunk, n))
        noise = rng.standard_normal((rows.stop - start, d), dtype=np.float32)
        block = centres[y[rows]] + noise * np.float32(d**-0.5)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        X[rows] = block
    return X, y, centres


def peak_gib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def _with_peak_memory(record):
    record.msg = (
        f"{record.msg} (peak {peak_gib():.2f} GiB, load {os.getloadavg()[0]:.1f})"
    )
    return True


def memory_peaks(n, d, c, separation, max_iter=5):
    """Peak bytes allocated during ``fit`` (X included) over X + the c x n relaxed
    labels, for the dense and blocked iterations and two decision rules."""
    X, y, _ = make_features(n, d, c, 0, separation)
    base = X.nbytes + c * n * X.itemsize
    print(
        f"{n} x {d} float32, {c} classes: X {X.nbytes / 2**20:.0f} MiB,"
        f" c x n labels {c * n * X.itemsize / 2**20:.0f} MiB"
    )
    # working_memory decides between the paths in every version of fdlsr
    paths = {"dense": 10**9, "blocked": 1}
    for rule in ("nearest_neighbor", "nearest_mean"):
        for path, memory in paths.items():
            model = FDLSR(
                alpha=1e-2, beta=1e-3, lam=1e-1, max_iter=max_iter, decision_rule=rule
            )
            with sklearn.config_context(working_memory=memory):
                tracemalloc.start()
                model.fit(X, y)
                peak = tracemalloc.get_traced_memory()[1] + X.nbytes
                tracemalloc.stop()
            print(
                f"  {path:8s} {rule:17s} peak {peak / 2**20:7.0f} MiB ="
                f" {peak / base:.2f} x (X + c x n labels)",
                flush=True,
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=1_000_000)
    parser.add_argument("--n-features", type=int, default=512)
    parser.add_argument("--n-classes", type=int, default=1000)
    parser.add_argument("--n-test", type=int, default=10_000)
    parser.add_argument(
        "--separation", type=float, default=0.3, help="class centre norm / noise norm"
    )
    parser.add_argument("--memory", action="store_true", help="tracemalloc peaks")
    args = parser.parse_args()
    if args.memory:
        memory_peaks(args.n_samples, args.n_features, args.n_classes, args.separation)
        return
    logging.basicConfig(
        format="  %(message)s", level=logging.INFO, stream=sys.stdout, force=True
    )
    for handler in logging.getLogger().handlers:  # handlers see propagated records
        handler.addFilter(_with_peak_memory)
    n, d, c = args.n_samples, args.n_features, args.n_classes
    print(f"load average at start: {os.getloadavg()}", flush=True)
    peak_rate = gemm_rate(np.float32)
    print(f"measured float32 GEMM rate: {peak_rate / 1e9:.1f} GFLOP/s", flush=True)

    start = time.perf_counter()
    X, y, centres = make_features(n + args.n_test, d, c, 0, args.separation)
    X_test, y_test = X[n:].copy(), y[n:]
    X, y = X[:n], y[:n]
    print(
        f"generated {n} x {d} float32 in {time.perf_counter() - start:.1f} s,"
        f" peak {peak_gib():.2f} GiB",
        flush=True,
    )

    model = FDLSR(alpha=1e-2, beta=1e-3, lam=1e-1)
    start = time.perf_counter()
    model.fit(X, y)
    fit_time = time.perf_counter() - start
    flops = model.n_iter_ * 4 * c * n * d
    print(
        f"fit: {fit_time:.1f} s ({fit_time / 60:.1f} min), {model.n_iter_} iterations,"
        f" peak {peak_gib():.2f} GiB",
        flush=True,
    )
    print(
        f"  iterations + Gram: {(flops + 2 * n * d * d) / fit_time / 1e9:.1f} GFLOP/s"
        f" over the whole fit ({100 * (flops + 2 * n * d * d) / fit_time / peak_rate:.0f}%"
        f" of the measured float32 GEMM rate; the Gram is float64)",
        flush=True,
    )
    del X

    start = time.perf_counter()
    with sklearn.config_context(working_memory=512):
        pred = model.predict(X_test)
    predict_time = time.perf_counter() - start
    print(
        f"predict {args.n_test} (1-NN over {n} projections): {predict_time:.1f} s,"
        f" {2 * args.n_test * n * c / predict_time / 1e9:.1f} GFLOP/s,"
        f" accuracy {np.mean(pred == y_test):.4f}, peak {peak_gib():.2f} GiB"
    )
    linear = FDLSR(decision_rule="linear")
    linear.__dict__.update({k: v for k, v in model.__dict__.items() if k.endswith("_")})
    print(f"  (linear rule argmax(Q x): accuracy {linear.score(X_test, y_test):.4f})")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
