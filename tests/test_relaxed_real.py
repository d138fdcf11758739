"""The LSR family on the paper's FERET data: transcriptions and sanity of accuracy.

Small subsets keep these fast; the full 10-split protocol is
``benchmarks/lsr_family_feret.py protocol``.
"""

import numpy as np
import pytest

from fdlsr._experiments.registry import METHODS as ALL_METHODS
from fdlsr._testing import relative_error
from fdlsr.model_selection._split import per_class_split
from fdlsr.relaxed import DLSR, LRDLSR
from reference_relaxed import dlsr_transcription, lrdlsr_transcription

# Small problems: BLAS threads only add contention on shared cores.
pytestmark = pytest.mark.usefixtures("one_blas_thread_per_module")


@pytest.fixture(scope="module")
def feret_subset(feret):
    """20 people x 3 images, class-sorted: d = 1600 > n = 60 (the dual form)."""
    X, y = feret
    keep = np.isin(y, np.unique(y)[:20])
    train, _ = per_class_split(y[keep], 3, seed=0, index=0)
    X, y = X[keep][train], y[keep][train]
    order = np.argsort(y, kind="stable")
    return X[order], np.unique(y[order], return_inverse=True)[1]


def test_dlsr_matches_transcription_on_feret(feret_subset):
    X, y = feret_subset
    W, b = dlsr_transcription(X.T, y, lam=1e-2)
    model = DLSR(lam=1e-2).fit(X, y)
    assert relative_error(model.coef_, W.T) < 1e-8
    np.testing.assert_allclose(model.intercept_, b, atol=1e-8)


def test_lrdlsr_matches_transcription_on_feret(feret_subset):
    X, y = feret_subset
    params = dict(alpha=0.1, beta=0.1, gamma=0.1, lam=0.01)
    Q_ref, n_iter = lrdlsr_transcription(X.T, 20, np.eye(20)[:, y], 3, **params)
    model = LRDLSR(**params).fit(X, y)
    assert model.n_iter_ == n_iter
    assert relative_error(model.coef_, Q_ref) < 1e-7


@pytest.fixture(scope="module")
def feret_k3(feret):
    """100 people, 3 training images each (seed 1), the rest for testing."""
    X, y = feret
    keep = np.isin(y, np.unique(y)[:100])
    train, test = per_class_split(y[keep], 3, seed=1, index=0)
    X, y = X[keep], y[keep]
    return X[train], y[train], X[test], y[test]


METHODS = [m for m in ALL_METHODS.values() if m.family == "relaxed"]
RELAXED = [m for m in METHODS if m.name != "LSR"]


@pytest.mark.parametrize("method", RELAXED, ids=[m.name for m in RELAXED])
def test_relaxed_labels_beat_plain_lsr_on_feret(feret_k3, method):
    """The family's premise, with the registered defaults: relaxing the one-hot
    targets beats ridge regression to them (LSR gets about 50% here)."""
    X, y, X_test, y_test = feret_k3
    lsr = next(m for m in METHODS if m.name == "LSR").build().fit(X, y)
    baseline = lsr.score(X_test, y_test)
    accuracy = method.build().fit(X, y).score(X_test, y_test)
    assert accuracy > baseline + 0.03
