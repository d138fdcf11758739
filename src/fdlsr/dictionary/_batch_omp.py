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
direction) the coefficients grow by ``z * (new row)``. It selects the same atoms as
scikit-learn's routine, with the same stopping rules (a selected correlation or a
Cholesky pivot below machine epsilon ends a signal early).

Speed: forming ``alpha`` over all K atoms is the bulk of the work (at step t, t rows
of ``G`` per signal: ``T^2 / 2`` rows of K numbers over a pursuit). It is one sparse
times dense product per step, ``alpha = alpha0 - Gamma G`` with ``Gamma`` the
signals' coefficients as a CSR matrix, which reads the rows of ``G`` in place (``G``
stays in the last-level cache; signals of a class, adjacent in K-SVD's canonical
order, share atoms) and adds into ``alpha`` without a temporary. Only the argmax
needs all of ``alpha``, so that product runs in float32 (half the bytes) with a
rounding-error bound that says where its argmax is the float64 one; the other
signals are formed in float64 (:func:`_screen`). ``alpha[j]``, the Cholesky step and
the coefficients are float64. The small per-signal steps are one call each over all
the signals, so the Python overhead does not grow with their number. With
``n_threads > 1``, threads code contiguous shares of the signals (SciPy's and
NumPy's kernels release the GIL). A signal's arithmetic does not depend on its share
or thread.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._common.compat import csr_add_product

# Signals coded together: bounds the work arrays (alpha and the Cholesky inverses,
# about 8 (n_atoms + T^2) bytes per signal) when many signals are coded at once.
_CHUNK = 2048

# Fewest signals a thread codes. Each lock-step step is a dozen NumPy calls per
# share, and only their array work runs outside the GIL: with small shares the
# threads queue for it (benchmarks/bench_fisher_threads.py --methods LC-KSVD2 chose
# 250; its figures are in docs/performance.md).
_MIN_SHARE = 250


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
        Most threads that code shares of the signals side by side (each share
        holds at least ``_MIN_SHARE`` signals); the codes do not depend on it. Call
        with BLAS on one thread: each product is small.

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
    n_threads = max(1, min(int(n_threads), n_signals // _MIN_SHARE))
    n_shares = max(n_threads, -(-n_signals // _CHUNK))
    bounds = np.linspace(0, n_signals, n_shares + 1).round().astype(int)
    edges = zip(bounds[:-1], bounds[1:], strict=True)
    shares = [slice(a, b) for a, b in edges if b > a]

    gram32 = gram.astype(np.float32)

    def code(share):
        _omp_lockstep(gram, gram32, Xy[share], T, support[share], coefs[share])

    if n_threads == 1 or len(shares) == 1:
        for share in shares:
            code(share)
    else:
        with ThreadPoolExecutor(min(n_threads, len(shares))) as pool:
            list(pool.map(code, shares))
    return support, coefs


def _omp_lockstep(gram, gram32, Xy, T, support, coefs):
    """Code the signals ``Xy`` into ``support`` and ``coefs`` (views of the caller's
    rows), all signals one step at a time. ``gram32`` is ``gram`` in float32."""
    m, n_atoms = Xy.shape
    eps = np.finfo(np.float64).eps
    diag = gram.diagonal()
    flat_gram = gram.reshape(-1)
    rows = np.arange(m)
    row_starts = rows * n_atoms
    # The float32 screen (see _screen) works on each signal scaled by a power of two
    # that brings its largest |x^T d| into [0.5, 1): exact in float64, the same
    # argmax, and float32's range holds it whatever the data's scale.
    _, exponent = np.frexp(np.abs(Xy).max(axis=1, initial=0.0))
    scale = np.ldexp(1.0, -np.clip(exponent, -1000, 1000))
    Xy32 = (Xy * scale[:, None]).astype(np.float32, order="C")
    alpha32 = np.empty_like(Xy32)
    gram_size = float(diag.max(initial=0.0))  # |G[s, k]| <= max_k G[k, k]
    # The atoms each signal selected; an ended signal repeats a harmless atom with a
    # zero coefficient, so that every signal has t entries at step t.
    atoms = np.zeros((m, T), dtype=np.intp)
    L_inv = np.zeros((m, T, T))  # inverse Cholesky factor of each G[S, S]
    live = None  # all signals live until one ends
    for t in range(T):
        # Array methods and ufuncs, not their NumPy-function wrappers: a step makes
        # about thirty calls, the per-call overhead counts.
        j = _screen(
            gram, gram32, Xy, Xy32, alpha32, atoms[:, :t],
            coefs[:, :t], scale, gram_size, row_starts,
        )  # fmt: skip
        a_j = Xy[rows, j]
        if t == 0:
            pivot = diag.take(j)
        else:
            g = flat_gram.take(atoms[:, :t] * n_atoms + j[:, None])  # G[S, j]
            # alpha[j] = x^T d_j - G[j, S] gamma, exact (float64) at the one atom.
            a_j -= np.add.reduce(g * coefs[:, :t], 1)
            w = np.matmul(L_inv[:, :t, :t], g[:, :, None])[:, :, 0]
            pivot = diag.take(j) - np.add.reduce(w * w, axis=1)
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
        coefs[:, : t + 1] += row * z[:, None]


# Unit roundoff of float32, and the screen's margin over its error bound.
_U32 = float(np.finfo(np.float32).eps) / 2
_MARGIN = 2.0


def _screen(
    gram, gram32, Xy, Xy32, alpha32, atoms, gamma, scale, gram_size,
    row_starts,
):  # fmt: skip
    """``argmax_k |alpha[k]|`` of every signal, ``alpha = Xy - gamma G[atoms]``, as
    the float64 correlations would give it (the first index on exact ties).

    The correlations, each signal scaled by ``scale`` (``Xy32`` holds the scaled
    ``Xy``), are formed in float32 (half the memory traffic of the step's bulk, the
    rows of ``G``), with the rounding-error bound of a sum of ``t + 1`` products
    (Higham, Accuracy and Stability, 3.1), ``|alpha32 - alpha| <= e`` with
    ``e = (t + 4) u (max |Xy| + |G|max ||gamma||_1)``, taken twice over. Where the
    largest float32 magnitude beats the second by more than ``2 e`` it belongs to
    the largest exact one; the few other signals are formed in float64.
    """
    m, t = atoms.shape
    n_atoms = gram.shape[0]
    indptr = np.arange(m + 1) * t
    columns = atoms.copy().reshape(-1)
    np.copyto(alpha32, Xy32)
    scaled_gamma = gamma * -scale[:, None]
    weights = scaled_gamma.astype(np.float32)
    csr_add_product(indptr, columns, weights.reshape(-1), gram32, alpha32)
    flat = alpha32.reshape(-1)
    j, top = _largest_magnitude(flat, alpha32, row_starts)
    top = np.abs(top, dtype=np.float64)
    flat.put(row_starts + j, 0.0)  # alpha32 is formed afresh at the next step
    second = np.maximum(alpha32.max(axis=1), -alpha32.min(axis=1), dtype=np.float64)
    size = 1.0 + gram_size * np.abs(scaled_gamma).sum(axis=1)  # |scaled Xy| < 1
    error = _MARGIN * (t + 4) * _U32 * size
    unsure = np.flatnonzero(top - second <= 2.0 * error)
    if unsure.size:
        n = unsure.size
        exact = np.array(Xy[unsure], order="C")
        indptr = np.arange(n + 1) * t
        csr_add_product(
            indptr, atoms[unsure].reshape(-1), -gamma[unsure].reshape(-1), gram, exact
        )
        j[unsure] = _largest_magnitude(
            exact.reshape(-1), exact, np.arange(n) * n_atoms
        )[0]
    return j


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
