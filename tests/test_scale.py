"""Bounded memory: the blocked iteration, Dask (threaded and on a LocalCluster) and the
chunked 1-NN rule give the in-memory results."""

import numpy as np
import pytest
import sklearn
from sklearn.datasets import make_blobs
from sklearn.preprocessing import normalize

from fdlsr import FDLSR
from fdlsr._common.neighbors import NearestProjection
from fdlsr._testing import relative_error

PARAMS = dict(alpha=1e-2, beta=1e-3, lam=1e-1, max_iter=8)


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(n_samples=700, centers=7, n_features=12, random_state=0)
    names = np.array(list("gfedcba"))[y]  # string labels, unsorted
    return normalize(X)[:600], names[:600], normalize(X)[600:]


@pytest.mark.parametrize("t_step", ["paper", "exact"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_blocked_fit_equals_in_memory(blobs, t_step, dtype):
    X, y, X_test = (a.astype(dtype) if a.dtype.kind == "f" else a for a in blobs)
    full = FDLSR(**PARAMS, t_step=t_step).fit(X, y)
    with sklearn.config_context(working_memory=0.01):  # forces the blocked path
        blocked = FDLSR(**PARAMS, t_step=t_step).fit(X, y)
    rtol = 1e-10 if dtype == np.float64 else 1e-4
    assert blocked.coef_.dtype == dtype
    assert relative_error(blocked.coef_, full.coef_) < rtol
    np.testing.assert_allclose(blocked.objective_, full.objective_, rtol=rtol)
    np.testing.assert_array_equal(blocked.predict(X_test), full.predict(X_test))


@pytest.mark.parametrize("t_step", ["paper", "exact"])
def test_blocked_fit_in_many_pieces_equals_in_memory(blobs, t_step, monkeypatch):
    """Pieces of 37 rows: class runs cut across pieces, several runs per piece."""
    from fdlsr._core import blocked as blocked_path

    X, y, X_test = blobs
    full = FDLSR(**PARAMS, t_step=t_step).fit(X, y)
    monkeypatch.setattr(blocked_path, "default_block_rows", lambda c, itemsize: 37)
    with sklearn.config_context(working_memory=0.01):
        blocked = FDLSR(**PARAMS, t_step=t_step).fit(X, y)
    assert relative_error(blocked.coef_, full.coef_) < 1e-10
    np.testing.assert_allclose(blocked.objective_, full.objective_, rtol=1e-10)


def test_blocked_fit_stops_early_like_in_memory(blobs):
    X, y, _ = blobs
    params = dict(PARAMS, max_iter=100, tol=1e-4)
    full = FDLSR(**params).fit(X, y)
    with sklearn.config_context(working_memory=0.01):
        blocked = FDLSR(**params).fit(X, y)
    assert blocked.n_iter_ == full.n_iter_ < 100


@pytest.mark.filterwarnings("ignore:Could not adhere to working_memory")
def test_tiny_working_memory_gives_identical_predictions(blobs):
    X, y, X_test = blobs
    model = FDLSR(**PARAMS).fit(X, y)
    expected = model.decision_function(X_test)
    with sklearn.config_context(working_memory=1e-4):  # one test row per batch
        # a one-row product may round differently from a batched one, in the last bit
        scores = model.decision_function(X_test)
        np.testing.assert_allclose(scores, expected, rtol=1e-12, atol=1e-15)
        np.testing.assert_array_equal(
            model.predict(X_test), model.classes_[expected.argmax(1)]
        )


def test_projection_reference_built_in_blocks_is_the_same(blobs):
    X, y, X_test = blobs
    codes = np.unique(y, return_inverse=True)[1]
    coef = FDLSR(**PARAMS).fit(X, y).coef_
    whole = NearestProjection(X @ coef.T, codes, 7)
    blocks = NearestProjection.from_features(X, coef, codes, 7, block_rows=64)
    np.testing.assert_allclose(blocks.reference, whole.reference, rtol=1e-12)
    np.testing.assert_array_equal(
        blocks.predict(X_test @ coef.T), whole.predict(X_test @ coef.T)
    )


da = pytest.importorskip("dask.array")


@pytest.mark.parametrize(
    "t_step, dtype",
    [("paper", np.float64), ("exact", np.float64), ("paper", np.float32)],
)
def test_dask_threaded_equals_in_memory(blobs, t_step, dtype):
    X, y, X_test = blobs
    X, X_test = X.astype(dtype), X_test.astype(dtype)
    full = FDLSR(**PARAMS, t_step=t_step, solver="primal").fit(X, y)
    model = FDLSR(**PARAMS, t_step=t_step).fit(da.from_array(X, chunks=(170, 6)), y)
    rtol = 1e-10 if dtype == np.float64 else 1e-4
    assert model.coef_.dtype == dtype
    assert relative_error(model.coef_, full.coef_) < rtol
    np.testing.assert_allclose(model.objective_, full.objective_, rtol=rtol)
    predicted = model.predict(da.from_array(X_test, chunks=50))
    np.testing.assert_array_equal(predicted.compute(), full.predict(X_test))


def test_dask_local_cluster_equals_in_memory(blobs):
    distributed = pytest.importorskip("dask.distributed")
    X, y, X_test = blobs
    full = FDLSR(**PARAMS, solver="primal").fit(X, y)
    with (
        distributed.LocalCluster(
            n_workers=3, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        model = FDLSR(**PARAMS).fit(da.from_array(X, chunks=(100, -1)), y)
        predicted = model.predict(da.from_array(X_test, chunks=50)).compute()
    assert relative_error(model.coef_, full.coef_) < 1e-6
    np.testing.assert_array_equal(predicted, full.predict(X_test))


def test_dask_input_errors_are_named(blobs):
    X, y, _ = blobs
    with pytest.raises(ValueError, match="primal form"):
        FDLSR(solver="dual").fit(da.from_array(X), y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        FDLSR().fit(da.from_array(X), y[:-1])
    bad = X.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        FDLSR().fit(da.from_array(bad, chunks=100), y)
