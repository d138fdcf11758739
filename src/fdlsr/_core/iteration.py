"""One iteration of Algorithm 1 (Chen, Wu & Kittler), written once for every fit path.

Notation follows the paper, with samples as rows of ``X`` (n x d): ``H`` is the c x n
one-hot label matrix, ``B = 2H - 1``, ``T`` the relaxed labels, ``S >= 0`` the dragging
values and ``Q`` (c x d) the projection. The model, Eq. (10), is

    min  ||Q X^T - T||^2 + alpha ||T - (H + B.S)||^2 + beta ||Q||^2 + lam Fisher(T)
    Fisher(T) = sum_i (||T_i - M_i||^2 - ||M_i - M||^2) + ||T||^2            (11)

and each iteration updates T, then Q (ridge), then S = max(B.(T - H), 0):

* T-step (14): ``T = (Q X^T + alpha (H + B.S) + lam (2 Mhat - M)) / (1 + alpha + 2 lam)``
  with the class means ``Mhat`` and global mean ``M`` of the previous T; or the exact
  minimiser (:func:`t_step_exact`). Either is ``V = Q X^T + alpha (H + B.S)`` plus a
  per-class term (:func:`class_shift`), scaled by :func:`t_divisor`.
* Q-step (16): ``Q = T X (X^T X + beta I)^-1``, or its dual form.
* S-step (21): the new relaxed target ``H + B.S`` (:func:`relaxed_target`).

The fit paths differ only in where the c x n arrays live, so each implements the
small :class:`Iteration` interface and :func:`run` drives them all (Algorithm 1's loop,
the objective (10) after each iteration and the stopping rule of its step 4):

* :class:`fdlsr._core.dense.DenseIteration`: whole c x n arrays in any array-API
  namespace, primal or dual ridge solves;
* :class:`fdlsr._core.blocked.BlockedIteration`: one pass over blocks of samples per
  iteration, for data whose c x n arrays do not fit in memory, and
  :class:`fdlsr._core.blocked.DeviceBlockedIteration`, the same on the device of a
  PyTorch, CuPy or array-api-strict array;
* :class:`fdlsr._core.dask_graph.DaskIteration`: the same pass as a Dask graph over chunks.

The interface is two coarse steps, ``sweep`` (T-step and S-step over all samples)
and ``solve`` (Q-step), rather than products such as ``Q -> Q X^T``: the blocked paths
compute ``Q X_b^T``, the T-step, the S-step and the class sums of each piece of
samples while it is in cache, and a product interface would make them hold the c x n
arrays they exist to avoid; the dual form never forms ``Q`` inside the loop.

The stacked grid of :mod:`fdlsr._core.grid` iterates many (alpha, lambda) pairs at once
and shares the pieces here (the per-class term, the divisor and the S-step), not the
loop: see its module notes.
"""

import math
from typing import Protocol

import numpy as np

from .._common.compat import device, get_namespace


def t_divisor(alpha, lam):
    """The scale ``1 + alpha + 2 lam`` of both T-steps (the within-class direction)."""
    return 1 + alpha + 2 * lam


def class_shift(m, overall, alpha, lam, t_step):
    """The per-class term of the T-step: column k is added to the samples of class k.

    ``overall`` is the global mean of ``m`` (``m @ class weights``).

    * ``"paper"`` (Eq. 14): ``m`` are the class means of the previous T, and the term
      ``lam (2 Mhat - M)`` is added to V *before* dividing by :func:`t_divisor`.
    * ``"exact"``: ``m`` are the class means of ``V`` itself, and the term is added
      *after* dividing V by :func:`t_divisor` (see :func:`t_step_exact`).

    Leading batch dimensions are allowed (``m`` of shape (..., c, c)).
    """
    if t_step == "paper":
        # 2 Mhat - M is one c x c matrix spread to the samples, since M is constant;
        # lam (2 m - M), in place on one temporary.
        shift = 2 * m
        shift -= overall[..., None]
        shift *= lam
        return shift
    a = 1 + alpha
    shift = (1 / a - 1 / (a + 2 * lam)) * m
    shift += (1 / (a + lam) - 1 / a) * overall[..., None]
    return shift


def t_step_paper(V, m_prev, means, alpha, lam):
    """Eq. (14): the Fisher gradient with M and Mhat frozen at the previous T.

    ``V = Q X^T + alpha (H + B.S)`` and ``m_prev`` are the class means of the previous
    ``T``. This is exactly the authors' code.
    """
    shift = class_shift(m_prev, means.overall(m_prev), alpha, lam, "paper")
    T = V  # V is the caller's scratch array: update it in place
    means.add_spread(T, shift)
    T /= t_divisor(alpha, lam)
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
    ``T = V / (1+a+2l) + spread(c1 m_V + c2 mean_V)``. ``m_prev`` is not used.
    """
    m = means.of(V)
    shift = class_shift(m, means.overall(m), alpha, lam, "exact")
    T = V / t_divisor(alpha, lam)
    means.add_spread(T, shift)
    return T


T_STEPS = {"paper": t_step_paper, "exact": t_step_exact}


def relaxed_target(T, y, out=None):
    """``H + B.S`` with ``S = max(B.(T - H), 0)`` (Eq. 21), in one pass.

    Off the true class ``B = -1`` and the entry is ``min(T, 0)``; on it, ``max(T, 1)``.
    ``T`` has classes along its second-last axis (a stack of grid points before them,
    in FDLSRCV); ``out`` (not ``T`` itself) receives the result. Other namespaces than
    NumPy select with the labels ``y`` a few classes at a time, so that no temporary of
    T's size is formed.
    """
    if not isinstance(T, np.ndarray):
        xp, _ = get_namespace(T)
        out = xp.empty_like(T) if out is None else out
        n_classes = T.shape[-2]
        rows = max(1, 2**24 // (math.prod(T.shape) // n_classes))
        for start in range(0, n_classes, rows):
            r = slice(start, min(start + rows, n_classes))
            classes = xp.arange(r.start, r.stop, device=device(T))
            true = xp.expand_dims(classes, axis=1) == xp.expand_dims(y, axis=0)
            part = T[..., r, :]
            out[..., r, :] = xp.where(
                true, xp.clip(part, min=1.0), xp.clip(part, max=0.0)
            )
        return out
    target = np.minimum(T, 0, out=out)
    cols = np.arange(T.shape[-1])
    target[..., y, cols] = np.maximum(T[..., y, cols], 1)
    return target


def fisher(t_sq, within_sq, overall_sq):
    """Eq. (11) from ``||T||^2``, ``||Mhat||^2`` and ``||M||^2``.

    ||T - Mhat||^2 = ||T||^2 - ||Mhat||^2 and ||Mhat - M||^2 = ||Mhat||^2 - ||M||^2.
    """
    return 2 * t_sq - 2 * within_sq + overall_sq


def objective(fit_sq, label_sq, q_sq, fisher_value, alpha, beta, lam):
    """Eq. (10) from its terms ``||Q X^T - T||^2``, ``||T - (H + B.S)||^2``,
    ``||Q||^2`` and Fisher(T), with the Fisher term weighted by ``lam``, the weight
    Eq. (14) uses."""
    return fit_sq + alpha * label_sq + beta * q_sq + lam * fisher_value


class Iteration(Protocol):
    """The state of one fit path and the steps :func:`run` asks of it.

    An iteration is ``sweep`` (T-step and S-step over every sample, with the class
    means of the new T) then ``solve`` (Q-step); ``objective`` and ``change`` are read
    after it. The products a path needs (``Q X^T``, ``T X``, class-mean reductions)
    stay inside its ``sweep`` and ``solve``, so that a path can fuse them in one pass
    over the data.
    """

    def sweep(self, alpha, lam, t_step):
        """T-step (14, or exact) and S-step (21) from the current Q and target."""

    def solve(self):
        """Q-step (16) from the T of the last sweep."""

    def objective(self, alpha, beta, lam):
        """Eq. (10) after the last solve, a float."""

    def change(self):
        """``||Q - Q_prev||_F^2`` over the last solve, a float."""


def run(it, alpha, beta, lam, max_iter, tol, t_step, callback=None):
    """Algorithm 1's loop on the :class:`Iteration` ``it``.

    Runs ``max_iter`` iterations, or fewer if ``tol`` is given and
    ``||Q - Q_prev||_F^2 < tol`` (step 4). ``callback(n_iter, objective)`` is called
    after every iteration. Returns the objective after each iteration (float64) and
    the number of iterations run.
    """
    values = []
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        it.sweep(alpha, lam, t_step)
        it.solve()
        values.append(it.objective(alpha, beta, lam))
        if callback is not None:
            callback(n_iter, values[-1])
        if tol is not None and it.change() < tol:
            break
    return np.asarray(values, dtype=np.float64), n_iter
