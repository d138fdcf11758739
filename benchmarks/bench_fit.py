"""FDLSR against the plain transcription of the authors' code, in one process.

For each case the same training data are fitted by ``fdlsr._testing.fdlsr_transcription`` (the MATLAB
transcription: d x d inverses, explicit loops) and by ``fdlsr.FDLSR``, alternating and
repeating, and the best times are compared. The whole fit's flops (Gram matrix,
factorisations, initial solve, iterations, ``Q``; see :func:`fit_flops`) over its time
give its rate, reported as a fraction of this machine's matrix-multiply rate measured
in the same process and the same setting. Two settings: BLAS pinned to one thread and
CPU time (``time.process_time``), which a shared machine's load disturbs least; and
BLAS's default threads with wall-clock time.

    python benchmarks/bench_fit.py [--repeats 5] [--threads 1|default|both]

``--parts`` instead times the parts of one FERET k = 5 float64 fit alone, BLAS on one
thread (Gram matrix, the two ridge systems, the 30 products, ``Q``, the rest), and
SciPy's LAPACK on its default threads against one, with the NumPy products that follow.
"""

import argparse
import os
import time
from pathlib import Path

import numpy as np
from scipy import linalg

HERE = Path(__file__).resolve().parent

from sklearn.preprocessing import normalize  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from fdlsr import FDLSR  # noqa: E402
from fdlsr._common.class_means import one_hot  # noqa: E402
from fdlsr._common.linalg import (  # noqa: E402
    RidgeSystem,
    blas_threads,
    gram,
    make_ridge,
)
from fdlsr._core.dense import fit_fdlsr  # noqa: E402
from fdlsr._testing import fdlsr_transcription, load_shared, shared_data_dir  # noqa: E402
from fdlsr.model_selection._split import per_class_split  # noqa: E402

# The paper's FERET parameters.
FERET_PARAMS = dict(alpha=1e-2, beta=1e-3, lam=1e-1)


def feret_training(k=5):
    """FERET's training samples of split 0 with ``k`` per person, unit-normalised and
    sorted by class (as the authors' code needs)."""
    X, y = load_shared("feret", shared_data_dir(__file__))
    train, _ = per_class_split(y, k, 0, 0)
    order = np.argsort(y[train], kind="stable")
    return normalize(X[train])[order], y[train][order]


def gemm_rate(dtype, size=2000, repeats=5, clock=time.perf_counter):
    """Best-of-N flops per second of a square matrix product in ``dtype``."""
    a = np.random.default_rng(0).random((size, size)).astype(dtype)
    a @ a
    best = min(_timed(lambda: a @ a, clock) for _ in range(repeats))
    return 2 * size**3 / best


def _timed(f, clock=time.perf_counter):
    start = clock()
    f()
    return clock() - start


def best_times(functions, repeats, clock=time.perf_counter):
    """Run the functions in turn, ``repeats`` rounds after a warm-up; best seconds
    (the least disturbed by other processes)."""
    for f in functions.values():
        f()
    times = {name: [] for name in functions}
    for _ in range(repeats):
        for name, f in functions.items():
            times[name].append(_timed(f, clock))
    return {name: float(np.min(t)) for name, t in times.items()}


def fit_flops(n, d, c, max_iter, form):
    """Flops of a whole fit, counted as the issue counts them (a Gram matrix as a
    full product, 2 n^2 d): the Gram matrix, two Cholesky factorisations (m^3 / 3
    each, m the system's size) and one inverse (2 m^3 / 3), the initial solve,
    ``max_iter`` iterations and the final ``Q``. Dual: each iteration is one c x n by
    n x n product and ``Q = R X`` is 2 c n d; primal: T X, (.) C and Q X^T."""
    m = n if form == "dual" else d
    gram = 2 * m * m * (d if form == "dual" else n)
    factor = 4 * m**3 / 3
    if form == "dual":
        init, per_iter, coef = 2 * c * n * n, 2 * c * n * n, 2 * c * n * d
    else:
        init, per_iter, coef = (
            2 * c * n * d + 2 * c * d * d + 2 * c * d * n,
            2 * c * d * (2 * n + d),
            0,
        )
    return gram + factor + init + max_iter * per_iter + coef


def run_case(name, X, y, params, repeats, settings):
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    codes = np.unique(y, return_inverse=True)[1]
    n, d = X.shape
    c = codes.max() + 1
    form = "dual" if d > n else "primal"
    flops = fit_flops(n, d, c, 30, form)
    print(
        f"\n{name}: n={n}, d={d}, c={c} ({form} form), {flops / 1e9:.1f} GFLOP per fit"
    )
    for setting, (limit, clock) in settings.items():
        with threadpool_limits(limit):
            for dtype in (np.float64, np.float32):
                Xd = X.astype(dtype)
                peak = gemm_rate(dtype, clock=clock)
                q_ref = fdlsr_transcription(X.T, codes, **params)
                t = best_times(
                    {
                        "transcription": lambda: fdlsr_transcription(
                            X.T, codes, **params
                        ),
                        "fdlsr": lambda Xd=Xd: FDLSR(**params).fit(Xd, y),
                    },
                    repeats,
                    clock,
                )
                model = FDLSR(**params).fit(Xd, y)
                rel = np.linalg.norm(model.coef_ - q_ref) / np.linalg.norm(q_ref)
                rate = flops / t["fdlsr"]
                print(
                    f"  {setting:22s} {np.dtype(dtype).name:7s}"
                    f" transcription (float64) {t['transcription']:.3f} s"
                    f" | FDLSR {t['fdlsr']:.3f} s"
                    f" | ratio {t['transcription'] / t['fdlsr']:.2f}x"
                    f" | rel. diff of Q {rel:.1e}"
                    f" | {rate / 1e9:.1f} GFLOP/s = {100 * rate / peak:.0f}% of the"
                    f" {np.dtype(dtype).name} GEMM rate ({peak / 1e9:.1f} GFLOP/s)",
                    flush=True,
                )


def fit_parts(X, y, params, repeats=7):
    """Print the CPU milliseconds of each part of one dual fit, BLAS on one thread."""
    codes = np.unique(y, return_inverse=True)[1]
    c, clock = codes.max() + 1, time.process_time
    init_ridge = FDLSR().init_ridge

    def ms(f):
        return 1e3 * min(_timed(f, clock) for _ in range(repeats))

    with threadpool_limits(1):
        G = gram(X, samples=True)
        H = one_hot(codes, c)
        ridge = make_ridge(X, [params["beta"]], "dual")[0]
        T = np.random.default_rng(0).random((c, X.shape[0]))
        R = ridge.system.right_solve(T)
        init = RidgeSystem(G, init_ridge, repeated=False)
        parts = {
            "Gram matrix X X^T": ms(lambda: gram(X, samples=True)),
            "beta system (Cholesky, inverse)": ms(
                lambda: RidgeSystem(G, params["beta"])
            ),
            "initial system (Cholesky)": ms(lambda: RidgeSystem(G, init_ridge, False)),
            "initial solve H (K + init_ridge I)^-1": ms(lambda: init.right_solve(H)),
            "30 products T (K + beta I)^-1": 30
            * ms(lambda: ridge.system.right_solve(T)),
            "Q = R X": ms(lambda: ridge.coef(R)),
        }
        model = FDLSR(**params)  # FDLSR's defaults for the other parameters
        total = ms(
            lambda: fit_fdlsr(
                X,
                codes,
                c,
                alpha=model.alpha,
                beta=model.beta,
                lam=model.lam,
                max_iter=model.max_iter,
                tol=model.tol,
                init_ridge=model.init_ridge,
                t_step=model.t_step,
                solver="auto",
            )
        )
    rate = 2 * c * X.shape[0] ** 2 / (parts["30 products T (K + beta I)^-1"] / 30e3)
    for name, value in parts.items():
        print(f"  {name:38s} {value:7.1f} ms")
    print(
        f"  {'rest (T/S-steps, means, objective)':38s} {total - sum(parts.values()):7.1f} ms"
    )
    print(f"  {'whole fit_fdlsr':38s} {total:7.1f} ms")
    print(
        f"  products at {rate / 1e9:.1f} GFLOP/s; GEMM rate {gemm_rate(np.float64, clock=clock) / 1e9:.1f}"
    )
    # SciPy's LAPACK on its own default threads, then the NumPy products after it.
    potrf, potri = linalg.get_lapack_funcs(("potrf", "potri"), (G,))

    def factorise():
        A = np.array(G, order="F")
        A.flat[:: A.shape[0] + 1] += params["beta"]
        return potri(potrf(A, lower=0, overwrite_a=1, clean=1)[0], lower=0)

    out = np.empty_like(T)
    for label, limit in (("1 thread", 1), ("default threads", None)):
        with threadpool_limits(limit, user_api="blas"):
            seconds = _timed(factorise)
        after = [_timed(lambda: np.matmul(T, G, out=out)) for _ in range(5)]
        print(
            f"  potrf + potri on SciPy's BLAS, {label}: {1e3 * seconds:.1f} ms wall;"
            f" the next 5 NumPy products (default threads): "
            + " ".join(f"{1e3 * a:.1f}" for a in after)
            + " ms"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--threads",
        choices=["1", "default", "both"],
        default="both",
        help="BLAS pinned to one thread (CPU time) and/or its default (wall time)",
    )
    parser.add_argument(
        "--parts", action="store_true", help="time the parts of one FERET k=5 fit"
    )
    args = parser.parse_args()
    if args.parts:
        print(f"load average at start: {os.getloadavg()}")
        print("FERET k=5 float64 (n=1000, d=1600, c=200), dual fit, parts:")
        fit_parts(*feret_training(), FERET_PARAMS)
        print(f"load average at end: {os.getloadavg()}")
        return
    settings = {}
    if args.threads in ("1", "both"):
        settings["1 thread, CPU time"] = (1, time.process_time)
    if args.threads in ("default", "both"):
        settings[f"{blas_threads()} threads, wall time"] = (None, time.perf_counter)
    print(f"load average at start: {os.getloadavg()}")
    run_case(
        "FERET, 5 images per person (d > n)",
        *feret_training(),
        FERET_PARAMS,
        args.repeats,
        settings,
    )
    usps_X, usps_y = load_shared("usps", shared_data_dir(__file__))
    train, _ = per_class_split(usps_y, 300, 0, 0)
    run_case(
        "USPS, 300 images per digit (d < n)",
        normalize(usps_X[train]),
        usps_y[train],
        dict(alpha=1.0, beta=1e-2, lam=1.0),
        args.repeats,
        settings,
    )
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
