"""
Out of core with Dask
=====================

A Dask array is fitted chunk by chunk: each iteration of FDLSR's primal solver is
one pass over the chunks, so the samples never need to be in memory at once (on a
laptop from a file larger than memory, or on a ``dask.distributed`` cluster).
``predict`` and ``transform`` of a Dask array are Dask arrays too, computed chunk by
chunk. The fit gives the in-memory fit's projection. Needs ``pip install
"fdlsr[dask]"``.
"""

import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.preprocessing import normalize

from fdlsr import FDLSR

X, y = make_classification(
    n_samples=4_000, n_features=60, n_informative=30, n_classes=8, random_state=1
)
X = normalize(X)
# fixed values (those of the digits config): the example compares two ways of
# fitting one model, not parameters
params = {"alpha": 1e-2, "beta": 1e-3, "lam": 1e-1, "decision_rule": "nearest_mean"}

# %%
# The same samples as a Dask array of 4 chunks (in practice: ``da.from_zarr``,
# ``da.from_array`` of an HDF5 dataset, ...).
X_dask = da.from_array(X, chunks=(1_000, 60))
y_dask = da.from_array(y, chunks=1_000)
in_memory = FDLSR(**params).fit(X, y)
out_of_core = FDLSR(**params).fit(X_dask, y_dask)
difference = np.linalg.norm(out_of_core.coef_ - in_memory.coef_) / np.linalg.norm(
    in_memory.coef_
)
print(f"relative difference of Q: {difference:.1e}")

predicted = out_of_core.predict(X_dask)  # lazy, one task per chunk
print(type(predicted).__name__, predicted.numblocks)
agreement = np.mean(predicted.compute() == in_memory.predict(X))
print(f"same predictions: {100 * agreement:.2f} %")

# %%
# The objective after each iteration, in memory and chunk by chunk.
fig, ax = plt.subplots(figsize=(6, 3.8))
iterations = np.arange(1, in_memory.n_iter_ + 1)
ax.plot(iterations, in_memory.objective_, "o-", label="NumPy, in memory", ms=6)
ax.plot(iterations, out_of_core.objective_, "x--", label="Dask, 4 chunks", ms=6)
ax.set_xlabel("iteration")
ax.set_ylabel("objective (Eq. 10)")
ax.set_yscale("log")
ax.legend()
ax.set_title(f"Same fit: relative difference of Q {difference:.0e}")
fig.tight_layout()
plt.show()
