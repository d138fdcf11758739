"""Class means of matrices whose columns are samples, and the one-hot labels.

Every method that needs the class means of a c x n (or stacked) matrix, their spread
back to the samples or the norms of Fisher's criterion takes them from here:
FDLSR's iteration and grid search, RLR and DRR's class graphs, FDDL and LRSDL's
class-sorted codes (:class:`~fdlsr.dictionary._class_blocks.ClassBlocks`),
and the nearest-centroid rule.

NumPy arrays use a sparse indicator (so that samples need not be sorted by class), or
reshapes when the samples come sorted in equal classes, or runs of repeated columns
when they come sorted in classes of any size. Other array libraries (PyTorch, CuPy,
array-api-strict) use a dense one-hot product a block of samples at a time
(:class:`DenseClassMeans`), as the sparse indicator has no array-API equivalent.
"""

import numpy as np
import scipy.sparse as sp

from .compat import device, get_namespace


def one_hot(y, n_classes, dtype=np.float64):
    """Label matrix ``H`` (n_classes x n_samples) of integer codes ``y``.

    For a non-NumPy ``y`` (then ``dtype`` is that namespace's), ``H`` is on y's device.
    """
    if not isinstance(y, np.ndarray):
        xp, _ = get_namespace(y)
        classes = xp.arange(n_classes, device=device(y))
        return xp.astype(classes[:, None] == y[None, :], dtype)
    H = np.zeros((n_classes, y.shape[0]), dtype=dtype)
    H[y, np.arange(y.shape[0])] = 1
    return H


class ClassMeans:
    """Class means of matrices whose columns are samples, by indicator algebra.

    For ``T`` (rows x n_samples), :meth:`of` returns the class means ``m`` (rows x
    n_classes) with a sparse indicator in O(rows x n), whatever the order of the
    samples. From ``m`` alone follow the global mean (``m @ weights``), ``Mhat``
    (``spread(m)``: each sample's column replaced by its class mean) and the norms the
    Fisher criterion needs, since ``T -> Mhat`` and ``T -> M`` are nested orthogonal
    projections.
    """

    def __init__(self, y, n_classes, dtype=np.float64):
        n = y.shape[0]
        runs = np.bincount(y, minlength=n_classes)
        counts = runs.astype(dtype)
        self.y = y
        self.counts = counts
        self.weights = counts / n
        # E[j, k] = 1 / n_k if sample j is in class k: T @ E gives the class means.
        self.E = sp.csr_array(
            (1.0 / counts[y], (np.arange(n), y)), shape=(n, n_classes), dtype=dtype
        )
        # Samples sorted by class in equal blocks (as a k-per-class training set that
        # was sorted): means and spreads become reshapes, with no gather or sparse pass.
        per_class = n // n_classes
        self.block = (
            per_class
            if per_class * n_classes == n
            and np.array_equal(y, np.repeat(np.arange(n_classes), per_class))
            else None
        )
        # Sorted by class in runs of any size (FDLSRCV sorts each fold's samples): a
        # spread repeats each class's column over its run, half the time of a gather.
        self.runs = runs if np.all(y[1:] >= y[:-1]) else None

    def of(self, T):
        """Class means, one column per class (rows x n_classes).

        Leading batch dimensions are allowed: ``T`` of shape (..., rows, n_samples).
        """
        n_classes = self.E.shape[1]
        if self.block is not None:
            blocks = T.reshape(*T.shape[:-1], n_classes, self.block)
            # A product with the averaging vector: faster than sum(axis=-1) over a
            # short trailing axis (docs/performance.md).
            return blocks @ np.full(self.block, 1 / self.block, dtype=T.dtype)
        return _times_sparse(T, self.E)

    def sums(self, T):
        """Class sums, one column per class (rows x n_classes), leading axes allowed."""
        n_classes = self.E.shape[1]
        if self.block is not None:
            blocks = T.reshape(*T.shape[:-1], n_classes, self.block)
            return blocks @ np.ones(self.block, dtype=T.dtype)
        if self.runs is not None and np.all(self.runs > 0):
            starts = np.concatenate(([0], np.cumsum(self.runs)[:-1]))
            return np.add.reduceat(T, starts, axis=-1)
        n = self.y.shape[0]
        member = sp.csr_array(
            (np.ones(n, dtype=T.dtype), (np.arange(n), self.y)), shape=self.E.shape
        )
        return _times_sparse(T, member)

    def add_spread(self, T, m):
        """``T += spread(m)`` in place, without forming ``spread(m)`` when possible."""
        if self.block is not None and T.flags.c_contiguous:
            blocks = T.reshape(*T.shape[:-1], m.shape[-1], self.block)
            blocks += m[..., None]
        else:  # a few rows at a time: no temporary of T's size
            rows = max(1, 2**20 // T.shape[-1])
            for start in range(0, T.shape[-2], rows):
                r = slice(start, start + rows)
                T[..., r, :] += self.spread(m[..., r, :])
        return T

    def overall(self, m):
        """Global mean (rows,) from the class means."""
        return m @ self.weights

    def spread(self, m):
        """``Mhat``: the class mean of every sample (rows x n_samples)."""
        if self.runs is not None:
            return np.repeat(m, self.runs, axis=-1)
        return m[..., self.y]

    def sq_norm_within(self, m):
        """``||Mhat||_F^2 = sum_k n_k ||m_k||^2``."""
        return float(np.sum(m * m, axis=0) @ self.counts)

    def sq_norm_overall(self, m):
        """``||M||_F^2 = n ||mean||^2``."""
        mean = self.overall(m)
        return float(self.y.shape[0] * (mean @ mean))


def _times_sparse(T, E):
    """``T @ E`` along the last axis of ``T``, a few rows at a time (SciPy's dense @
    sparse copies the dense operand)."""
    flat = T.reshape(-1, T.shape[-1])
    out = np.empty((flat.shape[0], E.shape[1]), dtype=T.dtype)
    rows = max(1, 2**20 // T.shape[-1])
    for start in range(0, flat.shape[0], rows):
        out[start : start + rows] = flat[start : start + rows] @ E
    return out.reshape(*T.shape[:-1], E.shape[1])


class DenseClassMeans:
    """:class:`ClassMeans` for any array-API namespace, without a sparse indicator.

    The class means are products with a one-hot indicator built ``block`` samples at
    a time (2 rows n n_classes flops, small next to the ridge products, on the
    arrays' device), and the spread is added a few rows at a time: no n x n_classes
    indicator is stored and no temporary of T's size is formed, which matters on a
    GPU where T itself may take gigabytes.
    """

    def __init__(self, y, n_classes, dtype, block=65536):
        xp, _ = get_namespace(y)
        self.xp, self.y, self.dtype = xp, y, dtype
        self.n_classes, self.step = n_classes, block
        counts = xp.zeros(n_classes, dtype=dtype, device=device(y))
        for start in range(0, y.shape[0], block):
            part = y[start : min(start + block, y.shape[0])]
            counts += xp.sum(one_hot(part, n_classes, dtype), axis=1)
        self.counts = counts
        self.weights = self.counts / y.shape[0]
        self.block = None

    def of(self, T):
        """Class means along the last axis of ``T`` (any leading axes)."""
        xp, n = self.xp, self.y.shape[0]
        shape = (*T.shape[:-1], self.n_classes)
        m = xp.zeros(shape, dtype=T.dtype, device=device(T))
        for start in range(0, n, self.step):
            cols = slice(start, min(start + self.step, n))
            m += T[..., cols] @ one_hot(self.y[cols], self.n_classes, T.dtype).T
        return m / self.counts

    def overall(self, m):
        return m @ self.weights

    def spread(self, m):
        return self.xp.take(m, self.y, axis=-1)

    def add_spread(self, T, m):
        rows = max(1, 2**24 // T.shape[-1])  # temporaries of 16 Mi entries at most
        for start in range(0, T.shape[0], rows):
            r = slice(start, min(start + rows, T.shape[0]))
            T[r, ...] += self.spread(m[r, ...])
        return T

    def sq_norm_within(self, m):
        return float(self.xp.sum(self.xp.sum(m * m, axis=0) * self.counts))

    def sq_norm_overall(self, m):
        mean = self.overall(m)
        return float(self.y.shape[0] * self.xp.sum(mean * mean))


def class_means(y, n_classes, dtype):
    """:class:`ClassMeans` for NumPy labels, :class:`DenseClassMeans` otherwise."""
    if isinstance(y, np.ndarray):
        return ClassMeans(y, n_classes, dtype)
    return DenseClassMeans(y, n_classes, dtype)
