"""
The convergence curve (Fig. 1)
==============================

FDLSR's alternating solver decreases its objective (Eq. 10 of the paper) at every
iteration; the paper's Fig. 1 shows the objective and the test accuracy against the
iteration. :func:`~fdlsr.figures.convergence` records both in one fit,
through the solver's callback (``fdlsr plot convergence`` draws the same figure from
the command line). Here on one split of the shipped faces, five training images per
person.
"""

import matplotlib.pyplot as plt

from fdlsr._experiments.figure_data import convergence, split_data
from fdlsr.datasets import load_dataset

faces = load_dataset("faces")
X, codes, train, test = split_data(faces, k=5, seed=0)
curve = convergence(X, codes, train, test, {"alpha": 1e-1, "beta": 1e-2, "lam": 1e-1})
print(f"objective {curve['objective'][0]:.2f} -> {curve['objective'][-1]:.2f}")
print(f"test accuracy after 30 iterations: {100 * curve['accuracy'][-1]:.2f} %")

# %%
fig, left = plt.subplots(figsize=(6.5, 4))
left.plot(curve["iteration"], curve["objective"], "o-", color="tab:blue", ms=3)
left.set_xlabel("iteration")
left.set_ylabel("objective (Eq. 10)", color="tab:blue")
right = left.twinx()
right.plot(
    curve["iteration"],
    [100 * a for a in curve["accuracy"]],
    "s-",
    color="tab:red",
    ms=3,
)
right.set_ylabel("test accuracy (%)", color="tab:red")
left.set_title("FDLSR on the faces, k = 5: alpha=0.1, beta=0.01, lambda=0.1")
fig.tight_layout()
plt.show()
