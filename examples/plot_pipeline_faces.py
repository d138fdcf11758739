"""
FDLSR in a scikit-learn Pipeline on the shipped faces
=====================================================

The paper's full method is two steps: unit-normalise every sample, then FDLSR. As a
scikit-learn ``Pipeline`` it fits, predicts and scores like any classifier. Here it
is trained on the AT&T (ORL) faces shipped inside the package (40 persons, 10 images
each, 32x32) with five training images per person, and evaluated on the other five
over the paper's random splits (:class:`~fdlsr.model_selection._split.PerClassSplit`).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer

from fdlsr import FDLSR
from fdlsr.datasets import load_dataset
from fdlsr.model_selection._split import PerClassSplit

faces = load_dataset("faces")
print(faces.X.shape, faces.n_classes, faces.image_shape)

# %%
# The pipeline, with the paper's parameters for its 32x32 face sets, scored over
# ten random splits of five training images per person.
model = make_pipeline(Normalizer(), FDLSR(alpha=1e-1, beta=1e-2, lam=1e-1))
scores = cross_val_score(model, faces.X, faces.y, cv=PerClassSplit(5, n_splits=10))
print(f"accuracy: {100 * scores.mean():.2f} +- {100 * scores.std(ddof=1):.2f} %")

# %%
# One split in detail: the test faces, their predicted person, and the training
# face of that person (a wrong prediction in red).
train, test = next(PerClassSplit(5, n_splits=1).split(faces.X, faces.y))
model.fit(faces.X[train], faces.y[train])
predicted = model.predict(faces.X[test])
images = faces.images()
first_of = {}  # a training face of each person
for i in train:
    first_of.setdefault(faces.y[i], i)

rng = np.random.default_rng(0)
shown = rng.choice(len(test), 8, replace=False)
fig, axes = plt.subplots(2, 8, figsize=(10, 3.2))
for col, j in enumerate(shown):
    i = test[j]
    right = predicted[j] == faces.y[i]
    axes[0, col].imshow(images[i], cmap="gray")
    axes[0, col].set_title(f"person {faces.y[i]}", fontsize=8)
    axes[1, col].imshow(images[first_of[predicted[j]]], cmap="gray")
    axes[1, col].set_title(
        f"-> {predicted[j]}", fontsize=8, color="black" if right else "red"
    )
for ax in axes.ravel():
    ax.set_axis_off()
fig.suptitle(
    f"Test faces (top) and a training face of the predicted person (bottom): "
    f"{100 * np.mean(predicted == faces.y[test]):.1f} % right on this split",
    fontsize=10,
)
plt.show()
