"""Algorithm 1 in the primal form, one pass over blocks of samples per iteration.

For many samples the c x n matrices of :func:`fdlsr.solver.fit_fdlsr` (T, Q X^T, the
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

The block functions are pure and shared by the in-memory loop here and by the Dask
graph of :mod:`fdlsr.dask`; the driver-side work (``C``, ``Q = P C``, the means and
the objective) is :class:`BlockState`.
"""

import logging
import time

import numpy as np
import scipy.sparse as sp

from ..common.linalg import RidgeSystem

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
    scale = 1 / (1 + alpha + 2 * lam)  # both steps: see BlockState.shift
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
        # relaxed target H + B.S: the label entry at least 1, the others at most 0
        new = new_target[rows]
        np.minimum(T, 0, out=new)
        labels = (np.arange(T.shape[0]), y_piece)
        new[labels] = np.maximum(T[labels], 1)

        P += T.T @ X_piece
        run_indicator = np.zeros((present.shape[0], T.shape[0]), dtype=T.dtype)
        run_indicator[np.repeat(np.arange(present.shape[0]), runs), labels[0]] = 1
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

    Built from the first-pass statistics (``gram``, ``class_sums`` of X, class counts).
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
        self.system = ridge
        self.beta = beta
        self.m = np.eye(len(counts))  # class means of T0 = H, one column per class
        self.m_target = self.m

    def shift(self, alpha, lam, t_step):
        """The per-class term of the T-step, row k for class k, in the data dtype.

        Paper (Eq. 14): ``lam (2 m_k - mean)`` with the means of the previous T.
        Exact: from the means of ``V = Q X^T + alpha target`` (see solver.t_step_exact),
        pre-multiplied by ``1 + alpha + 2 lam`` since the block step divides by it.
        """
        if t_step == "paper":
            m = self.m
            shift = lam * (2 * m - (m @ self.weights)[:, None])
        else:
            a = 1 + alpha
            mV = self.Q @ self.x_means.T + alpha * self.m_target
            shift = (1 / a - 1 / (a + 2 * lam)) * mV
            shift += (1 / (a + lam) - 1 / a) * (mV @ self.weights)[:, None]
            shift *= a + 2 * lam
        return np.ascontiguousarray(shift.T, dtype=self.dtype)

    def update(self, partial, alpha, beta, lam):
        """Q, the class means and Eq. (10) after an iteration; returns (objective,
        ||Q - Q_prev||^2)."""
        Q_prev = self.Q
        self.Q = self.system.right_solve(partial["P"])
        self.m = partial["class_sums"].T / self.counts
        self.m_target = partial["target_sums"].T / self.counts
        Q = self.Q.astype(np.float64)
        fit_sq = (
            float(np.vdot(Q @ self.gram, Q))
            - 2 * float(np.vdot(Q, partial["P"]))
            + partial["t_sq"]
        )
        mean = self.m @ self.weights
        fisher = (
            2 * partial["t_sq"]
            - 2 * float(np.sum(self.m * self.m, axis=0) @ self.counts)
            + float(self.n * (mean @ mean))
        )
        value = fit_sq + alpha * partial["label_sq"] + beta * float(np.vdot(Q, Q))
        change = float(np.sum((Q - Q_prev) ** 2))
        return value + lam * fisher, change


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
    max_iter=30,
    tol=None,
    init_ridge=1e-4,
    t_step="paper",
    block_rows=None,
):
    """Primal Algorithm 1 in one pass over an in-memory ``X`` per iteration; see the
    module notes. ``block_rows`` bounds the float64 copies of the first (Gram) pass.

    Returns ``(coef, objective, n_iter)``. Same iterates as ``solver.fit_fdlsr``; the
    relaxed target is the only n x c array held (in X's dtype).
    """
    start = time.perf_counter()
    n = X.shape[0]
    block_rows = block_rows or 16 * default_block_rows(n_classes, X.dtype.itemsize)
    blocks = [slice(i, min(i + block_rows, n)) for i in range(0, n, block_rows)]
    stats = None
    for b in blocks:
        part = block_stats(X[b], y[b], n_classes)
        stats = part if stats is None else add_partials(stats, part)
    state = BlockState(stats, beta, init_ridge, X.dtype)
    logger.info("Gram matrix and init: %.1f s", time.perf_counter() - start)
    target = None
    objective, n_iter = [], 0
    for n_iter in range(1, max_iter + 1):
        Q = state.Q.astype(X.dtype)
        shift = state.shift(alpha, lam, t_step)
        # One pass over all samples (in class order, pieces of block_step); the
        # target is updated in place.
        target, total = block_step(X, y, target, Q, shift, alpha, lam, t_step, target)
        value, change = state.update(total, alpha, beta, lam)
        objective.append(value)
        logger.info(
            "iteration %d: objective %.6g, %.1f s since start",
            n_iter,
            value,
            time.perf_counter() - start,
        )
        if tol is not None and change < tol:
            break
    return state.Q.astype(X.dtype), np.asarray(objective), n_iter
