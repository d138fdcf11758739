"""
Results as a DataFrame
======================

``fdlsr run`` keeps every run in its results folder, one line per run, as it
finishes. :func:`fdlsr.results.read_results` reads one folder or several into a
pandas ``DataFrame``: one row per run (data set, method, ``k``, split, seed, setting,
how its parameters were chosen, accuracy, times, every parameter it was fitted with),
with columns to group on (categoricals; ``k`` in order). The folder stays the source
of truth: the frame is read from it each time.

Here a short experiment on the faces shipped with the package, with CRC's
regularisation chosen by cross-validation on each training split; the same works on
the folders of the paper's tables (``docs/results/feret`` in the repository).
Every table and figure of ``fdlsr report`` and ``fdlsr plot results`` is computed
from this frame.
"""

import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

from fdlsr.results import read_results

out = Path(tempfile.mkdtemp()) / "faces"
run = [sys.executable, "-m", "fdlsr", "run", "--config", "faces", "--no-table"]
run += ["--methods", "FDLSR", "DLSR", "LSR", "CRC", "--cv", "CRC"]
run += ["-k", "2", "3", "4", "--splits", "3", "--out", str(out)]
subprocess.run(run, check=True, capture_output=True, text=True)

frame = read_results(out)
print(frame[["method", "k", "split", "tuning", "accuracy", "fit_time"]].head())

# %%
# Group by method and k, and pivot: the cells of ``fdlsr report`` (which prints 100
# times the accuracy). ``label`` is the row label of the tables: the method, and
# what sets a setting apart when a method has several.
table = (
    frame.groupby(["label", "k"], observed=True)["accuracy"]
    .agg(["mean", "std"])
    .mul(100)
    .unstack("k")
)
print(table.round(2))

# %%
# What cross-validation chose on each training split: a tuned method's chosen
# values are in its ``param_`` columns, one row per split.
crc = frame[frame.method == "CRC"]
print(crc.pivot(index="split", columns="k", values="param_lam"))

# %%
# Plot the mean accuracy against k with the standard deviation over the splits.
fig, ax = plt.subplots(figsize=(6, 4))
for label in table.index:
    mean, std = table.loc[label, "mean"], table.loc[label, "std"]
    ks = [int(k) for k in mean.index]
    ax.errorbar(ks, mean.values, yerr=std.values, marker="o", capsize=3, label=label)
ax.set_xticks(ks)
ax.set_xlabel("k (training samples per class)")
ax.set_ylabel("test accuracy (%)")
ax.set_title("The shipped faces, 3 random splits")
ax.legend()
ax.grid(alpha=0.3)
fig.tight_layout()
plt.show()

# %%
# ``fdlsr plot results FOLDER --out DIR`` draws the comparison figures of all the
# methods from a results folder (accuracy against k, and against training time with
# the Pareto front), and :func:`fdlsr.results.plot_accuracy_by_k` returns the first.
from fdlsr.results import plot_accuracy_by_k  # noqa: E402

plot_accuracy_by_k(out)
plt.show()
