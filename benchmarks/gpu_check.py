"""FDLSR on one CUDA GPU: fit and predict times and peak device memory, in one run.

Cases (float32, PyTorch tensors on the GPU, ``array_api_dispatch=True``):

* FERET, 5 images per person (if the data are found): relative difference of ``Q``
  from the NumPy float64 fit, float64 and float32 on the GPU; then FDLSRCV on the
  paper's grid (216 points, 3 folds) with NumPy on the host and float64 on the GPU:
  the same choice, both times (``--skip-cv`` leaves it out);
* 1,000,000 x 512 features, 1,000 classes (``bench_scale.make_features``' model,
  generated on the GPU): the dense primal iteration (``solver="primal"``) and the
  blocked one (``solver="blocked"``), each with the paper's 1-NN rule (and the
  relative difference of their ``Q``), then the blocked one with the nearest-mean
  rule; 10,000 predictions each;
* 10,000,000 x 512, 1,000 classes, blocked, with the nearest-mean rule (the 1-NN
  rule would keep 10M x 1000 training projections), if the card has the memory.

For each: fit seconds, predict seconds, ``torch.cuda.max_memory_allocated`` during
the fit (data included) and its ratio to the data plus the c x n relaxed labels.
Exits cleanly (status 0, one line) without PyTorch or CUDA. On one H100: about 100 s
with ``--skip-cv``, 30 s more with the search (figures in benchmarks/README.md).

    FDLSR_DATA_DIR=../shared/data python benchmarks/gpu_check.py [--skip-10m] [--skip-cv]
"""

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # read when SciPy is first imported

import numpy as np  # noqa: E402
import sklearn  # noqa: E402

HERE = Path(__file__).resolve().parent

PARAMS = dict(alpha=1e-2, beta=1e-3, lam=1e-1)
GIB = 2**30


def make_features(torch, n, d, c, dev, seed=0, separation=0.3, chunk=1 << 20):
    """``bench_scale.make_features``' model drawn on the device: class centres of
    norm about ``separation`` plus N(0, I/d) noise, rows L2-normalised."""
    gen = torch.Generator(device=dev).manual_seed(seed)
    centres = torch.randn(c, d, device=dev, generator=gen) * (separation / d**0.5)
    y = torch.randperm(n, device=dev, generator=gen) % c
    X = torch.empty((n, d), device=dev, dtype=torch.float32)
    for start in range(0, n, chunk):
        rows = slice(start, min(start + chunk, n))
        noise = torch.randn(rows.stop - start, d, device=dev, generator=gen)
        block = centres[y[rows]] + noise * d**-0.5
        X[rows] = block / torch.linalg.vector_norm(block, dim=1, keepdim=True)
    return X, y


def timed(synchronize, f, *args):
    """``(f(*args), its wall-clock seconds)``, the device synchronised before and
    after (its work is asynchronous)."""
    synchronize()
    start = time.perf_counter()
    out = f(*args)
    synchronize()
    return out, time.perf_counter() - start


class Device:
    """``torch.cuda``'s synchronisation and memory counters, or none on the CPU
    (``--smoke``: the same script at a small scale, for checking it without a GPU)."""

    def __init__(self, torch, name):
        self.torch, self.name, self.cuda = torch, name, name == "cuda"

    def timed(self, f, *args):
        return timed(self.synchronize, f, *args)

    def synchronize(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def reset_peak(self):
        if self.cuda:
            self.torch.cuda.empty_cache()
            self.torch.cuda.reset_peak_memory_stats()
        return self.torch.cuda.memory_allocated() if self.cuda else 0

    def peak(self):
        return self.torch.cuda.max_memory_allocated() if self.cuda else float("nan")

    def free(self):
        return self.torch.cuda.mem_get_info()[0] if self.cuda else 0


def load_feret():
    """FERET unit-normalised, 5 training images per person (split seed 0):
    ``(X_train, y_train, X_test, y_test)``, or None without the data."""
    from sklearn.preprocessing import normalize

    from fdlsr._testing import load_shared, shared_data_dir
    from fdlsr.model_selection._split import per_class_split

    try:
        X, y = load_shared("feret", shared_data_dir(__file__))
    except FileNotFoundError:
        print("FERET: data not found (set FDLSR_DATA_DIR); skipped")
        return None
    train, test = per_class_split(y, 5, 0, 0)
    X = normalize(X)
    return X[train], y[train], X[test], y[test]


def feret_agreement(torch, device, X, y):
    from fdlsr import FDLSR

    reference = FDLSR(**PARAMS).fit(X, y).coef_
    for dtype in (torch.float64, torch.float32):
        Xg = torch.asarray(X, dtype=dtype, device=device.name)
        yg = torch.asarray(y, device=device.name)
        FDLSR(**PARAMS).fit(Xg, yg)  # warm-up
        model, seconds = device.timed(FDLSR(**PARAMS).fit, Xg, yg)
        coef = model.coef_.cpu().numpy().astype(np.float64)
        rel = np.linalg.norm(coef - reference) / np.linalg.norm(reference)
        print(
            f"FERET k=5 {str(dtype):14s} fit {seconds:.3f} s,"
            f" rel. diff of Q from NumPy float64 {rel:.1e}",
            flush=True,
        )


def feret_search(torch, device, X, y, small=False):
    """FDLSRCV on the paper's grid (6 x 6 x 6, 3 folds, the 1-NN rule): NumPy on the
    host's cores against float64 tensors on the GPU; same choice, times, peak."""
    from fdlsr import FDLSRCV

    grid = dict(decision_rules=["nearest_neighbor"], cv=3)
    if small:  # --smoke: 2 x 1 x 2 points
        grid.update(alphas=[1e-2, 1e-1], betas=[1e-2], lams=[1e-2, 1e-1])
    host, host_s = device.timed(FDLSRCV(**grid).fit, X, y)
    Xg = torch.asarray(X, dtype=torch.float64, device=device.name)
    yg = torch.asarray(y, device=device.name)
    base = device.reset_peak()
    gpu, gpu_s = device.timed(FDLSRCV(**grid).fit, Xg, yg)
    peak = device.peak() - base
    host_scores = np.asarray(host.cv_results_["mean_test_score"])
    gpu_scores = np.asarray(gpu.cv_results_["mean_test_score"], dtype=np.float64)
    print(
        f"FDLSRCV FERET k=5, {host_scores.size} points x 3 folds: NumPy {host_s:.1f} s,"
        f" GPU float64 {gpu_s:.1f} s ({host_s / gpu_s:.1f}x); best NumPy"
        f" {host.best_params_} {host.best_score_:.4f}, GPU {gpu.best_params_}"
        f" {gpu.best_score_:.4f}; points with another mean score"
        f" {int(np.sum(host_scores != gpu_scores))} (max diff"
        f" {np.max(np.abs(host_scores - gpu_scores)):.1e}); GPU peak"
        f" {peak / GIB:.2f} GiB",
        flush=True,
    )


def large_case(torch, device, n, d, c, path, rule, n_test=10_000):
    """``path``: "dense" (solver="primal" with working_memory large enough to keep
    the c x n arrays) or "blocked" (solver="blocked")."""
    from fdlsr import FDLSR

    X, y = make_features(torch, n + n_test, d, c, device.name)
    X_test, y_test = X[n:].clone(), y[n:].clone()
    X, y = X[:n], y[:n]
    data = X.numel() * 4
    labels = n * c * 4
    base = device.reset_peak()
    solver = "primal" if path == "dense" else "blocked"
    model = FDLSR(**PARAMS, solver=solver, decision_rule=rule)
    with sklearn.config_context(working_memory=2**40 if path == "dense" else 1024):
        _, fit_s = device.timed(model.fit, X, y)
    peak = device.peak() - base + data
    pred, pred_s = device.timed(model.predict, X_test)
    accuracy = float((pred == y_test).float().mean())
    print(
        f"{n:>10,} x {d} x {c} {path:7s} {rule:16s} fit {fit_s:6.2f} s,"
        f" predict {n_test} {pred_s:.2f} s, accuracy {accuracy:.3f},"
        f" peak {peak / GIB:5.1f} GiB = {peak / (data + labels):.2f} x"
        f" (X {data / GIB:.1f} + c x n labels {labels / GIB:.1f} GiB)",
        flush=True,
    )
    return model.coef_


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-10m", action="store_true")
    parser.add_argument("--skip-cv", action="store_true", help="no FDLSRCV search")
    parser.add_argument(
        "--smoke", action="store_true", help="on the CPU at 1/1000 scale, no memory"
    )
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("gpu_check: PyTorch is not installed; nothing to check.")
        return
    if not (args.smoke or torch.cuda.is_available()):
        print("gpu_check: no CUDA device; nothing to check.")
        return
    device = Device(torch, "cpu" if args.smoke else "cuda")
    scale = 1000 if args.smoke else 1
    if device.cuda:
        print(
            f"device: {torch.cuda.get_device_name()}, torch {torch.__version__},"
            f" {torch.cuda.mem_get_info()[1] / GIB:.0f} GiB, TF32 matmul"
            f" {torch.backends.cuda.matmul.allow_tf32}",
            flush=True,
        )
    with sklearn.config_context(array_api_dispatch=True):
        feret = load_feret()
        if feret is not None:
            X_train, y_train = feret[:2]
            feret_agreement(torch, device, X_train, y_train)
            if not args.skip_cv:
                feret_search(torch, device, X_train, y_train, small=args.smoke)
        n, c = 1_000_000 // scale, 10 if args.smoke else 1000
        dense, blocked = (
            large_case(torch, device, n, 512, c, path, "nearest_neighbor")
            for path in ("dense", "blocked")
        )
        rel = float(torch.linalg.norm(dense - blocked) / torch.linalg.norm(dense))
        print(f"dense and blocked Q: relative difference {rel:.1e}", flush=True)
        del dense, blocked
        large_case(torch, device, n, 512, c, "blocked", "nearest_mean")
        n = 10_000_000 // scale
        need = n * 512 * 4 + n * c * 4 + 2 * GIB  # X, relaxed target, blocks
        if args.skip_10m or (device.cuda and device.free() < need):
            print(f"10M case skipped (needs about {need / GIB:.0f} GiB free)")
        else:
            large_case(torch, device, n, 512, c, "blocked", "nearest_mean")


if __name__ == "__main__":
    main()
