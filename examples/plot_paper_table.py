"""
Reproducing a paper table
=========================

The paper's tables come from one protocol: ``k`` random training samples per class,
the rest for testing, 10 seeded splits, unit-normalised samples, mean ± std
accuracy. :func:`fdlsr.experiments.run_experiment` runs it and stores every run as it
finishes (``fdlsr run`` on the command line), printing the table; the paper's numbers
ship with the package (:func:`fdlsr.results.paper_results`; ``fdlsr report
--paper``). The paper's data sets are not shipped: Table III, for instance, is
``run_experiment(config="feret", data_dir=DIR)``. Here the shipped faces, with three
methods, three values of k and three splits to keep it short, and the paper's Table
III beside.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

from fdlsr.experiments import run_experiment
from fdlsr.results import paper_results

out = Path(tempfile.mkdtemp()) / "faces"
methods = ["FDLSR", "DLSR", "CRC"]
results = run_experiment(
    config="faces", methods=methods, k=[2, 3, 4], n_splits=3, out=out
)

# %%
# The stored runs as a DataFrame (one row per run), and the paper's Table III (FERET).
ours = results.groupby(["method", "k"], observed=True)["accuracy"].mean() * 100
paper = paper_results("III")

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), sharey=False)
for method in methods:
    left.plot(ours[method].index.astype(int), ours[method].values, "o-", label=method)
    theirs = sorted((r["k"], r["mean"]) for r in paper if r["method"] == method)
    if theirs:
        right.plot(*zip(*theirs, strict=True), "o-", label=method)
left.set_title("run_experiment on the shipped faces (3 splits)")
right.set_title("the paper's Table III (FERET), as printed")
for ax in (left, right):
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("training samples per class (k)")
    ax.set_ylabel("accuracy (%)")
    ax.legend()
fig.tight_layout()
plt.show()
