"""Multinomial logistic regression by L-BFGS, the steps of scikit-learn's ``lbfgs``,
on samples given by a triangular factor.

scikit-learn's ``LogisticRegression(solver="lbfgs")`` with three classes or more
minimises, over the weights ``W`` (classes x features) and intercepts ``b``,

    mean_i [log sum_c exp(z_ic) - z_i,y_i] + ||W||_F^2 / (2 C n),   z_i = W x_i + b,

by SciPy's L-BFGS-B from zero (``maxls=50``, ``gtol=tol``, ``ftol=64 eps``, 10
correction pairs). Without bounds, L-BFGS-B's step is the textbook L-BFGS step
``-H g`` (the two-loop recursion, ``H_0 = s'y / y'y`` of the newest pair, a pair
skipped when ``s'y <= eps |g_old' s|``), its line search is MINPACK-2's ``dcsrch``
(``ftol=1e-3``, ``gtol=0.9``, ``xtol=0.1``, first step ``1 / ||g||``, then 1), a failed
search restarts from the gradient with the memory cleared, and it stops on the
largest gradient entry (``<= tol``), on the relative decrease of the objective or
on ``max_iter`` steps. :func:`fit_multinomial_lbfgs` takes the same steps, so it
stops where scikit-learn does up to rounding (the order of the sums differs), at
less cost per step: L-BFGS-B's bookkeeping for bounds (about half of scikit-learn's
time on FERET's folds) is gone, and the samples ``X = R^T`` (the samples' span
coordinates, ``R`` from a QR factorisation) enter as a triangular factor, whose
products cost half a full one's.
"""

import numpy as np
from scipy.linalg import blas

from .._common.compat import DCSRCH

_MEMORY = 10  # L-BFGS-B's correction pairs (SciPy's maxcor default)
_MAX_LINE_SEARCH = 50  # scikit-learn's maxls
_RELATIVE_DECREASE = 64 * np.finfo(float).eps  # scikit-learn's ftol
_EPS = np.finfo(float).eps


def fit_multinomial_lbfgs(triangle, codes, n_classes, *, C, tol, max_iter):
    """Weights and intercepts of scikit-learn's multinomial ``lbfgs`` fit.

    Parameters
    ----------
    triangle : ndarray of shape (n_features, n_samples), upper triangular
        The samples are its transpose's rows (``X = triangle.T``; ``n_features <=
        n_samples`` rows, e.g. the ``R`` of ``X^T = Q R``).
    codes : ndarray of shape (n_samples,)
        Class of each sample, in ``0 .. n_classes - 1``.
    n_classes : int
        At least 3 (scikit-learn fits two classes as one binomial problem).
    C : float
        Inverse of the penalty's strength.
    tol : float
        Stop when no gradient entry is larger.
    max_iter : int
        Stop after this many steps.

    Returns
    -------
    weights : ndarray of shape (n_classes, n_features)
    intercepts : ndarray of shape (n_classes,)
    n_iter : int
        Steps taken (``max_iter`` when it stopped there).
    """
    p, n = triangle.shape
    R = np.asfortranarray(triangle, dtype=np.float64)
    samples = np.arange(n)
    penalty = 1.0 / (C * n)

    def loss_gradient(x):
        # x holds W^T (p x K) then b, the order scikit-learn ravels its coef in
        V = x.reshape(p + 1, n_classes)
        raw = blas.dtrmm(1.0, R, V[:p].T, side=1).T  # X W^T, n x K
        raw += V[p]
        largest = raw.max(axis=1)
        residual = np.subtract(raw, largest[:, None])
        np.exp(residual, out=residual)
        sums = residual.sum(axis=1)
        loss = (np.sum(largest + np.log(sums)) - raw[samples, codes].sum()) / n
        loss += 0.5 * penalty * np.vdot(V[:p], V[:p])
        residual /= sums[:, None]
        residual[samples, codes] -= 1.0  # softmax - onehot
        gradient = np.empty_like(V)
        gradient[:p] = blas.dtrmm(1.0 / n, R, residual.T, side=1, trans_a=1).T
        gradient[:p] += penalty * V[:p]
        gradient[p] = residual.sum(axis=0) / n
        return loss, gradient.ravel()

    x = np.zeros((p + 1) * n_classes)
    f, g = loss_gradient(x)
    n_iter = 0
    pairs = []  # (s, y, s'y), oldest first
    while np.max(np.abs(g)) > tol:
        d = -g if not pairs else -_two_loop(g, pairs)
        step = min(1.0 / np.linalg.norm(d), 1e10) if n_iter == 0 else 1.0
        found = _line_search(loss_gradient, x, f, g, d, step)
        if found is None:  # L-BFGS-B's recovery: forget the pairs, or give up
            if not pairs:
                break
            pairs.clear()
            continue
        step, x_new, f_new, g_new = found
        n_iter += 1
        if n_iter >= max_iter:
            x, f, g = x_new, f_new, g_new
            break
        decrease = f - f_new
        if decrease <= _RELATIVE_DECREASE * max(abs(f), abs(f_new), 1.0):
            x, f, g = x_new, f_new, g_new
            break
        # s'y as L-BFGS-B forms it, from the directional derivatives
        slope_old, slope_new = np.dot(g, d), np.dot(g_new, d)
        curvature = (slope_new - slope_old) * step
        if curvature > _EPS * (-slope_old * step):
            pairs.append((step * d, g_new - g, curvature))
            if len(pairs) > _MEMORY:
                pairs.pop(0)
        x, f, g = x_new, f_new, g_new
    V = x.reshape(p + 1, n_classes)
    return V[:p].T.copy(), V[p].copy(), n_iter


def _two_loop(g, pairs):
    """``H g`` for the L-BFGS inverse Hessian of ``pairs``, ``H_0 = s'y / y'y``."""
    q = g.copy()
    alphas = []
    for s, y, sy in reversed(pairs):
        alpha = np.dot(s, q) / sy
        blas.daxpy(y, q, a=-alpha)  # in place: q -= alpha y
        alphas.append(alpha)
    s, y, sy = pairs[-1]
    q *= sy / np.dot(y, y)
    for (s, y, sy), alpha in zip(pairs, reversed(alphas), strict=True):
        beta = np.dot(y, q) / sy
        blas.daxpy(s, q, a=alpha - beta)
    return q


def _line_search(loss_gradient, x, f, g, d, step):
    """MINPACK-2's ``dcsrch`` from ``x`` along ``d`` as L-BFGS-B drives it:
    ``(step, x, f, g)`` at the accepted step (its convergence or its warning), or
    None where L-BFGS-B would restart (not a descent direction, an error, or
    ``maxls`` evaluations)."""
    slope = np.dot(g, d)
    if slope >= 0:
        return None
    search = DCSRCH(None, None, 1e-3, 0.9, 0.1, 0.0, 1e10)
    task, value, derivative, evaluations = b"START", f, slope, 0
    point = None
    while True:
        step, _, _, task = search._iterate(step, value, derivative, task)
        if task[:4] in (b"CONV", b"WARN"):
            return None if point is None else point
        if task[:2] != b"FG" or evaluations >= _MAX_LINE_SEARCH:
            return None
        x_new = x + step * d
        value, g_new = loss_gradient(x_new)
        derivative = np.dot(g_new, d)
        evaluations += 1
        point = (step, x_new, value, g_new)
