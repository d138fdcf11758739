"""The lean fit paths give the dense path's results: the in-place dense iteration
(with and without a stopping rule) and the blocked iteration on PyTorch and
array-api-strict arrays, in several blocks, float64 and float32."""

import numpy as np
import pytest
import sklearn
from sklearn.datasets import make_blobs
from sklearn.preprocessing import normalize

from fdlsr import FDLSR
from fdlsr._core.blocked import fit_blocked
from fdlsr._core.dense import fit_fdlsr
from fdlsr._testing import relative_error

PARAMS = dict(alpha=1e-2, beta=1e-3, lam=1e-1, max_iter=8, tol=None, init_ridge=1e-4)


def to_numpy(a):
    return np.asarray(a.cpu() if hasattr(a, "cpu") else a)


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(n_samples=500, centers=6, n_features=15, random_state=1)
    rng = np.random.default_rng(0)
    order = rng.permutation(y.size)  # classes interleaved, unequal block contents
    return normalize(X)[order][:400], y[order][:400], normalize(X)[order][400:]


@pytest.mark.parametrize("solver", ["primal", "dual"])
@pytest.mark.parametrize("t_step", ["paper", "exact"])
def test_in_place_iteration_equals_the_one_keeping_the_previous_step(
    blobs, solver, t_step
):
    """tol=0 keeps every previous product (it never stops early); tol=None reuses
    the buffers. Same iterates."""
    X, y, _ = blobs
    reused = fit_fdlsr(X, y, 6, **PARAMS, t_step=t_step, solver=solver)
    kept = fit_fdlsr(X, y, 6, **{**PARAMS, "tol": 0.0}, t_step=t_step, solver=solver)
    assert kept.n_iter == reused.n_iter == PARAMS["max_iter"]
    np.testing.assert_array_equal(kept.coef, reused.coef)
    np.testing.assert_array_equal(kept.objective, reused.objective)
    np.testing.assert_array_equal(kept.dragging, reused.dragging)
    assert np.all(reused.dragging >= 0)


@pytest.mark.parametrize("namespace", ["numpy", "torch", "array_api_strict"])
@pytest.mark.parametrize("t_step", ["paper", "exact"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_blocked_path_in_pieces_equals_dense(blobs, namespace, t_step, dtype):
    xp = pytest.importorskip(namespace)
    X, y, _ = blobs
    X = X.astype(dtype)
    dense = fit_fdlsr(X, y, 6, **PARAMS, t_step=t_step, solver="primal")
    with sklearn.config_context(array_api_dispatch=namespace != "numpy"):
        coef, objective, n_iter = fit_blocked(
            xp.asarray(X), xp.asarray(y), 6, **PARAMS, t_step=t_step, block_rows=37
        )
    assert type(coef) is type(xp.asarray(X))
    assert coef.dtype == xp.asarray(X).dtype
    rtol = 1e-10 if dtype == "float64" else 1e-4
    assert relative_error(to_numpy(coef), dense.coef) < rtol
    np.testing.assert_allclose(objective, dense.objective, rtol=rtol)
    assert n_iter == dense.n_iter


@pytest.mark.parametrize("namespace", ["torch", "array_api_strict"])
@pytest.mark.parametrize("rule", ["nearest_neighbor", "nearest_mean"])
def test_blocked_solver_on_device_predicts_as_numpy(blobs, namespace, rule):
    xp = pytest.importorskip(namespace)
    X, y, X_test = blobs
    reference = FDLSR(**PARAMS, decision_rule=rule).fit(X, y)
    with sklearn.config_context(array_api_dispatch=True):
        model = FDLSR(**PARAMS, decision_rule=rule, solver="blocked")
        model.fit(xp.asarray(X), xp.asarray(y))
        predicted = model.predict(xp.asarray(X_test))
        centroids = model.centroids_
    assert relative_error(to_numpy(model.coef_), reference.coef_) < 1e-10
    np.testing.assert_allclose(to_numpy(centroids), reference.centroids_, atol=1e-10)
    np.testing.assert_array_equal(to_numpy(predicted), reference.predict(X_test))


def test_auto_solver_goes_blocked_on_device_when_large(blobs):
    torch = pytest.importorskip("torch")
    X, y, X_test = blobs
    reference = FDLSR(**PARAMS).fit(X, y)
    with sklearn.config_context(array_api_dispatch=True, working_memory=0.01):
        model = FDLSR(**PARAMS).fit(torch.asarray(X), torch.asarray(y))
    assert relative_error(model.coef_.numpy(), reference.coef_) < 1e-10


@pytest.mark.parametrize("namespace", ["numpy", "torch", "array_api_strict"])
@pytest.mark.parametrize("piece", [None, 1, 50])
def test_sq_distance_in_pieces_equals_the_whole_difference(namespace, piece):
    """Pieces of one row (a million columns on a GPU) or several, summed on the
    array's device: the same number as the whole difference in NumPy."""
    from fdlsr._common.linalg import sq_distance

    xp = pytest.importorskip(namespace)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 7, 30))
    expected = float(np.sum((a - b) ** 2))
    got = sq_distance(xp.asarray(a), xp.asarray(b), piece=piece)
    assert isinstance(got, float)
    assert got == pytest.approx(expected, rel=1e-12)
