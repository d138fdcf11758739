"""The numerical core of FDLSR (Algorithm 1 of Chen, Wu & Kittler), free of estimators.

Notation follows the paper, with samples as rows of ``X`` (n x d): ``H`` is the c x n
one-hot label matrix, ``B = 2H - 1``, ``T`` the relaxed labels, ``S >= 0`` the dragging
values and ``Q`` (c x d) the projection. The model, Eq. (10), is

    min  ||Q X^T - T||^2 + alpha ||T - (H + B.S)||^2 + beta ||Q||^2 + lam Fisher(T)
    Fisher(T) = sum_i (||T_i - M_i||^2 - ||M_i - M||^2) + ||T||^2            (11)

and each iteration updates T, then Q (ridge), then S = max(B.(T - H), 0).
"""

from dataclasses import dataclass

import numpy as np

from ..common.compat import get_namespace
from ..common.linalg import class_means, inner, make_ridge, one_hot


@dataclass
class FDLSRResult:
    coef: np.ndarray  # Q, n_classes x n_features
    fitted: np.ndarray  # Q X^T for the training samples, n_classes x n_samples
    relaxed_labels: np.ndarray  # T
    dragging: np.ndarray  # S
    objective: np.ndarray  # Eq. (10) after each iteration
    n_iter: int


def t_step_paper(V, m_prev, means, alpha, lam):
    """Eq. (14): the Fisher gradient with M and Mhat frozen at the previous T.

    ``V = Q X^T + alpha (H + B.S)`` and ``m_prev`` are the class means of the previous
    ``T``. This is exactly the authors' code; since ``M`` is constant over samples,
    ``2 Mhat - M`` is one c x c matrix spread to the samples.
    """
    shift = lam * (2 * m_prev - means.overall(m_prev)[..., None])
    T = V  # V is the caller's scratch array: update it in place
    means.add_spread(T, shift)
    T /= 1 + alpha + 2 * lam
    return T


def t_step_exact(V, m_prev, means, alpha, lam):
    """Exact minimiser of the T-subproblem (12), means included in the derivative.

    With P_c the projection onto class indicators (T P_c = Mhat) and P_1 onto the
    constant vector (T P_1 = M), Fisher(T) = tr(T (2I - 2P_c + P_1) T^T), so the
    stationarity condition is T [(1 + alpha) I + lam (2I - 2P_c + P_1)] = V. The
    operators I - P_c, P_c - P_1 and P_1 are orthogonal projectors summing to I, on
    which the bracket acts as 1+alpha+2lam, 1+alpha and 1+alpha+lam. Hence

        T = V (I - P_c) / (1+a+2l) + V (P_c - P_1) / (1+a) + V P_1 / (1+a+l),

    an O(c n) update, positive definite whenever alpha > -1. Regrouped:
    ``T = V / (1+a+2l) + spread(c1 m_V + c2 mean_V)``.
    """
    a = 1 + alpha
    m = means.of(V)
    shift = (1 / a - 1 / (a + 2 * lam)) * m
    shift += (1 / (a + lam) - 1 / a) * means.overall(m)[..., None]
    T = V / (a + 2 * lam)
    means.add_spread(T, shift)
    return T


T_STEPS = {"paper": t_step_paper, "exact": t_step_exact}


def fisher(T, m, means):
    """Eq. (11) from ``T`` and its class means ``m``.

    ||T - Mhat||^2 = ||T||^2 - ||Mhat||^2 and ||Mhat - M||^2 = ||Mhat||^2 - ||M||^2.
    """
    return 2 * inner(T, T) - 2 * means.sq_norm_within(m) + means.sq_norm_overall(m)


def objective(fitted, q_sq_norm, T, m, target, means, alpha, beta, lam):
    """Eq. (10) with the Fisher term weighted by ``lam``, the weight Eq. (14) uses.

    ``target`` is the relaxed label matrix ``H + B.S`` and ``m`` the class means of T.
    """
    fit_residual = fitted - T
    label_residual = T - target
    return (
        inner(fit_residual, fit_residual)
        + alpha * inner(label_residual, label_residual)
        + beta * q_sq_norm
        + lam * fisher(T, m, means)
    )


def relaxed_target(T, y, H=None):
    """``H + B.S`` with ``S = max(B.(T - H), 0)`` (Eq. 21), in one pass.

    Off the true class ``B = -1`` and the entry is ``min(T, 0)``; on it, ``max(T, 1)``.
    Other namespaces than NumPy select with the one-hot ``H`` instead of indexing.
    """
    if not isinstance(T, np.ndarray):
        xp, _ = get_namespace(T)
        return xp.where(H > 0, xp.clip(T, min=1.0), xp.clip(T, max=0.0))
    target = np.minimum(T, 0)
    cols = np.arange(T.shape[-1])
    target[..., y, cols] = np.maximum(T[..., y, cols], 1)
    return target


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
    dtype = X.dtype
    if init_ridge == beta:
        ridge = init = make_ridge(X, [beta], solver)[0]
    else:
        ridge, init = make_ridge(X, [beta, init_ridge], solver, repeated=[True, False])
    H = one_hot(y, n_classes, dtype)
    means = class_means(y, n_classes, dtype)
    update_t = T_STEPS[t_step]

    T = target = H
    m = means.of(T)
    fitted, state = init.solve(H)
    objective_values = []
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        V = alpha * target
        V += fitted
        T = update_t(V, m, means, alpha, lam)
        prev_fitted, prev_state = fitted, state
        fitted, state = ridge.solve(T)
        target = relaxed_target(T, y, H)
        m = means.of(T)
        q_sq = ridge.sq_norm(state, fitted)
        objective_values.append(
            objective(fitted, q_sq, T, m, target, means, alpha, beta, lam)
        )
        if callback is not None:
            callback(n_iter, lambda s=state: ridge.coef(s))
        # Valid against Q0 too: in both forms the pair differences give ||Q - Q0||^2.
        if tol is not None:
            change = ridge.sq_norm(state - prev_state, fitted - prev_fitted)
            if change < tol:
                break
    coef = (ridge if n_iter else init).coef(state)
    B = 2 * H - 1
    S = B * (target - H)  # target - H = B.S and B.B = 1
    return FDLSRResult(
        coef=coef,
        fitted=fitted,
        relaxed_labels=T,
        dragging=S,
        objective=np.asarray(objective_values, dtype=np.float64),
        n_iter=n_iter,
    )
