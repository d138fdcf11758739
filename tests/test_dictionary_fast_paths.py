"""The faster paths of the dictionary methods against plain transcriptions.

Each test runs a sped-up routine and a direct, unoptimised transcription of the
same algorithm (as the code was before it was made faster) on the same data and
asks for the same result: bitwise where the arithmetic is unchanged, to rounding
where a product is formed differently.
"""

import numpy as np
import pytest

from fdlsr.methods.dictionary.lcle import (
    _guard,
    _nearest,
    atom_laplacian,
    label_embedding,
    lcle_iterations,
)


@pytest.mark.parametrize("k", [1, 2, 3, 5, 8])
def test_nearest_is_the_head_of_a_stable_argsort_with_ties(k):
    rng = np.random.default_rng(k)
    # Few distinct values: many ties at the k-th position.
    dist2 = rng.integers(0, 4, size=(30, 8)).astype(float)
    expected = np.zeros(dist2.shape, dtype=bool)
    rows = np.arange(30)[:, None]
    expected[rows, np.argsort(dist2, axis=1, kind="stable")[:, :k]] = True
    np.testing.assert_array_equal(_nearest(dist2, k), expected)


def _lcle_transcribed(Y, D, X, Q, *, alpha, beta, gamma, n_neighbors, max_iter):
    """``Learn_D_X.m`` step by step, every product formed where it is used."""
    K = D.shape[1]
    eye = np.eye(K)
    objective = np.zeros(max_iter)
    V = X
    L = atom_laplacian(D, n_neighbors)
    for it in range(max_iter):
        if it > 0:
            L = atom_laplacian(D, n_neighbors)
        DtY = D.T @ Y
        V = np.linalg.solve(_guard(D.T @ D + beta * Q + gamma * eye), gamma * X + DtY)
        S = _guard(X @ X.T + V @ V.T)
        D = (Y @ (X + V).T) @ np.linalg.pinv(
            S, rtol=K * np.finfo(float).eps, hermitian=True
        )
        DtY = D.T @ Y
        X = np.linalg.solve(_guard(D.T @ D + alpha * L + gamma * eye), gamma * V + DtY)
        rx, rv = Y - D @ X, Y - D @ V
        objective[it] = (
            np.vdot(rx, rx)
            + np.vdot(rv, rv)
            + alpha * np.sum(X * (L @ X))
            + beta * np.sum(V * (Q @ V))
            + gamma * np.sum((X - V) ** 2)
        )
    return D, X, V, objective


def test_lcle_iterations_match_the_transcription():
    """Shared products, a Cholesky solve for pinv, sparse products in the cost: the
    same iterates to rounding."""
    rng = np.random.default_rng(3)
    Y = rng.random((30, 40))
    D0 = rng.random((30, 12))
    D0 /= np.linalg.norm(D0, axis=0)
    X0 = rng.random((12, 40))
    Q = label_embedding(np.repeat(np.arange(4), 3), 4)
    kw = dict(alpha=0.1, beta=0.05, gamma=0.2, n_neighbors=3, max_iter=4)
    fast = lcle_iterations(Y, D0, X0, Q, **kw)
    slow = _lcle_transcribed(Y, D0, X0, Q, **kw)
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-10 * np.abs(b).max())


def _fista_transcribed(grad, X0, lipschitz, lam, *, max_iter, tol, per_problem=False):
    """Beck & Teboulle's FISTA with DICTOL's stopping rule, fresh arrays throughout."""
    step = 1.0 / lipschitz
    X = np.array(X0, copy=True)
    Y = X.copy()
    t = 1.0
    done = np.zeros(len(X) if per_problem else 0, dtype=bool)
    for n_iter in range(1, max_iter + 1):  # noqa: B007 (n_iter is returned)
        V = Y - step * grad(Y)
        X_new = V - np.clip(V, -lam * step, lam * step)
        if per_problem:
            X_new[done] = X[done]
            done |= np.abs(X_new - X).reshape(len(X), -1).mean(axis=1) < tol
            change = 0.0 if done.all() else np.inf
        else:
            change = np.abs(X_new - X).mean()
        t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        Y = X_new + (t - 1.0) / t_new * (X_new - X)
        X, t = X_new, t_new
        if change < tol:
            break
    return X, n_iter


@pytest.mark.parametrize("per_problem", [False, True])
def test_fista_with_scratch_buffers_is_the_plain_algorithm(per_problem):
    from fdlsr.methods.dictionary._fista import fista, top_eigenvalues

    rng = np.random.default_rng(4)
    D = rng.standard_normal((3, 12, 9))
    G, B = D.transpose(0, 2, 1) @ D, D.transpose(0, 2, 1) @ rng.random((3, 12, 7))

    def grad(A):
        return G @ A - B

    lipschitz = top_eigenvalues(G)[:, None, None]
    kw = dict(max_iter=60, tol=1e-6, per_problem=per_problem)
    fast = fista(grad, np.zeros_like(B), lipschitz, 0.05, **kw)
    slow = _fista_transcribed(grad, np.zeros_like(B), lipschitz, 0.05, **kw)
    assert fast[1] == slow[1]
    np.testing.assert_allclose(fast[0], slow[0], rtol=1e-13, atol=1e-15)


def test_times_pinv_is_pinv_to_rounding_when_well_conditioned():
    from fdlsr.methods.dictionary.lcle import _times_pinv

    rng = np.random.default_rng(5)
    A = rng.standard_normal((40, 60))
    S, B = A @ A.T, rng.standard_normal((25, 40))
    expected = B @ np.linalg.pinv(S, rtol=40 * np.finfo(float).eps, hermitian=True)
    np.testing.assert_allclose(_times_pinv(B, S), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("rank", [0, 10, 39])
def test_times_pinv_falls_back_to_pinv_when_singular(rank):
    from fdlsr.methods.dictionary.lcle import _times_pinv

    rng = np.random.default_rng(rank)
    A = rng.standard_normal((40, rank))
    S, B = A @ A.T, rng.standard_normal((25, 40))
    expected = B @ np.linalg.pinv(S, rtol=40 * np.finfo(float).eps, hermitian=True)
    np.testing.assert_array_equal(_times_pinv(B, S), expected)


@pytest.mark.parametrize("counts", [[3, 3, 3, 3], [2, 4, 1, 3]])
def test_class_sums_by_reshape_are_the_per_class_sums(counts):
    from fdlsr.methods.dictionary._class_blocks import ClassBlocks

    blocks = ClassBlocks(counts, [2, 2, 2, 2])
    X = np.random.default_rng(6).standard_normal((8, sum(counts)))
    edges = blocks.sample_edges
    expected = np.stack(
        [X[:, a:b].mean(axis=1) for a, b in zip(edges[:-1], edges[1:], strict=True)],
        axis=1,
    )
    np.testing.assert_allclose(blocks.class_means(X), expected, rtol=1e-14)
    means = blocks.class_means(X)
    Z = X.copy()
    blocks.subtract_spread(Z, means)
    np.testing.assert_array_equal(Z, X - np.repeat(means, counts, axis=1))
