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
    _objective,
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
        objective[it] = _objective(Y, D, X, V, L, Q, alpha, beta, gamma)
    return D, X, V, objective


def test_lcle_iterations_reuse_products_bitwise():
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
        np.testing.assert_array_equal(a, b)
