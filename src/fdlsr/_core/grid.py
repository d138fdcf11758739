"""Many FDLSR problems on one training set at once: the numerical core of FDLSRCV.

For a fixed training set every ridge solve of Algorithm 1 is ``fitted = T P_beta`` with
the hat matrix ``P_beta = X (X^T X + beta I)^-1 X^T``. One eigendecomposition of the
Gram matrix serves every beta, since beta only shifts its spectrum:

* dual (``K = X X^T = U diag(s) U^T``): ``P_beta = U diag(s / (s + beta)) U^T``;
* primal (``X^T X = V diag(s) V^T``, ``Z = X V``): ``P_beta = Z diag(1 / (s + beta)) Z^T``.

alpha and lambda do not enter the system at all, so the relaxed labels of all the
(alpha, lambda) pairs of a grid stack into one tall matrix and each iteration is a
single large matrix product ``[T_1; ...; T_g] P_beta`` followed by the O(c n)
elementwise T-step of each pair, done in place while its block is hot in cache.

The pairs are independent, so with several cores they are split into one group per
BLAS thread, each iterated by its own Python thread with single-threaded BLAS: the
elementwise steps then run on every core too, and no BLAS thread waits at a barrier
for a partner that the operating system has descheduled (on a shared machine).

The T-step's per-class term and divisor and the S-step are those of every fit path
(:mod:`fdlsr._core.iteration`). The loop is not ``iteration.run``: the pairs advance in
lockstep through one stacked product per iteration (one large matrix product instead
of a c x n by n x n product per pair), with no objective and no stopping rule (the
search runs ``max_iter`` iterations at every grid point, as the authors' code does).
Nor are the whole-array T-steps called: the step is written in place into the stack
and scales by the reciprocal of the divisor, a multiplication five times cheaper than
the division that ``iteration.t_step_paper`` (the authors' code) performs; the results
agree to rounding.

Nothing here knows about estimators or cross-validation.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._common.class_means import ClassMeans, DenseClassMeans, one_hot
from .._common.compat import _max_precision_float_dtype, device, get_namespace
from .._common.linalg import blas_threads
from .._common.linalg import single_threaded_lapack as _single_threaded_lapack
from .iteration import class_shift, relaxed_target, t_divisor


class HatOperators:
    """``P_beta``, ``Q`` and projections of other samples for any beta, from one
    eigendecomposition of the Gram matrix of ``X`` (n x d).

    ``form`` is ``"dual"`` (decompose the n x n ``X X^T``) or ``"primal"`` (the d x d
    ``X^T X``). In both forms, with ``w = 1 / (s + beta)``,
    ``Q = T (basis * w) coef_basis^T`` and ``Q X^T = T (basis * w) fit_basis^T``.
    The decomposition runs in float64 (the device's highest precision for other
    array namespaces, on ``X``'s device); operators are returned in ``dtype``.
    """

    def __init__(self, X, form, dtype=None):
        xp, _ = get_namespace(X)
        self.xp = xp
        self.numpy = isinstance(X, np.ndarray)
        self.high = _max_precision_float_dtype(xp, device(X))
        self.dtype = X.dtype if dtype is None else dtype
        X64 = xp.astype(X, self.high)
        if form == "dual":
            s, U = xp.linalg.eigh(X64 @ X64.T)
            s = xp.clip(s, min=0.0)
            self.basis, self.coef_basis, self.fit_basis = U, X64.T @ U, U * s
        else:
            s, V = xp.linalg.eigh(X64.T @ X64)
            s = xp.clip(s, min=0.0)
            Z = X64 @ V
            self.basis, self.coef_basis, self.fit_basis = Z, V, Z
        self.spectrum = s
        self.form = form

    def _weighted(self, ridge):
        return self.basis * (1 / (self.spectrum + float(ridge)))

    def fitted(self, ridge):
        """A function ``T -> T P_ridge`` for ``T`` of shape (rows, n_samples); NumPy
        takes an ``out`` array.

        The n x n matrix is formed when that is cheaper per product (``n <= 2 r``,
        r the rank of the basis); otherwise the product is applied in factored form.
        """
        xp = self.xp
        n, r = self.basis.shape
        if n <= 2 * r:
            P = xp.astype(self._weighted(ridge) @ self.fit_basis.T, self.dtype)
            if not self.numpy:
                return lambda T: T @ P
            return lambda T, out=None: np.matmul(T, P, out=out)
        B = xp.astype(self._weighted(ridge), self.dtype)
        F = xp.astype(self.fit_basis.T, self.dtype)
        if not self.numpy:
            return lambda T: (T @ B) @ F
        F = np.ascontiguousarray(F)
        return lambda T, out=None: np.matmul(T @ B, F, out=out)

    def readout(self, ridge, X_other):
        """``W`` (n x m) with ``Q X_other^T = T W`` for the Q of relaxed labels T."""
        other = self.xp.astype(X_other, self.high) @ self.coef_basis
        return self.xp.astype(self._weighted(ridge) @ other.T, self.dtype)

    def coef(self, ridge):
        """``C`` (n x d) with ``Q = T C``."""
        return self.xp.astype(self._weighted(ridge) @ self.coef_basis.T, self.dtype)


def _t_step(T, fitted, target, m, means, alpha, lam, t_step):
    """The T-step of one grid point, written into ``T``: ``iteration.t_step_paper`` or
    ``iteration.t_step_exact`` in place, with their per-class term and divisor."""
    np.multiply(target, alpha, out=T)
    T += fitted
    scale = 1 / t_divisor(alpha, lam)
    if t_step == "paper":  # the term from the previous T's means, then the scale
        means.add_spread(T, class_shift(m, means.overall(m), alpha, lam, t_step))
        T *= scale
    else:  # the term from the means of V itself, added after the scale
        mV = means.of(T)
        shift = class_shift(mV, means.overall(mV), alpha, lam, t_step)
        T *= scale
        means.add_spread(T, shift)


def fit_grid(
    fitted_op, init_fitted, y, n_classes, alphas, lams, *, max_iter, t_step, start=None
):
    """Algorithm 1 for every pair ``(alphas[j], lams[j])`` on one training set.

    Same iterations as ``solver.fit_fdlsr`` without the objective. With ``start``,
    a ``(T, fitted)`` returned by an earlier call with the same operator and pairs,
    ``max_iter`` more iterations run from there: the S-step's target and the class
    means are functions of T, so the result is that of one call with the iterations
    of both, and the product the earlier call ended with is not computed again.

    Parameters
    ----------
    fitted_op : callable
        ``fitted_op(T, out)`` writes ``T P_beta`` for the stacked relaxed labels
        (see :meth:`HatOperators.fitted`).
    init_fitted : ndarray of shape (n_classes, n_samples)
        ``H P_init``, the initial ``Q X^T`` shared by every pair (not used with
        ``start``).
    y : ndarray of shape (n_samples,)
        Class codes ``0 .. n_classes - 1``.
    n_classes : int
        Number of classes.
    alphas, lams : sequence of float
        alpha and lambda of each pair, same length.
    max_iter : int
        Iterations to run.
    t_step : {"paper", "exact"}
        The T-step's form (:mod:`fdlsr._core.iteration`).
    start : tuple of ndarray or None
        State to continue from; its arrays may be overwritten.

    Returns
    -------
    T, fitted : ndarray of shape (n_pairs, n_classes, n_samples)
        The final relaxed labels (``Q_j = T_j C``) and ``Q_j X^T``.
    """
    g, n = len(alphas), y.shape[0]
    dtype = init_fitted.dtype
    means = ClassMeans(y, n_classes, dtype)
    if start is not None:
        T, fitted = start
        if max_iter == 0:
            return T, fitted
        target = relaxed_target(T, y)
        m = np.empty((g, n_classes, n_classes), dtype=dtype)
        for j in range(g):
            m[j] = means.of(T[j])
    else:
        H = one_hot(y, n_classes, dtype)
        T = np.empty((g, n_classes, n), dtype=dtype)
        T[:] = H
        if max_iter == 0:
            return T, np.broadcast_to(init_fitted, T.shape).copy()
        fitted = np.empty_like(T)
        fitted[:] = init_fitted
        target = T.copy()
        m = np.empty((g, n_classes, n_classes), dtype=dtype)
        m[:] = means.of(H)
    for iteration in range(max_iter):
        if iteration:
            fitted_op(T.reshape(g * n_classes, n), out=fitted.reshape(g * n_classes, n))
        for j in range(g):
            Tj, tj = T[j], target[j]
            _t_step(Tj, fitted[j], tj, m[j], means, alphas[j], lams[j], t_step)
            relaxed_target(Tj, y, out=tj)  # S-step (Eq. 21), in place
            m[j] = means.of(Tj)
    fitted_op(T.reshape(g * n_classes, n), out=fitted.reshape(g * n_classes, n))
    return T, fitted


def fit_grid_threaded(
    fitted_op, init_fitted, y, n_classes, alphas, lams, *, max_iter, t_step, start=None
):
    """:func:`fit_grid` with the pairs split over as many threads as BLAS would use,
    each with single-threaded BLAS (see the module notes); same results.

    Parameters
    ----------
    fitted_op, init_fitted, y, n_classes, alphas, lams, max_iter, t_step, start
        As for :func:`fit_grid`.

    Returns
    -------
    T, fitted : ndarray of shape (n_pairs, n_classes, n_samples)
        As :func:`fit_grid`'s.
    """
    n_threads = min(blas_threads(), len(alphas))
    if n_threads <= 1:
        return fit_grid(
            fitted_op, init_fitted, y, n_classes, alphas, lams,
            max_iter=max_iter, t_step=t_step, start=start,
        )  # fmt: skip
    groups = np.array_split(np.arange(len(alphas)), n_threads)

    def run(g):
        part = None if start is None else tuple(a[g] for a in start)
        return fit_grid(
            fitted_op, init_fitted, y, n_classes, alphas[g], lams[g],
            max_iter=max_iter, t_step=t_step, start=part,
        )  # fmt: skip

    with _single_threaded_lapack(), ThreadPoolExecutor(n_threads) as pool:
        results = list(pool.map(run, groups))
    return tuple(np.concatenate(parts) for parts in zip(*results, strict=True))


def fit_grid_batched(
    fitted_op, init_fitted, y, n_classes, alphas, lams, *, max_iter, t_step, start=None
):
    """:func:`fit_grid` in any array-API namespace, on the arrays' device.

    ``fitted_op(T)`` computes ``T P_beta``; ``init_fitted`` and the codes ``y`` are
    arrays of that namespace, ``alphas`` and ``lams`` host floats. The T-step and
    S-step of all pairs are whole (pairs, c, n) operations (one kernel each on a
    device, where a Python loop over pairs would launch many small ones); the steps
    are those of :mod:`fdlsr._core.iteration`, with alpha and lambda broadcast per pair.

    Parameters
    ----------
    fitted_op : callable
        ``fitted_op(T)`` returns ``T P_beta``.
    init_fitted, y : arrays of the namespace
        As for :func:`fit_grid`.
    n_classes, alphas, lams
        As for :func:`fit_grid` (``alphas`` and ``lams`` host floats).
    max_iter, t_step, start
        As for :func:`fit_grid`.

    Returns
    -------
    T, fitted : arrays of shape (n_pairs, n_classes, n_samples)
        As :func:`fit_grid`'s, in the namespace and on the device of the inputs.
    """
    xp, _ = get_namespace(init_fitted)
    dtype, dev = init_fitted.dtype, device(init_fitted)
    g, n = len(alphas), y.shape[0]
    means = DenseClassMeans(y, n_classes, dtype)
    alpha, lam = (
        xp.reshape(
            xp.asarray([float(v) for v in values], dtype=dtype, device=dev), (g, 1, 1)
        )
        for values in (alphas, lams)
    )
    if start is not None:
        T, fitted = start
        if max_iter == 0:
            return T, fitted
        target, m = relaxed_target(T, y), means.of(T)
    else:
        H = one_hot(y, n_classes, dtype)
        T = xp.broadcast_to(H, (g, n_classes, n))
        fitted = xp.broadcast_to(init_fitted, (g, n_classes, n))
        target, m = T, xp.broadcast_to(means.of(H), (g, n_classes, n_classes))
    for iteration in range(max_iter):
        if iteration:
            fitted = xp.reshape(fitted_op(xp.reshape(T, (g * n_classes, n))), T.shape)
        V = alpha * target + fitted
        if t_step == "paper":
            shift = class_shift(m, means.overall(m), alpha, lam, t_step)
            T = means.spread(shift) + V
            T = T / t_divisor(alpha, lam)
        else:
            mV = means.of(V)
            shift = class_shift(mV, means.overall(mV), alpha, lam, t_step)
            T = V / t_divisor(alpha, lam) + means.spread(shift)
        target = relaxed_target(T, y)
        m = means.of(T)
    if max_iter:
        fitted = xp.reshape(fitted_op(xp.reshape(T, (g * n_classes, n))), T.shape)
    if start is not None:
        return T, fitted
    return xp.asarray(T, copy=True), xp.asarray(fitted, copy=True)


def search_grid(
    fitted_op, init_fitted, y, n_classes, alphas, lams, *, max_iter, t_step, start=None
):
    """The grid's iterations where the arrays live: NumPy's threaded in-place loop
    (:func:`fit_grid_threaded`) or, for other namespaces, :func:`fit_grid_batched`."""
    run = fit_grid_threaded if isinstance(init_fitted, np.ndarray) else fit_grid_batched
    return run(
        fitted_op, init_fitted, y, n_classes, alphas, lams,
        max_iter=max_iter, t_step=t_step, start=start,
    )  # fmt: skip
