"""Each step of FDDL/LRSDL checked against an independent reference.

References: a plain transcription of the cost written class by class (as in DICTOL's
FDDL_fidelity.m / FDDL_discriminative.m), scikit-learn's Lasso on a stacked design,
scipy.optimize on tiny problems, finite differences, and optimality conditions.
"""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.linear_model import Lasso

from fdlsr.dictionary import _lrsdl_solver as S
from fdlsr.dictionary._class_blocks import ClassBlocks
from fdlsr.dictionary._dictionary_update import (
    ball_bcd,
    low_rank_ball_dictionary,
    nuclear_norm,
    quadratic_value,
    singular_value_threshold,
)
from fdlsr.dictionary._fisher_predict import global_scores, local_scores
from fdlsr.dictionary._fista import fista


def unit_columns(A):
    return A / np.linalg.norm(A, axis=0)


@pytest.fixture
def problem():
    """Three unequal classes, class-specific and shared atoms, random codes."""
    rng = np.random.default_rng(0)
    blocks = ClassBlocks([3, 2, 4], [2, 3, 2])
    d, k0 = 6, 2
    Y = rng.standard_normal((d, blocks.n_samples))
    D = unit_columns(rng.standard_normal((d, blocks.n_atoms)))
    D0 = unit_columns(rng.standard_normal((d, k0)))
    X = rng.standard_normal((blocks.n_atoms, blocks.n_samples))
    X0 = rng.standard_normal((k0, blocks.n_samples))
    return Y, blocks, D, D0, X, X0


def cost_transcribed(Y, blocks, D, D0, X, X0, lambda1, lambda2, eta):
    """Vu & Monga's Eq. (7)-(8) written out class by class, loops and all."""
    Ybar = Y - D0 @ X0
    fidelity, fisher = 0.0, float(np.sum(X**2))
    m = X.mean(axis=1)
    for c in range(blocks.n_classes):
        Yc, Xc = Ybar[:, blocks.samples(c)], X[:, blocks.samples(c)]
        fidelity += np.sum((Yc - D @ Xc) ** 2)
        fidelity += np.sum((Yc - D[:, blocks.atoms(c)] @ Xc[blocks.atoms(c)]) ** 2)
        for j in range(blocks.n_classes):
            if j != c:
                fidelity += np.sum((D[:, blocks.atoms(j)] @ Xc[blocks.atoms(j)]) ** 2)
        mc = Xc.mean(axis=1, keepdims=True)
        fisher += np.sum((Xc - mc) ** 2) - Xc.shape[1] * np.sum((mc[:, 0] - m) ** 2)
    fisher += np.sum((X0 - X0.mean(axis=1, keepdims=True)) ** 2)
    l1 = np.abs(X).sum() + np.abs(X0).sum()
    nuclear = np.linalg.svd(D0, compute_uv=False).sum() if D0.size else 0.0
    return 0.5 * fidelity + lambda1 * l1 + 0.5 * lambda2 * fisher + eta * nuclear


def test_objective_matches_transcription(problem):
    Y, blocks, D, D0, X, X0 = problem
    pen = S.Penalties(0.3, 0.7, 0.2)
    expected = cost_transcribed(Y, blocks, D, D0, X, X0, 0.3, 0.7, 0.2)
    assert S.objective(Y, blocks, D, D0, X, X0, pen) == pytest.approx(expected)
    no_shared = cost_transcribed(Y, blocks, D, D0[:, :0], X, X0[:0], 0.3, 0.7, 0.2)
    got = S.objective(Y, blocks, D, D0[:, :0], X, X0[:0], pen)
    assert got == pytest.approx(no_shared)


def capture_gradient(monkeypatch, Y, blocks, D, D0, X, X0, pen):
    """The gradient and step bound that update_codes hands to FISTA."""
    seen = {}

    def spy(grad, V0, lipschitz, lam, **kw):
        seen["grad"], seen["L"] = grad, lipschitz
        return V0, 0

    monkeypatch.setattr(S, "fista", spy)
    S.update_codes(Y, blocks, D, D0, X, X0, pen, max_iter=1, tol=0)
    return seen["grad"], seen["L"]


def test_code_gradient_and_lipschitz_bound(problem, monkeypatch):
    Y, blocks, D, D0, X, X0 = problem
    pen = S.Penalties(0.0, 0.4, 0.0)
    grad, lipschitz = capture_gradient(monkeypatch, Y, blocks, D, D0, X, X0, pen)
    K = blocks.n_atoms
    V = np.vstack([X, X0])

    def f(v):
        v = v.reshape(V.shape)
        return S.objective(Y, blocks, D, D0, v[:K], v[K:], pen)

    eps = 1e-6
    numeric = np.array(
        [
            (f(V.ravel() + e) - f(V.ravel() - e)) / (2 * eps)
            for e in eps * np.eye(V.size)
        ]
    ).reshape(V.shape)
    np.testing.assert_allclose(grad(V), numeric, rtol=1e-6, atol=1e-6)
    # The smooth part is quadratic: its Hessian, column by column, bounds L from below.
    base = grad(np.zeros_like(V)).ravel()
    H = np.array([grad(e.reshape(V.shape)).ravel() - base for e in np.eye(V.size)])
    top = np.linalg.eigvalsh(0.5 * (H + H.T))[-1]
    assert top <= lipschitz
    assert lipschitz < 3 * top  # a bound, but not a uselessly loose one


def test_code_step_without_fisher_term_is_a_lasso_on_a_stacked_design(monkeypatch):
    """With lambda2 = 0 and no shared atoms, each sample's code solves a lasso whose
    design stacks D, the own-class atoms and the other classes' atoms."""
    rng = np.random.default_rng(1)
    blocks = ClassBlocks([2, 3], [2, 2])
    d = 5
    Y = rng.standard_normal((d, blocks.n_samples))
    D = unit_columns(rng.standard_normal((d, blocks.n_atoms)))
    empty = np.zeros((d, 0))
    lam = 0.05
    pen = S.Penalties(lam, 0.0, 0.0)
    X, _ = S.update_codes(
        Y,
        blocks,
        D,
        empty,
        np.zeros((4, 5)),
        np.zeros((0, 5)),
        pen,
        max_iter=8000,
        tol=1e-14,
    )
    for c in range(2):
        own = np.zeros_like(D)
        own[:, blocks.atoms(c)] = D[:, blocks.atoms(c)]
        others = [
            np.hstack(
                [
                    D[:, blocks.atoms(j)] if j == i else np.zeros((d, 2))
                    for i in range(2)
                ]
            )
            for j in range(2)
            if j != c
        ]
        design = np.vstack([D, own, *others])
        for s in range(*blocks.samples(c).indices(5)):
            target = np.concatenate([Y[:, s], Y[:, s], np.zeros(d * len(others))])
            # scikit-learn's Lasso: 1/(2 n) ||t - A w||^2 + alpha ||w||_1.
            ref = Lasso(
                alpha=lam / design.shape[0],
                fit_intercept=False,
                tol=1e-12,
                max_iter=100000,
            ).fit(design, target)
            np.testing.assert_allclose(X[:, s], ref.coef_, atol=1e-6)


def test_code_step_with_fisher_and_shared_terms_matches_scipy(problem):
    Y, blocks, D, D0, _, _ = problem
    pen = S.Penalties(0.05, 0.5, 0.0)
    K, n, k0 = blocks.n_atoms, blocks.n_samples, D0.shape[1]
    X, X0 = S.update_codes(
        Y,
        blocks,
        D,
        D0,
        np.zeros((K, n)),
        np.zeros((k0, n)),
        pen,
        max_iter=8000,
        tol=1e-15,
    )
    smooth = S.Penalties(0.0, pen.lambda2, 0.0)
    size = (K + k0) * n

    def split_cost(z):  # V = P - N with P, N >= 0 turns the l1 norm smooth
        V = (z[:size] - z[size:]).reshape(K + k0, n)
        return (
            S.objective(Y, blocks, D, D0, V[:K], V[K:], smooth) + pen.lambda1 * z.sum()
        )

    ref = minimize(
        split_cost,
        np.zeros(2 * size),
        method="L-BFGS-B",
        bounds=[(0, None)] * (2 * size),
        options=dict(maxiter=20000, maxfun=10**7, ftol=1e-15, gtol=1e-10),
    )
    ours = S.objective(Y, blocks, D, D0, X, X0, pen)
    assert ours <= ref.fun + 1e-7
    V = (ref.x[:size] - ref.x[size:]).reshape(K + k0, n)
    np.testing.assert_allclose(np.vstack([X, X0]), V, atol=2e-3)


def test_fista_solves_a_lasso():
    rng = np.random.default_rng(2)
    A, b = rng.standard_normal((20, 8)), rng.standard_normal(20)
    G, Atb = A.T @ A, A.T @ b
    x, _ = fista(
        lambda z: G @ z - Atb,
        np.zeros(8),
        np.linalg.eigvalsh(G)[-1],
        0.7,
        max_iter=5000,
        tol=0,
    )
    ref = Lasso(alpha=0.7 / 20, fit_intercept=False, tol=1e-12).fit(A, b)
    np.testing.assert_allclose(x, ref.coef_, atol=1e-8)


def test_dictionary_step_satisfies_kkt_and_descends():
    rng = np.random.default_rng(3)
    d, k, n = 6, 5, 12
    X = rng.standard_normal((k, n))
    E, F = rng.standard_normal((d, n)) @ X.T * 3, X @ X.T
    D0 = unit_columns(rng.standard_normal((d, k)))
    values = [quadratic_value(D0, E, F)]
    D = D0
    for _ in range(5):
        D, _ = ball_bcd(D, E, F, max_iter=1, tol=0)
        values.append(quadratic_value(D, E, F))
    assert np.all(np.diff(values) <= 1e-12)
    D, _ = ball_bcd(D0, E, F, max_iter=5000, tol=0)
    norms = np.linalg.norm(D, axis=0)
    assert np.all(norms <= 1 + 1e-12)
    grad = 2 * (D @ F - E)
    for i in range(k):
        if norms[i] < 1 - 1e-9:  # interior: gradient zero
            np.testing.assert_allclose(grad[:, i], 0, atol=1e-8)
        else:  # on the sphere: gradient = -2 mu d_i with mu >= 0
            mu = -grad[:, i] @ D[:, i] / 2
            assert mu >= -1e-10
            np.testing.assert_allclose(grad[:, i], -2 * mu * D[:, i], atol=1e-8)
    assert np.any(norms > 1 - 1e-9)  # the constraint is active somewhere


def test_singular_value_threshold_is_the_nuclear_prox():
    rng = np.random.default_rng(4)
    A, tau = rng.standard_normal((3, 2)), 0.8

    def prox_cost(z):
        Z = z.reshape(3, 2)
        return 0.5 * np.sum((Z - A) ** 2) + tau * nuclear_norm(Z)

    Z = singular_value_threshold(A, tau)
    # Direct prox through the smooth variational form ||Z||_* = min over Z = U V^T of
    # (||U||^2 + ||V||^2) / 2, minimised by L-BFGS from a random start.

    def factored(w):
        U, V = w[:6].reshape(3, 2), w[6:].reshape(2, 2)
        return 0.5 * np.sum((U @ V.T - A) ** 2) + 0.5 * tau * (
            np.sum(U**2) + np.sum(V**2)
        )

    ref = minimize(
        factored,
        rng.standard_normal(10),
        method="L-BFGS-B",
        options=dict(ftol=1e-15, gtol=1e-12, maxiter=10000),
    )
    U, V = ref.x[:6].reshape(3, 2), ref.x[6:].reshape(2, 2)
    np.testing.assert_allclose(Z, U @ V.T, atol=1e-5)
    assert prox_cost(Z.ravel()) <= ref.fun + 1e-12
    assert np.linalg.matrix_rank(Z, tol=1e-8) < 2  # this threshold drops a direction
    # Large thresholds give zero; a zero threshold gives A back.
    np.testing.assert_allclose(singular_value_threshold(A, 1e3), 0)
    np.testing.assert_allclose(singular_value_threshold(A, 0.0), A)


def test_low_rank_dictionary_step_matches_constrained_solver():
    rng = np.random.default_rng(5)
    d, k, n, eta = 4, 2, 10, 0.6
    X0 = rng.standard_normal((k, n))
    L = rng.standard_normal((d, n))
    E, F = L @ X0.T, X0 @ X0.T
    start = unit_columns(rng.standard_normal((d, k)))
    D = low_rank_ball_dictionary(start, E, F, eta, max_iter=2000, tol=1e-10)
    assert np.all(np.linalg.norm(D, axis=0) <= 1 + 1e-9)

    def cost(z):
        A = z.reshape(d, k)
        return quadratic_value(A, E, F) + eta * nuclear_norm(A)

    cons = [
        {"type": "ineq", "fun": lambda z, i=i: 1 - np.sum(z.reshape(d, k)[:, i] ** 2)}
        for i in range(k)
    ]
    best = min(
        (
            minimize(
                cost,
                s.ravel(),
                method="SLSQP",
                constraints=cons,
                options=dict(maxiter=2000, ftol=1e-14),
            )
            for s in [
                start,
                *(unit_columns(rng.standard_normal((d, k))) for _ in range(5)),
            ]
        ),
        key=lambda r: r.fun,
    )
    assert cost(D.ravel()) <= best.fun + 1e-5
    # eta = 0: plain unit-ball problem, same as the coordinate descent.
    plain = low_rank_ball_dictionary(start, E, F, 0.0, max_iter=10, tol=1e-10)
    np.testing.assert_allclose(plain, ball_bcd(start, E, F, max_iter=50, tol=1e-8)[0])


def lasso_codes(Dict, Yt, gamma):
    ref = Lasso(
        alpha=gamma / Dict.shape[0], fit_intercept=False, tol=1e-12, max_iter=100000
    )
    return np.column_stack([ref.fit(Dict, y).coef_.copy() for y in Yt.T])


def test_global_rule_matches_direct_computation(problem):
    Y, blocks, D, D0, X, X0 = problem
    means = blocks.class_means(X)
    gamma, weight = 0.05, 0.3
    # FDDL: plain lasso codes on D, then errors written out.
    errors = global_scores(
        Y,
        blocks,
        D,
        D0[:, :0],
        means,
        np.zeros(0),
        gamma=gamma,
        mu=0.0,
        weight=weight,
        max_iter=4000,
    )
    A = lasso_codes(D, Y, gamma)
    expected = np.array(
        [
            [
                np.sum((Y[:, s] - D[:, blocks.atoms(c)] @ A[blocks.atoms(c), s]) ** 2)
                + weight * np.sum((A[:, s] - means[:, c]) ** 2)
                for s in range(Y.shape[1])
            ]
            for c in range(blocks.n_classes)
        ]
    )
    np.testing.assert_allclose(errors, expected, rtol=1e-5, atol=1e-7)


def test_local_rules_match_direct_computation(problem):
    Y, blocks, D, D0, X, _ = problem
    means = blocks.class_means(X)
    gamma = 0.05
    lrsdl = local_scores(
        Y, blocks, D, D0, means, gamma=gamma, weight=0.0, max_iter=4000, fddl=False
    )
    for c in range(blocks.n_classes):
        Dc = np.hstack([D[:, blocks.atoms(c)], D0])
        A = lasso_codes(Dc, Y, gamma)
        expected = 0.5 * np.sum((Y - Dc @ A) ** 2, axis=0) + gamma * np.abs(A).sum(
            axis=0
        )
        np.testing.assert_allclose(lrsdl[c], expected, rtol=1e-6)
    # FDDL's LC with weight 0 is a lasso on D_c alone, error without the 1/2.
    fddl = local_scores(
        Y,
        blocks,
        D,
        D0[:, :0],
        means,
        gamma=gamma,
        weight=0.0,
        max_iter=4000,
        fddl=True,
    )
    for c in range(blocks.n_classes):
        Dc = D[:, blocks.atoms(c)]
        A = lasso_codes(Dc, Y, gamma)
        expected = np.sum((Y - Dc @ A) ** 2, axis=0) + gamma * np.abs(A).sum(axis=0)
        np.testing.assert_allclose(fddl[c], expected, rtol=1e-6)
