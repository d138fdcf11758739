"""
The projected features in two dimensions (Fig. 2)
=================================================

FDLSR's ``transform`` gives the projected features ``Q x`` (one per class). The
paper's Fig. 2 embeds them with t-SNE beside the raw pixels to show the classes
drawn together. :func:`~fdlsr.figures.projections` trains on the whole
training split and returns the features of the first classes; here eight persons of
the shipped faces, training (dots) and test (crosses) images.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.manifold import TSNE

from fdlsr._experiments.figure_data import projections, split_data
from fdlsr.datasets import load_dataset

faces = load_dataset("faces")
X, codes, train, test = split_data(faces, k=5, seed=0)
panels, y_train, y_test, _ = projections(
    X, codes, train, test, {"alpha": 1e-1, "beta": 1e-2, "lam": 1e-1}, n_show=8
)

# %%
# One t-SNE per panel, over the training and test samples together (the exact
# method: quicker than Barnes-Hut for under a few hundred points).
fig, axes = plt.subplots(1, len(panels), figsize=(10, 4.5))
colors = plt.get_cmap("tab10")
for ax, (title, (shown_train, shown_test)) in zip(axes, panels.items(), strict=True):
    both = np.vstack([shown_train, shown_test])
    embedded = TSNE(
        perplexity=10, init="pca", method="exact", random_state=0
    ).fit_transform(both)
    n = len(shown_train)
    ax.scatter(*embedded[:n].T, c=colors(y_train % 10), s=18, marker="o")
    ax.scatter(*embedded[n:].T, c=colors(y_test % 10), s=30, marker="x")
    ax.set_title(title)
    ax.set_xticks([])
    ax.set_yticks([])
fig.suptitle("t-SNE of 8 persons: training (o) and test (x) images")
fig.tight_layout()
plt.show()
