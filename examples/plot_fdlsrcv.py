"""
Choosing the parameters with FDLSRCV, and the sensitivity surface
=================================================================

:class:`~fdlsr.FDLSRCV` chooses ``alpha``, ``beta``, ``lam`` and the decision rule by
cross-validation on the training set only, with the choice ``GridSearchCV`` would
make but one factorisation per fold and ``beta`` shared by the whole grid. Its
``cv_results_`` hold the validation accuracy of every grid point: at the chosen
``beta`` they are the sensitivity surface of the paper's Fig. 3, here measured by
cross-validation rather than on the test set.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.preprocessing import normalize

from fdlsr import FDLSRCV
from fdlsr.datasets import load_dataset
from fdlsr.model_selection._split import per_class_split

faces = load_dataset("faces")
X = normalize(faces.X)  # the paper's unit-norm samples
train, test = per_class_split(faces.y, 5, seed=0, index=0)

grid = [1e-4, 1e-3, 1e-2, 1e-1, 1.0]
search = FDLSRCV(
    alphas=grid,
    betas=[1e-3, 1e-2, 1e-1],
    lams=grid,
    decision_rules=["nearest_neighbor"],
)
search.fit(X[train], faces.y[train])
print("chosen:", search.best_params_)
print(f"test accuracy: {100 * search.score(X[test], faces.y[test]):.2f} %")

# %%
# The validation accuracy over alpha x lambda at the chosen beta.
results = search.cv_results_
at_beta = np.asarray(results["param_beta"], dtype=float) == search.best_params_["beta"]
surface = np.empty((len(grid), len(grid)))
for a, alpha in enumerate(grid):
    for lam_index, lam in enumerate(grid):
        row = (
            at_beta
            & (np.asarray(results["param_alpha"], dtype=float) == alpha)
            & (np.asarray(results["param_lam"], dtype=float) == lam)
        )
        surface[a, lam_index] = 100 * results["mean_test_score"][row][0]

fig, ax = plt.subplots(figsize=(6.5, 5))
image = ax.imshow(surface, origin="lower", cmap="viridis")
ax.set_xticks(range(len(grid)), [f"{v:g}" for v in grid])
ax.set_yticks(range(len(grid)), [f"{v:g}" for v in grid])
ax.set_xlabel("lambda")
ax.set_ylabel("alpha")
for a in range(len(grid)):
    for j in range(len(grid)):
        dark = surface[a, j] < surface.min() + 0.6 * np.ptp(surface)
        color = "white" if dark else "black"
        ax.text(j, a, f"{surface[a, j]:.1f}", ha="center", va="center", color=color)
fig.colorbar(image, label="validation accuracy (%)")
ax.set_title(f"FDLSRCV on the faces, beta = {search.best_params_['beta']:g}")
fig.tight_layout()
plt.show()
