"""FDLSR on Dask arrays: out-of-core and distributed fitting (``pip install ".[dask]"``).

``FDLSR.fit`` sends a ``dask.array`` here by itself, so a user points the same
estimator at data that does not fit one machine. The iteration is the blocked primal
form of :mod:`fdlsr._core.blocked` as a Dask graph over the row chunks of ``X``:

* the first pass accumulates ``X^T X`` and the class sums of X over the chunks;
* each iteration runs one task per chunk (``block_step``: ``Q X_b^T``, the T-step,
  the new relaxed target, the partial sums ``T_b^T X_b`` and class sums), keeps the
  new relaxed target chunk where it was computed (``persist``), and brings back only
  the tree-summed c x d and c x c partials;
* the small work (``Q = P (X^T X + beta I)^-1``, class means, objective) runs on the
  driver, in NumPy: the ``BlockState`` of the in-memory blocked path, driven by the
  shared loop of :mod:`fdlsr._core.iteration`. Only the pass over the chunks is
  written here (:class:`DaskIteration`).

Whatever scheduler is active runs the graph: the threaded default, or a
``dask.distributed`` cluster once a ``Client`` exists. Only the dual (n x n) form has
no Dask path, since it needs all samples at once.
"""

import dask
import dask.array as da

from .blocked import BlockState, add_partials, block_stats, block_step
from .iteration import run


def _tree_sum(parts):
    """Pairwise sum of delayed partial-sum dicts (log depth, no driver round trips)."""
    while len(parts) > 1:
        pairs = [
            dask.delayed(add_partials)(a, b)
            for a, b in zip(parts[0::2], parts[1::2], strict=False)
        ]
        parts = pairs + ([parts[-1]] if len(parts) % 2 else [])
    return parts[0]


def row_blocks(X, y):
    """Delayed row chunks of ``X`` (whole rows) and the matching chunks of ``y``."""
    X = X.rechunk({1: -1})
    y = da.asarray(y).rechunk((X.chunks[0],))
    return list(X.to_delayed().ravel()), list(y.to_delayed().ravel())


class DaskIteration(BlockState):
    """The blocked iteration (:class:`~fdlsr._core.blocked.BlockState`) as a Dask
    graph: each sweep runs :func:`~fdlsr._core.blocked.block_step` once per chunk and
    keeps each new relaxed-target chunk where it was computed."""

    def __init__(self, X, y, n_classes, *, beta, init_ridge):
        self.x_blocks, self.y_blocks = row_blocks(X, y)
        stats = _tree_sum(
            [
                dask.delayed(block_stats)(xb, yb, n_classes)
                for xb, yb in zip(self.x_blocks, self.y_blocks, strict=True)
            ]
        ).compute()
        if stats["nonfinite"]:
            raise ValueError(
                f"Input X contains {stats['nonfinite']} NaN or infinity values. Remove "
                "or impute them before fitting."
            )
        super().__init__(stats, beta, init_ridge, X.dtype)
        self.targets = [None] * len(self.x_blocks)

    def _pass(self, Q, shift, alpha, lam, t_step):
        # One key each for the small broadcast inputs, not one copy per task.
        Q = dask.delayed(Q, pure=True)
        shift = dask.delayed(shift, pure=True)
        steps = [
            dask.delayed(block_step, nout=2)(xb, yb, tb, Q, shift, alpha, lam, t_step)
            for xb, yb, tb in zip(
                self.x_blocks, self.y_blocks, self.targets, strict=True
            )
        ]
        # Persist the new targets and the summed partials in one graph, so that
        # each chunk's step runs once and its target stays on its worker.
        *self.targets, total = dask.persist(
            *(s[0] for s in steps), _tree_sum([s[1] for s in steps])
        )
        return total.compute()


def fit_fdlsr_dask(
    X, y, n_classes, *, alpha, beta, lam, max_iter, tol, init_ridge, t_step
):
    """Algorithm 1 on a Dask array: the iterates of
    :func:`fdlsr._core.blocked.fit_blocked`, each pass a Dask graph over the chunks.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        Training samples, float64 or float32, chunked by rows.
    y : ndarray of int of shape (n_samples,)
        Class codes in ``[0, n_classes)``.
    n_classes : int
    alpha, beta, lam, max_iter, tol, init_ridge, t_step
        As in :func:`fdlsr._core.dense.fit_fdlsr`.

    Returns
    -------
    coef : ndarray of shape (n_classes, n_features)
        ``Q``, a NumPy array in X's dtype.
    objective : ndarray of shape (n_iter,)
        Eq. (10) after each iteration.
    n_iter : int
    """
    it = DaskIteration(X, y, n_classes, beta=beta, init_ridge=init_ridge)
    objective, n_iter = run(it, alpha, beta, lam, max_iter, tol, t_step)
    return it.coef(), objective, n_iter


def projections(X, coef):
    """Training projections ``X Q^T`` (n x c) gathered as a NumPy array, for the
    1-NN rule (which needs every training projection)."""
    return (X @ coef.T).compute()
