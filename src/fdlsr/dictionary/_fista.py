"""FISTA for l1-regularised smooth problems, and the step-size it needs.

Beck & Teboulle's fast iterative shrinkage-thresholding algorithm minimises
``f(X) + lam * ||X||_1`` for a convex ``f`` whose gradient is ``L``-Lipschitz. Every
sparse-coding step of FDDL and LRSDL is of this form, over a whole matrix of codes at
once (one column per sample), so one iteration is one matrix product.

The stopping rule is the one of Vu's DICTOL toolbox, which the FDLSR paper used for
both methods: stop once the mean absolute change of the iterate falls below ``tol``.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.sparse.linalg import eigsh

from .._common.linalg import blas_threads, single_threaded_lapack

# Below this size a dense symmetric eigensolver is as fast as Lanczos.
_DENSE_EIGEN_MAX = 300
# The elementwise part of an iteration runs on slabs of rows of about this many bytes
# per array: the slab's arrays stay in a core's cache from one operation to the next
# (half the memory traffic of whole-array passes), and threads share the slabs out.
_SLAB_BYTES = 2**18


def soft_threshold(V, threshold, out=None, scratch=None):
    """Elementwise ``sign(V) * max(|V| - threshold, 0)``: the prox of the l1 norm.

    ``scratch``, an array of V's shape, holds the clipped values if given.
    """
    clipped = np.clip(V, -threshold, threshold, out=scratch)
    return np.subtract(V, clipped, out=out)


def fista(grad, X0, lipschitz, lam, *, max_iter, tol, per_problem=False):
    """Minimise ``f(X) + lam * ||X||_1`` by FISTA, starting from ``X0``.

    Parameters
    ----------
    grad : callable
        ``grad(Y)`` returns the gradient of ``f`` at ``Y`` (same shape as ``X0``).
    X0 : ndarray
        Starting point (warm start); not modified.
    lipschitz : float
        An upper bound of the Lipschitz constant of ``grad``.
    lam : float or ndarray
        Weight of the l1 norm (a scalar or an array broadcasting against ``X0``).
    max_iter : int
        Maximum number of iterations; ``0`` returns a copy of ``X0``.
    tol : float
        Stop once ``mean(|X_k - X_{k-1}|) < tol``.
    per_problem : bool, default=False
        The leading axis of ``X0`` indexes independent problems (``grad`` acts on
        each slice alone): each one tests the rule on its own slice and is left as
        it is once it has met it, exactly as if it were solved alone.

    Returns
    -------
    X : ndarray
    n_iter : int
    """
    step = 1.0 / lipschitz
    threshold = np.multiply(lam, step)
    X = np.array(X0, copy=True)
    Y = X.copy()
    # Scratch for the clipped values and |X_new - X|: fresh arrays of the codes'
    # size at every iteration would cost as much as the arithmetic on them.
    scratch = np.empty_like(X)
    t = 1.0
    n_iter = 0
    if not per_problem and X.ndim == 2 and np.ndim(threshold) == 0 and X.size:
        return _fista_in_slabs(grad, X, Y, scratch, step, threshold, max_iter, tol)
    done = np.zeros(len(X) if per_problem else 0, dtype=bool)
    for n_iter in range(1, max_iter + 1):  # noqa: B007 (n_iter is returned)
        V = grad(Y)
        np.multiply(V, -step, out=V)
        V += Y
        X_new = soft_threshold(V, threshold, out=V, scratch=scratch)
        t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        if per_problem:
            X_new[done] = X[done]
        # X_new - X into X's memory (the old iterate is not needed any more).
        delta = np.subtract(X_new, X, out=X)
        magnitude = np.abs(delta, out=scratch)
        if not per_problem:
            change = magnitude.mean() if delta.size else 0.0
        elif delta.size:
            done |= magnitude.reshape(len(delta), -1).mean(axis=1) < tol
            change = 0.0 if done.all() else np.inf
        else:
            change = 0.0
        # Y = X_new + (t - 1) / t_new * (X_new - X), reusing delta's memory.
        delta *= (t - 1.0) / t_new
        delta += X_new
        X, Y, t = X_new, delta, t_new
        if change < tol:
            break
    return X, n_iter


def _fista_in_slabs(grad, X, Y, scratch, step, threshold, max_iter, tol):
    """:func:`fista`'s loop for one matrix of codes and a scalar threshold, with the
    elementwise part of each iteration done slab of rows by slab of rows (on
    :func:`~fdlsr._common.linalg.blas_threads` threads): the same operations on the
    same numbers, so the same iterates as whole-array passes."""
    rows = max(1, _SLAB_BYTES // (X.itemsize * X.shape[1]))
    slabs = [slice(i, min(i + rows, len(X))) for i in range(0, len(X), rows)]
    n_threads = min(blas_threads(), len(slabs))
    pool = ThreadPoolExecutor(n_threads) if n_threads > 1 else None
    t = 1.0
    n_iter = 0
    try:
        for n_iter in range(1, max_iter + 1):  # noqa: B007 (n_iter is returned)
            V = grad(Y)
            t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
            momentum = (t - 1.0) / t_new

            def update(slab, V=V, X=X, Y=Y, momentum=momentum):
                # V = prox(Y - step grad), X = |V - X| into scratch, then the next
                # point Y = V + momentum (V - X) into X's memory.
                v, x = V[slab], X[slab]
                np.multiply(v, -step, out=v)
                v += Y[slab]
                soft_threshold(v, threshold, out=v, scratch=scratch[slab])
                delta = np.subtract(v, x, out=x)
                np.abs(delta, out=scratch[slab])
                delta *= momentum
                delta += v

            if pool is None:
                for slab in slabs:
                    update(slab)
            else:
                list(pool.map(update, slabs))
            change = scratch.mean()  # over the whole array, as in one pass
            X, Y, t = V, X, t_new
            if change < tol:
                break
    finally:
        if pool is not None:
            pool.shutdown()
    return X, n_iter


def top_eigenvalues(S):
    """Largest eigenvalue of each of a stack of small symmetric PSD matrices."""
    if S.shape[-1] == 0:
        return np.zeros(S.shape[:-2])
    if S.shape[-1] <= _DENSE_EIGEN_MAX:
        values = np.linalg.eigvalsh(S)[..., -1]
    else:
        values = np.array([top_eigenvalue(M) for M in S])
    return np.maximum(values, 0.0) * (1.0 + 1e-9) + 1e-300


def top_eigenvalue(S):
    """Largest eigenvalue of a symmetric positive semidefinite matrix ``S``.

    Lanczos (ARPACK) for large matrices, a dense solver for small ones; the result is
    inflated by a relative 1e-9 so that it bounds the true value despite rounding.
    """
    n = S.shape[0]
    if n == 0:
        return 0.0
    if n <= _DENSE_EIGEN_MAX:
        value = np.linalg.eigvalsh(S)[-1]
    else:
        v0 = np.ones(n) / np.sqrt(n)
        with single_threaded_lapack():
            value = eigsh(
                S, k=1, which="LA", tol=1e-10, v0=v0, return_eigenvectors=False
            )[0]
    return float(max(value, 0.0)) * (1.0 + 1e-9) + 1e-300
