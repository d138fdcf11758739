"""FDLSR against the plain transcription of the authors' code, in one process.

For each case the same training data are fitted by ``tests/reference.py`` (the MATLAB
transcription: d x d inverses, explicit loops) and by ``fdlsr.FDLSR``, alternating and
repeating, and the median times are compared. It also reports the rate of FDLSR's
iteration phase (fit with 30 iterations minus fit with 0, over the flops of the 30
iterations) as a fraction of this machine's measured matrix-multiply rate.

    python benchmarks/bench_fit.py [--data-dir ../shared/data] [--repeats 5]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from sklearn.preprocessing import normalize  # noqa: E402

from conftest import load_shared, split_per_class  # noqa: E402
from fdlsr import FDLSR  # noqa: E402
from reference import fdlsr_transcription  # noqa: E402


def gemm_rate(dtype, size=2000, repeats=5):
    """Best-of-N flops per second of a square matrix product in ``dtype``."""
    a = np.random.default_rng(0).random((size, size)).astype(dtype)
    a @ a
    best = min(_timed(lambda: a @ a) for _ in range(repeats))
    return 2 * size**3 / best


def _timed(f):
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def median_times(functions, repeats):
    """Run the functions in turn, ``repeats`` rounds after a warm-up; median seconds."""
    for f in functions.values():
        f()
    times = {name: [] for name in functions}
    for _ in range(repeats):
        for name, f in functions.items():
            times[name].append(_timed(f))
    return {name: float(np.median(t)) for name, t in times.items()}


def iteration_flops(n, d, c, max_iter, form):
    # dual: one c x n by n x n product; primal: T X (c n d), (.) C (c d d), Q X^T (c d n)
    per_iter = 2 * c * n * n if form == "dual" else 2 * c * d * (2 * n + d)
    return max_iter * per_iter


def run_case(name, X, y, params, repeats, peak):
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    codes = np.unique(y, return_inverse=True)[1]
    n, d = X.shape
    c = codes.max() + 1
    form = "dual" if d > n else "primal"
    print(f"\n{name}: n={n}, d={d}, c={c} ({form} form)")
    for dtype in (np.float64, np.float32):
        Xd = X.astype(dtype)
        q_ref = fdlsr_transcription(X.T, codes, **params)
        t = median_times(
            {
                "transcription": lambda: fdlsr_transcription(X.T, codes, **params),
                "fdlsr": lambda Xd=Xd: FDLSR(**params).fit(Xd, y),
                "fdlsr_init_only": lambda Xd=Xd: FDLSR(**params, max_iter=0).fit(Xd, y),
            },
            repeats,
        )
        model = FDLSR(**params).fit(Xd, y)
        rel = np.linalg.norm(model.coef_ - q_ref) / np.linalg.norm(q_ref)
        iter_time = t["fdlsr"] - t["fdlsr_init_only"]
        rate = iteration_flops(n, d, c, 30, form) / iter_time
        print(
            f"  {np.dtype(dtype).name:8s} transcription (float64) {t['transcription']:.3f} s"
            f" | FDLSR {t['fdlsr']:.3f} s | ratio {t['transcription'] / t['fdlsr']:.2f}x"
            f" | rel. diff of Q {rel:.1e}"
        )
        print(
            f"           iteration phase {iter_time:.3f} s = {rate / 1e9:.1f} GFLOP/s,"
            f" {100 * rate / peak[dtype]:.0f}% of the measured {np.dtype(dtype).name}"
            f" GEMM rate ({peak[dtype] / 1e9:.1f} GFLOP/s)"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    peak = {dt: gemm_rate(dt) for dt in (np.float64, np.float32)}
    feret_X, feret_y = load_shared("feret")
    train, _ = split_per_class(feret_y, 5, seed=0)
    run_case(
        "FERET, 5 images per person (d > n)",
        normalize(feret_X[train]),
        feret_y[train],
        dict(alpha=1e-2, beta=1e-3, lam=1e-1),
        args.repeats,
        peak,
    )
    usps_X, usps_y = load_shared("usps")
    train, _ = split_per_class(usps_y, 300, seed=0)
    run_case(
        "USPS, 300 images per digit (d < n)",
        normalize(usps_X[train]),
        usps_y[train],
        dict(alpha=1.0, beta=1e-2, lam=1.0),
        args.repeats,
        peak,
    )


if __name__ == "__main__":
    main()
