"""Algorithm 1 on whole c x n arrays: the in-memory fit path of FDLSR.

The iteration itself (T-step, S-step, objective, loop) is :mod:`fdlsr._core.iteration`;
this module holds the state it runs on when every c x n matrix (T, Q X^T, the relaxed
target) fits in memory, in any array-API namespace, with the ridge solves in primal
(d x d) or dual (n x n) form (:mod:`fdlsr._common.linalg`).
"""

from dataclasses import dataclass

import numpy as np

from .._common.class_means import class_means, one_hot
from .._common.linalg import inner, make_ridge, sq_distance
from .iteration import T_STEPS, fisher, objective, relaxed_target, run


@dataclass
class FDLSRResult:
    """What :func:`fit_fdlsr` returns."""

    coef: np.ndarray  # Q, n_classes x n_features
    fitted: np.ndarray  # Q X^T for the training samples, n_classes x n_samples
    relaxed_labels: np.ndarray  # T
    relaxed_target: np.ndarray  # H + B.S
    codes: np.ndarray  # the integer labels y
    objective: np.ndarray  # Eq. (10) after each iteration
    n_iter: int

    @property
    def dragging(self):
        """``S``: ``target - H = B.S`` with ``B = +-1`` and ``S >= 0``, so
        ``S = |target - H|`` (formed on request: c x n numbers)."""
        target = self.relaxed_target
        return abs(target - one_hot(self.codes, target.shape[0], target.dtype))


class DenseIteration:
    """:class:`~fdlsr._core.iteration.Iteration` on whole c x n arrays.

    Initialisation as in the authors' code: ``Q = H X (X^T X + init_ridge I)^-1``,
    ``S = 0``, ``T = H``. The ridge solver's ``state`` is ``Q`` (primal) or
    ``R`` with ``Q = R X`` (dual); ``fitted`` is ``Q X^T``.

    The c x n arrays are updated in place: each sweep writes ``V = alpha target +
    Q X^T`` over the previous target and the new target over the previous T, and
    each solve writes ``Q X^T`` over the previous one (NumPy) or frees it first, so
    that an iteration holds T, the target and the product and no other c x n array
    (the one-hot ``H`` is formed for the initial solve and the first sweep only;
    until then ``T`` and ``target`` are ``None``, standing for ``H``). With
    ``keep_previous`` (needed by :meth:`change`, i.e. a ``tol``) the previous
    product and state are kept instead.
    """

    def __init__(self, X, y, n_classes, *, beta, init_ridge, solver, keep_previous):
        if init_ridge == beta:
            ridge = init = make_ridge(X, [beta], solver)[0]
        else:
            ridge, init = make_ridge(
                X, [beta, init_ridge], solver, repeated=[True, False]
            )
        self.ridge, self.system = ridge, init  # system: the one that gave ``state``
        self.y, self.n_classes, self.dtype = y, n_classes, X.dtype
        self.means = class_means(y, n_classes, X.dtype)
        H = one_hot(y, n_classes, X.dtype)
        self.m = self.means.of(H)
        self.fitted, self.state = init.solve(H)
        self.T = self.target = None  # H
        self.keep_previous = keep_previous
        self.prev = self.out = None

    def sweep(self, alpha, lam, t_step):
        if self.target is None:  # first sweep: V = alpha H + Q X^T
            V = one_hot(self.y, self.n_classes, self.dtype)
        else:  # the previous target is not needed again: V overwrites it
            V = self.target
        V *= alpha
        V += self.fitted
        spare = self.T  # the previous T, free now
        if not self.keep_previous:  # the product is free too: reuse it, or free it
            self.out = self.fitted if isinstance(self.fitted, np.ndarray) else None
            self.fitted = None
        self.T = T_STEPS[t_step](V, self.m, self.means, alpha, lam)
        self.target = relaxed_target(self.T, self.y, out=spare)
        self.m = self.means.of(self.T)

    def solve(self):
        if self.keep_previous:
            self.prev = self.fitted, self.state
        out, self.out = self.out, None
        self.fitted, self.state = self.ridge.solve(self.T, out=out)
        self.system = self.ridge

    def objective(self, alpha, beta, lam):
        means, m = self.means, self.m
        return objective(
            self.ridge.fit_sq(self.state, self.fitted, self.T),
            sq_distance(self.T, self.target),
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
    max_iter,
    tol,
    init_ridge,
    t_step,
    solver,
    callback=None,
):
    """Algorithm 1 on whole c x n arrays, from samples ``X`` and integer labels ``y``.

    Initialisation as in the authors' code: ``Q = H X (X^T X + init_ridge I)^-1``,
    ``S = 0``, ``T = H``; then ``max_iter`` iterations (:func:`.iteration.run`), or
    fewer if ``tol`` is given and ``||Q - Q_prev||_F^2 < tol`` (Algorithm 1, step 4).

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
        Training samples, float64 or float32, in any array-API namespace.
    y : array of int of shape (n_samples,)
        Class codes in ``[0, n_classes)``, in X's namespace.
    n_classes : int
    alpha, beta, lam : float
        Weights of the relaxed-label term, the ridge on ``Q`` and the Fisher term
        (Eq. 10); see :class:`~fdlsr.FDLSR`.
    max_iter : int
        Number of iterations; ``0`` returns the initial ridge solution.
    tol : float or None
        Stopping threshold on ``||Q - Q_prev||_F^2``; ``None`` runs ``max_iter``.
    init_ridge : float
        Ridge of the initial solve.
    t_step : {"paper", "exact"}
        Eq. (14) or the exact minimiser of the T-subproblem (:data:`.iteration.T_STEPS`).
    solver : {"auto", "primal", "dual"}
        Form of the ridge solves (:func:`~fdlsr._common.linalg.make_ridge`).
    callback : callable or None, default=None
        ``callback(iteration, coef_fn)`` after every iteration (the convergence
        figure uses it); ``coef_fn()`` returns the current ``Q``.

    Returns
    -------
    result : FDLSRResult
        ``coef`` (``Q``, n_classes x n_features), ``fitted`` (``Q X^T``),
        ``relaxed_labels`` (``T``), ``relaxed_target`` (``H + B.S``), ``codes``,
        ``objective`` (Eq. 10 after each iteration, float64) and ``n_iter``.
    """
    it = DenseIteration(
        X,
        y,
        n_classes,
        beta=beta,
        init_ridge=init_ridge,
        solver=solver,
        keep_previous=tol is not None,
    )
    record = None if callback is None else lambda k, _: callback(k, it.coef_fn())
    objective, n_iter = run(it, alpha, beta, lam, max_iter, tol, t_step, record)
    if it.T is None:  # no iteration: T = H + B.S = H
        it.T = it.target = one_hot(y, n_classes, X.dtype)
    return FDLSRResult(
        coef=it.coef_fn()(),
        fitted=it.fitted,
        relaxed_labels=it.T,
        relaxed_target=it.target,
        codes=y,
        objective=objective,
        n_iter=n_iter,
    )
