"""Retargeted LSR (Zhang et al., 2015) and groupwise retargeted LSR (Wang & Pan, 2018)."""

from dataclasses import dataclass

import numpy as np

from .._common.validation import NON_NEGATIVE
from ._alternating import AlternatingResult, fit_alternating
from ._classifier import (
    ALTERNATING_CONSTRAINTS,
    RelaxedRegressionClassifier,
    relaxed_doc,
)
from ._retarget import (
    group_penalty,
    group_translations,
    margin_projection,
    targets_from_translation,
)


def fit_relsr(X, y, n_classes, *, lam, max_iter, tol, solver):
    """ReLSR: alternate ridge fits (with intercept) and the margin projection.

    Parameters
    ----------
    X, y, n_classes, lam, max_iter, tol, solver
        As in :func:`~fdlsr.relaxed._alternating.fit_alternating`, whose
        ``fit_intercept`` is true here.

    Returns
    -------
    result : AlternatingResult
        Its ``targets`` are the retargeted labels of the last fit.
    """
    return fit_alternating(
        X,
        y,
        n_classes,
        lam=lam,
        update_targets=lambda fitted: (margin_projection(fitted.T, y).T, 0.0),
        max_iter=max_iter,
        tol=tol,
        fit_intercept=True,
        solver=solver,
    )


@dataclass
class GReLSRResult(AlternatingResult):
    """What :func:`fit_grelsr` returns."""

    translations: np.ndarray  # u of the last targets, one per sample


def fit_grelsr(X, y, n_classes, *, lam, group, max_iter, tol, solver):
    """GReLSR: as ReLSR, with translations pulled together within each class.

    Parameters
    ----------
    X, y, n_classes, lam, max_iter, tol, solver
        As in :func:`fit_relsr`.
    group : float
        Weight of the groupwise penalty on the translations (:class:`GReLSR`).

    Returns
    -------
    result : GReLSRResult
        The fields of :func:`~fdlsr.relaxed._alternating.fit_alternating`
        and ``translations``, the ``u`` of the last targets (zeros if
        ``max_iter=0``).
    """
    last = {"u": np.zeros(y.shape[0])}

    def update_targets(fitted):
        R = fitted.T
        u = last["u"] = group_translations(R, y, n_classes, group)
        T = targets_from_translation(R, y, u).T
        return T, group_penalty(u, y, n_classes, group)

    result = fit_alternating(
        X,
        y,
        n_classes,
        lam=lam,
        update_targets=update_targets,
        max_iter=max_iter,
        tol=tol,
        fit_intercept=True,
        solver=solver,
    )
    return GReLSRResult(**vars(result), translations=last["u"])


@relaxed_doc
class ReLSR(RelaxedRegressionClassifier):
    """Retargeted least squares regression: targets learnt under a unit margin.

    Instead of fixed (or dragged) labels, the regression targets ``T`` are learnt
    from the data, constrained so that every sample's true-class target exceeds all
    its other targets by at least 1.

    Assumes unit-norm samples, as the FDLSR paper's comparison gives every method
    (and ``fdlsr run`` does): ``fit`` warns of samples far from unit norm
    (:class:`~fdlsr.errors.DataScaleWarning`) and refuses a scale its arithmetic
    cannot hold (:class:`~fdlsr.errors.DataScaleError`).

    Parameters
    ----------
    lam : float, default=1e-2
        Ridge penalty on the projection ``W``. Must be > 0.
    max_iter : int, default=30
        Maximum number of iterations; ``0`` returns ridge regression on one-hot labels.
    tol : float or None, default=1e-4
        Stop once ``||W - W_prev||^2 + ||b - b_prev||^2 < tol``; ``None`` runs all
        ``max_iter`` iterations.
    %(linear_rule)s

    Attributes
    ----------
    %(iterated)s

    See Also
    --------
    DLSR : the special case whose targets may only move away from 0/1.
    GReLSR : adds a groupwise penalty on the targets' translations.

    Notes
    -----
    Model (samples as rows of ``X``, targets ``T`` as rows ``t_i``, label ``y_i``)::

        min_{W, b, T}  ||X W + 1 b^T - T||_F^2 + lam ||W||_F^2
        s.t.  T[i, y_i] - T[i, j] >= 1   for all i and all j != y_i

    Solver: alternate the ridge fit of ``(W, b)`` with intercept and the
    retargeting ``T = argmin ||R - T||^2`` over the constraint set, ``R`` the current
    outputs. Retargeting is a Euclidean projection, separable over samples and exact
    by sorting (see :mod:`fdlsr.relaxed._retarget`). Both steps are exact block
    minimisers of a convex objective, so ``objective_`` never increases.
    ``T`` starts at the one-hot labels; prediction is ``argmax(W^T x + b)``.

    *Choices not settled by the paper:* the stopping rule and iteration limit are
    those of DLSR's code (same group of authors): at most 30 iterations, stop when
    ``(W, b)`` changes by less than ``1e-4`` in squared norm.

    References
    ----------
    X.-Y. Zhang, L. Wang, S. Xiang and C.-L. Liu, "Retargeted least squares
    regression algorithm", IEEE Trans. Neural Netw. Learn. Syst. 26(9):2206-2213,
    2015.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from fdlsr.relaxed import ReLSR
    >>> X, y = load_digits(return_X_y=True)
    >>> ReLSR(lam=1.0).fit(X[:1000], y[:1000]).score(X[1000:], y[1000:]) > 0.85
    True
    """

    _parameter_constraints: dict = ALTERNATING_CONSTRAINTS

    def __init__(
        self,
        lam=1e-2,
        *,
        max_iter=30,
        tol=1e-4,
        decision_rule="linear",
        n_neighbors=5,
        weights="uniform",
        solver="auto",
    ):
        self.lam = lam
        self.max_iter = max_iter
        self.tol = tol
        self.decision_rule = decision_rule
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.solver = solver

    def _fit_encoded(self, X, codes, n_classes):
        result = fit_relsr(
            X,
            codes,
            n_classes,
            lam=self.lam,
            max_iter=self.max_iter,
            tol=self.tol,
            solver=self.solver,
        )
        self.n_iter_ = result.n_iter
        self.objective_ = result.objective
        return self._set_projection(X, codes, n_classes, result.coef, result.intercept)


@relaxed_doc
class GReLSR(RelaxedRegressionClassifier):
    """Groupwise retargeted least squares regression.

    ReLSR whose targets are written as epsilon-dragged labels plus one translation
    value per sample, with the translations of each class pulled towards their mean.

    Assumes unit-norm samples, as the FDLSR paper's comparison gives every method
    (and ``fdlsr run`` does): ``fit`` warns of samples far from unit norm
    (:class:`~fdlsr.errors.DataScaleWarning`) and refuses a scale its arithmetic
    cannot hold (:class:`~fdlsr.errors.DataScaleError`).

    Parameters
    ----------
    lam : float, default=1e-2
        Ridge penalty on the projection ``W``. Must be > 0.
    group : float, default=1.0
        Weight of the groupwise penalty on the translations. ``0`` is ReLSR; a very
        large value forces one translation per class.
    max_iter : int, default=30
        Maximum number of iterations; ``0`` returns ridge regression on one-hot labels.
    tol : float or None, default=1e-4
        Stop once ``||W - W_prev||^2 + ||b - b_prev||^2 < tol``.
    %(linear_rule)s

    Attributes
    ----------
    %(iterated)s
    translations_ : ndarray of shape (n_samples,)
        The learnt translation value ``u_i`` of every training sample.

    See Also
    --------
    ReLSR : ``group=0``.
    DLSR : all translations fixed at 0.

    Notes
    -----
    Every target meeting ReLSR's unit-margin constraint is ``t_i = h_i + b_i.m_i +
    u_i 1`` with ``m_i >= 0`` and a scalar translation ``u_i`` (DLSR is ``u = 0``).
    GReLSR adds a groupwise penalty on the translations::

        min_{W, b, M >= 0, u}  ||X W + 1 b^T - (H^T + B^T.M + u 1^T)||_F^2
                               + lam ||W||_F^2 + group sum_k sum_{i in k} (u_i - ubar_k)^2

    with ``ubar_k`` the mean translation of class ``k``. Solver: alternate the ridge
    fit of ``(W, b)`` and the exact minimiser over ``(M, u)`` for fixed outputs
    (closed form in ``M``; per-class centre by regula falsi, per-sample translation
    by sorting; see :mod:`fdlsr.relaxed._retarget`), so ``objective_`` never
    increases. ``group=0`` gives exactly ReLSR's iterates.

    *Choices not settled here from the paper* (whose text was not available to us):
    the penalty is the within-class sum of squared deviations of the translations
    (a pairwise sum of squared differences is the same up to a factor ``2 n_k``);
    the (M, u)-step is solved exactly rather than by one pass of block updates; the
    initialisation, stopping rule and argmax prediction are ReLSR's.

    References
    ----------
    L. Wang and C. Pan, "Groupwise retargeted least-squares regression", IEEE Trans.
    Neural Netw. Learn. Syst. 29(4):1352-1358, 2018.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from fdlsr.relaxed import GReLSR
    >>> X, y = load_digits(return_X_y=True)
    >>> GReLSR(lam=1.0).fit(X[:1000], y[:1000]).score(X[1000:], y[1000:]) > 0.85
    True
    """

    _parameter_constraints: dict = {**ALTERNATING_CONSTRAINTS, "group": [NON_NEGATIVE]}

    def __init__(
        self,
        lam=1e-2,
        group=1.0,
        *,
        max_iter=30,
        tol=1e-4,
        decision_rule="linear",
        n_neighbors=5,
        weights="uniform",
        solver="auto",
    ):
        self.lam = lam
        self.group = group
        self.max_iter = max_iter
        self.tol = tol
        self.decision_rule = decision_rule
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.solver = solver

    def _fit_encoded(self, X, codes, n_classes):
        result = fit_grelsr(
            X,
            codes,
            n_classes,
            lam=self.lam,
            group=self.group,
            max_iter=self.max_iter,
            tol=self.tol,
            solver=self.solver,
        )
        self.n_iter_ = result.n_iter
        self.objective_ = result.objective
        self.translations_ = result.translations
        return self._set_projection(X, codes, n_classes, result.coef, result.intercept)
