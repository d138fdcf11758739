"""float32 against float64 on FERET (k = 5 images per person, 10 random splits).

For each split FDLSR is fitted on the same unit-normalised training images in float64
and in float32 (the paper's parameters); prints the mean accuracy of each, the number
of test images classified differently, and the relative difference of the projections
``|Q32 - Q64| / |Q64|``.

    python benchmarks/bench_float32.py [--splits 10]
"""

import argparse

import numpy as np
from sklearn.preprocessing import normalize

from fdlsr import FDLSR
from fdlsr._testing import load_shared, shared_data_dir
from fdlsr.model_selection._split import per_class_split


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=10)
    args = parser.parse_args()
    X, y = load_shared("feret", shared_data_dir(__file__))
    X = normalize(X)
    rows = []
    for seed in range(args.splits):
        train, test = per_class_split(y, 5, 0, seed)
        fits = {
            dtype: FDLSR(alpha=1e-2, beta=1e-3, lam=1e-1).fit(
                X[train].astype(dtype), y[train]
            )
            for dtype in (np.float64, np.float32)
        }
        preds = {dt: m.predict(X[test].astype(dt)) for dt, m in fits.items()}
        q64, q32 = fits[np.float64].coef_, fits[np.float32].coef_
        rows.append(
            (
                np.mean(preds[np.float64] == y[test]),
                np.mean(preds[np.float32] == y[test]),
                int(np.sum(preds[np.float64] != preds[np.float32])),
                np.linalg.norm(q32 - q64) / np.linalg.norm(q64),
            )
        )
        print(f"split {seed}: " + " ".join(f"{v:.4g}" for v in rows[-1]), flush=True)
    acc64, acc32, changed, rel = np.array(rows).T
    print(
        f"FERET k=5, {args.splits} splits: accuracy float64 {100 * acc64.mean():.2f}%"
        f" +- {100 * acc64.std(ddof=1):.2f}, float32 {100 * acc32.mean():.2f}%"
        f" +- {100 * acc32.std(ddof=1):.2f}; test images classified differently:"
        f" {int(changed.sum())} of {args.splits * (y.size - 1000)};"
        f" |Q32 - Q64| / |Q64|: mean {rel.mean():.1e}, max {rel.max():.1e}"
    )


if __name__ == "__main__":
    main()
