"""Orthogonal matching pursuit for many signals at once (Batch-OMP in lock-step).

scikit-learn's :func:`~sklearn.linear_model.orthogonal_mp_gram` codes one signal at a
time in Python; on 1000 signals, 1000 atoms and 30 nonzeros it takes seconds, and
K-SVD calls it at every iteration. Here a block of signals advances together, one
atom per step, with NumPy array operations over the block.

The algorithm is Batch-OMP (Rubinstein, Zibulevsky & Elad, "Efficient implementation
of the K-SVD algorithm using batch orthogonal matching pursuit", 2008): with ``G``
the Gram matrix of the atoms, ``alpha0 = D^T x`` and ``S`` the atoms selected so far,
the correlations of the residual with every atom are

    alpha = alpha0 - G[:, S] gamma,     gamma = G[S, S]^-1 alpha0[S],

so the data never enter after ``alpha0``. A step picks ``j = argmax |alpha|`` and
grows the inverse ``L^-1`` of the Cholesky factor of ``G[S, S]`` by one row,

    w = L^-1 G[S, j],   l^2 = G[j, j] - ||w||^2,   new row [-w^T L^-1 / l, 1 / l],

and with ``z = alpha[j] / l`` (the residual's component along the new orthonormal
direction) the coefficients grow as ``gamma += z * (new row)``. ``alpha`` is then one
product: ``[1, -gamma]`` times the rows ``[alpha0; G[S]]`` each signal keeps. It
selects the same atoms as scikit-learn's routine, with the same stopping rules (a
selected correlation or a Cholesky pivot below machine epsilon ends a signal early).

Speed: a step reads every row a signal keeps (the ``T^2 / 2`` rows of K correlations
over the ``T`` steps are the bulk of the work), so blocks are sized to keep them in a
core's cache; blocks are independent, and with ``n_threads > 1`` a thread pool runs
them (NumPy releases the GIL inside the products). A signal's arithmetic does not
depend on its block or thread.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

# Bytes of kept rows per block (T + 1 rows of n_atoms floats per signal): a block of
# a few signals fits a core's L2 cache, and larger blocks are slower.
_BLOCK_BYTES = 2 * 2**20

_min = np.minimum.reduce


def batch_omp(gram, Xy, n_nonzero_coefs, *, n_threads=1):
    """Sparse codes of many signals with at most ``n_nonzero_coefs`` atoms each.

    Parameters
    ----------
    gram : ndarray of shape (n_atoms, n_atoms)
        ``D^T D`` for a dictionary ``D`` with unit-norm columns.
    Xy : ndarray of shape (n_signals, n_atoms)
        Correlations ``x^T D`` of each signal (one row per signal).
    n_nonzero_coefs : int
        Largest number of atoms per signal; must not exceed ``n_atoms``.
    n_threads : int, default=1
        Threads that code blocks of signals side by side; the codes do not depend
        on it. Call with BLAS on one thread: each product is small.

    Returns
    -------
    support : ndarray of int of shape (n_signals, n_nonzero_coefs)
        Selected atoms in order of selection, ``-1`` in unused slots.
    coefs : ndarray of shape (n_signals, n_nonzero_coefs)
        Least-squares coefficients on the selected atoms (0 in unused slots).
    """
    gram = np.ascontiguousarray(gram, dtype=np.float64)
    Xy = np.ascontiguousarray(Xy, dtype=np.float64)
    n_signals, n_atoms = Xy.shape
    T = int(n_nonzero_coefs)
    if not 1 <= T <= n_atoms:
        raise ValueError(f"n_nonzero_coefs={T} must be in [1, n_atoms={n_atoms}].")
    support = np.full((n_signals, T), -1, dtype=np.intp)
    coefs = np.zeros((n_signals, T))
    block = max(1, _BLOCK_BYTES // (8 * (T + 1) * n_atoms))
    starts = list(range(0, n_signals, block))
    n_threads = max(1, min(int(n_threads), len(starts)))
    shares = [starts[i::n_threads] for i in range(n_threads)]

    def code(share):
        _omp_blocks(gram, Xy, T, share, block, support, coefs)

    if n_threads == 1:
        code(starts)
    else:
        with ThreadPoolExecutor(n_threads) as pool:
            list(pool.map(code, shares))
    return support, coefs


def _omp_blocks(gram, Xy, T, starts, block, support, coefs):
    """Code the blocks of ``block`` signals starting at ``starts``, into ``support``
    and ``coefs`` (rows of different blocks: threads write disjoint rows)."""
    n_atoms = gram.shape[0]
    eps = np.finfo(np.float64).eps
    diag = gram.diagonal().copy()
    # Work arrays, reused by every block of this thread.
    kept = np.empty((block, T + 1, n_atoms))  # [alpha0; G[S]] of each signal
    alpha = np.empty((block, n_atoms))
    magnitude = np.empty((block, n_atoms))
    inverse = np.zeros((block, T, T))  # L^-1 of each signal
    weights = np.zeros((block, T + 1))  # [1, -gamma]
    for start in starts:
        stop = min(start + block, Xy.shape[0])
        m = stop - start
        rows = np.arange(m)
        R, a, L_inv, v = kept[:m], alpha[:m], inverse[:m], weights[:m]
        R[:, 0] = Xy[start:stop]
        a[...] = Xy[start:stop]
        L_inv[...] = 0.0
        v[...] = 0.0
        v[:, 0] = 1.0
        live = None  # all signals live until one ends
        sel = support[start:stop]
        for t in range(T):
            # Array methods and ufuncs, not their NumPy-function wrappers: with a
            # few signals per block, the per-call overhead is a large share.
            j = np.abs(a, out=magnitude[:m]).argmax(axis=1)
            a_j = a[rows, j]
            pivot = diag[j]
            if t:
                w = np.matmul(L_inv[:, :t, :t], R[rows, 1 : t + 1, j][:, :, None])
                w = w[:, :, 0]
                pivot -= np.add.reduce(w * w, axis=1)
            # scikit-learn's stops: zero residual correlation, or a dependent atom.
            a_sq = a_j * a_j
            if live is None and _min(a_sq) >= eps and _min(pivot) > eps:
                lkk = np.sqrt(pivot)
                z = a_j / lkk
                sel[:, t] = j
            else:
                if live is None:
                    live = np.ones(m, dtype=bool)
                live &= (a_sq >= eps) & (pivot > eps)
                if not live.any():
                    break
                lkk = np.sqrt(np.where(live, pivot, 1.0))
                z = np.where(live, a_j / lkk, 0.0)  # ended signals keep their gamma
                sel[live, t] = j[live]
            row = L_inv[:, t, : t + 1]  # the new row of L^-1
            if t:
                np.matmul(w[:, None, :], L_inv[:, :t, :t], out=row[:, None, :t])
                row[:, :t] /= -lkk[:, None]
            row[:, t] = 1.0 / lkk
            v[:, 1 : t + 2] -= z[:, None] * row
            if t + 1 < T:  # alpha is needed for the next step only
                # mode="clip" writes into ``out`` directly (j is always in range);
                # the default mode buffers the copy.
                gram.take(j, axis=0, out=R[:, t + 1], mode="clip")
                np.matmul(v[:, None, : t + 2], R[:, : t + 2], out=a[:, None, :])
        coefs[start:stop] = -v[:, 1:]
