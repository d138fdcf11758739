"""FDLSR against a plain transcription of the authors' MATLAB code, on real data."""

import numpy as np
import pytest

from fdlsr import FDLSR
from fdlsr._testing import fdlsr_transcription, relative_error
from fdlsr.model_selection._split import per_class_split


def sorted_by_class(X, y):
    order = np.argsort(y, kind="stable")
    return X[order], y[order]


@pytest.mark.parametrize("shuffle", [False, True], ids=["class-sorted", "shuffled"])
@pytest.mark.parametrize(
    "case, k, params",
    [
        ("feret", 3, dict(alpha=1e-2, beta=1e-3, lam=1e-1)),  # d = 1600 > n = 600
        ("usps", 60, dict(alpha=1.0, beta=1e-2, lam=1.0)),  # d = 256 < n = 600
    ],
)
def test_same_q_as_transcription(request, case, k, params, shuffle):
    X, y = request.getfixturevalue(case)
    train, _ = per_class_split(y, k, seed=0, index=0)
    Xs, ys = sorted_by_class(X[train], y[train])
    codes = np.unique(ys, return_inverse=True)[1]
    Q_ref = fdlsr_transcription(Xs.T, codes, **params)

    if shuffle:
        order = np.random.default_rng(1).permutation(ys.size)
        Xs, ys = Xs[order], ys[order]
    model = FDLSR(**params, t_step="paper").fit(Xs, ys)
    assert model.n_iter_ == 30
    assert relative_error(model.coef_, Q_ref) < 1e-8


@pytest.mark.parametrize("case, k", [("feret", 2), ("usps", 30)])
def test_primal_and_dual_forms_agree(request, case, k):
    X, y = request.getfixturevalue(case)
    train, _ = per_class_split(y, k, seed=0, index=0)
    params = dict(alpha=1e-1, beta=1e-2, lam=1e-1)
    primal = FDLSR(**params, solver="primal").fit(X[train], y[train])
    dual = FDLSR(**params, solver="dual").fit(X[train], y[train])
    assert relative_error(dual.coef_, primal.coef_) < 1e-8
    np.testing.assert_allclose(dual.objective_, primal.objective_, rtol=1e-8)
