"""Steps of the original MATLAB codes, transcribed plainly here, against the package.

Each reference below is this file's own straightforward code of one step of the
authors' (or the reference toolbox's) MATLAB code, loops and all, written from the
description in the docs: DICTOL's ``LRSDL.m`` final coding, ``DL_smallIntraCoeff.m``
(the class-wise initialisation of FDDL and LRSDL), KSVD-Box's dictionary clearing
(``cleardict`` in ``ksvd.m``), and DICTOL's ``SRC_pred.m`` iteration budget.
"""

import numpy as np
import pytest

from fdlsr.dictionary import _lrsdl_solver as S
from fdlsr.dictionary._class_blocks import ClassBlocks


def unit_columns(A):
    return A / np.linalg.norm(A, axis=0)


def shrink(V, threshold):
    return np.sign(V) * np.maximum(np.abs(V) - threshold, 0.0)


def fista_dictol(grad, X, L, lam, max_iter, tol):
    """DICTOL's ``fista.m``: stop once ``norm1(x_new - x_old) / numel < tol``."""
    x_old, y_old, t_old = X.copy(), X.copy(), 1.0
    x_new = x_old
    for _ in range(max_iter):
        x_new = shrink(y_old - grad(y_old) / L, lam / L)
        t_new = 0.5 * (1 + np.sqrt(1 + 4 * t_old**2))
        y_new = x_new + (t_old - 1) / t_new * (x_new - x_old)
        if np.abs(x_new - x_old).sum() / x_new.size < tol:
            break
        x_old, t_old, y_old = x_new, t_new, y_new
    return x_new


def odl_update_dictol(D, E, F, max_iter, tol):
    """DICTOL's ``ODL_updateD.m``: atom by atom, stop on ``||D - Dold|| / numel(D)``."""
    D = D.copy()
    D_old = D.copy()
    for _ in range(max_iter):
        for i in range(D.shape[1]):
            if F[i, i] != 0:
                a = (E[:, i] - D @ F[:, i]) / F[i, i] + D[:, i]
                D[:, i] = a / max(np.linalg.norm(a), 1.0)
        if np.linalg.norm(D - D_old) / D.size < tol:
            break
        D_old = D.copy()
    return D


# --- FDDL / LRSDL initialisation (DL_smallIntraCoeff.m, one class at a time) -------


def small_intra_dictol(Yc, lambda1, lambda2, n_iter):
    """One class: atoms = its samples in order, ``n_iter`` alternations of FISTA (at
    most ``n_iter`` steps) and ODL (at most ``n_iter`` sweeps), both at tol 1e-8.

    The Lipschitz constant is the package's ``lambda_max(D^T D) + lambda2`` (DICTOL's
    ``myLassoWIntrasmall_fista.m`` adds ``2 lambda2``; see docs/methods-dictionary.md).
    """
    D = Yc.copy()
    X = np.zeros((Yc.shape[1], Yc.shape[1]))
    for _ in range(n_iter):
        G, DtY = D.T @ D, D.T @ Yc

        def grad(Z, G=G, DtY=DtY):
            M = np.repeat(Z.mean(axis=1, keepdims=True), Z.shape[1], axis=1)
            return (G + lambda2 * np.eye(len(G))) @ Z - DtY - lambda2 * M

        L = np.linalg.eigvalsh(G)[-1] + lambda2
        X = fista_dictol(grad, X, L, lambda1, n_iter, 1e-8)
        D = odl_update_dictol(D, Yc @ X.T, X @ X.T, n_iter, 1e-8)
    return D


@pytest.mark.parametrize("d", [8, 400])
def test_initial_dictionaries_are_learnt_class_by_class(d):
    """Classes of different sizes, more features than samples (span basis) or not."""
    rng = np.random.default_rng(3)
    counts = [3, 4, 3, 2]
    blocks = ClassBlocks(counts, counts)
    Y = unit_columns(rng.standard_normal((d, sum(counts))))
    pen = S.Penalties(1e-3, 5e-2, 0.0)
    model = S.fit_lrsdl(
        Y, blocks, np.array([], dtype=int), pen, max_iter=0, coding_iter=1,
        tol=1e-8, rng=np.random.RandomState(0), init_iter=30, final_coding_iter=0,
    )  # fmt: skip
    for c in range(blocks.n_classes):
        expected = small_intra_dictol(Y[:, blocks.samples(c)], 1e-3, 5e-2, 30)
        got = model.D[:, blocks.atoms(c)]
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)


# --- LRSDL: one more coding of the training samples (end of LRSDL.m) ---------------


def lrsdl_codes_dictol(Y, y_edges, D, d_edges, D0, X, X0, lambda1, lambda2, n_iter):
    """DICTOL's ``LRSDL_updateXX0.m`` gradient, class blocks spelt out, run by FISTA
    (``FDDL_updateX.m`` without shared atoms).

    The step is ``1/L`` with the package's bound (see docs); DICTOL's is looser.
    """
    C, K = len(y_edges) - 1, D.shape[1]

    def own_blocks_doubled(A, rows, cols):
        A = A.copy()
        for c in range(C):
            A[rows[c] : rows[c + 1], cols[c] : cols[c + 1]] *= 2
        return A

    Dhat = own_blocks_doubled(D.T @ D, d_edges, d_edges) + 2 * lambda2 * np.eye(K)
    A = 2 * D0.T @ D0 + lambda2 * np.eye(D0.shape[1])

    def grad(X1):
        Xv, X0v = X1[:K], X1[K:]
        Y_0 = own_blocks_doubled(D.T @ Y - D.T @ D0 @ X0v, d_edges, y_edges)
        fisher = np.zeros_like(Xv)
        m = Xv.mean(axis=1)
        for c in range(C):
            cols = slice(y_edges[c], y_edges[c + 1])
            mc = Xv[:, cols].mean(axis=1)
            fisher[:, cols] = (lambda2 * (m - 2 * mc))[:, None]
        g = Dhat @ Xv - Y_0 + fisher
        g0 = (
            A @ X0v
            - 2 * D0.T @ Y
            + D0.T @ D @ own_blocks_doubled(Xv, d_edges, y_edges)
            - lambda2 * X0v.mean(axis=1, keepdims=True)
        )
        return np.vstack([g, g0])

    full = np.hstack([D, D0])
    if D0.shape[1] == 0:  # FDDL_updateX.m; the package's L is the exact top eigenvalue
        L = np.linalg.eigvalsh(Dhat)[-1]
        X1 = fista_dictol(grad, np.vstack([X, X0]), L, lambda1, n_iter, 1e-8)
        return X1[:K], X1[K:]
    worst = max(
        np.linalg.eigvalsh(
            np.hstack([D[:, d_edges[c] : d_edges[c + 1]], D0]).T
            @ np.hstack([D[:, d_edges[c] : d_edges[c + 1]], D0])
        )[-1]
        for c in range(C)
    )
    L = np.linalg.eigvalsh(full.T @ full)[-1] + worst + 2 * lambda2
    X1 = fista_dictol(grad, np.vstack([X, X0]), L, lambda1, n_iter, 1e-8)
    return X1[:K], X1[K:]


@pytest.mark.parametrize("n_shared", [0, 2])
def test_lrsdl_codes_the_training_samples_once_more(n_shared):
    rng = np.random.default_rng(5)
    counts, atoms = [4, 3, 5], [4, 3, 5]
    blocks = ClassBlocks(counts, atoms)
    Y = unit_columns(rng.standard_normal((20, sum(counts))))
    pen = S.Penalties(1e-3, 1e-2, 2e-2)
    shared = np.arange(n_shared) * 5
    kwargs = dict(max_iter=2, coding_iter=5, tol=1e-8, init_iter=5)
    before = S.fit_lrsdl(
        Y, blocks, shared, pen, rng=np.random.RandomState(0), final_coding_iter=0,
        **kwargs,
    )  # fmt: skip
    after = S.fit_lrsdl(
        Y, blocks, shared, pen, rng=np.random.RandomState(0), final_coding_iter=300,
        **kwargs,
    )  # fmt: skip
    np.testing.assert_array_equal(after.D, before.D)
    np.testing.assert_array_equal(after.D0, before.D0)
    X, X0 = lrsdl_codes_dictol(
        Y, np.cumsum([0, *counts]), before.D, np.cumsum([0, *atoms]), before.D0,
        before.X, before.X0, pen.lambda1, pen.lambda2, 300,
    )  # fmt: skip
    assert np.abs(X - before.X).max() > 1e-4  # the step does change the codes
    np.testing.assert_allclose(after.X, X, rtol=0, atol=1e-10)
    np.testing.assert_allclose(after.X0, X0, rtol=0, atol=1e-10)


def test_lrsdl_class_means_come_from_the_final_codes():
    from fdlsr.dictionary import LRSDL

    rng = np.random.default_rng(1)
    X = rng.standard_normal((24, 30))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.repeat([0, 1, 2], 8)
    common = dict(max_iter=2, coding_iter=5, init_iter=5, random_state=0)
    refined = LRSDL(final_coding_iter=300, **common).fit(X, y)
    plain = LRSDL(final_coding_iter=0, **common).fit(X, y)
    np.testing.assert_array_equal(refined.components_, plain.components_)
    assert np.abs(refined.mean_codes_ - plain.mean_codes_).max() > 1e-5


# --- LC-KSVD2 / LCLE: KSVD-Box's ksvd.m with its cleardict step ----------------------


def ksvd_box(X, D, T, n_iter):
    """KSVD-Box's ``ksvd.m`` (signals and atoms as columns), one power step per atom,
    ``cleardict`` after every iteration. OMP by scikit-learn."""
    from sklearn.linear_model import orthogonal_mp

    D = D / np.linalg.norm(D, axis=0)
    Gamma = None
    for _ in range(n_iter):
        Gamma = orthogonal_mp(D, X, n_nonzero_coefs=T).reshape(D.shape[1], -1)
        replaced = np.zeros(D.shape[1], dtype=bool)
        unused = list(range(X.shape[1]))
        for j in range(D.shape[1]):  # optimize_atom
            idx = np.flatnonzero(Gamma[j])
            if idx.size == 0:
                E = np.sum((X[:, unused] - D @ Gamma[:, unused]) ** 2, axis=0)
                i = int(np.argmax(E))
                D[:, j] = X[:, unused[i]] / np.linalg.norm(X[:, unused[i]])
                del unused[i]
                replaced[j] = True
                continue
            g, small, Dj = Gamma[j, idx], Gamma[:, idx], D[:, j].copy()
            atom = X[:, idx] @ g - D @ (small @ g) + Dj * (g @ g)
            atom /= np.linalg.norm(atom)
            g = atom @ X[:, idx] - (atom @ D) @ small + (atom @ Dj) * g
            D[:, j] = atom
            Gamma[j, idx] = g
        # cleardict
        err = np.sum((X - D @ Gamma) ** 2, axis=0)
        use_count = np.sum(np.abs(Gamma) > 1e-7, axis=1)
        for j in range(D.shape[1]):
            Gj = D.T @ D[:, j]
            Gj[j] = 0
            if (np.max(Gj**2) > 0.99**2 or use_count[j] < 4) and not replaced[j]:
                i = int(np.argmax(err[unused]))
                D[:, j] = X[:, unused[i]] / np.linalg.norm(X[:, unused[i]])
                del unused[i]
    return D, Gamma


@pytest.mark.filterwarnings("ignore:Orthogonal matching pursuit ended prematurely")
def test_ksvd_clears_the_dictionary_as_ksvd_box():
    from fdlsr.dictionary._ksvd import ksvd

    rng = np.random.default_rng(2)
    X = unit_columns(rng.standard_normal((12, 40)))
    D = X[:, :14].copy()
    D[:, 3] = D[:, 2] + 1e-3 * rng.standard_normal(12)  # nearly collinear atoms
    expected, Gamma = ksvd_box(X, D, 2, 4)
    got, codes, _ = ksvd(X.T, D.T, 2, 4, clear=True)
    np.testing.assert_allclose(got.T, expected, rtol=0, atol=1e-10)
    np.testing.assert_allclose(codes.dense().T, Gamma, rtol=0, atol=1e-10)
    plain, _, _ = ksvd(X.T, D.T, 2, 4)
    assert np.abs(plain - got).max() > 0.1  # the step did replace atoms


@pytest.mark.parametrize("name", ["LCKSVD2", "LCLE"])
def test_clear_dictionary_option_changes_the_initial_atoms(name):
    from fdlsr import dictionary

    rng = np.random.default_rng(4)
    X = rng.standard_normal((30, 20))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.repeat([0, 1, 2], 10)
    kwargs = dict(n_atoms=6, n_nonzero_coefs=2, max_iter=2, init_iter=2)
    if name == "LCLE":
        kwargs["n_neighbors"] = 3
    Estimator = getattr(dictionary, name)
    cleared = Estimator(clear_dictionary=True, **kwargs).fit(X, y)
    kept = Estimator(**kwargs).fit(X, y)
    assert np.abs(cleared.dictionary_ - kept.dictionary_).max() > 1e-3
    assert cleared.predict(X).shape == y.shape


# --- SRC with DICTOL's iteration budget (SRC_pred.m, lasso_fista.m) -----------------


def src_dictol(Y, D, labels, lambda_, n_iter):
    """DICTOL's ``SRC_pred.m``: unit columns, ``lasso_fista`` on
    ``1/2||y - D x||^2 + lambda ||x||_1`` from zero, then the class residuals."""
    Y, D = unit_columns(Y), unit_columns(D)
    DtD, DtY = D.T @ D, D.T @ Y
    L = np.linalg.eigvalsh(DtD)[-1]
    X = fista_dictol(
        lambda Z: DtD @ Z - DtY, np.zeros(DtY.shape), L, lambda_, n_iter, 1e-8
    )
    E = np.array([
        np.sum((Y - D[:, labels == c] @ X[labels == c]) ** 2, axis=0)
        for c in np.unique(labels)
    ])  # fmt: skip
    return X, np.unique(labels)[np.argmin(E, axis=0)]


def test_src_fista_budget_is_dictols():
    from fdlsr.representation import SRC

    rng = np.random.default_rng(6)
    labels = np.repeat([0, 1, 2, 3], 5)
    train = rng.standard_normal((20, 50)) + 2 * rng.standard_normal((4, 50))[labels]
    test = (
        rng.standard_normal((9, 50))
        + 2 * rng.standard_normal((4, 50))[[0, 1, 2, 3, 0, 1, 2, 3, 0]]
    )
    X, pred = src_dictol(test.T, train.T, labels, 1e-3, 300)
    model = SRC(lam=2e-3, solver="fista").fit(train, labels)  # our lam = 2 x DICTOL's
    np.testing.assert_allclose(model.encode(test), X.T, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(model.predict(test), pred)
    # Far from converged after 300 iterations; converged FISTA is the lasso (cd).
    converged = SRC(lam=2e-3, tol=1e-12, max_iter=100000).fit(train, labels)
    assert np.abs(converged.encode(test) - X.T).max() > 1e-4
    long = SRC(lam=2e-3, solver="fista", max_iter=20000).fit(train, labels)
    np.testing.assert_allclose(long.encode(test), converged.encode(test), atol=1e-6)
