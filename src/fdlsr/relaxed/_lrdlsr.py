"""Low-rank discriminative least squares regression (Chen, Wu & Kittler, 2020)."""

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from .._common.class_means import one_hot
from .._common.compat import Interval
from .._common.docstrings import core_doc
from .._common.linalg import make_ridge
from .._common.validation import NON_NEGATIVE, POSITIVE
from ._classifier import RelaxedRegressionClassifier, relaxed_doc


def svt(A, tau):
    """Singular value thresholding, the prox of ``tau ||.||_*``, on stacked matrices.

    ``A`` has shape (..., m, k); returns ``U max(s - tau, 0) V^T`` and the nuclear
    norm of the result per matrix.
    """
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    s = np.maximum(s - tau, 0)
    return (U * s[..., None, :]) @ Vt, s.sum(axis=-1)


def class_blocks(y, n_classes):
    """Column indices of each class, grouped by class size for batched SVDs.

    Returns a list of integer arrays of shape (n_classes_of_that_size, size).
    """
    order = np.argsort(y, kind="stable")
    counts = np.bincount(y, minlength=n_classes)
    starts = np.concatenate(([0], np.cumsum(counts)))
    members = [order[starts[k] : starts[k + 1]] for k in range(n_classes)]
    return [
        np.stack([members[k] for k in np.flatnonzero(counts == size)])
        for size in np.unique(counts)
    ]


def classwise_svt(Z, blocks, tau):
    """Apply :func:`svt` to the columns of ``Z`` of each class; also the nuclear norm."""
    P = np.empty_like(Z)
    nuclear = 0.0
    for idx in blocks:
        stack = np.moveaxis(Z[:, idx], 1, 0)  # (classes of this size, rows, size)
        shrunk, norms = svt(stack, tau)
        P[:, idx] = np.moveaxis(shrunk, 0, 1)
        nuclear += float(norms.sum())
    return P, nuclear


def classwise_nuclear_norm(Z, blocks):
    """``sum_i ||Z_i||_*`` over the class blocks of the columns of ``Z``."""
    return sum(
        float(np.linalg.svd(np.moveaxis(Z[:, idx], 1, 0), compute_uv=False).sum())
        for idx in blocks
    )


@dataclass
class LRDLSRResult:
    """What :func:`fit_lrdlsr` returns."""

    coef: np.ndarray  # Q, n_classes x n_features
    fitted: np.ndarray  # Q X^T
    relaxed_labels: np.ndarray  # T
    dragging: np.ndarray  # M
    objective: np.ndarray  # the authors' objective after each iteration
    residual: np.ndarray  # max |T - P| after each iteration
    n_iter: int


@core_doc
def fit_lrdlsr(
    X,
    y,
    n_classes,
    *,
    alpha,
    beta,
    gamma,
    lam,
    max_iter,
    tol,
    mu,
    rho,
    max_mu,
    solver,
):
    """Inexact ALM for LRDLSR, step for step as the authors' ``LRDLSR.m``.

    Variables: projection ``Q``, targets ``T``, their low-rank copy ``P`` (``T = P``
    enforced by the multiplier ``Y1``), draggings ``M``. Initialisation as in the
    code: ``Q = 0``, ``T = P = H``, ``M = 1``, ``Y1 = 0``.

    Parameters
    ----------
    %(training_data)s
    alpha, beta, gamma, lam, max_iter, tol, mu, rho, max_mu, solver
        As in :class:`LRDLSR`.

    Returns
    -------
    result : LRDLSRResult
        ``coef`` (``Q``), ``fitted`` (``Q X^T``), ``relaxed_labels`` (``T``) and
        ``dragging`` (``M``) of the last iteration, ``objective`` (the authors') and
        ``residual`` (``max |T - P|``) after each iteration, and ``n_iter``.
    """
    H = one_hot(y, n_classes)
    B = 2 * H - 1
    ridge = make_ridge(X, [lam], solver)[0]
    blocks = class_blocks(y, n_classes)
    fitted = np.zeros_like(H)  # Q X^T with Q = 0
    state = None
    T = H
    P = H.copy()
    M = np.ones_like(H)
    Y1 = np.zeros_like(H)
    objective, residual = [], []
    for _ in range(max_iter):
        T = (fitted + alpha * (H + B * M) + mu * P - Y1) / (1 + alpha + gamma + mu)
        P = classwise_svt(T + Y1 / mu, blocks, beta / mu)[0]
        fitted, state = ridge.solve(T)
        M = np.maximum(B * (T - H), 0)
        objective.append(
            0.5 * _sq(fitted - T)
            + 0.5 * alpha * _sq(T - B * M - H)
            + beta * classwise_nuclear_norm(T, blocks)
            + 0.5 * gamma * _sq(T)
            + 0.5 * lam * ridge.sq_norm(state, fitted)
        )
        gap = T - P
        residual.append(float(np.max(np.abs(gap))))
        if residual[-1] < tol:
            break
        Y1 += mu * gap
        mu = min(max_mu, mu * rho)
    return LRDLSRResult(
        coef=ridge.coef(state)
        if state is not None
        else np.zeros((H.shape[0], X.shape[1])),
        fitted=fitted,
        relaxed_labels=T,
        dragging=M,
        objective=np.asarray(objective),
        residual=np.asarray(residual),
        n_iter=len(objective),
    )


def _sq(A):
    return float(np.vdot(A, A))


@relaxed_doc
class LRDLSR(RelaxedRegressionClassifier):
    """Low-rank discriminative least squares regression.

    DLSR-style relaxed labels with a nuclear-norm penalty on the targets of each
    class, which keeps the relaxed labels of one class similar; classification by
    the nearest training sample in the normalised projected space.

    Assumes unit-norm samples, as the FDLSR paper's comparison gives every method
    (and ``fdlsr run`` does): ``fit`` warns of samples far from unit norm
    (:class:`~fdlsr.errors.DataScaleWarning`) and refuses a scale its arithmetic
    cannot hold (:class:`~fdlsr.errors.DataScaleError`).

    Parameters
    ----------
    alpha : float, default=0.1
        Weight of ``||T - (H + B.M)||^2``, tying the targets to the dragged labels.
    beta : float, default=0.1
        Weight of the class-wise nuclear norms ``sum_i ||T_i||_*``.
    gamma : float, default=0.1
        Weight of ``||T||^2``, the paper's guard against over-fitting the targets.
    lam : float, default=0.01
        Ridge penalty on the projection ``Q``. Must be > 0.
    max_iter : int, default=1000
        Maximum number of ALM iterations (the authors' ``maxIter``).
    tol : float, default=1e-6
        Stop once ``max |T - P| < tol`` (the authors' rule and value).
    mu : float, default=1e-5
        Initial penalty of the augmented Lagrangian.
    rho : float, default=1.1
        Growth factor of ``mu`` per iteration.
    max_mu : float, default=1e8
        Upper bound on ``mu``.
    decision_rule : {"nearest_neighbor", "linear", "nearest_mean", "knn"}, \
            default="nearest_neighbor"
        ``"nearest_neighbor"`` (the paper's rule) is the 1-NN on L2-normalised
        projections; ``"linear"`` predicts ``argmax(Q x)``.
    %(other_rules)s

    Attributes
    ----------
    %(projection)s
    neighbors_ : NearestProjection
        Normalised training projections, for the 1-NN and k-NN rules (kept only
        when fitted with one of them).
    centroids_ : ndarray of shape (n_classes, n_classes)
        Unit class centroids of the normalised training projections, for the
        nearest-mean rule.
    n_iter_ : int
    objective_ : ndarray of shape (`n_iter_`,)
        The objective of the authors' code after each iteration (not monotone: the
        ALM iterates are infeasible until ``T = P``).
    residual_ : ndarray of shape (`n_iter_`,)
        ``max |T - P|`` after each iteration.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    DLSR : without the low-rank term and transition targets.
    fdlsr.FDLSR : a Fisher criterion on the targets instead of nuclear norms.

    Notes
    -----
    Model of the authors' code (``LRDLSR.m``; samples as rows of ``X``)::

        min_{Q, T, M >= 0}  1/2 ||Q X^T - T||^2 + alpha/2 ||T - (H + B.M)||^2
                            + beta sum_i ||T_i||_* + gamma/2 ||T||^2 + lam/2 ||Q||^2

    with ``T_i`` the targets of class ``i``. The FDLSR paper's Eq. (8) states the
    model without the transition variable ``T`` and the ``gamma`` term, putting the
    nuclear norms on ``H_i + B_i.M_i`` directly; we follow the published code, which
    matches the original paper's description (an extra regularisation of the
    learnt targets against over-fitting).

    Solver: inexact augmented Lagrangian on ``T = P``. Each iteration updates
    ``T = (Q X^T + alpha (H + B.M) + mu P - Y1) / (1 + alpha + gamma + mu)``;
    ``P_i = SVT_{beta/mu}(T_i + Y1_i / mu)`` per class (singular value
    thresholding); ``Q = T X (X^T X + lam I)^-1``; ``M = max(B.(T - H), 0)``; then
    stops if ``max |T - P| < tol``, else ``Y1 += mu (T - P)`` and
    ``mu = min(rho mu, max_mu)``. Initialisation ``Q = 0``, ``T = P = H``, ``M = 1``
    (all ones, as in the code), ``Y1 = 0``, ``mu = 1e-5``, ``rho = 1.1``. The ridge
    system is factorised once; the SVDs of equal-sized class blocks are batched.

    *Deviations.* The code slices classes as consecutive equal-sized blocks; here
    classes are index sets of any size and order. ``objective_`` recomputes the
    nuclear norms of ``T`` as the code does.

    References
    ----------
    Z. Chen, X.-J. Wu and J. Kittler, "Low-rank discriminative least squares
    regression for image classification", Signal Processing 173:107485, 2020.
    Authors' code: https://github.com/chenzhe207/LRDLSR

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.preprocessing import normalize
    >>> from fdlsr.relaxed import LRDLSR
    >>> X, y = load_digits(return_X_y=True)
    >>> X = normalize(X)
    >>> LRDLSR().fit(X[:500], y[:500]).score(X[1000:], y[1000:]) > 0.85
    True
    """

    _parameter_constraints: dict = {
        **RelaxedRegressionClassifier._parameter_constraints,
        "alpha": [NON_NEGATIVE],
        "beta": [NON_NEGATIVE],
        "gamma": [NON_NEGATIVE],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [NON_NEGATIVE],
        "mu": [POSITIVE],
        "rho": [Interval(Real, 1, None, closed="left")],
        "max_mu": [POSITIVE],
    }

    def __init__(
        self,
        alpha=0.1,
        beta=0.1,
        gamma=0.1,
        lam=0.01,
        *,
        max_iter=1000,
        tol=1e-6,
        mu=1e-5,
        rho=1.1,
        max_mu=1e8,
        decision_rule="nearest_neighbor",
        n_neighbors=5,
        weights="uniform",
        solver="auto",
    ):
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.lam = lam
        self.max_iter = max_iter
        self.tol = tol
        self.mu = mu
        self.rho = rho
        self.max_mu = max_mu
        self.decision_rule = decision_rule
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.solver = solver

    def _fit_encoded(self, X, codes, n_classes):
        result = fit_lrdlsr(
            X,
            codes,
            n_classes,
            alpha=self.alpha,
            beta=self.beta,
            gamma=self.gamma,
            lam=self.lam,
            max_iter=self.max_iter,
            tol=self.tol,
            mu=self.mu,
            rho=self.rho,
            max_mu=self.max_mu,
            solver=self.solver,
        )
        self.n_iter_ = result.n_iter
        self.objective_ = result.objective
        self.residual_ = result.residual
        return self._set_projection(X, codes, n_classes, result.coef)
