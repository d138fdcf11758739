"""RLR and DRR, step by step, against plain transcriptions written here.

Neither paper's text nor code could be found (see ``docs/methods-lsr.md``), so the
references below transcribe the *models as implemented* in the most literal way:
explicit n x n graph matrices, explicit d x d normal equations, the epsilon-dragging
step as ``max(B.(F - H), 0)``. The estimators solve the same steps differently (class
rescaling, one factorisation, primal or dual form); agreement checks every closed-form
step and the loop around them (initialisation, order of the updates, stopping rule).
"""

import numpy as np
import pytest
from scipy.linalg import cho_factor, cho_solve
from sklearn.datasets import load_digits
from sklearn.preprocessing import normalize

from fdlsr._testing import relative_error
from fdlsr.model_selection._split import per_class_split
from fdlsr.relaxed import DRR, RLR

# Small problems: BLAS threads only add contention on shared cores.
pytestmark = pytest.mark.usefixtures("one_blas_thread_per_module")


def _solver(A):
    """``T -> T A^-1`` for a symmetric positive definite ``A``, factorised once."""
    factor = cho_factor(A)
    return lambda T: cho_solve(factor, T.T).T


def _graph(y):
    """One-hot ``H``, ``B = 2H - 1``, class graph ``W`` and its degrees ``D``."""
    H = np.eye(y.max() + 1)[:, y]
    W = (y[:, None] == y[None, :]).astype(float)
    return H, 2 * H - 1, W, np.diag(W.sum(axis=1))


def rlr_transcription(X, y, lam, beta, max_iter=30, tol=1e-4):
    """``min ||Q X^T - (H + B.M)||^2 + lam ||Q||^2 + beta sum_ij W_ij ||Qx_i - Qx_j||^2``.

    The graph term is ``2 beta tr(Q X^T L X Q^T)``, so the Q-step solves
    ``Q (X^T X + 2 beta X^T L X + lam I) = (H + B.M) X``.
    """
    H, B, W, D = _graph(y)
    L = D - W
    solve = _solver(X.T @ X + 2 * beta * X.T @ L @ X + lam * np.eye(X.shape[1]))
    Q = solve(H @ X)  # M = 0
    for it in range(1, max_iter + 1):
        M = np.maximum(B * (Q @ X.T - H), 0)
        Q_new = solve((H + B * M) @ X)
        change = np.sum((Q_new - Q) ** 2)
        Q = Q_new
        if change < tol:
            return Q, it
    return Q, max_iter


def drr_transcription(X, y, lam, beta, max_iter=30, tol=1e-4):
    """``min ||Q X^T - (H + B.M)||^2 + beta sum_ij W_ij ||Qx_i - Px_j||^2
    + lam (||Q||^2 + ||P||^2)``.

    The graph term is ``tr(Q X^T D X Q^T) + tr(P X^T D X P^T) - 2 tr(Q X^T W X P^T)``;
    setting the gradients to zero gives the Q- and P-steps below. Order per
    iteration: P, then M, then Q, from ``P = 0``, ``M = 0``.
    """
    H, B, W, D = _graph(y)
    eye = np.eye(X.shape[1])
    solve_q = _solver(X.T @ X + beta * X.T @ D @ X + lam * eye)
    solve_p = _solver(beta * X.T @ D @ X + lam * eye)
    XWX = X.T @ W @ X
    P = np.zeros((H.shape[0], X.shape[1]))
    Q = solve_q(H @ X + beta * P @ XWX)
    for it in range(1, max_iter + 1):
        P = solve_p(beta * Q @ XWX)
        M = np.maximum(B * (Q @ X.T - H), 0)
        Q_new = solve_q((H + B * M) @ X + beta * P @ XWX)
        change = np.sum((Q_new - Q) ** 2)
        Q = Q_new
        if change < tol:
            return Q, P, it
    return Q, P, max_iter


@pytest.fixture(scope="module")
def digits():
    """Shuffled, unequal classes, n > d: the primal form."""
    X, y = load_digits(return_X_y=True)
    keep = np.flatnonzero(y < 6)[:200]
    return normalize(X[keep]), y[keep]


@pytest.fixture(scope="module")
def feret_subset(feret):
    """15 people x 3 images in random order, every 4th pixel: d = 400 > n = 45, the
    dual form (the transcriptions solve d x d systems: kept small for speed)."""
    X, y = feret
    X = normalize(X[:, ::4])
    keep = np.isin(y, np.unique(y)[:15])
    train, _ = per_class_split(y[keep], 3, seed=2, index=0)
    X, y = X[keep][train], np.unique(y[keep][train], return_inverse=True)[1]
    order = np.random.default_rng(0).permutation(y.size)
    return X[order], y[order]


@pytest.fixture(params=["digits", "feret_subset"])
def data(request):
    return request.getfixturevalue(request.param)


@pytest.mark.parametrize("lam, beta", [(0.05, 0.2), (0.1, 3.0)])
def test_rlr_matches_plain_transcription(data, lam, beta):
    X, y = data
    Q, n_iter = rlr_transcription(X, y, lam, beta)
    model = RLR(lam=lam, beta=beta).fit(X, y)
    assert model.n_iter_ == n_iter
    assert relative_error(model.coef_, Q) < 1e-8


@pytest.mark.parametrize("lam, beta", [(0.05, 0.2), (0.1, 3.0)])
def test_drr_matches_plain_transcription(data, lam, beta):
    X, y = data
    Q, P, n_iter = drr_transcription(X, y, lam, beta)
    model = DRR(lam=lam, beta=beta).fit(X, y)
    assert model.n_iter_ == n_iter
    assert relative_error(model.coef_, Q) < 1e-8
    assert relative_error(model.graph_coef_, P) < 1e-8


@pytest.mark.parametrize("max_iter", [0, 1, 2])
def test_first_iterations_match_transcriptions(digits, max_iter):
    """``max_iter=0`` is the graph-regularised fit to ``H``; then one step at a time."""
    X, y = digits
    Q, _ = rlr_transcription(X, y, 0.1, 1.0, max_iter=max_iter, tol=-1)
    assert relative_error(RLR(max_iter=max_iter, tol=None).fit(X, y).coef_, Q) < 1e-9
    Q, P, _ = drr_transcription(X, y, 0.1, 1.0, max_iter=max_iter, tol=-1)
    model = DRR(max_iter=max_iter, tol=None).fit(X, y)
    assert relative_error(model.coef_, Q) < 1e-9
    if max_iter:
        assert relative_error(model.graph_coef_, P) < 1e-9
    else:
        assert not model.graph_coef_.any()  # P = 0 before the first iteration


@pytest.mark.parametrize("estimator", [RLR, DRR])
def test_stopping_rule(digits, estimator):
    """Stop at the first iteration whose ``||Q - Q_prev||^2`` falls below ``tol``."""
    X, y = digits
    model = estimator(lam=0.05, beta=0.5, max_iter=500, tol=1e-6).fit(X, y)
    n = model.n_iter_
    assert 2 < n < 500
    runs = [
        estimator(lam=0.05, beta=0.5, max_iter=m, tol=None).fit(X, y)
        for m in (n - 2, n - 1)
    ]
    last = np.sum((model.coef_ - runs[1].coef_) ** 2)
    before = np.sum((runs[1].coef_ - runs[0].coef_) ** 2)
    assert last < 1e-6 <= before


@pytest.mark.parametrize("estimator", [RLR, DRR])
def test_default_decision_rule_is_the_argmax(digits, estimator):
    """Inferred, not from the papers (see the docstrings); 1-NN is one argument away."""
    X, y = digits
    model = estimator().fit(X[::2], y[::2])
    scores = X[1::2] @ model.coef_.T
    np.testing.assert_array_equal(
        model.predict(X[1::2]), model.classes_[np.argmax(scores, axis=1)]
    )
    nn = estimator(decision_rule="nearest_neighbor").fit(X[::2], y[::2])
    np.testing.assert_array_equal(nn.coef_, model.coef_)
    projected = normalize(X @ model.coef_.T)
    nearest = np.argmax(projected[1::2] @ projected[::2].T, axis=1)
    np.testing.assert_array_equal(nn.predict(X[1::2]), y[::2][nearest])
