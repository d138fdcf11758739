"""
Saving and loading a model
==========================

:func:`fdlsr.save` writes a fitted estimator, or a ``Pipeline`` ending in one, to a
zip of JSON and NumPy arrays; :func:`fdlsr.load` reads it back without ever running
code from the file (a pickle, a damaged file or a class outside the allowlist is
refused with one line, :class:`~fdlsr.errors.ModelFileError`). The loaded model
predicts exactly what the saved one did. ``fdlsr fit`` and ``fdlsr predict`` do the
same from the command line.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer

import fdlsr
from fdlsr import FDLSR
from fdlsr.datasets import load_dataset
from fdlsr.errors import ModelFileError
from fdlsr.model_selection._split import per_class_split

faces = load_dataset("faces")
train, test = per_class_split(faces.y, 5, seed=0, index=0)
# the paper's values for its 32x32 face sets, as the faces demo (`fdlsr`) uses
model = make_pipeline(Normalizer(), FDLSR(alpha=1e-1, beta=1e-2, lam=1e-1))
model.fit(faces.X[train], faces.y[train])

folder = Path(tempfile.mkdtemp())
path = fdlsr.save(model, folder / "faces.fdlsr")
print(f"{path.name}: {path.stat().st_size / 1024:.0f} KiB")
loaded = fdlsr.load(path)
print(loaded)

before = model.decision_function(faces.X[test])
after = loaded.decision_function(faces.X[test])
print("identical scores:", np.array_equal(before, after))

# %%
# A file that is not a model (here a pickle) is refused, and nothing in it runs.
import pickle  # noqa: E402

(folder / "model.pkl").write_bytes(pickle.dumps(model))
try:
    fdlsr.load(folder / "model.pkl")
except ModelFileError as error:
    print("ModelFileError:", error)

# %%
# The decision scores of the test faces, saved model against loaded model: every
# point on the diagonal.
fig, ax = plt.subplots(figsize=(4.5, 4.5))
ax.plot(before.ravel(), after.ravel(), ".", ms=2, alpha=0.4)
ax.plot([before.min(), before.max()], [before.min(), before.max()], "k-", lw=0.5)
ax.set_xlabel("score of the fitted model")
ax.set_ylabel("score of the loaded model")
ax.set_title("fdlsr.save then fdlsr.load")
fig.tight_layout()
plt.show()
