"""Algorithm 1 in the primal form, one pass over blocks of samples per iteration.

For many samples the c x n matrices of :func:`fdlsr._core.dense.fit_fdlsr` (T, Q X^T, the
relaxed target) no longer fit in memory, while everything the iteration needs from
the data is small: with samples as rows of ``X`` (n x d) and ``C = (X^T X + beta I)^-1``,

    Q_k = P_k C,    P_k = T_k X (c x d),

and the only per-sample state carried from one iteration to the next is the relaxed
target ``H + B.S`` (n x c, kept block by block beside X). One pass over the blocks
computes, for each block b of samples,

    Q X_b^T  ->  T_b (Eq. 14, or the exact step)  ->  target_b = relaxed(T_b)

and accumulates ``P += T_b^T X_b``, the class sums of T_b and the norms that the
objective needs, so that an iteration reads X once and costs two products with it
(4 c n d flops), as the in-memory primal form. The objective (10) follows from small
matrices: ``||Q X^T - T||^2 = <Q G, Q> - 2 <Q, P> + ||T||^2`` with ``G = X^T X``.

The exact T-step needs the class means of ``V = Q X^T + alpha target`` before the
pass; they are ``Q Xbar^T + alpha m_target`` with ``Xbar`` the class means of X,
known from the first pass.

The iteration is that of :mod:`fdlsr._core.iteration` (its loop, objective and
stopping rule run by ``iteration.run``), with :class:`BlockState` as its state. What
cannot be shared with the whole-array steps is where the T-step is applied: here it
is fused into the pass, on cache-sized pieces with samples as rows in class order
(``Q X_b^T``, the T-step, the S-step and the reductions of each piece while it is in
cache), so that no c x n array exists. The pass still takes its formulas from
:mod:`fdlsr._core.iteration`: the per-class term (``class_shift``, computed once per
iteration on the driver), the divisor (``t_divisor``, applied as a multiplication by
its reciprocal) and the S-step (``relaxed_target``). The block functions are pure and
shared by the in-memory loop here and by the Dask graph of :mod:`fdlsr._core.dask_graph`.
"""

import logging
import time

import numpy as np
import scipy.sparse as sp

from .._common.class_means import one_hot
from .._common.compat import (
    _convert_to_numpy,
    _max_precision_float_dtype,
    device,
    get_namespace,
)
from .._common.linalg import RidgeSystem, sq_norm_on_device
from .iteration import class_shift, fisher, objective, relaxed_target, run, t_divisor

logger = logging.getLogger(__name__)


def _indicator(yb, n_classes, dtype):
    """Sparse c x n_b class-membership matrix of a block."""
    ones = np.ones(yb.shape[0], dtype=dtype)
    return sp.csr_array(
        (ones, (yb, np.arange(yb.shape[0]))), shape=(n_classes, yb.shape[0])
    )


def block_stats(Xb, yb, n_classes):
    """First pass: ``X_b^T X_b`` and the class sums of X_b (c x d), in float64.

    The Gram matrix is accumulated in float64 even for float32 data: it is formed
    once, and a small ridge (1e-4) is close to the rounding of a float32 Gram.
    """
    X64 = Xb.astype(np.float64, copy=False)
    sums = _indicator(yb, n_classes, np.float64) @ X64
    return {
        "gram": X64.T @ X64,
        "class_sums": sums,
        "counts": np.bincount(yb, minlength=n_classes),
        "nonfinite": int(np.count_nonzero(~np.isfinite(X64))),
    }


def block_step(Xb, yb, target_b, Q, shift, alpha, lam, t_step, out=None):
    """One iteration on a block: new target block and partial sums.

    ``target_b`` is the previous relaxed target (n_b x c) or ``None`` for the one-hot
    initial one; its rows are the block's samples *in class order* (the stable sort
    of ``yb``), an internal layout that only this function reads and writes.
    ``shift`` (c x c, row k = class k) is what the T-step adds to the samples of class
    k before scaling (see :meth:`BlockState.shift`); ``t_step`` needs nothing more.
    Returns the new target block (written to ``out`` if given, which may be
    ``target_b`` itself) and a dict of partial sums (float64).

    The block is processed in cache-sized pieces, so a block (a Dask chunk, say) may
    be large. Visiting the samples in class order makes each piece a few runs of one
    class: the per-class shift is a broadcast per run, and the class sums are one
    small product with the run indicator, where a sparse product or ``reduceat``
    over scattered rows costs several times more.
    """
    n_b, c = Xb.shape[0], Q.shape[0]
    new_target = np.empty((n_b, c), dtype=Xb.dtype) if out is None else out
    order = np.argsort(yb, kind="stable")
    y_sorted = yb[order]
    in_order = bool(np.all(order[1:] > order[:-1]))
    P = np.zeros((c, Xb.shape[1]))
    class_sums = np.zeros((c, c))
    target_sums = np.zeros((c, c))
    t_sq = label_sq = 0.0
    step = default_block_rows(c, Xb.dtype.itemsize)
    scale = 1 / t_divisor(alpha, lam)  # both steps: see BlockState.shift
    for start in range(0, n_b, step):
        rows = slice(start, min(start + step, n_b))
        X_piece = Xb[rows] if in_order else Xb[order[rows]]
        y_piece = y_sorted[rows]
        first = np.flatnonzero(np.r_[True, y_piece[1:] != y_piece[:-1]])
        runs = np.diff(np.r_[first, y_piece.shape[0]])
        present = y_piece[first]
        # T-step (Eq. 14, or the exact step through ``shift``)
        T = X_piece @ Q.T  # (Q X_b^T)^T, samples as rows
        if target_b is None:
            T[np.arange(T.shape[0]), y_piece] += alpha
        else:
            T += alpha * target_b[rows]
        for k, a, b in zip(present, first, first + runs, strict=True):
            T[a:b] += shift[k]
        T *= scale
        # S-step: the new relaxed target H + B.S, written into the target's rows
        new = new_target[rows]
        relaxed_target(T.T, y_piece, out=new.T)

        P += T.T @ X_piece
        run_indicator = np.zeros((present.shape[0], T.shape[0]), dtype=T.dtype)
        run_of = np.repeat(np.arange(present.shape[0]), runs)
        run_indicator[run_of, np.arange(T.shape[0])] = 1
        class_sums[present] += run_indicator @ T
        target_sums[present] += run_indicator @ new
        t_sq += float(np.vdot(T, T))
        np.subtract(T, new, out=T)  # the label residual T - (H + B.S)
        label_sq += float(np.vdot(T, T))
    return new_target, {
        "P": P,
        # row k: sum over the samples of class k
        "class_sums": class_sums,
        "target_sums": target_sums,
        "t_sq": t_sq,
        "label_sq": label_sq,
    }


def add_partials(a, b):
    """Sum of two partial-sum dicts (for reductions over blocks)."""
    return {k: a[k] + b[k] for k in a}


class BlockState:
    """The driver's side of the blocked iteration: everything of size c x c or d x d.

    Built from the first-pass statistics (``gram``, ``class_sums`` of X, class
    counts). It is the :class:`~fdlsr._core.iteration.Iteration` of the blocked paths
    but for the pass over the samples, ``_pass(Q, shift, alpha, lam, t_step)`` (which
    returns the summed partials of :func:`block_step`): :class:`BlockedIteration`
    here, :class:`fdlsr._core.dask_graph.DaskIteration` on a Dask array.
    """

    def __init__(self, stats, beta, init_ridge, dtype):
        counts = stats["counts"]
        self.counts = counts.astype(np.float64)
        self.n = counts.sum()
        self.weights = self.counts / self.n
        self.gram = stats["gram"]
        self.x_means = stats["class_sums"] / self.counts[:, None]
        self.dtype = dtype
        ridge = RidgeSystem(self.gram, beta, repeated=True)
        init = RidgeSystem(self.gram, init_ridge, repeated=False)
        # Q0 = H X (X^T X + init_ridge I)^-1; H X are the class sums of X.
        self.Q = init.right_solve(stats["class_sums"])
        self.Q_prev = None
        self.system = ridge
        self.beta = beta
        self.m = np.eye(len(counts))  # class means of T0 = H, one column per class
        self.m_target = self.m
        self.partial = None

    def shift(self, alpha, lam, t_step):
        """The per-class term of the T-step, row k for class k, in the data dtype.

        Paper (Eq. 14): from the means of the previous T. Exact: from the means of
        ``V = Q X^T + alpha target``, pre-multiplied by ``1 + alpha + 2 lam`` since
        the block step adds it before dividing (see ``iteration.class_shift``).
        """
        if t_step == "paper":
            m = self.m
        else:
            m = self.Q @ self.x_means.T + alpha * self.m_target
        shift = class_shift(m, m @ self.weights, alpha, lam, t_step)
        if t_step != "paper":
            shift *= t_divisor(alpha, lam)
        return np.ascontiguousarray(shift.T, dtype=self.dtype)

    def sweep(self, alpha, lam, t_step):
        Q = self.Q.astype(self.dtype)
        shift = self.shift(alpha, lam, t_step)
        self.partial = self._pass(Q, shift, alpha, lam, t_step)

    def solve(self):
        partial = self.partial
        self.Q_prev = self.Q
        self.Q = self.system.right_solve(partial["P"])
        self.m = partial["class_sums"].T / self.counts
        self.m_target = partial["target_sums"].T / self.counts

    def objective(self, alpha, beta, lam):
        """Eq. (10) from small matrices: ``||Q X^T - T||^2 = <Q G, Q> - 2 <Q, P> +
        ||T||^2`` with ``G = X^T X``, and the class means of T."""
        partial = self.partial
        Q = self.Q.astype(np.float64)
        fit_sq = (
            float(np.vdot(Q @ self.gram, Q))
            - 2 * float(np.vdot(Q, partial["P"]))
            + partial["t_sq"]
        )
        mean = self.m @ self.weights
        fisher_value = fisher(
            partial["t_sq"],
            float(np.sum(self.m * self.m, axis=0) @ self.counts),
            float(self.n * (mean @ mean)),
        )
        q_sq = float(np.vdot(Q, Q))
        return objective(
            fit_sq, partial["label_sq"], q_sq, fisher_value, alpha, beta, lam
        )

    def change(self):
        return float(np.sum((self.Q.astype(np.float64) - self.Q_prev) ** 2))

    def coef(self):
        return self.Q.astype(self.dtype)


class BlockedIteration(BlockState):
    """The blocked iteration on an in-memory ``X``: the first pass in blocks of
    ``block_rows`` rows (float64 copies), then each sweep one :func:`block_step`
    over all samples, updating the relaxed target (n x c, X's dtype) in place."""

    def __init__(self, X, y, n_classes, *, beta, init_ridge, block_rows=None):
        n = X.shape[0]
        block_rows = block_rows or 16 * default_block_rows(n_classes, X.dtype.itemsize)
        stats = None
        for i in range(0, n, block_rows):
            b = slice(i, min(i + block_rows, n))
            part = block_stats(X[b], y[b], n_classes)
            stats = part if stats is None else add_partials(stats, part)
        super().__init__(stats, beta, init_ridge, X.dtype)
        self.X, self.y, self.target = X, y, None

    def _pass(self, Q, shift, alpha, lam, t_step):
        # In class order, pieces of block_step; the target is updated in place.
        self.target, total = block_step(
            self.X, self.y, self.target, Q, shift, alpha, lam, t_step, self.target
        )
        return total


class DeviceBlockedIteration(BlockState):
    """The blocked iteration on an array of any array-API namespace (PyTorch, CuPy,
    array-api-strict): the passes run on X's device, ``block_rows`` samples at a time
    in their given order, and the driver's c x c and d x d matrices stay in NumPy
    (float64), as for a Dask array. Memory on the device: X, the relaxed target
    (n x c, X's dtype) and a few block_rows x c temporaries; X is never copied.

    Each block applies the same formulas as :func:`block_step` with the one-hot
    labels of the block (block_rows x c) in place of the runs of one class, and the
    partial sums are accumulated on the device in its highest precision. A class sum
    over one-hot labels is a product of 2 n c^2 flops, as much as the two products
    with X together when c = 2d; the class sums of T need none, since T is linear in
    what is known (see :meth:`_t_class_sums`): only those of the relaxed target are
    products.
    """

    def __init__(self, X, y, n_classes, *, beta, init_ridge, block_rows=None):
        xp, _ = get_namespace(X)
        self.xp, self.dev = xp, device(X)
        self.high = _max_precision_float_dtype(xp, self.dev)
        self.X, self.y, self.n_classes = X, y, n_classes
        self.block_rows = block_rows or max(256, 2**24 // max(n_classes, X.shape[1]))
        gram = xp.zeros((X.shape[1], X.shape[1]), dtype=self.high, device=self.dev)
        class_sums = xp.zeros((n_classes, X.shape[1]), dtype=self.high, device=self.dev)
        for rows in self._blocks():
            Xb = xp.astype(X[rows, ...], self.high)
            gram += Xb.T @ Xb
            class_sums += self._labels(rows, self.high).T @ Xb
        counts = np.bincount(_convert_to_numpy(y, xp), minlength=n_classes)
        stats = {"gram": self._host(gram), "class_sums": self._host(class_sums)}
        super().__init__({**stats, "counts": counts}, beta, init_ridge, np.float64)
        self.x_sums = stats["class_sums"]
        self.target = None  # allocated by the first pass
        self.target_sums = np.diag(self.counts)  # of the one-hot initial target

    def _blocks(self):
        n = self.X.shape[0]
        for start in range(0, n, self.block_rows):
            yield slice(start, min(start + self.block_rows, n))

    def _labels(self, rows, dtype):
        """The one-hot labels of a block, block_rows x c."""
        return one_hot(self.y[rows], self.n_classes, dtype).T

    def _host(self, a):
        return np.asarray(_convert_to_numpy(a, self.xp), dtype=np.float64)

    def _device(self, a):
        return self.xp.asarray(a, dtype=self.X.dtype, device=self.dev)

    def coef(self):
        return self._device(self.Q)

    def _pass(self, Q, shift, alpha, lam, t_step):
        xp, X, high = self.xp, self.X, self.high
        if self.target is None:
            self.target = xp.empty(
                (X.shape[0], self.n_classes), dtype=X.dtype, device=self.dev
            )
            first = True
        else:
            first = False
        Q_dev, shift_dev = self._device(Q), self._device(shift)
        scale = 1 / t_divisor(alpha, lam)
        c = self.n_classes
        P = xp.zeros((c, X.shape[1]), dtype=high, device=self.dev)
        target_sums = xp.zeros((c, c), dtype=high, device=self.dev)
        # norms summed on the device: no host synchronisation per block
        t_sq = xp.zeros((), dtype=high, device=self.dev)
        label_sq = xp.zeros((), dtype=high, device=self.dev)
        for rows in self._blocks():
            Xb, labels = X[rows, ...], self._labels(rows, X.dtype)
            # T-step (Eq. 14, or the exact step through ``shift``), samples as rows
            T = Xb @ Q_dev.T
            T += alpha * (labels if first else self.target[rows, ...])
            T += xp.take(shift_dev, self.y[rows], axis=0)
            T *= scale
            # S-step: the new relaxed target H + B.S
            new = xp.where(labels > 0, xp.clip(T, min=1.0), xp.clip(T, max=0.0))
            self.target[rows, ...] = new
            P += xp.astype(T.T @ Xb, high)
            target_sums += xp.astype(labels.T @ new, high)
            t_sq += sq_norm_on_device(T, xp, high)
            new -= T  # the label residual, sign aside
            label_sq += sq_norm_on_device(new, xp, high)
        class_sums = self._t_class_sums(Q, shift, alpha, scale)
        self.target_sums = self._host(target_sums)
        return {
            "P": self._host(P),
            "class_sums": class_sums,
            "target_sums": self.target_sums,
            "t_sq": float(t_sq),
            "label_sq": float(label_sq),
        }

    def _t_class_sums(self, Q, shift, alpha, scale):
        """Class sums of the T just computed, from c x c and c x d matrices: summed
        over class k, ``T = scale (X Q^T + alpha target + shift[y])`` gives
        ``scale (x_sums Q^T + alpha target_sums + count_k shift[k])``, with the
        class sums of X (first pass) and of the previous target (float64, on the
        host; equal to summing T up to rounding)."""
        sums = self.x_sums @ Q.T + alpha * self.target_sums
        sums += self.counts[:, None] * shift
        return scale * sums


def default_block_rows(n_classes, itemsize):
    """Rows per block so that an n_b x c block (about 4 MB) stays in cache."""
    return max(256, (4 << 20) // (n_classes * itemsize))


def fit_blocked(
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
    block_rows=None,
):
    """Primal Algorithm 1 in one pass over blocks of samples per iteration.

    The same iterates as :func:`fdlsr._core.dense.fit_fdlsr` in the primal form (see
    the module notes); the relaxed target is the only n x c array held, in X's
    dtype. A NumPy ``X`` runs :class:`BlockedIteration`, an array of another
    namespace :class:`DeviceBlockedIteration`, on its device.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
        Training samples, float64 or float32.
    y : array of int of shape (n_samples,)
        Class codes in ``[0, n_classes)``, in X's namespace.
    n_classes : int
    alpha, beta, lam, max_iter, tol, init_ridge, t_step
        As in :func:`fdlsr._core.dense.fit_fdlsr`.
    block_rows : int or None, default=None
        Rows per block of the first (Gram) pass's float64 copies (NumPy) or of every
        pass (other namespaces); ``None`` picks a cache-sized block.

    Returns
    -------
    coef : array of shape (n_classes, n_features)
        ``Q``, in X's dtype and namespace.
    objective : ndarray of shape (n_iter,)
        Eq. (10) after each iteration, float64.
    n_iter : int
    """
    start = time.perf_counter()
    iteration = (
        BlockedIteration if isinstance(X, np.ndarray) else DeviceBlockedIteration
    )
    it = iteration(
        X, y, n_classes, beta=beta, init_ridge=init_ridge, block_rows=block_rows
    )
    logger.info("Gram matrix and init: %.1f s", time.perf_counter() - start)

    def log(n_iter, value):
        logger.info(
            "iteration %d: objective %.6g, %.1f s since start",
            n_iter,
            value,
            time.perf_counter() - start,
        )

    objective, n_iter = run(it, alpha, beta, lam, max_iter, tol, t_step, log)
    return it.coef(), objective, n_iter
