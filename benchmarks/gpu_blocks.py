"""Block size of the blocked pass on a GPU: ``fit_blocked`` (first pass and 30
iterations) on 1,000,000 x 512 float32 features with 1,000 classes (``gpu_check``'s
data) for several ``block_rows``: seconds, peak device memory over X, and ``Q``'s
relative difference from the first. Without CUDA it runs at 20,000 x 512 x 100 on
the CPU, without memory figures (a check of the script).

    python benchmarks/gpu_blocks.py
"""

import os
import time

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # read when SciPy is first imported

import sklearn  # noqa: E402
import torch  # noqa: E402

from fdlsr import FDLSR  # noqa: E402
from fdlsr._core.blocked import fit_blocked  # noqa: E402
from gpu_check import PARAMS, make_features  # noqa: E402

BLOCK_ROWS = [16_777, 65_536, 262_144, 1_000_000]  # the first: the default at c = 1000


def main():
    cuda = torch.cuda.is_available()
    dev = "cuda" if cuda else "cpu"
    n, c = (1_000_000, 1000) if cuda else (20_000, 100)
    X, y = make_features(torch, n, 512, c, dev)
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    model = FDLSR(**PARAMS)  # FDLSR's defaults for the other parameters
    params = dict(
        alpha=model.alpha,
        beta=model.beta,
        lam=model.lam,
        max_iter=model.max_iter,
        tol=model.tol,
        init_ridge=model.init_ridge,
        t_step=model.t_step,
    )
    reference = None
    with sklearn.config_context(array_api_dispatch=True):
        fit_blocked(X, y, c, **{**params, "max_iter": 2})  # warm-up
        for rows in BLOCK_ROWS:
            if cuda:
                torch.cuda.empty_cache()
                torch.cuda.reset_peak_memory_stats()
            base = torch.cuda.memory_allocated() if cuda else 0
            sync()
            start = time.perf_counter()
            coef, _, _ = fit_blocked(X, y, c, **params, block_rows=rows)
            sync()
            seconds = time.perf_counter() - start
            peak = (torch.cuda.max_memory_allocated() - base) / 2**30 if cuda else 0
            if reference is None:
                reference = coef
            rel = float(
                torch.linalg.norm(coef - reference) / torch.linalg.norm(reference)
            )
            print(
                f"block_rows {rows:>9,}: 30 iterations {seconds:6.2f} s, peak over X"
                f" {peak:5.2f} GiB, rel. diff of Q {rel:.1e}",
                flush=True,
            )


if __name__ == "__main__":
    main()
