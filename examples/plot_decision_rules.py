"""
Decision rules, and when each wins
==================================

FDLSR labels a projected sample by one of four rules: the paper's nearest
normalised training projection (``"nearest_neighbor"``), a vote of the ``k``
nearest (``"knn"``), the nearest class centroid (``"nearest_mean"``) or the
largest projection (``"linear"``). The rule only reads the fitted projection, so it
can be switched after fitting with ``set_params``. With few samples per class (the
paper's face sets) the 1-NN rule is the paper's choice; with many, the centroid and
linear rules are as accurate or better and far cheaper to apply. Here on
scikit-learn's digits (10 classes, 64 features), growing the training set.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.preprocessing import normalize

from fdlsr import FDLSR
from fdlsr.model_selection._split import per_class_split

X, y = load_digits(return_X_y=True)
X = normalize(X)
rules = ["nearest_neighbor", "knn", "nearest_mean", "linear"]
ks = [2, 5, 10, 30, 100]
accuracy = {rule: [] for rule in rules}
seconds = {rule: [] for rule in rules}

for k in ks:
    train, test = per_class_split(y, k, seed=0, index=0)
    # the digits config's values (`fdlsr run --config digits`)
    model = FDLSR(alpha=1e-2, beta=1e-3, lam=1e-1).fit(X[train], y[train])
    for rule in rules:
        model.set_params(decision_rule=rule)  # no refit: the rule reads Q
        start = time.perf_counter()
        accuracy[rule].append(100 * model.score(X[test], y[test]))
        seconds[rule].append(time.perf_counter() - start)
    print(k, {rule: round(accuracy[rule][-1], 1) for rule in rules})

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
for rule in rules:
    left.plot(ks, accuracy[rule], "o-", label=rule)
    right.plot(ks, 1e3 * np.array(seconds[rule]), "o-", label=rule)
left.set_ylabel("test accuracy (%)")
right.set_ylabel("prediction time of the test set (ms)")
for ax in (left, right):
    ax.set_xscale("log")
    ax.set_xlabel("training samples per class")
left.legend()
fig.suptitle("FDLSR's decision rules on the digits")
fig.tight_layout()
plt.show()
