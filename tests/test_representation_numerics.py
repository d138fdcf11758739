"""Representation classifiers against independent references.

Each coding is checked against a plain solve written here (normal equations, the
optimality conditions of the lasso and of NNLS, scikit-learn's Ridge and Lasso, a
per-sample transcription of the authors' ADMM), and each class-wise rule against a
per-class loop.
"""

import numpy as np
import pytest
from scipy.optimize import nnls
from sklearn.decomposition import sparse_encode
from sklearn.linear_model import Lasso, Ridge
from sklearn.preprocessing import normalize

from fdlsr.representation import CRC, NRC, SRC, ProCRC
from fdlsr.representation._residuals import ClassResiduals
from fdlsr.representation._src import lasso_alpha


@pytest.fixture(scope="module")
def problem():
    """A small face-like problem: 24 unit-norm 60-d samples of 5 unequal classes."""
    rng = np.random.default_rng(0)
    y = np.array(
        [3, 0, 1, 1, 4, 2, 0, 3, 1, 2, 4, 0, 3, 1, 2, 0, 4, 1, 3, 2, 1, 0, 3, 1]
    )
    centres = rng.standard_normal((5, 60))
    X = normalize(centres[y] + 0.7 * rng.standard_normal((y.size, 60)))
    Y = normalize(centres[[0, 2, 4, 1, 3, 0]] + 0.7 * rng.standard_normal((6, 60)))
    return X, y, Y


# --- CRC ---------------------------------------------------------------------------


@pytest.mark.parametrize("solver", ["primal", "dual"])
def test_crc_codes_solve_the_normal_equations(problem, solver):
    X, y, Y = problem
    lam = 0.05
    codes = CRC(lam=lam, solver=solver).fit(X, y).encode(Y)
    # a (X X^T + lam I) = y X^T, written plainly.
    expected = np.linalg.solve(X @ X.T + lam * np.eye(len(X)), X @ Y.T).T
    np.testing.assert_allclose(codes, expected, rtol=1e-10, atol=1e-12)


def test_crc_codes_equal_ridge_with_the_dictionary_as_design(problem):
    X, y, Y = problem
    codes = CRC(lam=0.3).fit(X, y).encode(Y)
    ridge = Ridge(alpha=0.3, fit_intercept=False).fit(X.T, Y.T)
    np.testing.assert_allclose(codes, ridge.coef_, rtol=1e-8, atol=1e-10)


def test_crc_rule_is_the_authors_regularised_residual(problem):
    X, y, Y = problem
    model = CRC(lam=0.01).fit(X, y)
    codes = model.encode(Y)
    # CRC_RLS.m: error(c) = ||y - X_c a_c||^2 / ||a_c||^2, identity = first argmin.
    errors = np.array(
        [
            [
                np.sum((Y[i] - codes[i, y == c] @ X[y == c]) ** 2)
                / np.sum(codes[i, y == c] ** 2)
                for c in range(5)
            ]
            for i in range(len(Y))
        ]
    )
    np.testing.assert_allclose(model.class_residuals(Y) ** 2, errors, rtol=1e-8)
    np.testing.assert_array_equal(model.predict(Y), errors.argmin(1))


# --- ProCRC ------------------------------------------------------------------------


def test_procrc_codes_minimise_the_objective(problem):
    X, y, Y = problem
    lam, gamma = 0.1, 0.03
    codes = ProCRC(lam=lam, gamma=gamma).fit(X, y).encode(Y)
    # The authors' commented-out construction: X^T X + lam I + gamma sum_k Xbar_k^T
    # Xbar_k, with Xbar_k the dictionary with class k zeroed (columns = samples).
    A = X.T
    M = A.T @ A + lam * np.eye(len(y))
    for k in range(5):
        Abar = A.copy()
        Abar[:, y == k] = 0
        M += gamma * Abar.T @ Abar
    expected = np.linalg.solve(M, A.T @ Y.T).T
    np.testing.assert_allclose(codes, expected, rtol=1e-9, atol=1e-12)
    # The gradient of ||y - aX||^2 + lam ||a||^2 + gamma sum_k ||aX - a_k X||^2
    # vanishes at the codes.
    for a, t in zip(codes, Y, strict=True):
        grad = -2 * (t - a @ X) @ X.T + 2 * lam * a
        for k in range(5):
            a_k = np.where(y == k, a, 0.0)
            grad += 2 * gamma * ((a - a_k) @ X) @ X.T * (y != k)
        np.testing.assert_allclose(grad, 0.0, atol=1e-10)


def test_procrc_without_class_terms_is_crc_coding(problem):
    X, y, Y = problem
    np.testing.assert_allclose(
        ProCRC(lam=0.2, gamma=0.0).fit(X, y).encode(Y),
        CRC(lam=0.2).fit(X, y).encode(Y),
        rtol=1e-9,
        atol=1e-12,
    )


def test_procrc_rule_is_promax(problem):
    X, y, Y = problem
    model = ProCRC(lam=0.1, gamma=0.03).fit(X, y)
    codes = model.encode(Y)
    # ProMax.m: loss_c = ||X a - X_c a_c||^2, identity = first argmin.
    loss = np.array(
        [
            [np.sum((a @ X - a[y == c] @ X[y == c]) ** 2) for c in range(5)]
            for a in codes
        ]
    )
    np.testing.assert_allclose(model.class_residuals(Y), loss, rtol=1e-8, atol=1e-12)
    np.testing.assert_array_equal(model.predict(Y), loss.argmin(1))


# --- SRC ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def src_codes(problem):
    X, y, Y = problem
    lam = 0.05
    model = SRC(lam=lam, tol=1e-12, max_iter=100000).fit(X, y)
    return lam, model.encode(Y)


def test_src_codes_satisfy_the_lasso_optimality_conditions(problem, src_codes):
    X, y, Y = problem
    lam, codes = src_codes
    # min ||t - aX||^2 + lam ||a||_1:  2 X (t - aX)^T = lam * sign(a) where a != 0,
    # and |2 X (t - aX)^T| <= lam where a = 0.
    for a, t in zip(codes, Y, strict=True):
        corr = 2 * X @ (t - a @ X)
        active = a != 0
        assert active.any() and not active.all()
        np.testing.assert_allclose(corr[active], lam * np.sign(a[active]), atol=1e-6)
        assert np.all(np.abs(corr[~active]) <= lam + 1e-6)


def test_src_codes_equal_sklearn_lasso_with_converted_alpha(problem, src_codes):
    X, y, Y = problem
    lam, codes = src_codes
    d = X.shape[1]
    assert lasso_alpha(lam, d) == lam / (2 * d)
    for a, t in zip(codes, Y, strict=True):
        ref = Lasso(
            alpha=lam / (2 * d), fit_intercept=False, tol=1e-12, max_iter=100000
        )
        np.testing.assert_allclose(a, ref.fit(X.T, t).coef_, atol=1e-7)
    # The same problem in dictionary-learning form: 0.5 ||t - aX||^2 + (lam/2) ||a||_1.
    ref = sparse_encode(Y, X, algorithm="lasso_cd", alpha=lam / 2, max_iter=100000)
    np.testing.assert_allclose(codes, ref, atol=1e-4)


def test_src_alpha_conversion_changes_the_solution_if_wrong(problem, src_codes):
    # Guard against a silent scaling slip: the unconverted alpha solves another problem.
    X, y, Y = problem
    lam, codes = src_codes
    wrong = Lasso(alpha=lam, fit_intercept=False, max_iter=100000).fit(X.T, Y[0]).coef_
    assert np.max(np.abs(wrong - codes[0])) > 1e-3


def test_src_reports_non_convergence_once(problem):
    X, y, Y = problem
    with pytest.warns(Warning, match=r"did not reach tol.* for \d+ of 6 test samples"):
        SRC(lam=1e-4, tol=1e-14, max_iter=2, solver="cd").fit(X, y).predict(Y)
    with pytest.warns(Warning, match=r"within max_iter=2 steps for \d+ of 6 test"):
        SRC(lam=1e-4, max_iter=2).fit(X, y).predict(Y)


def test_src_feature_sign_is_coordinate_descent_converged(problem):
    X, y, Y = problem
    lam = 0.05
    exact = SRC(lam=lam).fit(X, y).encode(Y)
    cd = SRC(lam=lam, solver="cd", tol=1e-12, max_iter=100000).fit(X, y).encode(Y)
    np.testing.assert_allclose(exact, cd, atol=1e-7)


def test_src_feature_sign_with_repeated_samples(problem):
    # Repeated training samples make D D^T singular; the codes still satisfy the
    # lasso's optimality conditions, and an all-zero sample gets a zero code.
    X, y, Y = problem
    X2, y2 = np.vstack([X, X[:3]]), np.concatenate([y, y[:3]])
    lam = 0.05
    model = SRC(lam=lam).fit(X2, y2)
    D = model.dictionary_
    codes = model.encode(np.vstack([Y, np.zeros(Y.shape[1])]))
    for a, t in zip(
        codes[:-1], Y / np.linalg.norm(Y, axis=1, keepdims=True), strict=True
    ):
        corr = 2 * D @ (t - a @ D)
        active = a != 0
        np.testing.assert_allclose(corr[active], lam * np.sign(a[active]), atol=1e-6)
        assert np.all(np.abs(corr[~active]) <= lam + 1e-6)
    assert not codes[-1].any()


# --- NRC ---------------------------------------------------------------------------


def authors_admm(t, X, rho, n_iter):
    """NRC.m for one test sample (columns = samples), transcribed line by line."""
    A = X.T
    N = A.shape[1]
    XTXinv = np.linalg.inv(A.T @ A + rho / 2 * np.eye(N))
    c = np.zeros(N)
    z = c.copy()
    delta = z - c
    for _ in range(n_iter):
        c = XTXinv @ (A.T @ t + rho / 2 * z + 0.5 * delta)
        z = np.maximum(0, c - delta / rho)
        delta = delta + rho * (z - c)
    return z


def test_nrc_admm_equals_the_authors_loop(problem):
    X, y, Y = problem
    model = NRC(rho=0.3, max_iter=7).fit(X, y)
    expected = np.array([authors_admm(t, X, 0.3, 7) for t in Y])
    np.testing.assert_allclose(model.encode(Y), expected, rtol=1e-9, atol=1e-12)


def test_nrc_exact_codes_satisfy_the_nnls_optimality_conditions(problem):
    X, y, Y = problem
    codes = NRC(solver="nnls").fit(X, y).encode(Y)
    for a, t in zip(codes, Y, strict=True):
        grad = 2 * X @ (a @ X - t)  # gradient of ||t - aX||^2
        assert np.all(a >= 0)
        assert np.all(grad >= -1e-9)  # no descent direction into a >= 0
        np.testing.assert_allclose(a * grad, 0.0, atol=1e-9)  # complementarity
        np.testing.assert_allclose(a, nnls(X.T, t)[0], atol=1e-8)


def test_nrc_admm_approaches_the_exact_solution(problem):
    X, y, Y = problem
    exact = NRC(solver="nnls").fit(X, y).encode(Y)
    gaps = []
    for n_iter in [5, 20, 50, 200, 2000]:  # the default rho: 5 iterations are far off
        admm = NRC(rho=0.1, max_iter=n_iter).fit(X, y).encode(Y)
        gaps.append(np.max(np.abs(admm - exact)))
    assert gaps[0] > 0.05
    assert all(
        later < 0.6 * earlier for earlier, later in zip(gaps, gaps[1:], strict=False)
    )
    assert gaps[-1] < 1e-8


def test_nrc_admm_one_iteration_is_projected_ridge(problem):
    # From zero, the first c-step is ridge with lam = rho/2 and z its positive part.
    X, y, Y = problem
    rho = 0.4
    ridge = CRC(lam=rho / 2).fit(X, y).encode(Y)
    np.testing.assert_allclose(
        NRC(rho=rho, max_iter=1).fit(X, y).encode(Y), np.maximum(ridge, 0), atol=1e-12
    )


# --- The class-wise rules ----------------------------------------------------------


def test_class_residuals_against_per_class_loops(problem):
    X, y, Y = problem
    rng = np.random.default_rng(1)
    C = rng.standard_normal((len(Y), len(y)))
    C[0, y == 2] = 0.0  # a class left out of one sample's code
    rules = ClassResiduals(X, y, 5)
    sample = np.array(
        [
            [np.linalg.norm(Y[i] - C[i, y == k] @ X[y == k]) for k in range(5)]
            for i in range(6)
        ]
    )
    code_norms = np.array(
        [[np.linalg.norm(C[i, y == k]) for k in range(5)] for i in range(6)]
    )
    recon = np.array(
        [
            [np.sum((C[i] @ X - C[i, y == k] @ X[y == k]) ** 2) for k in range(5)]
            for i in range(6)
        ]
    )
    YD, ysq = Y @ X.T, np.sum(Y * Y, axis=1)
    np.testing.assert_allclose(rules.sample(C, YD, ysq), sample, rtol=1e-10, atol=1e-7)
    regularised = rules.regularised(C, YD, ysq)
    assert regularised[0, 2] == np.finfo(np.float64).max  # unused class ranks last
    mask = code_norms > 0
    np.testing.assert_allclose(
        regularised[mask], (sample / np.where(mask, code_norms, 1))[mask], rtol=1e-9
    )
    np.testing.assert_allclose(
        rules.reconstruction(C, C @ (X @ X.T)), recon, rtol=1e-9, atol=1e-10
    )


@pytest.mark.parametrize("model", [CRC(), ProCRC(), SRC(lam=0.05), NRC()], ids=repr)
def test_predictions_do_not_depend_on_chunking(problem, model):
    from sklearn import config_context

    X, y, Y = problem
    model.fit(X, y)
    whole = model.decision_function(Y)
    # A tiny working memory forces one test sample per chunk (and a warning).
    with (
        config_context(working_memory=1e-6),
        pytest.warns(UserWarning, match="working_memory"),
    ):
        np.testing.assert_allclose(model.decision_function(Y), whole, rtol=1e-10)
