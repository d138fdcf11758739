"""LSR, DLSR, RLR and DRR against independent references: closed forms, limiting
cases, a transcription of the authors' DLSR code and a generic convex optimiser.
"""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.datasets import load_digits
from sklearn.linear_model import Ridge
from sklearn.preprocessing import normalize

from fdlsr import FDLSR
from fdlsr._common.class_means import ClassMeans
from fdlsr._common.linalg import RidgeSystem
from fdlsr._testing import relative_error
from fdlsr.relaxed import DLSR, DRR, LSR, RLR, GReLSR, ReLSR
from fdlsr.relaxed._drr import cross_graph
from fdlsr.relaxed._rlr import graph_penalty
from reference_relaxed import dlsr_transcription

# Small problems: BLAS threads only add contention on shared cores.
pytestmark = pytest.mark.usefixtures("one_blas_thread_per_module")


def one_hot_rows(y):
    return (y[:, None] == np.unique(y)).astype(float)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return normalize(X[:300]), y[:300]


@pytest.fixture(scope="module")
def tiny():
    """Few samples, more features than samples, unequal classes, shuffled."""
    rng = np.random.default_rng(3)
    y = rng.permutation(np.repeat([0, 1, 2, 3], [2, 3, 4, 3]))
    X = rng.standard_normal((y.size, 15)) + 0.5 * rng.standard_normal((4, 15))[y]
    return X, y


# --- The shared ridge system ------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_ridge_inverse_is_the_symmetric_inverse(dtype):
    """The inverse built from potri's upper triangle is exactly symmetric and is
    ``(G + ridge I)^-1``, both triangles and the diagonal (which the construction
    doubles and halves)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 60))
    G = (X @ X.T).astype(dtype)
    inverse = RidgeSystem(G, 0.5).inverse
    assert inverse.dtype == dtype and inverse.flags.c_contiguous
    assert np.array_equal(inverse, inverse.T)
    expected = np.linalg.inv(G.astype(np.float64) + 0.5 * np.eye(40))
    tol = 1e-12 if dtype == np.float64 else 1e-6
    assert relative_error(inverse.astype(np.float64), expected) < tol
    assert relative_error(np.diag(inverse).astype(np.float64), np.diag(expected)) < tol


# --- LSR and DLSR ------------------------------------------------------------------


@pytest.mark.parametrize("solver", ["primal", "dual"])
def test_lsr_is_ridge_without_intercept(digits, solver):
    X, y = digits
    X = X[:40] if solver == "dual" else X  # n < d for the dual form
    y = y[:40] if solver == "dual" else y
    model = LSR(lam=0.3, solver=solver).fit(X, y)
    ridge = Ridge(alpha=0.3, fit_intercept=False).fit(X, one_hot_rows(y))
    np.testing.assert_allclose(model.coef_, ridge.coef_, rtol=1e-8, atol=1e-12)
    np.testing.assert_array_equal(model.intercept_, 0)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("solver", ["primal", "dual"])
def test_dlsr_first_step_is_ridge(digits, fit_intercept, solver):
    X, y = digits
    model = DLSR(lam=0.1, max_iter=0, fit_intercept=fit_intercept, solver=solver)
    model.fit(X, y)
    ridge = Ridge(alpha=0.1, fit_intercept=fit_intercept).fit(X, one_hot_rows(y))
    np.testing.assert_allclose(model.coef_, ridge.coef_, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(model.intercept_, ridge.intercept_, atol=1e-10)
    assert model.n_iter_ == 0 and model.objective_.size == 0


@pytest.mark.parametrize("n_samples", [60, 300], ids=["dual", "primal"])
def test_dlsr_matches_transcription_of_authors_code(digits, n_samples):
    X, y = digits
    X, y = X[:n_samples], y[:n_samples]
    W, b = dlsr_transcription(X.T, y, lam=0.05)
    model = DLSR(lam=0.05).fit(X, y)
    assert relative_error(model.coef_, W.T) < 1e-8
    np.testing.assert_allclose(model.intercept_, b, atol=1e-8)


def test_dlsr_stopping_rule_is_the_authors(digits):
    X, y = digits
    model = DLSR(lam=0.05, max_iter=500, tol=1e-4).fit(X, y)
    assert 1 < model.n_iter_ < 500
    before = DLSR(lam=0.05, max_iter=model.n_iter_ - 1, tol=None).fit(X, y)
    change = np.sum((model.coef_ - before.coef_) ** 2) + np.sum(
        (model.intercept_ - before.intercept_) ** 2
    )
    assert change < 1e-4
    older = DLSR(lam=0.05, max_iter=model.n_iter_ - 2, tol=None).fit(X, y)
    change_before = np.sum((before.coef_ - older.coef_) ** 2) + np.sum(
        (before.intercept_ - older.intercept_) ** 2
    )
    assert change_before >= 1e-4


@pytest.mark.parametrize("alpha, beta", [(0.5, 1.0), (1.0, 2.0)])
def test_fdlsr_without_fisher_term_converges_to_dlsr_without_bias(tiny, alpha, beta):
    """FDLSR(lam=0) eliminates T: DLSR without bias, ridge beta (1 + alpha) / alpha."""
    X, y = tiny
    fdlsr = FDLSR(alpha=alpha, beta=beta, lam=0.0, max_iter=2000, init_ridge=beta)
    fdlsr.set_params(decision_rule="linear").fit(X, y)
    dlsr = DLSR(lam=beta * (1 + alpha) / alpha, fit_intercept=False, max_iter=2000)
    dlsr.set_params(tol=None).fit(X, y)
    assert relative_error(fdlsr.coef_, dlsr.coef_) < 1e-6
    # FDLSR's objective at the optimal T is alpha/(1+alpha) times DLSR's.
    ratio = fdlsr.objective_[-1] / dlsr.objective_[-1]
    assert ratio == pytest.approx(alpha / (1 + alpha), rel=1e-6)
    # ... but not iterate by iterate: FDLSR's draggings move by 1/(1+alpha).
    early_f = FDLSR(alpha=alpha, beta=beta, lam=0.0, max_iter=3, init_ridge=beta)
    early_d = DLSR(lam=beta * (1 + alpha) / alpha, fit_intercept=False, max_iter=3)
    early_d.set_params(tol=None)
    assert relative_error(early_f.fit(X, y).coef_, early_d.fit(X, y).coef_) > 1e-2


# --- the global minimum of each convex model, by a generic optimiser ------------------


def _generic_minimum(objective, sizes, bounds):
    """L-BFGS-B from zero on the stacked variables; returns the variables' blocks."""
    x0 = np.zeros(sum(sizes))
    res = minimize(
        objective,
        x0,
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        options=dict(maxiter=20000, maxfun=40000, ftol=1e-15, gtol=1e-11),
    )
    return res.fun, np.split(res.x, np.cumsum(sizes)[:-1])


def _dragging_problem(X, y, lam, graph=None, bias=False):
    """Objective and gradient of ||Q X^T + b - (H + B.M)||^2 + lam ||Q||^2 (+ graph)."""
    n, d = X.shape
    c = y.max() + 1
    H = np.eye(c)[:, y]
    B = 2 * H - 1
    W = (y[:, None] == y[None, :]).astype(float)
    L = np.diag(W.sum(1)) - W

    def f(z):
        Q = z[: c * d].reshape(c, d)
        b = z[c * d : c * d + c] if bias else np.zeros(c)
        M = z[c * d + (c if bias else 0) :].reshape(c, n)
        E = Q @ X.T + b[:, None] - H - B * M
        val = np.vdot(E, E) + lam * np.vdot(Q, Q)
        gQ = 2 * E @ X + 2 * lam * Q
        if graph:
            G = Q @ X.T @ L @ X
            val += 2 * graph * np.vdot(G, Q)
            gQ += 4 * graph * G
        grads = [gQ.ravel()] + ([2 * E.sum(1)] if bias else []) + [(-2 * B * E).ravel()]
        return val, np.concatenate(grads)

    sizes = [c * d] + ([c] if bias else []) + [c * n]
    bounds = [(None, None)] * (c * d + (c if bias else 0)) + [(0, None)] * (c * n)
    return f, sizes, bounds


@pytest.mark.parametrize("bias", [True, False])
def test_dlsr_reaches_the_global_minimum(tiny, bias):
    X, y = tiny
    f, sizes, bounds = _dragging_problem(X, y, lam=0.1, bias=bias)
    best, blocks = _generic_minimum(f, sizes, bounds)
    model = DLSR(lam=0.1, fit_intercept=bias, max_iter=3000, tol=None).fit(X, y)
    assert model.objective_[-1] == pytest.approx(best, rel=1e-7)
    assert relative_error(model.coef_, blocks[0].reshape(model.coef_.shape)) < 1e-4


def test_rlr_reaches_the_global_minimum(tiny):
    X, y = tiny
    f, sizes, bounds = _dragging_problem(X, y, lam=0.1, graph=0.05)
    best, blocks = _generic_minimum(f, sizes, bounds)
    model = RLR(lam=0.1, beta=0.05, max_iter=3000, tol=None).fit(X, y)
    assert model.objective_[-1] == pytest.approx(best, rel=1e-7)
    assert relative_error(model.coef_, blocks[0].reshape(model.coef_.shape)) < 1e-4


def test_drr_reaches_the_global_minimum(tiny):
    X, y = tiny
    n, d = X.shape
    c = y.max() + 1
    lam, beta = 0.1, 0.05
    H = np.eye(c)[:, y]
    B = 2 * H - 1
    W = (y[:, None] == y[None, :]).astype(float)
    Dg = np.diag(W.sum(1))

    def f(z):
        Q, P, M = z[: c * d], z[c * d : 2 * c * d], z[2 * c * d :]
        Q, P, M = Q.reshape(c, d), P.reshape(c, d), M.reshape(c, n)
        E = Q @ X.T - H - B * M
        # sum_ij W_ij ||Q x_i - P x_j||^2 written out with the degree and weight matrices
        FQ, FP = Q @ X.T, P @ X.T
        graph = np.vdot(FQ @ Dg, FQ) + np.vdot(FP @ Dg, FP) - 2 * np.vdot(FQ @ W, FP)
        val = np.vdot(E, E) + beta * graph + lam * (np.vdot(Q, Q) + np.vdot(P, P))
        gQ = 2 * E @ X + beta * (2 * FQ @ Dg - 2 * FP @ W) @ X + 2 * lam * Q
        gP = beta * (2 * FP @ Dg - 2 * FQ @ W) @ X + 2 * lam * P
        return val, np.concatenate([gQ.ravel(), gP.ravel(), (-2 * B * E).ravel()])

    sizes = [c * d, c * d, c * n]
    bounds = [(None, None)] * (2 * c * d) + [(0, None)] * (c * n)
    best, blocks = _generic_minimum(f, sizes, bounds)
    model = DRR(lam=lam, beta=beta, max_iter=2000, tol=None).fit(X, y)
    assert model.objective_[-1] == pytest.approx(best, rel=1e-7)
    assert relative_error(model.coef_, blocks[0].reshape(c, d)) < 1e-4
    assert relative_error(model.graph_coef_, blocks[1].reshape(c, d)) < 1e-4


def test_graph_terms_against_double_sums(tiny):
    X, y = tiny
    rng = np.random.default_rng(0)
    F, G = rng.standard_normal((2, 4, y.size))
    means = ClassMeans(y, 4)
    same = y[:, None] == y[None, :]
    diff = F[:, :, None] - G[:, None, :]
    assert cross_graph(F, G, means) == pytest.approx(np.sum((diff**2).sum(0) * same))
    diff = F[:, :, None] - F[:, None, :]
    assert graph_penalty(F, means) == pytest.approx(np.sum((diff**2).sum(0) * same))


@pytest.mark.parametrize("model", [RLR(beta=0.0), DRR(beta=0.0)], ids=["RLR", "DRR"])
def test_zero_graph_weight_is_dlsr_without_bias(digits, model):
    X, y = digits
    model.set_params(lam=0.05, decision_rule="linear").fit(X, y)
    dlsr = DLSR(lam=0.05, fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(model.coef_, dlsr.coef_, rtol=1e-9, atol=1e-12)
    assert model.n_iter_ == dlsr.n_iter_


@pytest.mark.parametrize("solver", ["primal", "dual"])
def test_rlr_rescaled_ridge_equals_the_laplacian_system(tiny, solver):
    X, y = tiny
    lam, beta = 0.1, 0.3
    model = RLR(lam=lam, beta=beta, max_iter=0, solver=solver).fit(X, y)
    W = (y[:, None] == y[None, :]).astype(float)
    L = np.diag(W.sum(1)) - W
    H = np.eye(4)[:, y]
    A = X.T @ (np.eye(y.size) + 2 * beta * L) @ X + lam * np.eye(X.shape[1])
    np.testing.assert_allclose(model.coef_, np.linalg.solve(A, X.T @ H.T).T, atol=1e-10)


@pytest.mark.parametrize(
    "model",
    [DLSR(), ReLSR(), GReLSR(group=0.5), RLR(beta=0.1), DRR(beta=0.1)],
    ids=lambda m: type(m).__name__,
)
def test_objective_never_increases(digits, model):
    X, y = digits
    model.set_params(lam=0.02, max_iter=60, tol=None).fit(X, y)
    steps = np.diff(model.objective_)
    assert model.objective_.size == 60
    assert np.all(steps <= 1e-10 * model.objective_[0])
    assert steps.sum() < 0
