"""DRA-DPL: discriminative robust adaptive dictionary pair learning (Sun et al.).

:func:`fit_dradpl` alternates the update steps below, each for all classes at once.
Arrays are stacked over classes and zero-padded (:class:`PaddedClasses`): samples of
class c are the first n_c columns of ``Xs[c]`` (n_features x width), its codes the
first m_c rows and n_c columns of ``PX[c]`` / ``S[c]``. Column-wise l2,1 terms are
reweighted by ``1 / (2 ||e_i|| + tau)`` (the code's ``L21Parameter``), computed from
the current iterate; padded columns get weight 0.
"""

from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

from .._common.compat import StrOptions
from .._common.docstrings import core_doc
from .._common.linalg import single_threaded_lapack
from .._common.validation import NON_NEGATIVE
from ._classifier import ClassResidualClassifier
from ._padded_classes import PaddedClasses


@dataclass
class DRADPLResult:
    """What :func:`fit_dradpl` returns."""

    synthesis: list  # D_c (n_features, m_c)
    analysis: np.ndarray  # stacked P_c (sum m_c, n_features)
    objective: np.ndarray
    n_iter: int


@core_doc
def fit_dradpl(
    X,
    y,
    n_classes,
    atoms_per_class,
    *,
    tau,
    alpha,
    beta,
    lam,
    max_iter,
    analysis_penalty,
    code_update,
    random_state,
):
    """DRA-DPL on samples ``X`` (rows) with class codes ``y``; see :class:`DRADPL`.

    Follows the authors' ``TrainRADPL.m`` (TNNLS version): random initial pairs,
    then per iteration the P step, the code (S) step, the D step and the adaptive
    weight (W) step, every l2,1 term handled by iteratively reweighted least
    squares with weights ``1 / (2 ||e_i|| + tau)`` from the current iterate.

    Parameters
    ----------
    %(training_data)s
    atoms_per_class : ndarray of int of shape (n_classes,)
        The number of atoms of each class's pair.
    tau, alpha, beta, lam, max_iter, analysis_penalty, code_update, random_state
        As in :class:`DRADPL`.

    Returns
    -------
    result : DRADPLResult
        ``synthesis`` (the ``D_c``), ``analysis`` (the stacked ``P_c``),
        ``objective`` (the authors' value after each iteration) and ``n_iter``.
    """
    rng = check_random_state(random_state)
    n_features = X.shape[1]
    blocks = PaddedClasses(y, n_classes, atoms_per_class)
    D0, P0 = blocks.random_pairs(rng, n_features, unit_analysis="columns")
    Xs = blocks.samples(X)  # (C, d, width): X_c as columns
    Xd, Dd, bases = blocks.synthesis_coordinates(X, D0)
    PX = blocks.analysis_codes(X, P0)
    S = PX.copy()
    XtX = np.swapaxes(Xs, 1, 2) @ Xs
    W = adaptive_weights(XtX, PX, tau, blocks)
    shared = full_gram = None
    if analysis_penalty == "code":
        shared = shared_base_solve(X, blocks, tau, alpha)
    else:
        full_gram = X.T @ X
    analysis = [P.copy() for P in P0]
    objective = np.zeros(max_iter)
    for it in range(max_iter):
        targets = discriminative_targets(PX, blocks)
        if shared is None:
            analysis, PX = analysis_step_direct(
                X,
                Xs,
                S,
                W,
                PX,
                targets,
                analysis,
                blocks,
                tau,
                alpha,
                beta,
                lam,
                full_gram,
            )
        else:
            analysis, PX = analysis_step_shared(
                S, W, PX, targets, shared, blocks, tau, beta, lam
            )
        S = code_step(S, Dd, Xd, PX, tau, blocks, code_update)
        Dd = dictionary_step(Dd, S, Xd, tau, blocks)
        W = adaptive_weights(XtX, PX, tau, blocks)
        objective[it] = objective_value(
            X, Xd, Dd, PX, W, XtX, analysis, blocks, alpha, beta, lam, shared
        )
    if shared is not None and max_iter > 0:
        analysis = shared.dense_analysis(analysis)
    synthesis = [
        bases[c] @ Dd[c, : bases[c].shape[1], : blocks.atoms[c]]
        for c in range(n_classes)
    ]
    return DRADPLResult(synthesis, np.vstack(analysis), objective, max_iter)


# The update steps, for all classes at once.


def _t(A):
    return np.swapaxes(A, -1, -2)


def _reweight(E, blocks, tau):
    """``1 / (2 ||column|| + tau)`` per sample column of E (C, rows, width)."""
    w = 1.0 / (2 * np.sqrt(np.sum(E * E, axis=1)) + tau)
    return w * _sample_mask(blocks)


def _sample_mask(blocks):
    return (np.arange(blocks.width)[None, :] < blocks.sizes[:, None]).astype(float)


def _atom_mask(blocks):
    return (np.arange(blocks.atom_width)[None, :] < blocks.atoms[:, None]).astype(float)


def adaptive_weights(XtX, PX, tau, blocks):
    """W step (UpdateW.m): ``W = (G + (1 + tau) I)^-1 G``, diagonal set to zero.

    ``G = X_c^T X_c + (P_c X_c)^T (P_c X_c)``: the ridge minimiser of
    ``||X_c - X_c W||^2 + ||P_c X_c - P_c X_c W||^2 + (1 + tau) ||W||^2``.
    """
    G = XtX + _t(PX) @ PX
    system = G + (1 + tau) * np.eye(G.shape[1])
    W = np.linalg.solve(system, G)
    idx = np.arange(W.shape[1])
    W[:, idx, idx] = 0.0
    return W


def discriminative_targets(PX, blocks):
    """Targets ``L_c`` and ``M_c`` of the discriminative term (see DRADPL Notes).

    ``L_c``: for each sample, the mean of its code entries, repeated over the atoms
    (the code's ``repmat(mean(P*X), K, 1)``). ``M_c``: the mean code of the other
    classes in every column (the average, over all pairings, of the code's
    sample-by-sample mean of the other classes' codes).
    """
    atoms = _atom_mask(blocks)[:, :, None]
    mask = blocks.code_mask
    per_sample = PX.sum(axis=1, keepdims=True) / blocks.atoms[:, None, None]
    L = per_sample * mask
    class_means = PX.sum(axis=2) / blocks.sizes[:, None]  # (C, m), padded atoms 0
    C = PX.shape[0]
    others = (class_means.sum(axis=0)[None, :] - class_means) / (C - 1)
    M = others[:, :, None] * atoms * mask
    return L, M


@dataclass
class SharedBase:
    """``Base^-1 X`` pieces for ``Base = 2 alpha X X^T + 4 alpha 1 1^T + tau I``.

    ``Y = Base^-1 X`` (n_features x n_samples, columns are samples) and
    ``G = X^T Base^-1 X``; ``Gcc`` holds its diagonal class blocks, padded.
    """

    Y: np.ndarray
    G: np.ndarray
    Gcc: np.ndarray
    index: list
    sizes: np.ndarray
    atoms: np.ndarray
    alpha: float

    def dense_analysis(self, R):
        """``P_c = R_c Y_c^T`` from the reduced representation of the P step."""
        return [
            R[c, : self.atoms[c], : idx.size] @ self.Y[:, idx].T
            for c, idx in enumerate(self.index)
        ]


def shared_base_solve(X, blocks, tau, alpha):
    """Factor the part of the P-step system that all classes share (code variant).

    ``Base = tau I + Z Z^T`` with ``Z = [sqrt(2 alpha) X^T, 2 sqrt(alpha) 1]``, so
    ``Base^-1 Z = Z (tau I + Z^T Z)^-1`` (push-through), which needs only an
    (n + 1) x (n + 1) solve and involves no cancellation.
    """
    n, d = X.shape
    if alpha == 0:
        Y = X.T / tau
    else:
        Z = np.hstack([np.sqrt(2 * alpha) * X.T, 2 * np.sqrt(alpha) * np.ones((d, 1))])
        small = Z.T @ Z
        small.flat[:: n + 2] += tau
        Y = (Z @ np.linalg.inv(small)[:, :n]) / np.sqrt(2 * alpha)
    G = X @ Y
    G = (G + G.T) / 2
    return SharedBase(
        Y, G, blocks.diag(G), blocks.index, blocks.sizes, blocks.atoms, alpha
    )


def _p_step_pieces(S, W, PX, targets, blocks, tau, beta, lam):
    """Right-hand side F (P = F X_c^T A^-1) and the sample-space part of A."""
    U = _reweight(S - PX, blocks, tau)  # coding-error weights
    L, M = targets
    n = blocks.sizes[:, None, None].astype(float)
    F = 4 * S * U[:, None, :] + 2 * lam * L - 2 * lam * n * M
    eye = np.eye(W.shape[1])
    Q = (eye - W) @ _t(eye - W)
    coupling = (4 + 2 * lam * (n - 1)) * (U[:, :, None] * eye) + 2 * beta * Q
    return F * blocks.code_mask, coupling


def analysis_step_shared(S, W, PX, targets, shared, blocks, tau, beta, lam):
    """P step (UpdateP.m, code variant) through the shared base.

    ``A_c = Base + X_c (coupling - 2 alpha I) X_c^T`` and
    ``X_c^T A_c^-1 = (I + G_cc K_c)^-1 X_c^T Base^-1`` with ``K_c`` the bracket, so
    ``P_c = R_c Y_c^T`` with ``R_c = F_c (I + G_cc K_c)^-1``, and ``P_c X_c = R_c G_cc``.
    Returns ``(R, P X)``.
    """
    F, coupling = _p_step_pieces(S, W, PX, targets, blocks, tau, beta, lam)
    K = coupling - 2 * shared.alpha * np.eye(coupling.shape[1])
    system = np.eye(K.shape[1]) + shared.Gcc @ K
    R = _t(np.linalg.solve(_t(system), _t(F))) * blocks.code_mask
    return R, R @ shared.Gcc


def analysis_step_direct(
    X, Xs, S, W, PX, targets, analysis, blocks, tau, alpha, beta, lam, full_gram
):
    """P step with the reweighted l2,1 norm of the columns of ``P_c`` (paper).

    One n_features x n_features system per class. Returns ``(list of P_c, P X)``.
    """
    F, coupling = _p_step_pieces(S, W, PX, targets, blocks, tau, beta, lam)
    d = X.shape[1]
    new, codes = [], np.zeros_like(PX)
    for c, idx in enumerate(blocks.index):
        nc, m = idx.size, blocks.atoms[c]
        Xc = Xs[c, :, :nc]
        h = 1.0 / (2 * np.sqrt(np.sum(analysis[c] ** 2, axis=0)) + tau)
        A = 2 * alpha * (full_gram - Xc @ Xc.T) + Xc @ coupling[c, :nc, :nc] @ Xc.T
        A.flat[:: d + 1] += 4 * alpha * h + tau
        P = np.linalg.solve(A, Xc @ F[c, :m, :nc].T).T
        new.append(P)
        codes[c, :m, :nc] = P @ Xc
    return new, codes


def code_step(S, Dd, Xd, PX, tau, blocks, mode):
    """S step: ``min ||X - D S||_{2,1} + 2 ||S - P X||_{2,1}`` for fixed weights.

    ``"multiplicative"`` is UpdateS.m, ``S .* (D^T X V + P X M) ./ (D^T D S V + S M)``
    (entries with a zero denominator become 0); ``"exact"`` solves
    ``(v_i D^T D + m_i I) s_i = v_i D^T x_i + m_i P x_i`` for every sample.
    """
    M = _reweight(S - PX, blocks, tau)
    V = _reweight(Xd - Dd @ S, blocks, tau)
    Dt = _t(Dd)
    DtX = Dt @ Xd
    DtD = Dt @ Dd
    if mode == "exact":
        eye = np.eye(S.shape[1])
        system = V[:, :, None, None] * DtD[:, None] + M[:, :, None, None] * eye
        system += (1 - _sample_mask(blocks))[:, :, None, None] * eye  # padded samples
        rhs = _t(DtX * V[:, None, :] + PX * M[:, None, :])[..., None]
        return _t(np.linalg.solve(system, rhs)[..., 0]) * blocks.code_mask
    num = DtX * V[:, None, :] + PX * M[:, None, :]
    den = (DtD @ S) * V[:, None, :] + S * M[:, None, :]
    ratio = np.divide(num, den, out=np.zeros_like(num), where=den != 0)
    return S * ratio * blocks.code_mask


def dictionary_step(Dd, S, Xd, tau, blocks):
    """D step (UpdateD.m): ``D = X V S^T (S V S^T + tau I)^-1``, V from the old D."""
    V = _reweight(Xd - Dd @ S, blocks, tau)
    SV = S * V[:, None, :]
    system = SV @ _t(S) + tau * np.eye(S.shape[1])
    return _t(np.linalg.solve(system, _t(Xd @ _t(SV))))


def objective_value(X, Xd, Dd, PX, W, XtX, analysis, blocks, alpha, beta, lam, shared):
    """The authors' ``objectfunvalue.m``: the mean over classes of their terms."""
    total = 0.0
    L, M = discriminative_targets(PX, blocks)
    dense = shared.dense_analysis(analysis) if shared is not None else analysis
    eye = np.eye(W.shape[1])
    XT = X.T if shared is None else None
    for c, idx in enumerate(blocks.index):
        nc, m = idx.size, blocks.atoms[c]
        codes = PX[c, :m, :nc]
        recon = Xd[c, :, :nc] - Dd[c, :, :m] @ codes
        one = np.sum(np.sqrt(np.sum(recon**2, axis=0)))
        P = dense[c]
        if shared is None:
            whole = P @ XT
        else:  # P_c X = R_c G[idx_c, :] without the n_features-sized product
            whole = analysis[c, :m, :nc] @ shared.G[idx]
        outside = max(np.sum(whole**2) - np.sum(codes**2), 0.0)
        p21 = np.sum(np.sqrt(np.sum(P**2, axis=0)))
        two = alpha * (np.sqrt(outside) + p21)
        Wc = W[c, :nc, :nc]
        IW = eye[:nc, :nc] - Wc
        x_part = np.sqrt(max(np.trace(IW.T @ XtX[c, :nc, :nc] @ IW), 0.0))
        three = beta * (x_part + np.linalg.norm(codes @ IW) + np.linalg.norm(Wc))
        four = lam * (
            np.linalg.norm(codes - L[c, :m, :nc])
            - nc * np.linalg.norm(codes - M[c, :m, :nc])
        )
        total += one + two + three + four
    return total / len(blocks.index)


class DRADPL(ClassResidualClassifier):
    """Discriminative robust adaptive dictionary pair learning (DRA-DPL).

    The TNNLS model of Sun, Zhang, Jiang, Zhang, Zhang, Yan & Wang (called RA-DPL
    there, DRA-DPL in the FDLSR paper): projective dictionary pair learning with an
    l2,1 reconstruction error, an l2,1 coding error, adaptive within-class
    reconstruction weights of the codes and a discriminative term on the analysis
    codes. A test sample takes the class of smallest ``||x - D_c P_c x||``.

    Assumes unit-norm samples, as the FDLSR paper's comparison gives every method
    (and ``fdlsr run`` does): ``fit`` warns of samples far from unit norm
    (:class:`~fdlsr.errors.DataScaleWarning`) and refuses a scale its arithmetic
    cannot hold (:class:`~fdlsr.errors.DataScaleError`).

    Parameters
    ----------
    n_atoms : int or None, default=None
        Atoms per class; ``None`` gives each class as many atoms as it has training
        samples (the FDLSR paper's setting; the authors' demos use 15 and 10).
    tau : float, default=1e-5
        Small constant of the reweighting ``1 / (2 ||e|| + tau)`` and ridge added to
        every system ("avoid the singularity issue").
    alpha : float, default=1e-4
        Weight of ``||P_c Xbar_c||^2`` and of the penalty on ``P_c``.
    beta : float, default=5e-3
        Weight of the adaptive-representation term.
    lam : float, default=1e-4
        Weight of the discriminative term on the codes ``P_c X_c``.
    max_iter : int, default=20
    analysis_penalty : {"code", "l21"}, default="code"
        ``"code"`` reproduces the authors' P step, whose l2,1 weight matrix on ``P``
        is overwritten by a matrix of ones (``H = ones(size(H))``), i.e. a penalty
        ``2 alpha ||P_c 1||^2``; ``"l21"`` uses the reweighted l2,1 norm of the
        columns of ``P_c`` that the paper states (one n_features-sized solve per
        class and iteration: slow for images).
    code_update : {"multiplicative", "exact"}, default="multiplicative"
        ``"multiplicative"`` is the authors' S step ``S .* num ./ den``;
        ``"exact"`` solves the same reweighted least-squares problem per sample.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    synthesis_ : list of ndarray of shape (n_features, m_c)
    analysis_ : ndarray of shape (sum m_c, n_features)
    objective_ : ndarray of shape (max_iter,)
        The authors' objective value (``objectfunvalue.m``) after each iteration.
    n_iter_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    DPL : the dictionary pair learning this model extends.

    Notes
    -----
    Per class c, with codes ``S_c``, adaptive weights ``W_c`` and the sample-wise
    l2,1 norm ``||E||_{2,1} = sum_i ||e_i||``, the model the code optimises is::

        ||X_c - D_c S_c||_{2,1} + 2 ||S_c - P_c X_c||_{2,1}
        + alpha (||P_c Xbar_c||^2 + penalty(P_c))
        + beta (||X_c - X_c W_c||^2 + ||P_c X_c - P_c X_c W_c||^2 + ||W_c||^2)
        + lam (||P_c X_c - L_c||^2 - n_c ||P_c X_c - M_c||^2)

    The steps are the code's closed forms: P from a linear system with the l2,1
    weights ``U`` of the coding error, ``Q = (I - W)(I - W)^T`` and the targets
    ``L_c``, ``M_c`` frozen at the previous P (``UpdateP.m``); S by the code's
    multiplicative rule; ``D_c = X_c V S_c^T (S_c V S_c^T + tau I)^-1`` with ``V`` the
    reconstruction weights; ``W_c = (G + (1 + tau) I)^-1 G`` with
    ``G = X_c^T X_c + (P_c X_c)^T P_c X_c`` and its diagonal then set to zero. These
    updates are not the exact minimisers of one objective (the P step's
    discriminative part has the opposite sign to the objective's gradient, and the
    multiplicative S step is a heuristic for signed data), so the objective is not
    guaranteed to decrease; ``objective_`` reports the value the code computes.

    Where the code depends on the order of the samples, it was changed:
    ``M_c`` in the code pairs the i-th sample of class c with the i-th sample of
    every other class, so the model changes when samples are shuffled within a
    class and cannot be formed for unequal classes; here every column of ``M_c`` is
    the mean code of the other classes (the average over all such pairings), with
    codes of classes with fewer atoms padded by zeros. ``L_c`` is, as in the code,
    the mean over the code entries of each sample (``mean(P*X)`` along the atoms),
    and ``n_c`` is the class's own size (the code uses the first class's size). The
    initial dictionaries are random, as in the code, from ``random_state``.

    The P step with ``analysis_penalty="code"`` is computed through the push-through
    identity, with ``2 alpha X X^T + 4 alpha 1 1^T + tau I`` shared by all classes,
    instead of one n_features x n_features solve per class; the result is the same.

    References
    ----------
    Y. Sun, Z. Zhang, W. Jiang, Z. Zhang, L. Zhang, S. Yan and M. Wang,
    "Discriminative local sparse representation by robust adaptive dictionary pair
    learning", IEEE TNNLS 31(10), 2020. Authors' code: https://github.com/Daitu/RA-DPL
    (ICPR version) and the TNNLS version (``TrainRADPL.m`` with ``lambda``).

    Examples
    --------
    On the faces shipped with the package (40 people), three training images per
    person drawn as the experiments draw them:

    >>> from sklearn.preprocessing import normalize
    >>> from fdlsr.model_selection._split import per_class_split
    >>> from fdlsr.datasets import load_dataset
    >>> from fdlsr.dictionary import DRADPL
    >>> faces = load_dataset("faces")
    >>> X, y = normalize(faces.X), faces.y
    >>> train, test = per_class_split(y, 3, seed=0, index=0)
    >>> model = DRADPL(random_state=0).fit(X[train], y[train])
    >>> model.score(X[test], y[test]) > 0.85
    True
    """

    _parameter_constraints: dict = {
        **ClassResidualClassifier._parameter_constraints,
        "alpha": [NON_NEGATIVE],
        "beta": [NON_NEGATIVE],
        "analysis_penalty": [StrOptions({"code", "l21"})],
        "code_update": [StrOptions({"multiplicative", "exact"})],
    }

    def __init__(
        self,
        n_atoms=None,
        *,
        tau=1e-5,
        alpha=1e-4,
        beta=5e-3,
        lam=1e-4,
        max_iter=20,
        analysis_penalty="code",
        code_update="multiplicative",
        random_state=None,
    ):
        self.n_atoms = n_atoms
        self.tau = tau
        self.alpha = alpha
        self.beta = beta
        self.lam = lam
        self.max_iter = max_iter
        self.analysis_penalty = analysis_penalty
        self.code_update = code_update
        self.random_state = random_state

    def _fit_encoded(self, X, codes, n_classes):
        atoms_per_class = self._atoms_per_class(codes)
        with single_threaded_lapack():
            result = fit_dradpl(
                X,
                codes,
                n_classes,
                atoms_per_class,
                tau=self.tau,
                alpha=self.alpha,
                beta=self.beta,
                lam=self.lam,
                max_iter=self.max_iter,
                analysis_penalty=self.analysis_penalty,
                code_update=self.code_update,
                random_state=self.random_state,
            )
        self.synthesis_ = result.synthesis
        self.analysis_ = result.analysis
        self.objective_ = result.objective
        self.n_iter_ = result.n_iter
        return self
