"""
FDLSR against the comparison methods on your own data
=====================================================

Every method of the paper's tables is a scikit-learn classifier in the package, so
comparing them on your data is a loop. Here "your data" is an ``X, y`` pair: the
shipped faces, with three training images per person over five random splits; any
samples-as-rows array with labels would do (``fdlsr run --dataset FILE`` runs the
same comparison from the command line, with results kept on disk).
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import RidgeClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer

from fdlsr import FDLSR
from fdlsr.datasets import load_dataset
from fdlsr.dictionary import DPL
from fdlsr.model_selection._split import PerClassSplit
from fdlsr.relaxed import DLSR, LSR
from fdlsr.representation import CRC, NRC

faces = load_dataset("faces")
X, y = faces.X, faces.y

methods = {
    # the paper's values for its 32x32 face sets, as the faces demo (`fdlsr`) uses
    "FDLSR": FDLSR(alpha=1e-1, beta=1e-2, lam=1e-1),
    "LSR": LSR(),
    "DLSR": DLSR(),
    "CRC": CRC(),
    "NRC": NRC(),
    "DPL": DPL(),
    "Ridge": RidgeClassifier(),
    "1-NN": KNeighborsClassifier(1),
}

# %%
# The same splits for every method; the paper unit-normalises every sample first.
splits = list(PerClassSplit(3, n_splits=5).split(X, y))
accuracy, seconds = {}, {}
for name, method in methods.items():
    model = make_pipeline(Normalizer(), method)
    scores, start = [], time.perf_counter()
    for train, test in splits:
        model.fit(X[train], y[train])
        scores.append(100 * model.score(X[test], y[test]))
    seconds[name] = (time.perf_counter() - start) / len(splits)
    accuracy[name] = scores
    print(f"{name:6s} {np.mean(scores):6.2f} +- {np.std(scores, ddof=1):.2f} %")

# %%
# Mean accuracy with the standard deviation over the splits, and the time of one
# fit and prediction.
names = list(methods)
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
means = [np.mean(accuracy[n]) for n in names]
stds = [np.std(accuracy[n], ddof=1) for n in names]
colors = ["tab:red" if n == "FDLSR" else "tab:blue" for n in names]
left.bar(names, means, yerr=stds, color=colors, capsize=3)
left.set_ylim(min(means) - 10, 100)
left.set_ylabel("test accuracy (%)")
left.set_title("3 training images per person, 5 splits")
right.bar(names, [seconds[n] for n in names], color=colors)
right.set_ylabel("seconds per split (fit + predict)")
for ax in (left, right):
    ax.tick_params(axis="x", rotation=45)
fig.tight_layout()
plt.show()
