"""Orthogonal matching pursuit for many signals at once (Batch-OMP in lock-step).

scikit-learn's :func:`~sklearn.linear_model.orthogonal_mp_gram` codes one signal at a
time in Python; on 1000 signals, 1000 atoms and 30 nonzeros it takes seconds, and
K-SVD calls it at every iteration. Here all signals advance together, one atom per
step, with NumPy array operations over the whole batch.

The algorithm is OMP in its Gram form (Rubinstein, Zibulevsky & Elad, "Efficient
implementation of the K-SVD algorithm using batch orthogonal matching pursuit",
2008), written with Gram-Schmidt in atom space: with ``q_1 .. q_t`` an orthonormal
basis of the selected atoms, the correlations of the residual with every atom obey

    alpha_t = alpha_{t-1} - (D^T q_t) (q_t^T x),
    D^T q_t = (G[:, j] - sum_s (D^T q_s) w_s) / l,   w_s = (D^T q_s)[j],
    l^2 = G[j, j] - ||w||^2,                          q_t^T x = alpha_{t-1}[j] / l,

so the data never enter after ``Xy = D^T x``; ``w`` and ``l`` form the new row of the
Cholesky factor of ``G[S, S]``, which gives the coefficients at the end. It selects
the same atoms as scikit-learn's routine, with the same stopping rules (a selected
correlation or a Cholesky pivot below machine epsilon ends a signal early).
"""

import numpy as np

# Signals per block: each keeps its basis D^T Q (T x K floats); blocks of a few
# tens of signals stay in cache and run fastest.
_BLOCK_BYTES = 8 * 2**20


def batch_omp(gram, Xy, n_nonzero_coefs):
    """Sparse codes of many signals with at most ``n_nonzero_coefs`` atoms each.

    Parameters
    ----------
    gram : ndarray of shape (n_atoms, n_atoms)
        ``D^T D`` for a dictionary ``D`` with unit-norm columns.
    Xy : ndarray of shape (n_signals, n_atoms)
        Correlations ``x^T D`` of each signal (one row per signal).
    n_nonzero_coefs : int
        Largest number of atoms per signal; must not exceed ``n_atoms``.

    Returns
    -------
    support : ndarray of int of shape (n_signals, n_nonzero_coefs)
        Selected atoms in order of selection, ``-1`` in unused slots.
    coefs : ndarray of shape (n_signals, n_nonzero_coefs)
        Least-squares coefficients on the selected atoms (0 in unused slots).
    """
    gram = np.asarray(gram, dtype=np.float64)
    Xy = np.asarray(Xy, dtype=np.float64)
    n_signals, n_atoms = Xy.shape
    T = int(n_nonzero_coefs)
    if not 1 <= T <= n_atoms:
        raise ValueError(f"n_nonzero_coefs={T} must be in [1, n_atoms={n_atoms}].")
    support = np.full((n_signals, T), -1, dtype=np.intp)
    coefs = np.zeros((n_signals, T))
    block = max(1, _BLOCK_BYTES // (8 * T * n_atoms))
    for start in range(0, n_signals, block):
        rows = slice(start, min(start + block, n_signals))
        support[rows], coefs[rows] = _omp_block(gram, Xy[rows], T)
    return support, coefs


def _omp_block(gram, Xy, T):
    m, n_atoms = Xy.shape
    eps = np.finfo(np.float64).eps
    alpha = Xy.copy()
    basis = np.zeros((m, T, n_atoms))  # rows D^T q_s
    chol = np.zeros((m, T, T))  # Cholesky factor of G[S, S]
    proj = np.zeros((m, T))  # q_s^T x
    support = np.full((m, T), -1, dtype=np.intp)
    n_active = np.zeros(m, dtype=np.intp)
    live = np.ones(m, dtype=bool)
    rows = np.arange(m)
    for t in range(T):
        j = np.argmax(np.abs(alpha), axis=1)
        a_j = alpha[rows, j]
        w = basis[rows, :t, j]  # (m, t): q_s^T d_j
        pivot = gram[j, j] - np.einsum("ij,ij->i", w, w)
        # scikit-learn's stops: zero residual correlation, or a dependent atom.
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
        # D^T q_t for the live signals; the others keep a zero row.
        new = gram[j] - np.matmul(w[:, None, :], basis[:, :t, :])[:, 0, :]
        new /= lkk[:, None]
        new[~live] = 0.0
        basis[:, t, :] = new
        alpha -= c[:, None] * new
    coefs = np.zeros((m, T))
    for k in np.unique(n_active):
        if k == 0:
            continue
        sel = n_active == k
        # L^T gamma = Q^T x on the selected atoms.
        lt = np.swapaxes(chol[sel, :k, :k], 1, 2)
        coefs[sel, :k] = np.linalg.solve(lt, proj[sel, :k, None])[..., 0]
    return support, coefs
