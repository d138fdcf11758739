"""The exact T-step: a true minimiser of Eq. (12), and a monotone objective."""

import numpy as np

from fdlsr import FDLSR
from fdlsr._common.class_means import ClassMeans, one_hot
from fdlsr._core.dense import fit_fdlsr
from fdlsr._core.iteration import t_step_exact, t_step_paper
from fdlsr.model_selection._split import per_class_split

FERET_PARAMS = dict(alpha=1e-2, beta=1e-3, lam=1e-1)


def fisher_by_slicing(T, y):
    """Eq. (11) transcribed: per-class blocks, means repeated over their columns."""
    M = T.mean(axis=1, keepdims=True)
    value = np.sum(T**2)
    for k in np.unique(y):
        Ti = T[:, y == k]
        Mi = Ti.mean(axis=1, keepdims=True)
        value += np.sum((Ti - Mi) ** 2) - Ti.shape[1] * np.sum((Mi - M) ** 2)
    return value


def t_problem(T, V, y, alpha, lam):
    """Eq. (12) up to a constant: ||QX - T||^2 + alpha||T - R||^2 written with
    V = QX + alpha R as (1 + alpha)||T||^2 - 2<T, V>."""
    return (
        (1 + alpha) * np.sum(T**2) - 2 * np.sum(T * V) + lam * fisher_by_slicing(T, y)
    )


def random_problem(seed=0, c=4, n=23):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, c, n)
    y[:c] = np.arange(c)  # every class present, unequal sizes, unsorted
    return rng.standard_normal((c, n)), y, c


def test_exact_step_solves_the_stationarity_system():
    V, y, c = random_problem()
    alpha, lam = 0.3, 0.7
    n = y.size
    E = one_hot(y, c).T
    Pc = E @ np.linalg.inv(E.T @ E) @ E.T
    P1 = np.full((n, n), 1 / n)
    system = (1 + alpha) * np.eye(n) + lam * (2 * np.eye(n) - 2 * Pc + P1)
    T_direct = np.linalg.solve(system.T, V.T).T
    T = t_step_exact(V, None, ClassMeans(y, c), alpha, lam)
    np.testing.assert_allclose(T, T_direct, rtol=1e-12, atol=1e-12)


def test_exact_step_is_a_minimiser_and_beats_the_paper_step():
    V, y, c = random_problem(seed=1)
    alpha, lam = 0.1, 2.0
    means = ClassMeans(y, c)
    T = t_step_exact(V, None, means, alpha, lam)
    best = t_problem(T, V, y, alpha, lam)
    rng = np.random.default_rng(2)
    for _ in range(20):
        assert best <= t_problem(
            T + 1e-3 * rng.standard_normal(T.shape), V, y, alpha, lam
        )
    T_paper = t_step_paper(V, means.of(V), means, alpha, lam)
    assert best <= t_problem(T_paper, V, y, alpha, lam)


def test_paper_gradient_eq13_is_the_gradient_of_eq11():
    T, y, c = random_problem(seed=3)
    means = ClassMeans(y, c)
    m = means.of(T)
    grad = 4 * T + 2 * means.overall(m)[:, None] - 4 * means.spread(m)
    eps = 1e-6
    E = np.zeros_like(T)
    for i, j in [(0, 0), (1, 5), (3, 22), (2, 10)]:
        E[:] = 0
        E[i, j] = eps
        numeric = (fisher_by_slicing(T + E, y) - fisher_by_slicing(T - E, y)) / (
            2 * eps
        )
        assert abs(numeric - grad[i, j]) < 1e-6


def test_objective_is_eq10_transcribed(feret):
    X, y = feret
    train, _ = per_class_split(y, 2, seed=0, index=0)
    codes = np.unique(y[train], return_inverse=True)[1]
    c = codes.max() + 1
    result = fit_fdlsr(
        X[train], codes, c, **FERET_PARAMS, max_iter=5, tol=None, init_ridge=1e-4,
        t_step="paper", solver="auto",
    )  # fmt: skip
    Q, T, S = result.coef, result.relaxed_labels, result.dragging
    H = one_hot(codes, c)
    B = 2 * H - 1
    Xc = X[train].T  # the paper's d x n
    value = (
        np.linalg.norm(Q @ Xc - T) ** 2
        + FERET_PARAMS["alpha"] * np.linalg.norm(T - (H + B * S)) ** 2
        + FERET_PARAMS["beta"] * np.linalg.norm(Q) ** 2
        + FERET_PARAMS["lam"] * fisher_by_slicing(T, codes)
    )
    assert np.isclose(result.objective[-1], value, rtol=1e-9)
    assert np.all(S >= 0)


def test_exact_objective_decreases_monotonically_on_feret(feret):
    X, y = feret
    train, _ = per_class_split(y, 3, seed=0, index=0)
    exact = FDLSR(**FERET_PARAMS, t_step="exact").fit(X[train], y[train])
    paper = FDLSR(**FERET_PARAMS, t_step="paper").fit(X[train], y[train])
    steps = np.diff(exact.objective_)
    assert np.all(steps <= 1e-10 * exact.objective_[0]), steps.max()
    assert exact.objective_[-1] <= paper.objective_[-1]


def test_lam_zero_makes_both_steps_identical(feret):
    X, y = feret
    train, _ = per_class_split(y, 2, seed=1, index=0)
    params = dict(alpha=1e-1, beta=1e-2, lam=0.0)
    exact = FDLSR(**params, t_step="exact").fit(X[train], y[train])
    paper = FDLSR(**params, t_step="paper").fit(X[train], y[train])
    np.testing.assert_allclose(exact.coef_, paper.coef_, rtol=1e-10, atol=1e-12)
