"""OMP, K-SVD, LC-KSVD2 and LCLE against independent references.

References: scikit-learn's OMP, brute-force support search, plain transcriptions of
KSVD-Box's atom update, of LC-KSVD2's stacked K-SVD and of Deng Cai's graph
construction, and first-order optimality of the LCLE steps.
"""

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import orthogonal_mp_gram
from sklearn.preprocessing import normalize

from fdlsr._common.linalg import normalize_rows
from fdlsr.dictionary import LCKSVD2
from fdlsr.dictionary._batch_omp import batch_omp
from fdlsr.dictionary._ksvd import (
    SparseCodes,
    ksvd,
    lcksvd_initialization,
    omp_codes,
    row_space_basis,
    update_atoms,
)
from fdlsr.dictionary._lcksvd import fit_lcksvd2
from fdlsr.dictionary._lcle import atom_laplacian, label_embedding, lcle_iterations


def _problem(n, K, d, seed=0):
    rng = np.random.default_rng(seed)
    D = normalize(rng.random((K, d)) + 0.3 * rng.standard_normal((K, d)))
    Y = normalize(rng.random((n, d)))
    return Y, D


@pytest.mark.parametrize(
    "n, K, d, T", [(40, 30, 20, 1), (40, 30, 20, 6), (25, 50, 40, 25)]
)
def test_batch_omp_equals_scikit_learn(n, K, d, T):
    Y, D = _problem(n, K, d)
    codes = omp_codes(D, Y, T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # premature stops
        ref = orthogonal_mp_gram(D @ D.T, D @ Y.T, n_nonzero_coefs=T).T
    np.testing.assert_allclose(codes.dense(), ref, rtol=1e-9, atol=1e-12)
    assert np.all((codes.dense() != 0).sum(axis=1) <= T)


def test_omp_stops_when_the_signal_is_reached():
    _, D = _problem(1, 20, 15)
    Y = np.vstack([D[3], 0.5 * D[4] - 2 * D[7]])
    codes = omp_codes(D, Y, 10).dense()
    assert np.count_nonzero(codes[0]) == 1 and codes[0, 3] == pytest.approx(1.0)
    np.testing.assert_allclose(codes[1][[4, 7]], [0.5, -2.0], atol=1e-12)
    assert np.count_nonzero(codes[1]) == 2


def test_omp_matches_brute_force_support_search_for_an_orthonormal_dictionary():
    rng = np.random.default_rng(1)
    D = np.linalg.qr(rng.standard_normal((6, 6)))[0].T  # orthonormal atoms (rows)
    Y = rng.standard_normal((8, 6))
    codes = omp_codes(D, Y, 2).dense()
    for y, code in zip(Y, codes, strict=True):
        best = min(
            itertools.combinations(range(6), 2),
            key=lambda s: np.linalg.norm(
                y - np.linalg.lstsq(D[list(s)].T, y, rcond=None)[0] @ D[list(s)]
            ),
        )
        assert set(np.flatnonzero(code)) == set(best)


def test_omp_equals_a_plain_greedy_transcription():
    Y, D = _problem(15, 25, 12, seed=2)
    support, coefs = batch_omp(D @ D.T, Y @ D.T, 5)
    for i, y in enumerate(Y):
        chosen, r = [], y.copy()
        for _ in range(5):
            chosen.append(int(np.argmax(np.abs(D @ r))))
            c = np.linalg.lstsq(D[chosen].T, y, rcond=None)[0]
            r = y - c @ D[chosen]
        assert list(support[i]) == chosen
        np.testing.assert_allclose(coefs[i], c, atol=1e-10)


def _plain_sweep(Y, D, codes, exact):
    """KSVD-Box's optimize_atom, residual recomputed from scratch for each atom."""
    D, G = D.copy(), codes.dense()
    for j in range(D.shape[0]):
        used = np.flatnonzero(G[:, j])
        if not used.size:
            continue
        R = Y[used] - G[used] @ D + np.outer(G[used, j], D[j])
        if exact:
            u, s, vt = np.linalg.svd(R)
            atom, g = vt[0], s[0] * u[:, 0]
        else:
            atom = G[used, j] @ R
            atom /= np.linalg.norm(atom)
            g = R @ atom
        D[j], G[used, j] = atom, g
    return D, G


@pytest.mark.parametrize("exact", [False, True])
def test_atom_sweep_equals_the_plain_rank_one_updates(exact):
    Y, D = _problem(60, 20, 15, seed=3)
    codes = omp_codes(D, Y, 4)
    ref_D, ref_G = _plain_sweep(Y, D, codes, exact)
    new_D = D.copy()
    E = update_atoms(Y, new_D, codes, exact)
    G = codes.dense()
    # The SVD's sign is arbitrary: compare the rank-1 terms g d^T.
    for j in range(D.shape[0]):
        np.testing.assert_allclose(
            np.outer(G[:, j], new_D[j]), np.outer(ref_G[:, j], ref_D[j]), atol=1e-10
        )
    np.testing.assert_allclose(E, Y - G @ new_D, atol=1e-12)


def test_exact_sweep_never_increases_the_error():
    Y, D = _problem(60, 20, 15, seed=4)
    codes = omp_codes(D, Y, 4)
    before = np.sum((Y - codes.dense() @ D) ** 2)
    E = update_atoms(Y, D, codes, exact=True)
    assert np.sum(E**2) <= before


def test_an_unused_atom_is_replaced_by_the_worst_coded_signal():
    Y, D = _problem(10, 4, 6, seed=5)
    codes = SparseCodes(np.array([[0]] * 10), Y @ D[0][:, None], 4)  # all on atom 0
    E0 = Y - codes.dense() @ D
    worst = np.argmax(np.sum(E0**2, axis=1))
    new = D.copy()
    update_atoms(Y, new, codes)
    np.testing.assert_allclose(new[1], Y[worst] / np.linalg.norm(Y[worst]))


def test_ksvd_in_row_space_coordinates_equals_ksvd_in_the_full_space():
    Y, _ = _problem(12, 1, 30, seed=6)
    D0 = normalize_rows(Y[:8] + 0.1 * Y[8:9])
    full_D, full_codes, full_err = ksvd(Y, D0, 3, 4)
    basis = row_space_basis(Y)
    D, codes, err = ksvd(Y @ basis, D0 @ basis, 3, 4)
    np.testing.assert_allclose(D @ basis.T, full_D, atol=1e-10)
    np.testing.assert_allclose(codes.dense(), full_codes.dense(), atol=1e-10)
    np.testing.assert_allclose(err, full_err, rtol=1e-9)


def _faces(n_classes=6, per_class=4, dim=40, seed=7):
    rng = np.random.default_rng(seed)
    centres = rng.random((n_classes, dim))
    y = np.repeat(np.arange(n_classes), per_class)
    X = normalize(centres[y] + 0.3 * rng.random((y.size, dim)))
    return X, y


def test_lcksvd2_without_iterations_returns_the_ridge_initialisation():
    X, y = _faces()
    atoms = np.full(6, 4)
    D0, _, _, W0, A0 = lcksvd_initialization(X, y, 6, atoms, 5, 3, row_space_basis(X))
    result = fit_lcksvd2(
        X, y, 6, atoms, alpha=16.0, beta=4.0, n_nonzero_coefs=5, max_iter=0,
        init_iter=3, exact=False, clear_dictionary=False,
    )  # fmt: skip
    np.testing.assert_allclose(result.dictionary, D0, atol=1e-10)
    np.testing.assert_allclose(result.classifier, W0, atol=1e-10)
    np.testing.assert_allclose(result.transform, A0, atol=1e-10)


def test_lcksvd2_equals_the_plain_stacked_ksvd():
    """Our change of basis of the stacked problem against labelconsistentksvd2.m."""
    X, y = _faces()
    atoms, alpha, beta = np.full(6, 4), 16.0, 4.0
    D0, labels, _, W0, A0 = lcksvd_initialization(
        X, y, 6, atoms, 5, 3, row_space_basis(X)
    )
    H = np.eye(6)[y]
    Q = (y[:, None] == labels[None, :]).astype(float)
    signals = np.hstack([X, 4 * Q, 2 * H])
    stacked, _, err = ksvd(signals, np.hstack([D0, 4 * A0, 2 * W0]), 5, 4)
    D, A, W = np.split(stacked, [X.shape[1], X.shape[1] + 24], axis=1)
    norms = np.linalg.norm(D, axis=1, keepdims=True)
    result = fit_lcksvd2(
        X,
        y,
        6,
        atoms,
        alpha=alpha,
        beta=beta,
        n_nonzero_coefs=5,
        max_iter=4,
        init_iter=3,
        exact=False,
        clear_dictionary=False,
    )
    np.testing.assert_allclose(result.dictionary, D / norms, atol=1e-8)
    np.testing.assert_allclose(result.classifier, W / norms / 2, atol=1e-8)
    np.testing.assert_allclose(result.transform, A / norms / 4, atol=1e-8)
    np.testing.assert_allclose(result.objective, err, rtol=1e-8)


def test_lcksvd2_codes_are_label_consistent_on_separated_classes():
    X, y = _faces(seed=8)
    model = LCKSVD2(n_nonzero_coefs=3, max_iter=5, init_iter=3).fit(X, y)
    codes = omp_codes(model.dictionary_, X, 3).dense()
    energy = np.array(
        [
            [np.sum(codes[i, model.atom_labels_ == c] ** 2) for c in range(6)]
            for i in range(len(y))
        ]
    )
    assert np.mean(energy.argmax(axis=1) == y) > 0.9
    assert model.score(X, y) == 1.0


def test_label_embedding_is_the_code_formula():
    labels = np.array([0, 0, 1, 1, 1, 2])
    Dlabel = np.eye(3)[labels].T  # classes x atoms
    w, V = np.linalg.eigh(Dlabel @ Dlabel.T)
    A = Dlabel.T @ (V / np.sqrt(w)) @ V.T
    np.testing.assert_allclose(label_embedding(labels, 3), A @ A.T, atol=1e-12)


def _construct_w(fea, k):
    """Plain transcription of constructW (KNN, HeatKernel, default t)."""
    n = fea.shape[0]
    dist = np.array([[np.sum((a - b) ** 2) for b in fea] for a in fea])
    t = np.mean(np.sqrt(dist))
    W = np.zeros((n, n))
    for i in range(n):
        d = dist[i].copy()
        for _ in range(k + 1):
            j = int(np.argmin(d))
            W[i, j] = np.exp(-dist[i, j] / (2 * t**2))
            d[j] = 1e100
    W -= np.diag(np.diag(W))
    return np.maximum(W, W.T)


def test_atom_laplacian_is_cais_graph():
    D = np.random.default_rng(9).standard_normal((7, 12))  # atoms are columns
    W = _construct_w(D.T, 3)
    np.testing.assert_allclose(atom_laplacian(D, 3), np.diag(W.sum(1)) - W, atol=1e-12)


def test_lcle_steps_are_block_minimisers():
    rng = np.random.default_rng(10)
    Y = rng.random((15, 20))
    D0 = normalize(rng.random((15, 8)), axis=0)
    X0 = rng.random((8, 20))
    Q = label_embedding(np.repeat(np.arange(4), 2), 4)
    alpha, beta, gamma = 0.1, 0.05, 0.2
    kw = dict(alpha=alpha, beta=beta, gamma=gamma, n_neighbors=2)
    D, X, V, _ = lcle_iterations(Y, D0, X0, Q, max_iter=1, **kw)
    L = atom_laplacian(D0, 2)
    # V step (from D0, X0): zero gradient.
    grad_v = -2 * D0.T @ (Y - D0 @ V) + 2 * beta * Q @ V + 2 * gamma * (V - X0)
    assert np.abs(grad_v).max() < 1e-9
    # D step: least squares of [Y, Y] on [X0, V] (minimum-norm, like pinv).
    ref = np.linalg.lstsq(np.hstack([X0, V]).T, np.hstack([Y, Y]).T, rcond=None)[0].T
    np.testing.assert_allclose(D, ref, atol=1e-9)
    # X step (from D, V): zero gradient.
    grad_x = -2 * D.T @ (Y - D @ X) + 2 * alpha * L @ X + 2 * gamma * (X - V)
    assert np.abs(grad_x).max() < 1e-9


def test_lcle_objective_decreases_with_a_fixed_graph():
    rng = np.random.default_rng(11)
    Y = rng.random((15, 20))
    D0 = normalize(rng.random((15, 8)), axis=0)
    Q = label_embedding(np.repeat(np.arange(4), 2), 4)
    _, _, _, obj = lcle_iterations(
        Y,
        D0,
        rng.random((8, 20)),
        Q,
        alpha=0.1,
        beta=0.05,
        gamma=0.2,
        n_neighbors=2,
        max_iter=8,
        update_graph=False,
    )
    assert np.all(np.diff(obj) <= 1e-12 * obj[0])


def _code_spectrum(d, K, max_iter):
    """Eigenvalues of ``X X^T + V V^T`` (the D-step's system) after ``max_iter``
    LCLE iterations from atoms that are the samples, relative to the largest."""
    rng = np.random.default_rng(12)
    Y = normalize(rng.standard_normal((d, K)), axis=0)
    Q = label_embedding(np.repeat(np.arange(4), K // 4), 4)
    kw = dict(alpha=1e-4, beta=1e-3, gamma=1e-3, n_neighbors=10)
    _, X, V, _ = lcle_iterations(Y, Y.copy(), np.eye(K), Q, max_iter=max_iter, **kw)
    ev = np.linalg.eigvalsh(X @ X.T + V @ V.T)
    return ev / ev[-1]


def test_lcle_codes_lose_rank_when_atoms_outnumber_features():
    """Why LCLE collapses with more atoms K than features d (docs/reproduction.md):
    in the (K - d)-dimensional null space of D only the small regularisers act on the
    codes, and they shrink them at every iteration, so the D-step's system loses rank
    and its inverse amplifies what is left there. With K <= d nothing shrinks."""
    assert _code_spectrum(60, 40, 10)[0] > 0.5
    after5, after10 = _code_spectrum(20, 40, 5), _code_spectrum(20, 40, 10)
    assert after10[20] > 0.5  # the d leading directions keep their scale
    assert after10[0] < 1e-4 and after10[0] < 1e-2 * after5[0]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_atoms=st.sampled_from([None, 1, 2]),
    n_nonzero_coefs=st.sampled_from([1, 2, 5, 30]),
    clear=st.booleans(),
    exact=st.booleans(),
)
def test_duplicated_training_samples_fit_or_are_refused_in_one_line(
    seed, n_atoms, n_nonzero_coefs, clear, exact
):
    """Training sets made of repeated samples (issue 30 reported an empty error
    message): LC-KSVD2 fits and predicts, or refuses with a one-line message."""
    rng = np.random.default_rng(seed)
    n_classes, distinct, d = rng.integers(2, 5), rng.integers(1, 4), rng.integers(1, 12)
    base = rng.integers(-2, 3, size=(n_classes * distinct, d)).astype(float)
    labels = np.repeat(np.arange(n_classes), distinct)
    repeats = rng.integers(1, 4, size=labels.size)
    X, y = np.repeat(base, repeats, axis=0), np.repeat(labels, repeats)
    X = normalize(X)
    model = LCKSVD2(
        n_atoms=n_atoms,
        alpha=1e-3,
        beta=1e-2,
        n_nonzero_coefs=n_nonzero_coefs,
        max_iter=3,
        init_iter=2,
        clear_dictionary=clear,
        atom_update="exact" if exact else "approximate",
    )
    try:
        model.fit(X, y)
    except ValueError as error:
        message = str(error)
        assert message.strip() and "\n" not in message
        return
    assert np.isin(model.predict(X), y).all()
