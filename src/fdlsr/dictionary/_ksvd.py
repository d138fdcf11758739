"""K-SVD and the label-consistent initialisation shared by LC-KSVD and LCLE.

Signals and atoms are *rows* here (``Y`` is n_signals x dim, ``D`` is n_atoms x dim),
the transpose of the papers' column convention, so that gathering the signals that use
an atom is a contiguous row gather.

K-SVD (Aharon, Elad & Bruckstein, 2006) alternates OMP coding with a sweep over the
atoms. Atom ``j`` and its nonzero coefficients ``g`` are replaced by the best rank-1
approximation of the residual restricted to the signals that use it,

    R = E[I] + g d_j,     E = Y - Gamma D   (the current residual),

either exactly (leading singular pair of ``R``) or, as in Rubinstein's KSVD-Box that
the LC-KSVD code calls by default, by one power step from the current coefficients:
``d = R^T g / ||R^T g||``, ``g = R d``. The residual is kept up to date after every
atom, so the sweep costs O(nnz(Gamma) x dim) instead of re-forming ``D Gamma``.
"""

import math
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.linalg.blas import dgemm

from .._common.compat import csr_add_product
from .._common.linalg import (
    limited_blas,
    normalize_rows,
    row_norms,
    single_threaded_lapack,
)
from ..errors import UnreliableResultWarning
from ._batch_omp import batch_omp


@dataclass
class KSVDClassifierResult:
    """What the cores of the K-SVD classifiers return (:func:`.lcle.fit_lcle`;
    :func:`.lcksvd.fit_lcksvd2` adds ``transform``)."""

    dictionary: np.ndarray  # (n_atoms, n_features), unit-norm rows
    classifier: np.ndarray  # (n_atoms, n_classes): scores = codes @ classifier
    atom_labels: np.ndarray
    objective: np.ndarray
    n_iter: int


@dataclass
class SparseCodes:
    """OMP codes: ``support[i, s]`` is the s-th atom of signal i (-1 if unused)."""

    support: np.ndarray
    coefs: np.ndarray
    n_atoms: int

    def sparse(self):
        """Gamma as a CSR array (n_signals, n_atoms)."""
        rows, slots = np.nonzero(self.support >= 0)
        return sp.csr_array(
            (self.coefs[rows, slots], (rows, self.support[rows, slots])),
            shape=(self.support.shape[0], self.n_atoms),
        )

    def dense(self):
        return self.sparse().toarray()

    def reconstruct(self, D):
        """``Gamma D``; the sparse product touches only the nonzero codes."""
        return np.asarray(self.sparse() @ D)

    def residual(self, Y, D):
        """``Y - Gamma D`` in one fresh array: a copy of ``Y`` and one sparse product
        added into it (unused slots add ``0 * D[0]``)."""
        n, T = self.support.shape
        E = np.array(Y, dtype=np.float64, order="C")
        indptr = np.arange(0, n * T + 1, T)
        atoms = np.maximum(self.support, 0).reshape(-1)
        D = np.ascontiguousarray(D, dtype=np.float64)
        csr_add_product(indptr, atoms, -self.coefs.reshape(-1), D, E)
        return E


def omp_codes(D, Y, n_nonzero_coefs, n_threads=1, correlate=None):
    """OMP codes of the rows of ``Y`` over the unit-norm rows of ``D``.

    The Gram matrix and the correlations are products on ``n_threads`` BLAS
    threads; the pursuit runs shares of the signals on ``n_threads`` threads, BLAS
    on one (:func:`.batch_omp`). The codes do not depend on ``n_threads``; the
    products may round differently. ``correlate(D)``, if given, returns ``Y @ D.T``
    (for signals with a structure that makes it cheaper).
    """
    n_atoms = D.shape[0]
    T = min(int(n_nonzero_coefs), n_atoms)
    with limited_blas(n_threads):
        gram = D @ D.T
        Xy = Y @ D.T if correlate is None else correlate(D)
    with single_threaded_lapack():
        support, coefs = batch_omp(gram, Xy, T, n_threads=n_threads)
    return SparseCodes(support, coefs, n_atoms)


# Relative squared residual below which a signal counts as exactly represented.
_NEGLIGIBLE = 1e-20


def update_atoms(Y, D, codes, exact=False, unused=None, replaced=None):
    """One K-SVD sweep over the atoms, in place on ``D`` and ``codes.coefs``.

    Returns the residual ``Y - Gamma D`` after the sweep. An atom no signal uses is
    replaced by the not-yet-used signal with the largest residual, normalised (as
    KSVD-Box's ``optimize_atom`` does), and its coefficients stay zero; it is kept
    if every such signal is already represented to rounding error. ``unused``
    (signals not yet taken as atoms) and ``replaced`` (atoms replaced so), boolean
    arrays, are updated in place when given, for :func:`clear_atoms`.

    Call it with BLAS on one thread, as :func:`ksvd` does: the work is thousands of
    small products, and it mixes NumPy's and SciPy's BLAS.
    """
    n, T = codes.support.shape
    E = codes.residual(Y, D)
    flat_support = codes.support.ravel()
    order = np.argsort(flat_support, kind="stable")
    bounds = np.searchsorted(flat_support[order], np.arange(-1, D.shape[0] + 1))
    coefs = codes.coefs.reshape(-1)
    # Each code slot belongs to one atom, so the signals and coefficients of every
    # atom can be gathered before the sweep: an atom's update changes only its own.
    users, weights = order // T, coefs[order]
    bounds = bounds.tolist()
    if unused is None:
        unused = np.ones(n, dtype=bool)
    signal_energy = np.einsum("ij,ij->i", Y, Y)
    usable = signal_energy > 0
    # Work buffers reused across atoms: fresh large temporaries cost page faults.
    widest = int(np.max(np.diff(bounds[1:]), initial=0))
    rows_buf = np.empty((widest, D.shape[1]))
    pair = np.empty((2, D.shape[1]))  # [d_j; new atom]
    gains = np.empty((2, widest))  # [g; -g_new]
    for j in range(D.shape[0]):
        lo, hi = bounds[j + 1], bounds[j + 2]
        if lo == hi:
            pick = _worst_coded(E, signal_energy, unused & usable)
            if pick is not None:
                D[j] = Y[pick] / np.sqrt(signal_energy[pick])
                unused[pick] = False
                if replaced is not None:
                    replaced[j] = True
            continue
        rows, g = users[lo:hi], weights[lo:hi]
        # mode="clip" writes into ``out`` directly (rows are in range); the default
        # mode buffers the copy. Array methods, not NumPy's function wrappers: the
        # per-call overhead is a large share of an atom's update.
        Er = E.take(rows, axis=0, out=rows_buf[: hi - lo], mode="clip")
        atom, g_new = _rank_one(Er, g, D[j], exact)
        if atom is None:
            continue
        # E[rows] = R - g_new atom^T with R = Er + g d_j^T: one rank-2 update in
        # place (dgemm on the transposed, Fortran-ordered view of Er).
        pair[0], pair[1] = D[j], atom
        gains[0, : hi - lo] = g
        np.negative(g_new, out=gains[1, : hi - lo])
        target = Er.T
        out = dgemm(1.0, pair.T, gains[:, : hi - lo], 1.0, target, overwrite_c=True)
        if out is not target:  # never expected: Er.T is Fortran-ordered
            Er[...] = out.T
        E[rows] = Er
        D[j] = atom
        coefs[order[lo:hi]] = g_new
    return E


# KSVD-Box's ``cleardict``: an atom used by fewer signals than this, or whose squared
# correlation with another atom exceeds the square of the threshold, is replaced.
CLEAR_MIN_USE = 4
CLEAR_COHERENCE = 0.99
_USED = 1e-7  # a coefficient counts as a use above this magnitude


def clear_atoms(Y, D, codes, E, unused, replaced):
    """KSVD-Box's ``cleardict`` step after a sweep, in place on ``D``.

    In atom order, an atom not replaced during the sweep is replaced by the
    not-yet-used signal of largest residual ``E`` (normalised) if fewer than
    ``CLEAR_MIN_USE`` signals use it or its correlation with another atom (as the
    dictionary is at that moment) exceeds ``CLEAR_COHERENCE``. The residuals are
    those after the sweep and are not updated. Returns the number of atoms replaced.
    """
    used = np.abs(codes.coefs) > _USED
    use_count = np.bincount(codes.support[used], minlength=D.shape[0])
    residual = np.einsum("ij,ij->i", E, E)
    candidates = unused & (np.einsum("ij,ij->i", Y, Y) > 0)
    cleared = 0
    for j in range(D.shape[0]):
        if replaced[j]:
            continue
        correlation = D @ D[j]
        correlation[j] = 0.0
        coherent = np.max(correlation**2) > CLEAR_COHERENCE**2
        if not (coherent or use_count[j] < CLEAR_MIN_USE):
            continue
        idx = np.flatnonzero(candidates)
        if not idx.size:
            break
        pick = idx[np.argmax(residual[idx])]
        D[j] = Y[pick] / np.linalg.norm(Y[pick])
        candidates[pick] = False
        cleared += 1
    return cleared


def _worst_coded(E, signal_energy, candidates):
    """The candidate signal with the largest residual, for an atom nobody uses.

    KSVD-Box replaces such an atom by that signal. Signals coded to rounding error
    leave nothing to gain, so then None is returned and the atom is kept, rather
    than replaced by a pick among rounding noise (duplicated samples do this).
    """
    idx = np.flatnonzero(candidates)
    if not idx.size:
        return None
    energy = np.einsum("ij,ij->i", E[idx], E[idx])
    k = np.argmax(energy)
    if energy[k] > _NEGLIGIBLE * signal_energy[idx[k]]:
        return idx[k]
    return None


def _rank_one(Er, g, d, exact):
    """Rank-1 approximation of the restricted residual ``R = Er + g d^T``.

    The approximate update never forms R: ``R^T g = Er^T g + (g.g) d`` and
    ``R a = Er a + g (d.a)``.
    """
    if exact:
        u, s, vt = np.linalg.svd(Er + np.outer(g, d), full_matrices=False)
        return vt[0], s[0] * u[:, 0]
    atom = g @ Er
    atom += (g @ g) * d
    norm = math.sqrt(atom @ atom)  # np.linalg.norm of a vector, with less overhead
    if norm == 0:
        return None, None
    atom /= norm
    g_new = Er @ atom
    g_new += g * (d @ atom)
    return atom, g_new


def ksvd(
    Y,
    D,
    n_nonzero_coefs,
    n_iter,
    exact=False,
    tol=1e-12,
    clear=False,
    n_threads=1,
    correlate=None,
):
    """K-SVD from the initial unit-norm atoms ``D`` (rows); ``D`` is not modified.

    Returns ``(D, codes, errors)`` with ``errors[t] = ||Y - Gamma D||_F^2`` after
    iteration t. The codes are those of the last sweep (aligned with the returned D
    unless ``clear``), as KSVD-Box returns them. Iterations stop early once an
    iteration moves no atom by more than ``tol`` (default 1e-12, rounding level for
    unit-norm atoms): each iteration is a function of D alone, so the remaining ones
    would only repeat it. ``clear=True`` ends every iteration with KSVD-Box's
    ``cleardict`` (:func:`clear_atoms`). ``n_threads``: threads of the coding step
    (:func:`omp_codes`); the atom sweep is sequential. ``correlate``: as in
    :func:`omp_codes`.
    """
    D = normalize_rows(np.array(D, dtype=np.float64))
    errors = np.zeros(n_iter)
    codes = None
    with single_threaded_lapack():
        for it in range(n_iter):
            previous = D.copy()
            codes = omp_codes(D, Y, n_nonzero_coefs, n_threads, correlate)
            unused = np.ones(Y.shape[0], dtype=bool)
            replaced = np.zeros(D.shape[0], dtype=bool)
            E = update_atoms(Y, D, codes, exact, unused, replaced)
            errors[it] = np.vdot(E, E)
            if clear:
                clear_atoms(Y, D, codes, E, unused, replaced)
            if np.max(np.abs(previous - D), initial=0.0) <= tol:
                errors[it:] = errors[it]
                break
    return D, codes, errors


def row_space_basis(Y):
    """Orthonormal columns spanning the rows of ``Y``, or None if that saves nothing.

    K-SVD only ever forms atoms from signals and earlier atoms, so signals and atoms
    that start in a subspace stay in it; in coordinates of an orthonormal basis of
    the subspace every inner product, norm and rank-1 update is the same, and with
    fewer samples than features the work shrinks from n_features to n_samples.
    """
    n, dim = Y.shape
    if n >= dim:
        return None
    return np.linalg.qr(Y.T)[0]


def canonical_order(Y, y):
    """Sample order by class, then lexicographically within the class.

    The authors' initialisation takes the first samples of each class as atoms and
    K-SVD sweeps atoms in that order; a canonical order makes the fitted model
    independent of how the training set happens to be shuffled.
    """
    keys = [Y[:, k] for k in range(Y.shape[1] - 1, -1, -1)]
    return np.lexsort(keys + [y])


def _nonzero_samples(Y):
    """Samples that may serve as atoms: squared norm above 1e-6 (the code's test),
    relative to the largest, so that the test does not depend on the data's scale
    (norms by :func:`row_norms`, which neither overflow nor underflow)."""
    norms = row_norms(Y)
    return norms > 1e-3 * norms.max(initial=0.0)


def atoms_from_samples(Y, y, n_classes, n_atoms):
    """Atoms per class: ``n_atoms``, or with None each class's nonzero samples."""
    counts = np.bincount(y[_nonzero_samples(Y)], minlength=n_classes)
    if n_atoms is not None:
        return np.full(n_classes, n_atoms)
    if np.any(counts == 0):
        c = int(np.flatnonzero(counts == 0)[0])
        raise ValueError(
            f"class {c} has only zero training samples, which cannot be atoms; "
            "remove the class or its all-zero samples."
        )
    return counts


def ordered_training_data(Y, y, n_classes, n_atoms):
    """``(Y, y, n_classes, atoms_per_class)`` as LC-KSVD2 and LCLE fit them: samples
    and codes in :func:`canonical_order`, atoms per class from
    :func:`atoms_from_samples`."""
    atoms = atoms_from_samples(Y, y, n_classes, n_atoms)
    order = canonical_order(Y, y)
    return Y[order], y[order], n_classes, atoms


def _warn_of_repeated_atoms(Y, y, nonzero, atoms_per_class):
    """Warn (:class:`~fdlsr.errors.UnreliableResultWarning`) when a class's initial
    atoms, its first nonzero samples in :func:`canonical_order`, hold the same
    sample twice: without KSVD-Box's ``cleardict`` the copies stay identical atoms,
    and the codes and classifier learnt over them lose accuracy."""
    repeats = 0
    for c, m in enumerate(atoms_per_class):
        atoms = Y[(y == c) & nonzero][: int(m)]  # sorted: copies are neighbours
        repeats += int(np.all(atoms[1:] == atoms[:-1], axis=1).sum())
    if repeats:
        warnings.warn(
            f"{repeats} initial atoms repeat another atom of their class (the same "
            "training sample given twice); with clear_dictionary=False they stay "
            "identical atoms, which lowers accuracy: remove the repeated samples or "
            "set clear_dictionary=True (KSVD-Box's cleardict, as the authors' code).",
            UnreliableResultWarning,
            stacklevel=7,  # the caller of LCKSVD2.fit or LCLE.fit
        )


def lcksvd_initialization(
    Y,
    y,
    n_classes,
    atoms_per_class,
    n_nonzero_coefs,
    n_iter,
    basis=None,
    clear=False,
    n_threads=1,
):
    """The LC-KSVD initialisation (``initialization4LCKSVD`` of Jiang et al.'s code).

    For each class, K-SVD on that class's samples starting from its first
    ``atoms_per_class[c]`` samples gives the class's atoms; a K-SVD over all samples
    from that dictionary gives codes ``X`` whose ridge fits initialise the classifier
    ``W`` and the label-consistency transform ``A``.

    Parameters
    ----------
    Y : ndarray of shape (n_samples, n_features)
        Training samples, in :func:`canonical_order`.
    y : ndarray of int of shape (n_samples,)
    atoms_per_class : ndarray of int of shape (n_classes,)
    basis : ndarray of shape (n_features, r) or None
        Orthonormal basis of the samples' span (:func:`row_space_basis`), in whose
        coordinates the K-SVDs run.
    clear : bool
        Run KSVD-Box's ``cleardict`` after every K-SVD iteration (:func:`ksvd`).
    n_threads : int
        Threads of the K-SVDs' coding steps (:func:`ksvd`).

    Returns
    -------
    D : ndarray of shape (n_atoms, n_features)
        Class-wise K-SVD atoms (unit norm), grouped by class.
    atom_labels : ndarray of int of shape (n_atoms,)
    codes : ndarray of shape (n_samples, n_atoms)
        Codes of the global K-SVD (aligned with its own dictionary, as in the code).
    W : ndarray of shape (n_atoms, n_classes)
        ``(X^T X + I)^-1 X^T H`` with ``H`` the one-hot labels.
    A : ndarray of shape (n_atoms, n_atoms)
        ``(X^T X + I)^-1 X^T Q`` with ``Q`` the label-consistency targets.
    """
    Yc = Y if basis is None else Y @ basis
    nonzero = _nonzero_samples(Y)
    if not clear:
        _warn_of_repeated_atoms(Y, y, nonzero, atoms_per_class)
    parts = []
    for c in range(n_classes):
        members = Yc[(y == c) & nonzero]
        m = int(atoms_per_class[c])
        if members.shape[0] < m:
            raise ValueError(
                f"class {c} has {members.shape[0]} nonzero training samples but "
                f"{m} atoms per class were asked for; lower n_atoms or give more "
                "samples (the initial atoms are samples of the class)."
            )
        part, _, _ = ksvd(
            members, members[:m], n_nonzero_coefs, n_iter, clear=clear, n_threads=1
        )
        parts.append(part)
    D = np.concatenate(parts)
    atom_labels = np.repeat(np.arange(n_classes), atoms_per_class)
    _, codes, _ = ksvd(Yc, D, n_nonzero_coefs, n_iter, clear=clear, n_threads=n_threads)
    if basis is not None:
        D = D @ basis.T
    X = codes.dense()
    H = (y[:, None] == np.arange(n_classes)).astype(float)
    Q = (y[:, None] == atom_labels[None, :]).astype(float)
    system = X.T @ X
    system.flat[:: system.shape[0] + 1] += 1.0
    W, A = np.split(np.linalg.solve(system, X.T @ np.hstack([H, Q])), [n_classes], 1)
    return D, atom_labels, X, W, A
