"""
Reproducing a paper table
=========================

The paper's tables come from one protocol: ``k`` random training samples per class,
the rest for testing, 10 seeded splits, unit-normalised samples, mean ± std
accuracy. ``fdlsr run`` runs it and stores every run as it finishes, ``fdlsr report``
renders the table, and ``--paper`` puts the paper's numbers beside ours (they ship
with the package). The paper's data sets are not shipped: Table III, for instance,
is ``fdlsr run --config feret --data-dir DIR`` then ``fdlsr report
fdlsr-results/feret --paper``. Here the same two commands on the shipped faces, with
three methods, three values of k and three splits to keep it short, and the paper's Table III beside.
"""

import csv
import io
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import MaxNLocator

from fdlsr._experiments.report import paper_results

out = Path(tempfile.mkdtemp()) / "faces"
methods = ["FDLSR", "DLSR", "CRC"]
fdlsr = [sys.executable, "-m", "fdlsr"]
run = [*fdlsr, "run", "--config", "faces", "--methods", *methods]
run += ["-k", "2", "3", "4", "--splits", "3", "--out", str(out)]
subprocess.run(run, check=True, capture_output=True, text=True)
table = subprocess.run(
    [*fdlsr, "report", str(out)], check=True, capture_output=True, text=True
).stdout
print(table)

# %%
# The same results as CSV, for the figure, and the paper's Table III (FERET).
rows = subprocess.run(
    [*fdlsr, "report", str(out), "--format", "csv"],
    check=True,
    capture_output=True,
    text=True,
).stdout
ours = list(csv.DictReader(io.StringIO(rows)))
paper = paper_results("III")

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), sharey=False)
for method in methods:
    mine = sorted(
        (int(r["k"]), float(r["accuracy_mean_pct"])) for r in ours if r["method"] == method
    )
    left.plot(*np.array(mine).T, "o-", label=method)
    theirs = sorted((r["k"], r["mean"]) for r in paper if r["method"] == method)
    if theirs:
        right.plot(*np.array(theirs).T, "o-", label=method)
left.set_title("fdlsr run on the shipped faces (3 splits)")
right.set_title("the paper's Table III (FERET), as printed")
for ax in (left, right):
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("training samples per class (k)")
    ax.set_ylabel("accuracy (%)")
    ax.legend()
fig.tight_layout()
plt.show()
