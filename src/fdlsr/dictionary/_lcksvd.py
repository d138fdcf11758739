"""LC-KSVD2: label-consistent K-SVD with a jointly learned linear classifier."""

from dataclasses import dataclass
from numbers import Integral

import numpy as np
from scipy.linalg.blas import dtrmm

from .._common.compat import Interval, StrOptions
from .._common.linalg import blas_threads, normalize_rows, single_threaded_lapack
from .._common.validation import N_ITER, NON_NEGATIVE, POSITIVE
from ._classifier import N_ATOMS, DictionaryClassifier
from ._ksvd import (
    KSVDClassifierResult,
    ksvd,
    lcksvd_initialization,
    omp_codes,
    ordered_training_data,
    row_space_basis,
)


@dataclass
class LCKSVDResult(KSVDClassifierResult):
    """What :func:`fit_lcksvd2` returns."""

    transform: np.ndarray  # (n_atoms, n_atoms): label-consistency transform A^T


def fit_lcksvd2(
    Y,
    y,
    n_classes,
    atoms_per_class,
    *,
    alpha,
    beta,
    n_nonzero_coefs,
    max_iter,
    init_iter,
    exact,
    clear_dictionary,
    n_threads=None,
):
    """LC-KSVD2 on samples ``Y`` (rows, in :func:`canonical_order`) and codes ``y``.

    K-SVD on the stacked signals ``[y_i, sqrt(alpha) q_i, sqrt(beta) h_i]`` with the
    stacked atoms ``[d_k, sqrt(alpha) a_k, sqrt(beta) w_k]``, started from
    :func:`lcksvd_initialization`; afterwards the dictionary part is normalised and
    the transform and classifier parts are divided by the same norms and by
    ``sqrt(alpha)``, ``sqrt(beta)`` (as ``labelconsistentksvd2.m`` does).

    Parameters
    ----------
    Y : ndarray of shape (n_samples, n_features)
        Training samples in :func:`canonical_order`.
    y : ndarray of int of shape (n_samples,)
        Class codes in ``[0, n_classes)``, in the same order.
    n_classes : int
    atoms_per_class : ndarray of int of shape (n_classes,)
    alpha, beta, n_nonzero_coefs, max_iter, init_iter, clear_dictionary
        As in :class:`LCKSVD2`; ``clear_dictionary`` runs KSVD-Box's ``cleardict``
        after every K-SVD iteration, the initial ones included.
    exact : bool
        The exact atom update (``atom_update="exact"``) instead of one power step.
    n_threads : int or None, default=None
        Threads of the K-SVDs' coding steps and products (None: as many as BLAS may
        use, :func:`~fdlsr._common.linalg.blas_threads`). The atoms and codes do not
        depend on it; the large products may round differently.

    Returns
    -------
    result : LCKSVDResult
        ``dictionary`` (unit-norm atoms as rows), ``classifier`` and ``transform``
        (scores and label-consistency codes are ``codes @`` them), ``atom_labels``,
        ``objective`` (the stacked K-SVD error, Eq. 5 of the paper, after each
        iteration) and ``n_iter``.
    """
    n_threads = blas_threads() if n_threads is None else n_threads
    with single_threaded_lapack():
        basis = row_space_basis(Y)
        D0, atom_labels, _, W0, A0 = lcksvd_initialization(
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
    sa, sb = np.sqrt(alpha), np.sqrt(beta)
    H = (y[:, None] == np.arange(n_classes)).astype(float)
    # Exact change of basis (see row_space_basis): the data block in a basis of the
    # samples' span, the label-consistency block in the basis of class indicators
    # over atoms, in which the target of a sample of class c is sqrt(m_c) e_c.
    if basis is not None:
        Y, D0 = _samples_in_basis(Y, basis), D0 @ basis
    members = (atom_labels[None, :] == np.arange(n_classes)[:, None]).astype(float)
    members /= np.sqrt(members.sum(axis=1, keepdims=True))
    label_weights = sa * np.sqrt(atoms_per_class)
    signals = np.hstack([Y, H * label_weights, sb * H])
    atoms = normalize_rows(np.hstack([D0, sa * A0 @ members.T, sb * W0]))
    atoms, _, errors = ksvd(
        signals,
        atoms,
        n_nonzero_coefs,
        max_iter,
        exact,
        clear=clear_dictionary,
        n_threads=n_threads,
        correlate=_stacked_correlations(
            Y, y, label_weights, sb, lower=basis is not None
        ),
    )
    D, A, W = np.split(atoms, [D0.shape[1], D0.shape[1] + n_classes], axis=1)
    if basis is not None:
        D = D @ basis.T
    A = A @ members
    norms = np.sqrt(np.einsum("ij,ij->i", D, D) + np.finfo(float).eps)[:, None]
    return LCKSVDResult(
        dictionary=D / norms,
        classifier=W / norms / sb,
        transform=A / norms / sa if alpha > 0 else A,
        atom_labels=atom_labels,
        objective=errors,
        n_iter=max_iter,
    )


def _samples_in_basis(Y, basis):
    """``Y @ basis`` for the basis of :func:`row_space_basis`, lower triangular.

    The basis is Q of ``Y^T = Q R``, so ``Y Q = R^T``: the entries above the
    diagonal are rounding noise, dropped so that the correlations can use the
    triangle (half the product's work).
    """
    return np.tril(Y @ basis)


def _stacked_correlations(Y, y, label_weights, sb, *, lower=False):
    """``signals @ D.T`` for the stacked signals ``[Y, H * label_weights, sb H]``.

    The two label blocks have one nonzero per row, at the sample's class: their
    share of the product is a gather of one combination of two columns of D per
    class, not a product over ``2 n_classes`` columns (a third of the stacked
    width on FERET). With ``lower=True`` (``Y`` square and lower triangular) the
    data block's share is BLAS's triangular product (``trmm``), half the work.
    """
    n_data, n_classes = Y.shape[1], label_weights.size
    Y_fortran = np.asfortranarray(Y) if lower else None

    def correlate(D):
        if lower:
            # D_data^T in Fortran order is D_data in C order (no transposing copy);
            # the product comes in Fortran order, which the pursuit takes as is.
            block = np.ascontiguousarray(D[:, :n_data]).T
            Xy = dtrmm(1.0, Y_fortran, block, lower=1, overwrite_b=1)
        else:
            Xy = Y @ D[:, :n_data].T
        consistency = D[:, n_data : n_data + n_classes]
        per_class = consistency * label_weights + sb * D[:, n_data + n_classes :]
        if Xy.flags.f_contiguous:
            Xy.T[...] += per_class[:, y]
        else:
            Xy += per_class.T[y]
        return Xy

    return correlate


def lcksvd_scores(X, dictionary, classifier, n_nonzero_coefs):
    """``W x`` for the OMP code ``x`` of every row of ``X`` (``classification.m``)."""
    codes = omp_codes(dictionary, X, n_nonzero_coefs, blas_threads())
    return codes.dense() @ classifier


class LCKSVD2(DictionaryClassifier):
    """Label-consistent K-SVD (LC-KSVD2) of Jiang, Lin & Davis.

    Learns a dictionary whose sparse codes are label consistent (samples of a class
    use the atoms of that class) together with a linear classifier of the codes, by
    K-SVD on stacked matrices. A test sample is coded by orthogonal matching pursuit
    and takes the class of largest classifier score.

    Assumes unit-norm samples, as the FDLSR paper's comparison gives every method
    (and ``fdlsr run`` does): ``fit`` warns of samples far from unit norm
    (:class:`~fdlsr.errors.DataScaleWarning`) and refuses a scale its arithmetic
    cannot hold (:class:`~fdlsr.errors.DataScaleError`).

    Parameters
    ----------
    n_atoms : int or None, default=None
        Atoms per class. ``None`` gives each class as many atoms as it has training
        samples (in all, as many atoms as training samples, the FDLSR paper's
        setting). An integer needs at least that many samples in every class: the
        initial atoms are samples.
    alpha : float, default=16.0
        Weight of the label-consistency term (the code's ``sqrt_alpha = 4``, for
        Extended YaleB features). The authors set ``alpha`` and ``beta`` per data
        set from training performance; for unit-norm samples much smaller values
        work better (the registry uses ``alpha=1e-3, beta=1e-2``).
    beta : float, default=4.0
        Weight of the classification term (the code's ``sqrt_beta = 2``); must be
        positive, since the classifier is learned through this term.
    n_nonzero_coefs : int, default=30
        Sparsity ``T`` of OMP codes (``sparsitythres``), capped at the number of atoms.
    max_iter : int, default=50
        K-SVD iterations of LC-KSVD2 (``iterations``).
    init_iter : int, default=20
        K-SVD iterations of the initialisation (``iterations4ini``).
    atom_update : {"approximate", "exact"}, default="approximate"
        ``"approximate"`` is KSVD-Box's default one power step per atom; ``"exact"``
        uses the leading singular pair of the restricted residual.
    clear_dictionary : bool, default=False
        ``True`` ends every K-SVD iteration (initialisation included) with
        KSVD-Box's ``cleardict``, as the authors' code does: atoms used by fewer
        than 4 training samples, or with a correlation above 0.99 with another
        atom, are replaced by the worst-coded samples. ``False`` (the default)
        skips it (see Notes): then a sample given twice in a class gives two
        identical initial atoms, which stay identical and lower the accuracy, and
        ``fit`` warns (:class:`~fdlsr.errors.UnreliableResultWarning`); remove the
        repeats or clear the dictionary.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    dictionary_ : ndarray of shape (n_atoms_total, n_features)
        Unit-norm atoms (rows), grouped by class.
    classifier_ : ndarray of shape (n_atoms_total, n_classes)
        Linear classifier ``W^T`` of the codes.
    transform_ : ndarray of shape (n_atoms_total, n_atoms_total)
        Label-consistency transform ``A^T``.
    atom_labels_ : ndarray of shape (n_atoms_total,)
        Class code of each atom.
    objective_ : ndarray of shape (max_iter,)
        Stacked reconstruction error after each K-SVD iteration.
    n_iter_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    LCLE : locality-constrained, label-embedding dictionary learning.

    Notes
    -----
    Objective (Eq. 5 of the CVPR paper, Eq. 9 of TPAMI), with ``Q`` the ideal
    label-consistent codes and ``H`` the one-hot labels::

        ||Y - D X||^2 + alpha ||Q - A X||^2 + beta ||H - W X||^2,  ||x_i||_0 <= T

    solved as K-SVD of ``[Y; sqrt(alpha) Q; sqrt(beta) H]`` over
    ``[D; sqrt(alpha) A; sqrt(beta) W]`` (Eq. 7). OMP is not an exact minimiser, so
    the objective need not decrease at every iteration; the atom update with
    ``atom_update="exact"`` never increases it.

    Initialisation as in the authors' ``initialization4LCKSVD.m``: per class, K-SVD
    of the class samples from its first samples; then K-SVD of all samples from
    that dictionary for codes ``X`` and the ridge fits
    ``W = H X^T (X X^T + I)^-1``, ``A = Q X^T (X X^T + I)^-1``.

    Deviations from the MATLAB code: OMP is our batched implementation (it selects
    the same atoms as scikit-learn's ``orthogonal_mp_gram``); KSVD-Box's
    ``cleardict`` step (replacing atoms used by fewer than 4 signals or nearly
    collinear with another, after every iteration) is not done by default, since
    with as many atoms as samples it would discard almost every initial atom
    (``clear_dictionary=True`` does it); the samples of each
    class are taken in a canonical order (:func:`canonical_order`) so that the model
    does not depend on the training order.

    References
    ----------
    Z. Jiang, Z. Lin and L. S. Davis, "Learning a discriminative dictionary for
    sparse coding via label consistent K-SVD", CVPR 2011; "Label consistent K-SVD:
    learning a discriminative dictionary for recognition", IEEE TPAMI 35(11), 2013.
    Authors' MATLAB code: http://www.umiacs.umd.edu/~zhuolin/projectlcksvd.html

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.preprocessing import normalize
    >>> from fdlsr.dictionary import LCKSVD2
    >>> X, y = load_digits(return_X_y=True)
    >>> X = normalize(X)
    >>> model = LCKSVD2(
    ...     n_atoms=10, alpha=1e-3, beta=1e-2, n_nonzero_coefs=10, max_iter=5, init_iter=2
    ... )
    >>> model.fit(X[:500], y[:500]).score(X[500:800], y[500:800]) > 0.75
    True
    """

    _parameter_constraints: dict = {
        "n_atoms": N_ATOMS,
        "alpha": [NON_NEGATIVE],
        "beta": [POSITIVE],
        "n_nonzero_coefs": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [N_ITER],
        "init_iter": [Interval(Integral, 1, None, closed="left")],
        "atom_update": [StrOptions({"approximate", "exact"})],
        "clear_dictionary": ["boolean"],
    }

    def __init__(
        self,
        n_atoms=None,
        *,
        alpha=16.0,
        beta=4.0,
        n_nonzero_coefs=30,
        max_iter=50,
        init_iter=20,
        atom_update="approximate",
        clear_dictionary=False,
    ):
        self.n_atoms = n_atoms
        self.alpha = alpha
        self.beta = beta
        self.n_nonzero_coefs = n_nonzero_coefs
        self.max_iter = max_iter
        self.init_iter = init_iter
        self.atom_update = atom_update
        self.clear_dictionary = clear_dictionary

    def _fit_encoded(self, X, codes, n_classes):
        Y, y, n_classes, atoms_per_class = ordered_training_data(
            X, codes, n_classes, self.n_atoms
        )
        result = fit_lcksvd2(
            Y,
            y,
            n_classes,
            atoms_per_class,
            alpha=self.alpha,
            beta=self.beta,
            n_nonzero_coefs=self.n_nonzero_coefs,
            max_iter=self.max_iter,
            init_iter=self.init_iter,
            exact=self.atom_update == "exact",
            clear_dictionary=self.clear_dictionary,
        )
        self.dictionary_ = result.dictionary
        self.classifier_ = result.classifier
        self.transform_ = result.transform
        self.atom_labels_ = result.atom_labels
        self.objective_ = result.objective
        self.n_iter_ = result.n_iter
        return self

    def _class_scores(self, X):
        return lcksvd_scores(
            X, self.dictionary_, self.classifier_, self.n_nonzero_coefs
        )
