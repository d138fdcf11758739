"""LCLE: locality-constrained and label-embedding dictionary learning (Li et al.)."""

import warnings
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from scipy import linalg
from scipy.linalg import lapack

from .._common.compat import Interval
from .._common.linalg import blas_threads, single_threaded_lapack
from .._common.validation import N_ITER, NON_NEGATIVE, POSITIVE
from ..errors import UnreliableResultWarning
from ._classifier import N_ATOMS, DictionaryClassifier, unit_columns
from ._ksvd import (
    KSVDClassifierResult,
    lcksvd_initialization,
    omp_codes,
    ordered_training_data,
    row_space_basis,
)


def label_embedding(atom_labels, n_classes):
    """``Q = A A^T``, ``A = Dlabel^T (Dlabel Dlabel^T)^-1/2`` (``construct_Q.m``).

    ``Q[a, b] = 1 / m_c`` when atoms a and b both belong to class c (which has m_c
    atoms), else 0: the projector onto the class indicators of the atoms.
    """
    same = atom_labels[:, None] == atom_labels[None, :]
    counts = np.bincount(atom_labels, minlength=n_classes)
    return same / counts[atom_labels][:, None]


def atom_laplacian(D, n_neighbors, gram=None):
    """Graph Laplacian of the atoms (columns of D), as ``construct_L.m`` builds it.

    Deng Cai's ``constructW`` with a kNN graph and heat-kernel weights: each atom is
    joined to its ``n_neighbors`` nearest atoms (the k+1 nearest, itself included,
    with the self-loop then removed), with weight ``exp(-||d_a - d_b||^2 / (2 t^2))``
    where t is the mean Euclidean distance over all pairs of atoms; the graph is
    made symmetric by taking the larger weight. ``gram``, if given, is ``D.T @ D``
    (the caller has it already).
    """
    K = D.shape[1]
    sq = np.sum(D * D, axis=0)
    gram = D.T @ D if gram is None else gram
    dist2 = np.maximum(sq[:, None] + sq[None, :] - 2 * gram, 0.0)
    t = np.mean(np.sqrt(dist2))
    t = t if t > 0 else 1.0
    k = min(n_neighbors + 1, K)
    near = _nearest(dist2, k)
    W = np.zeros((K, K))
    W[near] = np.exp(-dist2[near] / (2 * t * t))
    np.fill_diagonal(W, 0.0)
    W = np.maximum(W, W.T)
    return np.diag(W.sum(axis=1)) - W


def _nearest(dist2, k):
    """Mask of the ``k`` smallest entries of every row, ties to the lower index.

    The same set as the first ``k`` of a stable argsort of each row, from a
    partition (linear time) instead of a full sort.
    """
    kth = np.partition(dist2, k - 1, axis=1)[:, k - 1 : k]
    near = dist2 < kth
    ties = dist2 == kth
    # Of the entries equal to the k-th value, the lowest-indexed ones fill the row.
    room = k - near.sum(axis=1, keepdims=True)
    near |= ties & (np.cumsum(ties, axis=1) <= room)
    return near


def _guard(M):
    """The code's fallback: a system with NaN or Inf entries becomes the identity."""
    return M if np.all(np.isfinite(M)) else np.eye(M.shape[0])


def lcle_iterations(
    Y, D, X, Q, *, alpha, beta, gamma, n_neighbors, max_iter, update_graph=True
):
    """The alternation of ``Learn_D_X.m`` (columns are samples and atoms).

    Each iteration rebuilds the atom graph ``L`` from the current ``D`` (only once,
    from the initial D, if ``update_graph`` is False), then sets::

        V = (D^T D + beta Q + gamma I)^-1 (gamma X + D^T Y)
        D = Y (X + V)^T pinv(X X^T + V V^T)
        X = (D^T D + alpha L + gamma I)^-1 (gamma V + D^T Y)

    each the minimiser of the objective below over one block, the others fixed::

        ||Y - D X||^2 + ||Y - D V||^2 + alpha tr(X^T L X) + beta tr(V^T Q V)
        + gamma ||X - V||^2

    Returns ``(D, X, V, objective)``; ``objective[t]`` uses the graph of iteration t.
    """
    K = D.shape[1]
    eye = np.eye(K)
    objective = np.zeros(max_iter)
    V = X
    # D^T D and D^T Y of the current D serve the graph, the V-step and (after the
    # D-step) the X-step and the next iteration's V-step: one product each per D.
    DtD, DtY = D.T @ D, D.T @ Y
    L = atom_laplacian(D, n_neighbors, DtD)
    for it in range(max_iter):
        if update_graph and it > 0:
            L = atom_laplacian(D, n_neighbors, DtD)
        V = np.linalg.solve(_guard(DtD + beta * Q + gamma * eye), gamma * X + DtY)
        S = _guard(X @ X.T + V @ V.T)
        D = _times_pinv(Y @ (X + V).T, S)
        DtD, DtY = D.T @ D, D.T @ Y
        X = np.linalg.solve(_guard(DtD + alpha * L + gamma * eye), gamma * V + DtY)
        objective[it] = _objective(Y, D, X, V, L, Q, alpha, beta, gamma)
    return D, X, V, objective


# pinv(S) is S's inverse when no eigenvalue falls below MATLAB's pinv tolerance
# (max(size) * norm * eps), i.e. when cond(S) < 1 / (K eps). A Cholesky solve is
# taken only when LAPACK's estimate of the 1-norm condition number (which bounds
# the 2-norm one, and may itself be low by up to a factor K) is this many times
# below that bound.
_CONDITION_MARGIN = 1e3


def _times_pinv(B, S):
    """``B @ pinv(S)`` for a symmetric positive semidefinite ``S``, with MATLAB's
    tolerance; by a Cholesky solve (cheaper than the eigendecomposition that pinv
    takes) when ``S`` is well conditioned, where the two agree to rounding."""
    K = S.shape[0]
    eps = np.finfo(float).eps
    factor, info = lapack.dpotrf(S, lower=0, clean=1)
    if info == 0:
        rcond, _ = lapack.dpocon(factor, np.abs(S).sum(axis=0).max())
        if rcond > _CONDITION_MARGIN * K * K * eps:
            return linalg.cho_solve((factor, False), B.T).T
    return B @ np.linalg.pinv(S, rtol=K * eps, hermitian=True)


def _objective(Y, D, X, V, L, Q, alpha, beta, gamma):
    rx, rv = Y - D @ X, Y - D @ V
    # L (a kNN graph) and Q (class blocks) are mostly zeros: sparse products skip
    # them; the value is only reported, so its last bits do not feed back.
    L, Q = sp.csr_array(L), sp.csr_array(Q)
    return float(
        np.vdot(rx, rx)
        + np.vdot(rv, rv)
        + alpha * np.sum(X * (L @ X))
        + beta * np.sum(V * (Q @ V))
        + gamma * np.sum((X - V) ** 2)
    )


def fit_lcle(
    Y,
    y,
    n_classes,
    atoms_per_class,
    *,
    alpha,
    beta,
    gamma,
    n_neighbors,
    n_nonzero_coefs,
    max_iter,
    init_iter,
    clear_dictionary,
    n_threads=None,
):
    """LCLE on samples ``Y`` (rows, in :func:`canonical_order`) and codes ``y``.

    The LC-KSVD initialisation gives D, the codes X and the atom labels; after
    :func:`lcle_iterations`, D and X are normalised column-wise and the classifier
    is the ridge fit ``W = H X^T (X X^T + I)^-1``, normalised per atom, as in the
    authors' scripts. The iterations run in coordinates of the samples' span, which
    contains every column of D (an exact change of basis).

    Parameters
    ----------
    Y : ndarray of shape (n_samples, n_features)
        Training samples in :func:`canonical_order`.
    y : ndarray of int of shape (n_samples,)
        Class codes in ``[0, n_classes)``, in the same order.
    n_classes : int
    atoms_per_class : ndarray of int of shape (n_classes,)
    alpha, beta, gamma, n_neighbors, n_nonzero_coefs, max_iter, init_iter
        As in :class:`LCLE`.
    clear_dictionary : bool
        Run KSVD-Box's ``cleardict`` in the initialisation's K-SVDs.
    n_threads : int or None, default=None
        Threads of the initialisation's coding steps and products (None: as many as
        BLAS may use, :func:`~fdlsr._common.linalg.blas_threads`).

    Returns
    -------
    result : KSVDClassifierResult
        ``dictionary`` (unit-norm atoms as rows), ``classifier`` (scores are
        ``codes @ classifier``), ``atom_labels``, ``objective`` (after each
        iteration, with that iteration's atom graph) and ``n_iter``.
    """
    n_threads = blas_threads() if n_threads is None else n_threads
    with single_threaded_lapack():
        basis = row_space_basis(Y)
        D0, atom_labels, X0, _, _ = lcksvd_initialization(
            Y,
            y,
            n_classes,
            atoms_per_class,
            n_nonzero_coefs,
            init_iter,
            basis,
            clear=clear_dictionary,
            n_threads=n_threads,
        )
        Yc, Dc = (Y, D0) if basis is None else (Y @ basis, D0 @ basis)
        Q = label_embedding(atom_labels, n_classes)
        D, X, _, objective = lcle_iterations(
            Yc.T,
            Dc.T,
            X0.T,
            Q,
            alpha=alpha,
            beta=beta,
            gamma=gamma,
            n_neighbors=n_neighbors,
            max_iter=max_iter,
        )
    D = unit_columns(D).T
    if basis is not None:
        D = D @ basis.T
    W = atom_classifier(unit_columns(X), y, n_classes)
    return KSVDClassifierResult(D, W, atom_labels, objective, max_iter)


def atom_classifier(X, y, n_classes):
    """The authors' classifier of unit-column codes ``X`` (atoms x samples) with
    labels ``y``: ``W = H X^T (X X^T + I)^-1`` with unit columns, returned transposed
    (n_atoms, n_classes) so that scores are ``codes @ W``."""
    H = (y[None, :] == np.arange(n_classes)[:, None]).astype(float)
    system = X @ X.T
    system.flat[:: system.shape[0] + 1] += 1.0
    W = np.linalg.solve(system, X @ H.T)  # (n_atoms, n_classes) = Wx^T
    return W / np.sqrt(np.sum(W * W, axis=1, keepdims=True) + np.finfo(float).eps)


class LCLE(DictionaryClassifier):
    """Locality-constrained and label-embedding dictionary learning (LCLE-DL).

    Learns a dictionary with two codings of the training samples: ``X`` regularised
    by the locality of the atoms (a graph Laplacian of the dictionary) and ``V`` by
    the atoms' labels (label embedding), tied together by ``||X - V||^2``. Test
    samples are coded by orthogonal matching pursuit over the learned dictionary and
    classified by a linear classifier of the codes.

    Assumes unit-norm samples, as the FDLSR paper's comparison gives every method
    (and ``fdlsr run`` does): ``fit`` warns of samples far from unit norm
    (:class:`~fdlsr.errors.DataScaleWarning`) and refuses a scale its arithmetic
    cannot hold (:class:`~fdlsr.errors.DataScaleError`).

    Parameters
    ----------
    n_atoms : int or None, default=None
        Atoms per class; ``None`` gives each class as many atoms as it has training
        samples (the FDLSR paper's setting). An integer needs at least that many
        samples in every class: the initial atoms are samples. With more atoms in
        all than features the fit warns (:class:`~fdlsr.errors.UnreliableResultWarning`):
        the alternation then degenerates and accuracy collapses, in the authors'
        code as in ours (docs/reproduction.md).
    alpha : float, default=1e-4
        Weight of the locality term ``tr(X^T L X)``.
    beta : float, default=1e-3
        Weight of the label-embedding term ``tr(V^T Q V)``.
    gamma : float, default=1e-3
        Weight of ``||X - V||^2``; must be positive.
    n_neighbors : int, default=30
        Neighbours of each atom in the locality graph.
    n_nonzero_coefs : int, default=30
        OMP sparsity of the initialisation and of test codes.
    max_iter : int, default=10
        Iterations of the alternation.
    init_iter : int, default=1
        K-SVD iterations of the LC-KSVD initialisation.
    clear_dictionary : bool, default=False
        ``True`` ends every K-SVD iteration of the initialisation with KSVD-Box's
        ``cleardict``, as the authors' code does (see :class:`LCKSVD2`); ``False``
        (the default) skips it, and ``fit`` warns when a class's initial atoms
        repeat a sample (:class:`~fdlsr.errors.UnreliableResultWarning`), as
        LC-KSVD2 does.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    dictionary_ : ndarray of shape (n_atoms_total, n_features)
    classifier_ : ndarray of shape (n_atoms_total, n_classes)
    atom_labels_ : ndarray of shape (n_atoms_total,)
    objective_ : ndarray of shape (max_iter,)
        Objective after each iteration, with that iteration's atom graph.
    n_iter_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    LCKSVD2 : whose initialisation and test-time coding LCLE shares.

    Notes
    -----
    Objective, with ``L`` the Laplacian of a kNN graph of the atoms and ``Q`` the
    label-embedding matrix of the atoms (:func:`label_embedding`)::

        ||Y - D X||^2 + alpha tr(X^T L X) + ||Y - D V||^2 + beta tr(V^T Q V)
        + gamma ||X - V||^2

    Each update is the closed-form minimiser over one block (see
    :func:`lcle_iterations`), so the objective cannot increase within an iteration;
    the graph is rebuilt from the new dictionary at the start of the next one, as
    in the authors' code, so across iterations it may.

    Everything follows the authors' code (``Learn_D_X.m``, ``construct_L.m``,
    ``construct_Q.m`` and their scripts): the LC-KSVD initialisation
    (see :class:`LCKSVD2` for our deviations from it), a final column
    normalisation of D and X, the classifier ``W = H X^T (X X^T + I)^-1`` with unit
    columns, OMP coding of test samples with ``n_nonzero_coefs`` atoms and the
    argmax of ``W x``. The defaults are those of a published script calling the
    authors' code on ORL (sparsity aside, which is LC-KSVD's face setting), since
    the paper's own values could not be checked.

    References
    ----------
    Z. Li, Z. Lai, Y. Xu, J. Yang and D. Zhang, "A locality-constrained and label
    embedding dictionary learning algorithm for image classification", IEEE TNNLS
    28(2), 2017 (online 2015).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.preprocessing import normalize
    >>> from fdlsr.dictionary import LCLE
    >>> X, y = load_digits(return_X_y=True)
    >>> X = normalize(X)
    >>> model = LCLE(n_atoms=6, n_nonzero_coefs=6, n_neighbors=5)
    >>> model.fit(X[:500], y[:500]).score(X[500:800], y[500:800]) > 0.7
    True
    """

    _parameter_constraints: dict = {
        "n_atoms": N_ATOMS,
        "alpha": [NON_NEGATIVE],
        "beta": [NON_NEGATIVE],
        "gamma": [POSITIVE],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "n_nonzero_coefs": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [N_ITER],
        "init_iter": [Interval(Integral, 1, None, closed="left")],
        "clear_dictionary": ["boolean"],
    }

    def __init__(
        self,
        n_atoms=None,
        *,
        alpha=1e-4,
        beta=1e-3,
        gamma=1e-3,
        n_neighbors=30,
        n_nonzero_coefs=30,
        max_iter=10,
        init_iter=1,
        clear_dictionary=False,
    ):
        self.n_atoms = n_atoms
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.n_neighbors = n_neighbors
        self.n_nonzero_coefs = n_nonzero_coefs
        self.max_iter = max_iter
        self.init_iter = init_iter
        self.clear_dictionary = clear_dictionary

    def _fit_encoded(self, X, codes, n_classes):
        Y, y, n_classes, atoms_per_class = ordered_training_data(
            X, codes, n_classes, self.n_atoms
        )
        n_atoms = int(np.sum(atoms_per_class))  # atoms of every class together
        if n_atoms > X.shape[1]:
            # With more atoms than features the codes shrink in the null space of D
            # at each iteration and the D-step's inverse amplifies what is left; the
            # authors' code collapses in the same way (docs/reproduction.md).
            warnings.warn(
                f"LCLE with more atoms ({n_atoms}) than features ({X.shape[1]}) "
                "collapses, as the authors' code does; use n_atoms <= "
                f"{X.shape[1] // n_classes}.",
                UnreliableResultWarning,
                stacklevel=3,
            )
        result = fit_lcle(
            Y,
            y,
            n_classes,
            atoms_per_class,
            alpha=self.alpha,
            beta=self.beta,
            gamma=self.gamma,
            n_neighbors=self.n_neighbors,
            n_nonzero_coefs=self.n_nonzero_coefs,
            max_iter=self.max_iter,
            init_iter=self.init_iter,
            clear_dictionary=self.clear_dictionary,
        )
        self.dictionary_ = result.dictionary
        self.classifier_ = result.classifier
        self.atom_labels_ = result.atom_labels
        self.objective_ = result.objective
        self.n_iter_ = result.n_iter
        return self

    def _class_scores(self, X):
        codes = omp_codes(self.dictionary_, X, self.n_nonzero_coefs, blas_threads())
        return codes.dense() @ self.classifier_
