"""FDLSR on PyTorch and array-api-strict arrays: same results as NumPy, on their device.

scikit-learn's own array API checks run in test_sklearn_compat.py and test_cv.py
(``parametrize_with_checks`` includes them, since FDLSR declares array API support);
here the values are compared with the NumPy fit.
"""

import numpy as np
import pytest
import sklearn
from sklearn.datasets import make_blobs
from sklearn.preprocessing import normalize

from fdlsr import FDLSR, FDLSRCV

NAMESPACES = ["array_api_strict", "torch"]


def to_numpy(a):
    return np.asarray(a.cpu() if hasattr(a, "cpu") else a)


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(n_samples=120, centers=4, n_features=30, random_state=0)
    X = normalize(X)
    return X[:80], y[:80], X[80:]


@pytest.mark.parametrize("namespace", NAMESPACES)
@pytest.mark.parametrize("solver", ["primal", "dual"])
@pytest.mark.parametrize("t_step", ["paper", "exact"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_same_results_as_numpy(blobs, namespace, solver, t_step, dtype):
    xp = pytest.importorskip(namespace)
    X, y, X_test = (a.astype(dtype) if a.dtype.kind == "f" else a for a in blobs)
    params = dict(alpha=1e-2, beta=1e-2, lam=1e-1, solver=solver, t_step=t_step)
    reference = FDLSR(**params).fit(X, y)
    with sklearn.config_context(array_api_dispatch=True):
        model = FDLSR(**params).fit(xp.asarray(X), xp.asarray(y))
        coef = model.coef_
        scores = model.decision_function(xp.asarray(X_test))
        predicted = model.predict(xp.asarray(X_test))
    assert type(coef) is type(xp.asarray(X))
    assert coef.dtype == xp.asarray(X).dtype
    rtol = 1e-9 if dtype == "float64" else 2e-3
    np.testing.assert_allclose(to_numpy(coef), reference.coef_, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(
        to_numpy(scores), reference.decision_function(X_test), rtol=rtol, atol=rtol
    )
    np.testing.assert_array_equal(to_numpy(predicted), reference.predict(X_test))


def test_fdlsrcv_accepts_torch(blobs):
    torch = pytest.importorskip("torch")
    X, y, X_test = blobs
    grid = dict(alphas=[1e-2, 1.0], betas=[1e-3, 1e-1], lams=[1e-1], cv=3)
    reference = FDLSRCV(**grid).fit(X, y)
    with sklearn.config_context(array_api_dispatch=True):
        model = FDLSRCV(**grid).fit(torch.asarray(X), torch.asarray(y))
        predicted = model.predict(torch.asarray(X_test))
    assert model.best_params_ == reference.best_params_
    assert isinstance(model.coef_, torch.Tensor)
    np.testing.assert_array_equal(predicted.numpy(), reference.predict(X_test))


@pytest.mark.parametrize("namespace", NAMESPACES)
@pytest.mark.parametrize(
    "fixed",
    [
        dict(solver="dual", t_step="paper"),
        dict(solver="primal", t_step="exact", n_neighbors=3, weights="distance"),
        dict(solver="dual", t_step="paper", scoring="balanced_accuracy"),
    ],
)
def test_fdlsrcv_searches_in_the_namespace(blobs, namespace, fixed, monkeypatch):
    """The grid's iterations run on the input's arrays (no move to NumPy) and give
    NumPy's cv_results_ and choice, for every rule and a generic scorer."""
    from fdlsr._core import search

    xp = pytest.importorskip(namespace)
    X, y, X_test = blobs
    grid = dict(alphas=[1e-2, 1.0], betas=[1e-3, 1e-1], lams=[0.0, 1e-1], cv=3)
    reference = FDLSRCV(**grid, max_iter=8, **fixed).fit(X, y)
    seen = []

    def spy(fitted_op, init_fitted, *args, **kwargs):
        seen.append(type(init_fitted))
        return search_grid(fitted_op, init_fitted, *args, **kwargs)

    search_grid = search.search_grid
    monkeypatch.setattr(search, "search_grid", spy)
    with sklearn.config_context(array_api_dispatch=True):
        model = FDLSRCV(**grid, max_iter=8, **fixed).fit(xp.asarray(X), xp.asarray(y))
        predicted = model.predict(xp.asarray(X_test))
    assert seen and all(kind is type(xp.asarray(X)) for kind in seen)
    assert model.best_params_ == reference.best_params_
    for key in ["mean_test_score", "rank_test_score"]:
        np.testing.assert_allclose(
            model.cv_results_[key], reference.cv_results_[key], rtol=1e-6
        )
    np.testing.assert_array_equal(to_numpy(predicted), reference.predict(X_test))
