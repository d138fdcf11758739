"""Deep-feature throughput of `fdlsr features`, and FDLSR on deep-feature-sized data.

1. *Extraction*: ``--images`` generated 500x375 JPEG photos (CUB's typical size) in
   4 class folders go through ``extract_features`` for each ``--models`` entry, with
   random weights (``--weights none``: the cost of a network does not depend on its
   weights, and pretrained ones cannot be downloaded here), on the CPU and, when one is
   there, on the GPU. Printed: images per second end to end (decoding, preprocessing,
   the forward pass, writing), the same for the forward pass alone on a ready batch,
   and CPU seconds per image of this process.
2. *Classification*: FDLSR (the paper's CUB parameters) and DLSR fitted on Gaussian
   class clusters shaped like deep features: ``d`` = 2048 (ResNet-50) and 4096
   (VGG-19), hundreds of classes, 30 training samples per class; fit and predict
   times (best of ``--repeats``, CPU time with BLAS on ``--threads`` threads) and the
   ratio FDLSR / DLSR measured in this process.

    python benchmarks/bench_features.py [--images 64] [--models resnet18 resnet50 vgg19]
        [--classes 200 400] [--repeats 3] [--skip-extraction] [--skip-fdlsr]

The load average (``os.getloadavg``) is printed before and after each part: on a
shared machine wall-clock rates fall with the others' load; CPU seconds are steadier.
"""

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from fdlsr._experiments.features import extract_features, load_backbone
from fdlsr._experiments.registry import get_method


def load():
    return "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def write_photos(root, n, classes=4, size=(375, 500)):
    """``n`` JPEG photos of ``size`` (h, w) in ``classes`` folders: smooth colour
    fields with noise, so that JPEG decoding costs what it costs on photos."""
    from PIL import Image

    rng = np.random.default_rng(0)
    h, w = size
    yy, xx = np.mgrid[0:h, 0:w]
    for i in range(n):
        c = i % classes
        base = np.stack(
            [
                np.sin(xx / (20 + 7 * c) + k) * np.cos(yy / (15 + 5 * k))
                for k in range(3)
            ],
            axis=-1,
        )
        pixels = 128 + 90 * base + rng.normal(0, 12, (h, w, 3))
        folder = Path(root) / f"class_{c}"
        folder.mkdir(parents=True, exist_ok=True)
        Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(
            folder / f"img_{i:04d}.jpg", quality=90
        )


def forward_rate(model, device, batch_size, repeats=3):
    """Images per second of the forward pass alone, on a ready 224x224 batch."""
    import torch

    from fdlsr._experiments.features import features_of

    backbone = load_backbone(model, "none")
    backbone.model.to(device)
    batch = torch.randn(batch_size, 3, 224, 224)
    features_of(backbone, batch, device)  # warm-up
    best = np.inf
    for _ in range(repeats):
        if device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        features_of(backbone, batch, device)
        if device == "cuda":
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    return batch_size / best


def extraction(args):
    import torch

    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    print(
        f"\n## Extraction ({args.images} JPEG photos 500x375, batch {args.batch_size})"
    )
    print(f"torch {torch.__version__}, {torch.get_num_threads()} intra-op threads; "
          f"devices: {', '.join(devices)}; {load()}")  # fmt: skip
    print("| model | device | d | end to end (images/s) | forward only (images/s) "
          "| CPU s per image |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    rates = {}
    with tempfile.TemporaryDirectory() as tmp:
        write_photos(Path(tmp) / "photos", args.images)
        for model in args.models:
            for device in devices:
                out = Path(tmp) / f"{model}-{device}.npz"
                cpu = time.process_time()
                record = extract_features(
                    Path(tmp) / "photos", out, model=model, weights="none",
                    batch_size=args.batch_size, device=device, workers=args.workers,
                )  # fmt: skip
                cpu = (time.process_time() - cpu) / args.images
                forward = forward_rate(model, device, args.batch_size)
                rates[model, device] = record["images_per_second"]
                print(f"| {model} | {device} | {record['n_features']} | "
                      f"{record['images_per_second']:.2f} | {forward:.2f} | "
                      f"{cpu:.3f} |", flush=True)  # fmt: skip
    for model in args.models:
        if (model, "cuda") in rates:
            ratio = rates[model, "cuda"] / rates[model, "cpu"]
            print(f"{model}: GPU / CPU end to end = {ratio:.1f}x")
    print(load())


def clusters(classes, d, per_class, test_per_class, seed=0):
    """Unit-norm Gaussian class clusters in ``d`` dimensions (non-negative, like
    post-ReLU features): class means on random directions, within-class noise."""
    rng = np.random.default_rng(seed)
    means = np.abs(rng.normal(size=(classes, d)))
    n = per_class + test_per_class
    X = np.repeat(means, n, axis=0) + 1.2 * np.abs(rng.normal(size=(classes * n, d)))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.repeat(np.arange(classes), n)
    is_train = np.tile(np.arange(n) < per_class, classes)
    return X[is_train], y[is_train], X[~is_train], y[~is_train]


def timed(function, repeats):
    best_cpu, best_wall, result = np.inf, np.inf, None
    for _ in range(repeats):
        cpu, wall = time.process_time(), time.perf_counter()
        result = function()
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    return best_cpu, best_wall, result


def classification(args):
    print(f"\n## FDLSR on deep-feature-sized data (30 training, 10 test per class; "
          f"BLAS {args.threads} threads, best of {args.repeats})")  # fmt: skip
    print(load())
    print("| d | classes | n train | method | fit CPU s | fit wall s | predict CPU s "
          "| accuracy | FDLSR / DLSR fit CPU |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    params = {"FDLSR": dict(alpha=1e-1, beta=1e-2, lam=1e-1), "DLSR": {}}
    for d in args.dims:
        for classes in args.classes:
            Xtr, ytr, Xte, yte = clusters(classes, d, 30, 10)
            fits = {}
            for name in ("DLSR", "FDLSR"):
                method = get_method(name)
                estimator = method.build(**params[name])
                with threadpool_limits(args.threads):
                    cpu, wall, model = timed(
                        lambda e=estimator, X=Xtr, y=ytr: e.fit(X, y), args.repeats
                    )
                    pcpu, _, predicted = timed(lambda m=model, X=Xte: m.predict(X), 1)
                fits[name] = cpu
                ratio = f"{fits['FDLSR'] / fits['DLSR']:.2f}" if name == "FDLSR" else ""
                print(f"| {d} | {classes} | {len(ytr)} | {name} | {cpu:.2f} | "
                      f"{wall:.2f} | {pcpu:.2f} | {np.mean(predicted == yte):.3f} | "
                      f"{ratio} |", flush=True)  # fmt: skip
    print(load())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument(
        "--models", nargs="+", default=["resnet18", "resnet50", "vgg19"]
    )
    parser.add_argument("--dims", type=int, nargs="+", default=[2048, 4096])
    parser.add_argument("--classes", type=int, nargs="+", default=[200, 400])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--skip-extraction", action="store_true")
    parser.add_argument("--skip-fdlsr", action="store_true")
    args = parser.parse_args()
    print(f"Python {platform.python_version()}, NumPy {np.__version__}, "
          f"{os.cpu_count()} CPUs, {platform.machine()}")  # fmt: skip
    if not args.skip_extraction:
        extraction(args)
    if not args.skip_fdlsr:
        classification(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
