"""Algorithm 1 on whole c x n arrays: the in-memory fit path of FDLSR.

The iteration itself (T-step, S-step, objective, loop) is :mod:`fdlsr.core.iteration`;
this module holds the state it runs on when every c x n matrix (T, Q X^T, the relaxed
target) fits in memory, in any array-API namespace, with the ridge solves in primal
(d x d) or dual (n x n) form (:mod:`fdlsr.common.linalg`).
"""

from dataclasses import dataclass

import numpy as np

from ..common.linalg import class_means, inner, make_ridge, one_hot
from .iteration import T_STEPS, fisher, objective, relaxed_target, run


@dataclass
class FDLSRResult:
    coef: np.ndarray  # Q, n_classes x n_features
    fitted: np.ndarray  # Q X^T for the training samples, n_classes x n_samples
    relaxed_labels: np.ndarray  # T
    dragging: np.ndarray  # S
    objective: np.ndarray  # Eq. (10) after each iteration
    n_iter: int


class DenseIteration:
    """:class:`~fdlsr.core.iteration.Iteration` on whole c x n arrays.

    Initialisation as in the authors' code: ``Q = H X (X^T X + init_ridge I)^-1``,
    ``S = 0``, ``T = H``. The ridge solver's ``state`` is ``Q`` (primal) or
    ``R`` with ``Q = R X`` (dual); ``fitted`` is ``Q X^T``.
    """

    def __init__(self, X, y, n_classes, *, beta, init_ridge, solver):
        if init_ridge == beta:
            ridge = init = make_ridge(X, [beta], solver)[0]
        else:
            ridge, init = make_ridge(
                X, [beta, init_ridge], solver, repeated=[True, False]
            )
        self.ridge, self.system = ridge, init  # system: the one that gave ``state``
        self.y = y
        self.H = one_hot(y, n_classes, X.dtype)
        self.means = class_means(y, n_classes, X.dtype)
        self.T = self.target = self.H
        self.m = self.means.of(self.T)
        self.fitted, self.state = init.solve(self.H)
        self.prev = None

    def sweep(self, alpha, lam, t_step):
        V = alpha * self.target
        V += self.fitted
        self.T = T_STEPS[t_step](V, self.m, self.means, alpha, lam)
        self.target = relaxed_target(self.T, self.y, self.H)
        self.m = self.means.of(self.T)

    def solve(self):
        self.prev = self.fitted, self.state
        self.fitted, self.state = self.ridge.solve(self.T)
        self.system = self.ridge

    def objective(self, alpha, beta, lam):
        fit_residual = self.fitted - self.T
        label_residual = self.T - self.target
        means, m = self.means, self.m
        return objective(
            inner(fit_residual, fit_residual),
            inner(label_residual, label_residual),
            self.ridge.sq_norm(self.state, self.fitted),
            fisher(
                inner(self.T, self.T), means.sq_norm_within(m), means.sq_norm_overall(m)
            ),
            alpha,
            beta,
            lam,
        )

    def change(self):
        # Valid against Q0 too: in both forms the pair differences give ||Q - Q0||^2.
        prev_fitted, prev_state = self.prev
        return self.ridge.sq_norm(self.state - prev_state, self.fitted - prev_fitted)

    def coef_fn(self):
        """A function returning the current ``Q`` (formed only when called)."""
        system, state = self.system, self.state
        return lambda: system.coef(state)


def fit_fdlsr(
    X,
    y,
    n_classes,
    *,
    alpha,
    beta,
    lam,
    max_iter=30,
    tol=None,
    init_ridge=1e-4,
    t_step="paper",
    solver="auto",
    callback=None,
):
    """Run Algorithm 1 on ``X`` (n x d) with integer labels ``y`` in ``[0, n_classes)``.

    Initialisation as in the authors' code: ``Q = H X (X^T X + init_ridge I)^-1``,
    ``S = 0``, ``T = H``; then ``max_iter`` iterations, or fewer if ``tol`` is given and
    ``||Q - Q_prev||_F^2 < tol`` (Algorithm 1, step 4). ``callback(iteration, coef_fn)``
    is called after every iteration (used for convergence curves); ``coef_fn()`` returns
    the current ``Q``.
    """
    it = DenseIteration(
        X, y, n_classes, beta=beta, init_ridge=init_ridge, solver=solver
    )
    record = None if callback is None else lambda k, _: callback(k, it.coef_fn())
    objective, n_iter = run(it, alpha, beta, lam, max_iter, tol, t_step, record)
    B = 2 * it.H - 1
    S = B * (it.target - it.H)  # target - H = B.S and B.B = 1
    return FDLSRResult(
        coef=it.coef_fn()(),
        fitted=it.fitted,
        relaxed_labels=it.T,
        dragging=S,
        objective=objective,
        n_iter=n_iter,
    )
