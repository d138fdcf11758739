"""DPL: projective dictionary pair learning (Gu, Zhang, Zuo & Feng, NIPS 2014)."""

from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

from .._common.docstrings import core_doc
from .._common.linalg import single_threaded_lapack
from .._common.validation import POSITIVE
from ._classifier import ClassResidualClassifier
from ._padded_classes import PaddedClasses, sample_space_solve

# The D step's ADMM as in the authors' UpdateD.m: at most 99 steps, stopping once the
# mean squared change of D_c is below 1e-8.
ADMM_MAX_ITER = 99
ADMM_TOL = 1e-8


@dataclass
class DPLResult:
    """What :func:`fit_dpl` returns."""

    synthesis: list  # D_c of shape (n_features, m_c), per class
    analysis: np.ndarray  # stacked P_c, (sum m_c, n_features)
    objective: np.ndarray
    n_iter: int


@core_doc
def fit_dpl(
    X,
    y,
    n_classes,
    atoms_per_class,
    *,
    tau,
    lam,
    gamma,
    max_iter,
    random_state,
):
    """DPL on samples ``X`` (rows) with class codes ``y``; see :class:`DPL`.

    Every step is the authors' closed form, computed without the per-class
    ``n_features x n_features`` inverses of their code:

    * P-step (Eq. 10): ``P_c = tau A_c X_c^T M_c^-1`` with
      ``M_c = tau X_c X_c^T + lam Xbar_c Xbar_c^T + gamma I = M + (tau - lam) X_c X_c^T``
      and ``M = lam X X^T + gamma I`` shared; by the push-through identity
      ``X_c^T M_c^-1 = (I + (tau - lam) G_cc)^-1 B_c^T`` with ``B = M^-1 X`` and
      ``G = X^T B`` (columns are samples here), so ``P_c = R_c B_c^T`` with an
      ``m_c x n_c`` matrix ``R_c`` and ``P_c X_c = R_c G_cc``.
    * A-step (Eq. 8): ``A_c = (D_c^T D_c + tau I)^-1 (D_c^T X_c + tau P_c X_c)``.
    * D-step (Eq. 12): the authors' ADMM for ``min ||X_c - D_c A_c||^2`` subject to
      ``||d_k|| <= 1`` (rho from 1, times 1.2 per step, stop when the mean squared
      change of D_c is below ``ADMM_TOL`` or after ``ADMM_MAX_ITER`` steps), run in
      coordinates of an orthonormal basis of ``span[X_c, D_c(0)]``, which contains
      every ADMM iterate; all classes advance together.

    Parameters
    ----------
    %(training_data)s
    atoms_per_class : ndarray of int of shape (n_classes,)
        The number of atoms of each class's pair.
    tau, lam, gamma, max_iter, random_state
        As in :class:`DPL`.

    Returns
    -------
    result : DPLResult
        ``synthesis`` (the ``D_c``), ``analysis`` (the stacked ``P_c``),
        ``objective`` (Eq. 5 plus ``gamma ||P||^2`` after each iteration) and
        ``n_iter``.
    """
    rng = check_random_state(random_state)
    n_features = X.shape[1]
    blocks = PaddedClasses(y, n_classes, atoms_per_class)
    # (Initilization.m draws each class's pair with the seeds i and 2i.)
    D0, P0 = blocks.random_pairs(rng, n_features, unit_analysis="rows")
    B, G, BtB = sample_space_solve(X, lam, gamma)
    shrink = tau * np.linalg.inv(np.eye(blocks.width) + (tau - lam) * blocks.diag(G))
    Gcc = blocks.diag(G)
    Xd, Dd, bases = blocks.synthesis_coordinates(X, D0)  # (C, r, n_max), (C, r, m_max)
    PX = blocks.analysis_codes(X, P0)
    A = _code_step(Dd, Xd, PX, tau, blocks)
    objective = np.zeros(max_iter)
    R = None
    for it in range(max_iter):
        R = A @ shrink  # P_c = R_c B_c^T
        PX = R @ Gcc
        Dd = _dictionary_step(Dd, Xd, A, n_features, blocks, ADMM_MAX_ITER, ADMM_TOL)
        A = _code_step(Dd, Xd, PX, tau, blocks)
        objective[it] = _objective(Xd, Dd, A, R, PX, G, BtB, blocks, tau, lam, gamma)
    if R is None:  # no iteration: the random analysis dictionaries
        analysis = np.vstack(P0)
    else:
        analysis = np.vstack(
            [blocks.unpad(R, c) @ B[:, idx].T for c, idx in enumerate(blocks.index)]
        )
    synthesis = [
        bases[c] @ Dd[c, : bases[c].shape[1], : blocks.atoms[c]]
        for c in range(n_classes)
    ]
    return DPLResult(synthesis, analysis, objective, max_iter)


def _code_step(Dd, Xd, PX, tau, blocks):
    """Eq. (8): ``A_c = (D_c^T D_c + tau I)^-1 (D_c^T X_c + tau P_c X_c)``."""
    Dt = np.swapaxes(Dd, 1, 2)
    system = Dt @ Dd + tau * np.eye(Dd.shape[2])
    return np.linalg.solve(system, Dt @ Xd + tau * PX) * blocks.code_mask


def _dictionary_step(Dd, Xd, A, n_features, blocks, max_iter, tol):
    """The authors' ADMM (UpdateD.m) for every class at once."""
    C, _, m = Dd.shape
    XA = Xd @ np.swapaxes(A, 1, 2)
    AAt = A @ np.swapaxes(A, 1, 2)
    eye = np.eye(m)
    S, T, D = Dd.copy(), np.zeros_like(Dd), Dd.copy()
    previous = Dd.copy()
    rho = np.ones(C)
    active = np.ones(C, dtype=bool)
    scale = n_features * np.asarray(blocks.atoms, dtype=float)
    for _ in range(max_iter):
        a = np.flatnonzero(active)
        if not a.size:
            break
        r = rho[a, None, None]
        rhs = r * (S[a] - T[a]) + XA[a]
        # D = rhs (rho I + A A^T)^-1, the system being symmetric.
        D[a] = np.swapaxes(
            np.linalg.solve(r * eye + AAt[a], np.swapaxes(rhs, 1, 2)), 1, 2
        )
        S[a] = _columns_within_unit_ball(D[a] + T[a])
        T[a] += D[a] - S[a]
        rho[a] *= 1.2
        change = np.sum((previous[a] - D[a]) ** 2, axis=(1, 2)) / scale[a]
        previous[a] = D[a]
        active[a[change <= tol]] = False
    return D


def _columns_within_unit_ball(M):
    """normcol_lessequal: columns longer than 1 scaled back to length 1."""
    norms = np.sqrt(np.sum(M * M, axis=1, keepdims=True) + np.finfo(float).eps)
    return M / np.maximum(1.0, norms)


def _objective(Xd, Dd, A, R, PX, G, BtB, blocks, tau, lam, gamma):
    """Eq. (5) with the ridge ``gamma ||P||^2`` the P-step includes."""
    fit = np.sum((Xd - Dd @ A) ** 2) + tau * np.sum((PX - A) ** 2)
    # ||P_c Xbar_c||^2 = ||P_c X||^2 - ||P_c X_c||^2, P_c X = R_c G[c, :].
    whole = sum(
        np.sum((blocks.unpad(R, c) @ G[idx]) ** 2) for c, idx in enumerate(blocks.index)
    )
    own = np.sum(PX**2)
    norm_p = np.sum((R @ blocks.diag(BtB)) * R)
    return float(fit + lam * (whole - own) + gamma * norm_p)


class DPL(ClassResidualClassifier):
    """Projective dictionary pair learning (DPL) of Gu, Zhang, Zuo & Feng.

    Learns, for every class, a synthesis dictionary ``D_c`` and an analysis
    dictionary ``P_c`` such that ``D_c P_c x`` reconstructs samples of class c well
    and ``P_c`` maps the other classes to nearly zero. A test sample takes the class
    of smallest reconstruction error ``||x - D_c P_c x||``.

    Assumes unit-norm samples, as the FDLSR paper's comparison gives every method
    (and ``fdlsr run`` does): ``fit`` warns of samples far from unit norm
    (:class:`~fdlsr.errors.DataScaleWarning`) and refuses a scale its arithmetic
    cannot hold (:class:`~fdlsr.errors.DataScaleError`).

    Parameters
    ----------
    n_atoms : int or None, default=None
        Atoms per class. ``None`` gives each class as many atoms as it has training
        samples (the FDLSR paper's setting; the authors' demo uses 30).
    tau : float, default=0.05
        Weight of the coding term ``||P_c X_c - A_c||^2``.
    lam : float, default=0.003
        Weight of ``||P_c Xbar_c||^2`` on the other classes (the paper's lambda).
    gamma : float, default=1e-4
        Ridge on ``P_c`` in the P-step (must be positive).
    max_iter : int, default=20
        Alternations of the P, D and A steps (20 in the authors' code).
    random_state : int, RandomState instance or None, default=None
        Seed of the random initial dictionaries.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    synthesis_ : list of ndarray of shape (n_features, m_c)
        Synthesis dictionaries ``D_c``.
    analysis_ : ndarray of shape (sum m_c, n_features)
        Stacked analysis dictionaries ``P_c``.
    objective_ : ndarray of shape (max_iter,)
        Objective (Eq. 5 plus ``gamma ||P||^2``) after each iteration.
    n_iter_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    DRADPL : DPL with l2,1 losses, adaptive weights and a discriminative term.

    Notes
    -----
    Objective (Eq. 5), with ``Xbar_c`` the samples of the other classes::

        sum_c ||X_c - D_c A_c||^2 + tau ||P_c X_c - A_c||^2 + lam ||P_c Xbar_c||^2
        s.t. ||d_k||^2 <= 1

    The A and P steps are exact block minimisers (Eqs. 8, 10), and the D step is
    solved by ADMM to a tolerance, so the objective decreases up to that tolerance.
    As in the authors' ``UpdateD.m`` the D step returns the ADMM's least-squares
    iterate, whose columns may exceed unit length slightly. Classification
    (``ClassificationDPL.m``) is by the smallest ``||x - D_c P_c x||``.

    The closed forms are evaluated in the sample space (see :func:`fit_dpl`); they
    equal the authors' ``inv(tau X_c X_c' + lam Xbar_c Xbar_c' + gamma I)``.

    Each class is modelled by a linear subspace, the range of ``D_c P_c``: the
    method suits high-dimensional data such as images, not a few features (on
    scikit-learn's 2-feature blobs it scores below the common checks' threshold,
    hence the ``poor_score`` tag).

    References
    ----------
    S. Gu, L. Zhang, W. Zuo and X. Feng, "Projective dictionary pair learning for
    pattern classification", NIPS 2014. Authors' MATLAB code (DPL_NIPS14):
    https://sites.google.com/site/shuhanggu/home

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.preprocessing import normalize
    >>> from fdlsr.dictionary import DPL
    >>> X, y = load_digits(return_X_y=True)
    >>> X = normalize(X)
    >>> model = DPL(n_atoms=10, random_state=0).fit(X[:500], y[:500])
    >>> model.score(X[500:800], y[500:800]) > 0.85
    True
    """

    _parameter_constraints: dict = {
        **ClassResidualClassifier._parameter_constraints,
        "gamma": [POSITIVE],
    }

    def __init__(
        self,
        n_atoms=None,
        *,
        tau=0.05,
        lam=0.003,
        gamma=1e-4,
        max_iter=20,
        random_state=None,
    ):
        self.n_atoms = n_atoms
        self.tau = tau
        self.lam = lam
        self.gamma = gamma
        self.max_iter = max_iter
        self.random_state = random_state

    def _fit_encoded(self, X, codes, n_classes):
        atoms_per_class = self._atoms_per_class(codes)
        with single_threaded_lapack():
            result = fit_dpl(
                X,
                codes,
                n_classes,
                atoms_per_class,
                tau=self.tau,
                lam=self.lam,
                gamma=self.gamma,
                max_iter=self.max_iter,
                random_state=self.random_state,
            )
        self.synthesis_ = result.synthesis
        self.analysis_ = result.analysis
        self.objective_ = result.objective
        self.n_iter_ = result.n_iter
        return self
