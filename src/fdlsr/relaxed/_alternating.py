"""The alternating scheme shared by DLSR, ReLSR and GReLSR, and the epsilon-dragged
target update that DLSR shares with DRR and RLR.

Each of these models minimises ``||Q X^T + b 1^T - T||^2 + lam ||Q||^2`` over the
projection ``Q``, an unregularised intercept ``b`` and targets ``T`` restricted to a
model-specific set (plus, for GReLSR, a penalty on ``T``). Both blocks have exact
minimisers: ``(Q, b)`` by ridge regression with intercept, ``T`` by a closed form
given the fitted values. Alternating them never increases the objective.

Initialisation and stopping follow Xiang et al.'s DLSR code: ``(Q, b)`` is first
fitted to the one-hot labels; each iteration updates ``T`` from the current fit and
refits; the loop stops after ``max_iter`` iterations or once
``||Q - Q_prev||^2 + ||b - b_prev||^2 < tol``.
"""

from dataclasses import dataclass

import numpy as np

from .._common.class_means import one_hot
from .._common.docstrings import core_doc
from .._common.linalg import CenteredRidge, make_ridge


def dragged_targets(fitted, y):
    """The epsilon-dragged targets ``H + B.M`` of DLSR, DRR and RLR, with the optimal
    ``M = max(B.(fitted - H), 0)`` (Xiang et al., 2012, Eq. 10).

    With ``H`` the one-hot labels and ``B = 2H - 1``, that target is ``max(F, 1)`` on
    the true class and ``min(F, 0)`` elsewhere, so no matrix ``B`` is formed.
    ``fitted`` is n_classes x n_samples; ``y`` holds the integer class codes.
    """
    target = np.minimum(fitted, 0)
    cols = np.arange(fitted.shape[1])
    target[y, cols] = np.maximum(fitted[y, cols], 1)
    return target


def sq_dist(a, b):
    """``||a - b||_F^2``."""
    diff = a - b
    return float(np.vdot(diff, diff))


@dataclass
class AlternatingResult:
    """What :func:`fit_alternating` returns."""

    coef: np.ndarray  # Q, n_classes x n_features
    intercept: np.ndarray  # b, n_classes
    fitted: np.ndarray  # Q X^T + b 1^T, n_classes x n_samples
    targets: np.ndarray  # T of the last fit
    objective: np.ndarray  # objective after each iteration
    n_iter: int


class _Ridge:
    """Uniform access to a ridge with or without an unregularised intercept."""

    def __init__(self, X, lam, solver, fit_intercept):
        if fit_intercept:
            self.inner = CenteredRidge(X, lam, solver)
        else:
            self.inner = make_ridge(X, [lam], solver)[0]
        self.fit_intercept = fit_intercept

    def solve(self, T):
        return self.inner.solve(T)

    def coef(self, state):
        return self.inner.coef(state)

    def intercept(self, state, n_classes):
        if self.fit_intercept:
            return self.inner.intercept(state)
        return np.zeros(n_classes)

    def sq_norm(self, state, fitted):
        return self.inner.sq_norm(state, fitted)

    def change(self, state, prev_state, fitted, prev_fitted):
        """``||Q - Q_prev||^2 + ||b - b_prev||^2`` without forming ``Q``."""
        if not self.fit_intercept:
            return self.inner.sq_norm(state - prev_state, fitted - prev_fitted)
        diff = (state[0] - prev_state[0], state[1] - prev_state[1])
        db = self.inner.intercept(diff)
        return self.inner.sq_norm(diff, fitted - prev_fitted) + float(db @ db)


@core_doc
def fit_alternating(
    X, y, n_classes, *, lam, update_targets, max_iter, tol, fit_intercept, solver
):
    """Alternate ridge fits and ``update_targets(fitted) -> (T, penalty)``.

    Parameters
    ----------
    %(training_data)s
    lam : float
        Ridge penalty on ``Q``, > 0.
    update_targets : callable
        ``update_targets(fitted)``, with ``fitted = Q X^T + b 1^T`` (n_classes x
        n_samples), returns the model's best targets ``T`` for them and its extra
        term on ``T`` (``penalty``: 0 for DLSR and ReLSR).
    max_iter : int
        Maximum number of iterations; ``0`` returns the ridge fit to the one-hot
        labels.
    tol : float or None
        Stop once ``||Q - Q_prev||^2 + ||b - b_prev||^2 < tol``; ``None`` runs
        ``max_iter``.
    fit_intercept : bool
        Learn the unregularised intercept ``b`` (else ``b = 0``).
    solver : {"auto", "primal", "dual"}
        Form of the ridge solves (:func:`~fdlsr._common.linalg.make_ridge`).

    Returns
    -------
    result : AlternatingResult
        ``coef`` (``Q``), ``intercept`` (``b``), ``fitted`` and ``targets`` of the
        last fit, ``objective`` (``||F - T||^2 + lam ||Q||^2 + penalty`` after each
        iteration) and ``n_iter``.
    """
    ridge = _Ridge(X, lam, solver, fit_intercept)
    T = one_hot(y, n_classes)
    fitted, state = ridge.solve(T)
    objective = []
    for _ in range(max_iter):
        T, penalty = update_targets(fitted)
        prev_fitted, prev_state = fitted, state
        fitted, state = ridge.solve(T)
        objective.append(
            sq_dist(fitted, T) + lam * ridge.sq_norm(state, fitted) + penalty
        )
        if (
            tol is not None
            and ridge.change(state, prev_state, fitted, prev_fitted) < tol
        ):
            break
    return AlternatingResult(
        coef=ridge.coef(state),
        intercept=ridge.intercept(state, n_classes),
        fitted=fitted,
        targets=T,
        objective=np.asarray(objective),
        n_iter=len(objective),
    )
