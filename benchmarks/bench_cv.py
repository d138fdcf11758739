"""FDLSRCV against GridSearchCV(FDLSR()) on FERET, same grid and folds, in one process.

FERET with 5 training images per person (n = 1000, d = 1600, c = 200), unit-normalised
as in the paper, the paper's 6 x 6 x 6 grid of (alpha, beta, lambda) and 5 stratified
folds. Both searches must select the same parameters with the same validation scores;
the script prints both, the time ratio, and the rate of FDLSRCV's whole search (every
matrix-product flop it performs, over its wall time) as a fraction of this machine's
measured matrix-multiply rate, per wall second and per CPU second (all threads of the
process; on a shared machine the latter does not depend on the share of the CPU the
process gets). The eigendecompositions (O(n^3) per fold) are not
counted as flops, so the fraction is a lower bound.

    python benchmarks/bench_cv.py [--values 6] [--seed 0] [--json out.json]

``--values 3`` takes every other grid value (27 grid points) for a quick check;
``--only-fdlsrcv`` times FDLSRCV alone.
"""

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.preprocessing import normalize
from threadpoolctl import threadpool_info

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

from conftest import load_shared, split_per_class  # noqa: E402
from fdlsr import FDLSR, FDLSRCV  # noqa: E402
from fdlsr.core.cv import PAPER_GRID  # noqa: E402


def search_flops(X, y, folds, n_alphas, n_betas, n_lams, max_iter=30):
    """Matrix-product flops of FDLSRCV's search plus its refit (dual form, n < d).

    Per fold: the Gram matrix ``X X^T`` (2 n^2 d), ``X_test X^T`` (2 m n d), per beta
    the hat matrix (2 n^3) and the read-out matrix (2 n^2 m), the iterations
    (``max_iter`` products of (g c) x n by n x n), the read-out ``T W`` (2 g c n m) and
    the 1-NN similarities (2 g m c n). The refit counts its Gram, Cholesky inverse
    (n^3) and iterations.
    """
    d = X.shape[1]
    c = np.unique(y).size
    g = n_alphas * n_lams
    total = 0
    for train, test in folds:
        n, m = len(train), len(test)
        total += 2 * n * n * d + 2 * m * n * d
        total += n_betas * (2 * n**3 + 2 * n * n * m)
        total += n_betas * max_iter * 2 * g * c * n * n
        total += n_betas * (2 * g * c * n * m + 2 * g * m * c * n)
    n = X.shape[0]
    total += 2 * n * n * d + n**3 + max_iter * 2 * c * n * n
    return total


def gemm_rates(dtype=np.float64, size=2000, repeats=5):
    """Best-of-N square product rate per wall second and per CPU second (all threads):
    on a shared machine the second does not depend on the share of the CPU given."""
    a = np.random.default_rng(0).random((size, size)).astype(dtype)
    a @ a
    best_wall = best_cpu = np.inf
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        a @ a
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return 2 * size**3 / best_wall, 2 * size**3 / best_cpu


def environment():
    blas = [
        {
            k: v
            for k, v in lib.items()
            if k in ("internal_api", "version", "num_threads", "architecture")
        }
        for lib in threadpool_info()
    ]
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in open("/proc/cpuinfo")
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "blas": blas,
        "numpy": np.__version__,
        "loadavg": os.getloadavg(),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", type=int, default=6, choices=[2, 3, 6])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--only-fdlsrcv", action="store_true", help="skip GridSearchCV (no ratio)"
    )
    args = parser.parse_args()

    grid = PAPER_GRID[:: 6 // args.values]
    X, y = load_shared("feret")
    train, _ = split_per_class(y, 5, seed=args.seed)
    X, y = normalize(X[train]), y[train]
    cv = StratifiedKFold(5)
    folds = list(cv.split(X, y))
    print(f"FERET k=5: n={X.shape[0]}, d={X.shape[1]}, {len(grid)}^3 grid, 5 folds")
    env = environment()
    print(f"CPU {env['cpu']}, {env['cores']} cores, BLAS {env['blas']}")
    print(f"load average at start: {env['loadavg']}", flush=True)

    peak, peak_cpu = gemm_rates()
    start, cpu = time.perf_counter(), time.process_time()
    fast = FDLSRCV(alphas=grid, betas=grid, lams=grid, cv=cv).fit(X, y)
    fast_time = time.perf_counter() - start
    fast_cpu = time.process_time() - cpu
    flops = search_flops(X, y, folds, len(grid), len(grid), len(grid))
    print(
        f"FDLSRCV: best {fast.best_params_} in {fast_time:.1f} s,"
        f" {flops / fast_time / 1e9:.1f} GFLOP/s (GEMM rate before: {peak / 1e9:.1f});"
        f" CPU time {fast_cpu:.1f} s: {flops / fast_cpu / 1e9:.1f} GFLOP per CPU second"
        f" (GEMM: {peak_cpu / 1e9:.1f}); load {os.getloadavg()}",
        flush=True,
    )

    if args.only_fdlsrcv:
        return
    start, cpu = time.perf_counter(), time.process_time()
    slow = GridSearchCV(FDLSR(), {"alpha": grid, "beta": grid, "lam": grid}, cv=cv).fit(
        X, y
    )
    slow_time = time.perf_counter() - start
    slow_cpu = time.process_time() - cpu
    after, after_cpu = gemm_rates()
    peak, peak_cpu = max(peak, after), max(peak_cpu, after_cpu)

    fast_scores = fast.cv_results_["mean_test_score"]
    slow_scores = slow.cv_results_["mean_test_score"]
    differing = int(np.sum(fast_scores != slow_scores))
    rate = flops / fast_time
    print(f"FDLSRCV      best {fast.best_params_} score {fast.best_score_:.4f}")
    print(f"GridSearchCV best {slow.best_params_} score {slow.best_score_:.4f}")
    print(
        f"grid points with different mean scores: {differing} of {fast_scores.size}"
        f" (max |diff| {np.max(np.abs(fast_scores - slow_scores)):.2e})"
    )
    same_ranks = np.array_equal(
        fast.cv_results_["rank_test_score"], slow.cv_results_["rank_test_score"]
    )
    print(f"same ranks: {same_ranks}")
    print(
        f"time: FDLSRCV {fast_time:.1f} s, GridSearchCV {slow_time:.1f} s,"
        f" ratio {slow_time / fast_time:.2f}x; CPU time: FDLSRCV {fast_cpu:.1f} s,"
        f" GridSearchCV {slow_cpu:.1f} s, ratio {slow_cpu / fast_cpu:.2f}x"
    )
    print(
        f"FDLSRCV: {flops / 1e12:.2f} Tflop in {fast_time:.1f} s ="
        f" {rate / 1e9:.1f} GFLOP/s, {100 * rate / peak:.0f}% of the measured float64"
        f" GEMM rate ({peak / 1e9:.1f} GFLOP/s); per CPU second"
        f" {flops / fast_cpu / 1e9:.1f} GFLOP = {100 * flops / fast_cpu / peak_cpu:.0f}%"
        f" of the GEMM's {peak_cpu / 1e9:.1f}"
    )
    print(f"load average at end: {os.getloadavg()}")
    assert fast.best_params_ == slow.best_params_, "the searches chose differently"
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "environment": env,
                    "grid": list(grid),
                    "fdlsrcv_s": fast_time,
                    "gridsearchcv_s": slow_time,
                    "fdlsrcv_cpu_s": fast_cpu,
                    "gridsearchcv_cpu_s": slow_cpu,
                    "gemm_rate_per_cpu_s": peak_cpu,
                    "flops": flops,
                    "gemm_rate": peak,
                    "best_fdlsrcv": fast.best_params_,
                    "best_gridsearchcv": slow.best_params_,
                    "differing_scores": differing,
                    "loadavg_end": os.getloadavg(),
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
