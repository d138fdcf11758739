"""The faster paths of the dictionary methods against plain transcriptions.

Each test runs a sped-up routine and a direct, unoptimised transcription of the
same algorithm (as the code was before it was made faster) on the same data and
asks for the same result: bitwise where the arithmetic is unchanged, to rounding
where a product is formed differently.
"""

import numpy as np
import pytest

from fdlsr.dictionary._lcle import (
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
    from fdlsr.dictionary._fista import fista, top_eigenvalues

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
    from fdlsr.dictionary._lcle import _times_pinv

    rng = np.random.default_rng(5)
    A = rng.standard_normal((40, 60))
    S, B = A @ A.T, rng.standard_normal((25, 40))
    expected = B @ np.linalg.pinv(S, rtol=40 * np.finfo(float).eps, hermitian=True)
    np.testing.assert_allclose(_times_pinv(B, S), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("rank", [0, 10, 39])
def test_times_pinv_falls_back_to_pinv_when_singular(rank):
    from fdlsr.dictionary._lcle import _times_pinv

    rng = np.random.default_rng(rank)
    A = rng.standard_normal((40, rank))
    S, B = A @ A.T, rng.standard_normal((25, 40))
    expected = B @ np.linalg.pinv(S, rtol=40 * np.finfo(float).eps, hermitian=True)
    np.testing.assert_array_equal(_times_pinv(B, S), expected)


@pytest.mark.parametrize("counts", [[3, 3, 3, 3], [2, 4, 1, 3]])
def test_class_sums_by_reshape_are_the_per_class_sums(counts):
    from fdlsr.dictionary._class_blocks import ClassBlocks

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


def test_fista_in_slabs_is_the_whole_array_loop_on_any_number_of_threads():
    """One matrix of codes: the elementwise step runs slab by slab, possibly on
    threads; the iterates and the stopping iteration are those of the whole-array
    loop, bit for bit."""
    from threadpoolctl import threadpool_limits

    from fdlsr.dictionary import _fista

    rng = np.random.default_rng(7)
    D = rng.standard_normal((40, 300))
    G, B = D.T @ D, D.T @ rng.random((40, 90))

    def grad(A):
        return G @ A - B

    lipschitz = _fista.top_eigenvalue(G)
    slow = _fista_transcribed(
        grad, np.zeros_like(B), lipschitz, 0.05, max_iter=80, tol=1e-7
    )
    for slab_bytes, threads in [(2**18, 1), (8 * 90 * 7, 1), (8 * 90 * 7, 2)]:
        _fista._SLAB_BYTES, saved = slab_bytes, _fista._SLAB_BYTES
        try:
            with threadpool_limits(threads):
                fast = _fista.fista(
                    grad, np.zeros_like(B), lipschitz, 0.05, max_iter=80, tol=1e-7
                )
        finally:
            _fista._SLAB_BYTES = saved
        assert fast[1] == slow[1]
        np.testing.assert_array_equal(fast[0], slow[0])


@pytest.mark.parametrize("counts", [[3, 3, 3, 3], [2, 4, 1, 3]])
def test_own_class_doubling_is_the_product_with_the_pattern(counts):
    from fdlsr.dictionary._class_blocks import ClassBlocks

    blocks = ClassBlocks(counts, [2, 1, 3, 2])
    rng = np.random.default_rng(8)
    Z, S = rng.standard_normal((8, sum(counts))), rng.standard_normal((8, 8))
    np.testing.assert_array_equal(blocks.double_own(Z), Z * blocks.own)
    np.testing.assert_array_equal(blocks.double_diagonal(S), S * blocks.own_atoms)
    copy = Z.copy()
    assert blocks.double_own(copy, overwrite=True) is copy
    np.testing.assert_array_equal(copy, Z * blocks.own)


# --- LC-KSVD2 and LCLE: the pursuit and the atom sweep as they were ---------------


def _batch_omp_gram_schmidt(gram, Xy, T):
    """The Batch-OMP used before the Cholesky form (Gram-Schmidt in atom space, every
    signal at once): ``alpha -= (D^T q_t)(q_t^T x)`` with ``D^T q_t`` kept for every
    step, coefficients from the Cholesky factor at the end."""
    m, n_atoms = Xy.shape
    eps = np.finfo(np.float64).eps
    alpha = Xy.copy()
    basis = np.zeros((m, T, n_atoms))
    chol = np.zeros((m, T, T))
    proj = np.zeros((m, T))
    support = np.full((m, T), -1, dtype=np.intp)
    n_active = np.zeros(m, dtype=np.intp)
    live = np.ones(m, dtype=bool)
    rows = np.arange(m)
    for t in range(T):
        j = np.argmax(np.abs(alpha), axis=1)
        a_j = alpha[rows, j]
        w = basis[rows, :t, j]
        pivot = gram[j, j] - np.einsum("ij,ij->i", w, w)
        live &= (a_j * a_j >= eps) & (pivot > eps)
        if not live.any():
            break
        lkk = np.sqrt(np.where(live, pivot, 1.0))
        chol[live, t, :t] = w[live]
        chol[live, t, t] = lkk[live]
        support[live, t] = j[live]
        n_active[live] += 1
        c = np.where(live, a_j / lkk, 0.0)
        proj[:, t] = c
        new = gram[j] - np.matmul(w[:, None, :], basis[:, :t, :])[:, 0, :]
        new /= lkk[:, None]
        new[~live] = 0.0
        basis[:, t, :] = new
        alpha -= c[:, None] * new
    coefs = np.zeros((m, T))
    for k in np.unique(n_active):
        if k:
            sel = n_active == k
            lt = np.swapaxes(chol[sel, :k, :k], 1, 2)
            coefs[sel, :k] = np.linalg.solve(lt, proj[sel, :k, None])[..., 0]
    return support, coefs


def _pursuit_problem(n, K, d, seed):
    """Unit atoms and signals, with signals that are atoms or combinations of two
    (they end early), a repeated atom (a dependent one) and an atom 1e-7 away from
    another (a tie in float32, not in float64: the pursuit's screen must defer)."""
    rng = np.random.default_rng(seed)
    D = rng.random((K, d)) + 0.3 * rng.standard_normal((K, d))
    D[1] = D[0]
    D[2] = D[5] + 1e-7 * rng.standard_normal(d)
    D /= np.linalg.norm(D, axis=1, keepdims=True)
    Y = rng.random((n, d))
    Y[0], Y[1] = D[3], 0.5 * D[4] - 2 * D[7]
    return D, Y / np.linalg.norm(Y, axis=1, keepdims=True)


@pytest.mark.parametrize(
    "n, K, d, T", [(50, 40, 30, 6), (30, 60, 25, 25), (9, 12, 40, 12)]
)
@pytest.mark.parametrize("threads, chunk", [(1, None), (1, 4), (3, None), (3, 4)])
def test_batch_omp_is_the_gram_schmidt_pursuit(n, K, d, T, threads, chunk, monkeypatch):
    from fdlsr.dictionary import _batch_omp

    D, Y = _pursuit_problem(n, K, d, seed=K)
    gram, Xy = D @ D.T, Y @ D.T
    expected = _batch_omp_gram_schmidt(gram, Xy, T)
    if chunk:
        monkeypatch.setattr(_batch_omp, "_CHUNK", chunk)
    # Shares of a few signals, so that these small problems do run on threads.
    monkeypatch.setattr(_batch_omp, "_MIN_SHARE", 2)
    support, coefs = _batch_omp.batch_omp(gram, Xy, T, n_threads=threads)
    np.testing.assert_array_equal(support, expected[0])
    np.testing.assert_allclose(coefs, expected[1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "n, threads, workers", [(1000, 16, 4), (1000, 2, 2), (300, 8, 0)]
)
def test_batch_omp_gives_each_thread_a_share_of_at_least_min_share(
    n, threads, workers, monkeypatch
):
    """More threads than shares of _MIN_SHARE signals queue for the GIL (LC-KSVD2 at
    FERET k = 5 ran slower on 8 and 16 threads than on one): the pool is capped."""
    from fdlsr.dictionary import _batch_omp

    started = []

    class Pool(_batch_omp.ThreadPoolExecutor):
        def __init__(self, max_workers):
            started.append(max_workers)
            super().__init__(max_workers)

    monkeypatch.setattr(_batch_omp, "ThreadPoolExecutor", Pool)
    D, Y = _pursuit_problem(n, 30, 20, seed=3)
    gram, Xy = D @ D.T, Y @ D.T
    support, coefs = _batch_omp.batch_omp(gram, Xy, 5, n_threads=threads)
    assert started == ([workers] if workers else [])
    one = _batch_omp.batch_omp(gram, Xy, 5, n_threads=1)
    np.testing.assert_array_equal(support, one[0])
    np.testing.assert_array_equal(coefs, one[1])


@pytest.mark.parametrize("scale", [1e-5, 1e40])
def test_batch_omp_at_any_scale_of_the_signals(scale):
    """The float32 screen works on scaled correlations: signals far outside
    float32's range (1e40 overflowed it) code as the float64 pursuit does. (Generic
    signals: one that an atom represents exactly goes on, at 1e40, choosing among
    rounding noise, since the stopping rule's epsilon is absolute.)"""
    from fdlsr.dictionary._batch_omp import batch_omp

    D, Y = _pursuit_problem(40, 30, 20, seed=14)
    gram, Xy = D @ D.T, scale * (Y[2:] @ D.T)
    expected = _batch_omp_gram_schmidt(gram, Xy, 8)
    support, coefs = batch_omp(gram, Xy, 8)
    np.testing.assert_array_equal(support, expected[0])
    np.testing.assert_allclose(coefs, expected[1], rtol=1e-10, atol=1e-12 * scale)


def _update_atoms_as_before(Y, D, codes):
    """The K-SVD sweep as it was written before (per-atom gathers and temporaries)."""
    from scipy.linalg.blas import dgemm

    from fdlsr.dictionary._ksvd import _rank_one

    n, T = codes.support.shape
    E = Y - codes.reconstruct(D)
    flat = codes.support.ravel()
    order = np.argsort(flat, kind="stable")
    bounds = np.searchsorted(flat[order], np.arange(-1, D.shape[0] + 1))
    coefs = codes.coefs.reshape(-1)
    for j in range(D.shape[0]):
        pos = order[bounds[j + 1] : bounds[j + 2]]
        if pos.size == 0:
            continue
        rows, g = pos // T, coefs[pos]
        Er = np.take(E, rows, axis=0)
        atom, g_new = _rank_one(Er, g, D[j], False)
        left, right = np.array([D[j], atom]).T, np.array([g, -g_new])
        Er = dgemm(1.0, left, right, 1.0, Er.T).T
        E[rows] = Er
        D[j] = atom
        coefs[pos] = g_new
    return E


def test_atom_sweep_is_the_sweep_as_before():
    """The residual is formed by one product added into a copy of Y (the sums of a
    row in another order): the same atoms, coefficients and residual to rounding."""
    from fdlsr.dictionary._ksvd import omp_codes, update_atoms

    D, Y = _pursuit_problem(80, 30, 20, seed=9)
    D[1] += 0.01  # no dependent atom: every atom is used
    D /= np.linalg.norm(D, axis=1, keepdims=True)
    codes = omp_codes(D, Y, 5)
    before_D, before_codes = (
        D.copy(),
        type(codes)(codes.support.copy(), codes.coefs.copy(), codes.n_atoms),
    )
    E = update_atoms(Y, D, codes)
    E_before = _update_atoms_as_before(Y, before_D, before_codes)
    for now, before in [(D, before_D), (codes.coefs, before_codes.coefs)]:
        assert np.linalg.norm(now - before) <= 1e-13 * np.linalg.norm(before)
    # The residual is small beside Y: its rounding is relative to Y's size.
    assert np.linalg.norm(E - E_before) <= 1e-13 * np.linalg.norm(Y)


def _faces(n_classes=8, per_class=5, dim=60, seed=10):
    rng = np.random.default_rng(seed)
    centres = rng.random((n_classes, dim))
    y = np.repeat(np.arange(n_classes), per_class)
    X = centres[y] + 0.4 * rng.random((y.size, dim))
    return X / np.linalg.norm(X, axis=1, keepdims=True), y


@pytest.mark.parametrize("name", ["LCKSVD2", "LCLE"])
def test_lcksvd2_and_lcle_are_unchanged_by_the_faster_pursuit(name, monkeypatch):
    """The whole fit with the pursuit, the residual and the correlations as they
    were (Gram-Schmidt pursuit, ``Y - Gamma D``, the dense product with the stacked
    signals) on one thread, against the fit as it is on three threads: dictionary,
    classifier, transform and scores to 1e-10, the same predictions."""
    from fdlsr import dictionary
    from fdlsr.dictionary import _ksvd, _lcksvd

    X, y = _faces()
    test, _ = _faces(seed=11)
    kwargs = dict(n_nonzero_coefs=6, max_iter=6, init_iter=3)
    if name == "LCKSVD2":
        kwargs.update(alpha=1e-3, beta=1e-2)
    else:
        kwargs.update(n_neighbors=5)
    Estimator = getattr(dictionary, name)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(3):
        now = Estimator(**kwargs).fit(X, y)
        now_scores = now.decision_function(test)
    with monkeypatch.context() as patch:
        patch.setattr(
            _ksvd,
            "batch_omp",
            lambda gram, Xy, T, n_threads: _batch_omp_gram_schmidt(gram, Xy, T),
        )
        patch.setattr(
            _ksvd.SparseCodes,
            "residual",
            lambda codes, Y, D: Y - codes.sparse() @ D,
        )
        patch.setattr(_lcksvd, "_stacked_correlations", lambda *args, **kw: None)
        patch.setattr(_lcksvd, "_samples_in_basis", lambda Y, basis: Y @ basis)
        with threadpool_limits(1):
            before = Estimator(**kwargs).fit(X, y)
            before_scores = before.decision_function(test)
    for attribute in ("dictionary_", "classifier_", "transform_"):
        if hasattr(now, attribute):
            a, b = getattr(now, attribute), getattr(before, attribute)
            assert np.linalg.norm(a - b) <= 1e-10 * np.linalg.norm(b), attribute
    assert np.linalg.norm(now_scores - before_scores) <= 1e-10 * np.linalg.norm(
        before_scores
    )
    np.testing.assert_array_equal(now.predict(test), before.predict(test))


def test_stacked_correlations_are_the_product_with_the_stacked_signals():
    """LC-KSVD2's correlations gather the label blocks' share (one nonzero per row)
    instead of multiplying by them: the product with the stacked signals."""
    from fdlsr.dictionary._lcksvd import _stacked_correlations

    rng = np.random.default_rng(12)
    n, dim, n_classes, n_atoms = 30, 20, 4, 25
    Y, y = rng.standard_normal((n, dim)), rng.integers(0, n_classes, n)
    label_weights, sb = 0.03 * np.sqrt(rng.integers(1, 5, n_classes)), 0.1
    H = (y[:, None] == np.arange(n_classes)).astype(float)
    signals = np.hstack([Y, H * label_weights, sb * H])
    D = rng.standard_normal((n_atoms, signals.shape[1]))
    expected = signals @ D.T
    got = _stacked_correlations(Y, y, label_weights, sb)(D)
    np.testing.assert_allclose(
        got, expected, rtol=0, atol=1e-13 * np.abs(expected).max()
    )
    # A lower-triangular data block (the samples in the basis of their QR factor).
    Y = np.tril(rng.standard_normal((n, n)))
    signals = np.hstack([Y, H * label_weights, sb * H])
    D = rng.standard_normal((n_atoms, signals.shape[1]))
    expected = signals @ D.T
    got = _stacked_correlations(Y, y, label_weights, sb, lower=True)(D)
    np.testing.assert_allclose(
        got, expected, rtol=0, atol=1e-13 * np.abs(expected).max()
    )


def test_samples_in_basis_are_the_product_with_the_basis():
    """Y Q is R^T: what tril drops above the diagonal is rounding noise."""
    from fdlsr.dictionary._ksvd import row_space_basis
    from fdlsr.dictionary._lcksvd import _samples_in_basis

    Y = np.random.default_rng(13).random((30, 50))
    basis = row_space_basis(Y)
    plain = Y @ basis
    assert np.linalg.norm(
        _samples_in_basis(Y, basis) - plain
    ) <= 1e-14 * np.linalg.norm(plain)
