"""
float32, PyTorch arrays and the blocked path
============================================

The same :class:`~fdlsr.FDLSR` fits

* float32 input in float32 end to end (half the memory),
* arrays of other libraries (PyTorch, CuPy) through scikit-learn's array API
  dispatch, on their device,
* and, with ``solver="blocked"`` (or ``"auto"`` when the in-memory iteration would
  exceed scikit-learn's ``working_memory``), one pass over blocks of samples per
  iteration in bounded memory.

The blocked and PyTorch float64 fits give the projection ``Q`` of the in-memory
fit to rounding; float32 rounds at about 1e-7 per step, and 30 iterations of an
ill-conditioned regression (small ``beta``) amplify that, yet the predictions
hardly change.
Here on generated data: 5,000 samples, 100 features, 10 classes.
"""

import matplotlib.pyplot as plt
import numpy as np
import sklearn
from sklearn.datasets import make_classification
from sklearn.preprocessing import normalize

from fdlsr import FDLSR

X, y = make_classification(
    n_samples=5_000, n_features=100, n_informative=40, n_classes=10, random_state=0
)
X = normalize(X)
# fixed values (those of the digits config): the example compares ways of fitting
# one model, not parameters
params = {"alpha": 1e-2, "beta": 1e-3, "lam": 1e-1, "decision_rule": "nearest_mean"}


def fit(X, **extra):
    return FDLSR(**params, **extra).fit(X, y)


reference = fit(X)
expected = reference.predict(X)
coefs, predictions = {}, {}
for name, data, extra in [
    ("float64", X, {}),
    ("float32", X.astype(np.float32), {}),
    ("blocked", X, {"solver": "blocked"}),
]:
    model = fit(data, **extra)
    coefs[name], predictions[name] = model.coef_, model.predict(data)
print("float32 coef_ dtype:", coefs["float32"].dtype)

# %%
# PyTorch tensors, where PyTorch is installed and SciPy's array API support is on
# (``SCIPY_ARRAY_API=1`` in the environment before SciPy is imported).
try:
    import torch

    with sklearn.config_context(array_api_dispatch=True):
        model = fit(torch.asarray(X))
        predicted = model.predict(torch.asarray(X))
    print("torch coef_:", type(model.coef_).__name__, model.coef_.device)
    coefs["torch"], predictions["torch"] = (
        model.coef_.cpu().numpy(),
        predicted.cpu().numpy(),
    )
except (ImportError, RuntimeError, ValueError) as error:
    print("PyTorch part skipped:", str(error).splitlines()[0])

# %%
# Relative difference of each ``Q`` from the float64 in-memory fit, and the share
# of predictions that agree with it.
names = list(coefs)
diffs = [
    np.linalg.norm(coefs[n] - reference.coef_) / np.linalg.norm(reference.coef_)
    for n in names
]
agreement = [100 * np.mean(predictions[n] == expected) for n in names]
for name, d, a in zip(names, diffs, agreement, strict=True):
    print(f"{name:8s} relative difference of Q {d:.1e}, same predictions {a:.2f} %")
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
left.bar(names, [max(d, 1e-17) for d in diffs], color="tab:blue")
left.set_yscale("log")
left.set_ylabel("||Q - Q_float64|| / ||Q_float64||")
right.bar(names, agreement, color="tab:green")
right.set_ylim(95, 100.5)
right.set_ylabel("predictions equal to float64's (%)")
fig.suptitle("One model, several array paths (5,000 x 100, 10 classes)")
fig.tight_layout()
plt.show()
