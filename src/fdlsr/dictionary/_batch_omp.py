"""Orthogonal matching pursuit for many signals at once (Batch-OMP in lock-step).

scikit-learn's :func:`~sklearn.linear_model.orthogonal_mp_gram` codes one signal at a
time in Python; on 1000 signals, 1000 atoms and 30 nonzeros it takes seconds, and
K-SVD calls it at every iteration. Here every signal advances together, one atom per
step, with one NumPy call per step for all of them.

The algorithm is Batch-OMP (Rubinstein, Zibulevsky & Elad, "Efficient implementation
of the K-SVD algorithm using batch orthogonal matching pursuit", 2008): with ``G``
the Gram matrix of the atoms, ``alpha0 = D^T x`` and ``S`` the atoms selected so far,
the correlations of the residual with every atom are

    alpha = alpha0 - G[:, S] gamma,     gamma = G[S, S]^-1 alpha0[S],

so the data never enter after ``alpha0``. A step picks ``j = argmax |alpha|`` and
grows the inverse ``L^-1`` of the Cholesky factor of ``G[S, S]`` by one row,

    w = L^-1 G[S, j],   l^2 = G[j, j] - ||w||^2,   new row [-w^T L^-1 / l, 1 / l],

and with ``z = alpha[j] / l`` (the residual's component along the new orthonormal
direction) the coefficients grow by ``delta = z * (new row)``, and the correlations
by ``-G[:, S + j] delta``. It selects the same atoms as scikit-learn's routine, with
the same stopping rules (a selected correlation or a Cholesky pivot below machine
epsilon ends a signal early).

Speed: the update of ``alpha`` is the bulk of the work (at step t, t + 1 rows of
``G`` per signal: ``T^2 / 2`` rows of K numbers over a pursuit). It is one sparse
times dense product per step, ``alpha -= Delta G`` with ``Delta`` the signals'
coefficient changes as a CSR matrix, which reads the rows of ``G`` in place (``G``
stays in the last-level cache; signals of a class, adjacent in K-SVD's canonical
order, share atoms) and adds into ``alpha`` without a temporary. The small
per-signal steps (argmax, Cholesky row) are one call each over all the signals, so
the Python overhead does not grow with their number. With ``n_threads > 1``, threads
code contiguous shares of the signals (SciPy's and NumPy's kernels release the GIL).
A signal's arithmetic does not depend on its share or thread.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._common.compat import csr_add_product

# Signals coded together: bounds the work arrays (alpha and the Cholesky inverses,
# about 8 (n_atoms + T^2) bytes per signal) when many signals are coded at once.
_CHUNK = 2048


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
        Threads that code shares of the signals side by side; the codes do not
        depend on it. Call with BLAS on one thread: each product is small.

    Returns
    -------
    support : ndarray of int of shape (n_signals, n_nonzero_coefs)
        Selected atoms in order of selection, ``-1`` in unused slots.
    coefs : ndarray of shape (n_signals, n_nonzero_coefs)
        Least-squares coefficients on the selected atoms (0 in unused slots).
    """
    gram = np.ascontiguousarray(gram, dtype=np.float64)
    Xy = np.asarray(Xy, dtype=np.float64)
    n_signals, n_atoms = Xy.shape
    T = int(n_nonzero_coefs)
    if not 1 <= T <= n_atoms:
        raise ValueError(f"n_nonzero_coefs={T} must be in [1, n_atoms={n_atoms}].")
    support = np.full((n_signals, T), -1, dtype=np.intp)
    coefs = np.zeros((n_signals, T))
    n_threads = max(1, int(n_threads))
    n_shares = max(n_threads, -(-n_signals // _CHUNK))
    bounds = np.linspace(0, n_signals, n_shares + 1).round().astype(int)
    edges = zip(bounds[:-1], bounds[1:], strict=True)
    shares = [slice(a, b) for a, b in edges if b > a]

    def code(share):
        _omp_lockstep(gram, Xy[share], T, support[share], coefs[share])

    if n_threads == 1 or len(shares) == 1:
        for share in shares:
            code(share)
    else:
        with ThreadPoolExecutor(min(n_threads, len(shares))) as pool:
            list(pool.map(code, shares))
    return support, coefs


def _omp_lockstep(gram, Xy, T, support, coefs):
    """Code the signals ``Xy`` into ``support`` and ``coefs`` (views of the caller's
    rows), all signals one step at a time."""
    m, n_atoms = Xy.shape
    eps = np.finfo(np.float64).eps
    diag = gram.diagonal()
    flat_gram = gram.reshape(-1)
    alpha = np.array(Xy, order="C")  # correlations of the residuals
    alpha_flat = alpha.reshape(-1)
    row_starts = np.arange(m) * n_atoms
    # The atoms each signal selected; an ended signal repeats a harmless atom with a
    # zero coefficient change, so that every signal has t + 1 entries at step t.
    atoms = np.zeros((m, T), dtype=np.intp)
    L_inv = np.zeros((m, T, T))  # inverse Cholesky factor of each G[S, S]
    live = None  # all signals live until one ends
    for t in range(T):
        # Array methods and ufuncs, not their NumPy-function wrappers: a step makes
        # about twenty calls, the per-call overhead counts.
        j, a_j = _largest_magnitude(alpha_flat, alpha, row_starts)
        pivot = diag.take(j)
        if t:
            g = flat_gram.take(atoms[:, :t] * n_atoms + j[:, None])  # G[S, j]
            w = np.matmul(L_inv[:, :t, :t], g[:, :, None])[:, :, 0]
            pivot -= np.add.reduce(w * w, axis=1)
        # scikit-learn's stops: zero residual correlation, or a dependent atom.
        a_sq = a_j * a_j
        if live is None and a_sq.min() >= eps and pivot.min() > eps:
            lkk = np.sqrt(pivot)
            z = a_j / lkk
            support[:, t] = j
        else:
            if live is None:
                live = np.ones(m, dtype=bool)
            live &= (a_sq >= eps) & (pivot > eps)
            if not live.any():
                break
            lkk = np.sqrt(np.where(live, pivot, 1.0))
            z = np.where(live, a_j / lkk, 0.0)  # ended signals keep their gamma
            support[live, t] = j[live]
        atoms[:, t] = j
        row = L_inv[:, t, : t + 1]  # the new row of L^-1
        if t:
            np.matmul(w[:, None, :], L_inv[:, :t, :t], out=row[:, None, :t])
            row[:, :t] /= -lkk[:, None]
        row[:, t] = 1.0 / lkk
        delta = row * z[:, None]
        coefs[:, : t + 1] += delta
        if t + 1 < T:  # alpha is needed for the next step only
            n = t + 1
            indptr = np.arange(0, m * n + 1, n)
            np.negative(delta, out=delta)
            csr_add_product(indptr, atoms[:, :n].copy(), delta, gram, alpha)


def _largest_magnitude(flat, alpha, row_starts):
    """``j = argmax |alpha|`` of every row (the first on ties) and ``alpha[j]``.

    From the largest and the smallest entry: two reductions that read ``alpha`` and
    write nothing of its size, against ``abs`` (a full pass that writes) and one.
    """
    high, low = alpha.argmax(axis=1), alpha.argmin(axis=1)
    a_high, a_low = flat.take(row_starts + high), flat.take(row_starts + low)
    m_high, m_low = np.abs(a_high), np.abs(a_low)
    take_low = (m_low > m_high) | ((m_low == m_high) & (low < high))
    return np.where(take_low, low, high), np.where(take_low, a_low, a_high)
