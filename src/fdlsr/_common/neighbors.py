"""Decision rules on projected features: the paper's 1-NN (Sec. III-D), k-NN and the
nearest class mean.

The paper's rule: test projections and training projections are L2-normalised and a
test sample takes the label of its nearest training projection. For unit vectors the nearest neighbour in
Euclidean distance is the one of largest cosine similarity, so the per-class maximum
cosine is a decision function whose argmax is exactly the 1-NN label.

Exact ties are real: FERET files some identical images under two people, so a test
image can be equally close to two classes, and rounding noise would then decide. Scores
within ``sqrt(eps)`` of the best therefore count as tied (they are reported equal to
the best) and ``argmax`` gives ties to the first class: predictions do not depend on
sample order or on how the projection was computed.

The n_test x n_train similarity matrix is formed in batches of test rows bounded by
scikit-learn's ``working_memory``, so a large training set never needs it whole.

Other array namespaces (PyTorch, CuPy, ...) compute on their device: the per-class
maximum then takes the similarities through a padded class-by-member index instead of
NumPy's ``reduceat``.

Two rules that scale better than 1-NN share the same normalised projections:

- :meth:`NearestProjection.knn_scores`: the ``k`` nearest training projections vote,
  equally or by inverse distance; neighbours tied (within ``sqrt(eps)``) at the
  ``k``-th place are taken from the first classes.
- :func:`class_centroids` and :func:`centroid_scores`: the cosine to each class's
  centroid (the mean of its normalised training projections, normalised again):
  O(c) per test sample and c x c numbers kept, whatever the number of training
  samples.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.utils import gen_batches

from .class_means import class_means, one_hot
from .compat import _convert_to_numpy, device, get_chunk_n_rows, get_namespace
from .linalg import normalize_rows


def snap_ties(scores):
    """Raise scores within ``sqrt(eps)`` of their row's best to the best, so that
    ``argmax`` (first maximum) breaks near-ties towards the first class. Scores are
    cosines, so the tolerance is absolute."""
    if not isinstance(scores, np.ndarray):
        xp, _ = get_namespace(scores)
        tol = float(xp.finfo(scores.dtype).eps) ** 0.5
        best = xp.max(scores, axis=1, keepdims=True)
        return xp.where(scores >= best - tol, best, scores)
    tol = np.finfo(scores.dtype).eps ** 0.5
    best = scores.max(axis=1, keepdims=True)
    np.copyto(scores, np.broadcast_to(best, scores.shape), where=scores >= best - tol)
    return scores


def _first_of_band(sim, kth, k, tol, xp):
    """The ``k`` largest of each row of ``sim``, those within ``tol`` of the ``k``-th
    (``kth``) taken in column order (class order: the first classes)."""
    sure = sim > kth + tol
    band = (sim >= kth - tol) & ~sure
    need = k - xp.sum(xp.astype(sure, xp.int64), axis=1, keepdims=True)
    rank = xp.cumulative_sum(xp.astype(band, xp.int64), axis=1)
    return sure | (band & (rank <= need))


class NearestProjection:
    """Training projections grouped by class, ready for per-class maximum cosine.

    Parameters
    ----------
    projections : ndarray of shape (n_train, n_components)
        Training samples in the projected space (normalised here).
    y : ndarray of int of shape (n_train,)
        Class codes in ``[0, n_classes)``.
    n_classes : int
    """

    def __init__(self, projections, y, n_classes):
        y_host = (
            y
            if isinstance(y, np.ndarray)
            else _convert_to_numpy(y, get_namespace(y)[0])
        )
        order = np.argsort(y_host, kind="stable")
        counts = np.bincount(y_host, minlength=n_classes)
        if np.any(counts == 0):
            raise ValueError("Every class needs at least one training projection.")
        self.starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        if isinstance(projections, np.ndarray):
            self.reference = normalize_rows(projections[order])
            self.padded = None
            return
        xp, dev = get_namespace(projections)[0], device(projections)
        order = xp.asarray(order, device=dev)
        self.reference = normalize_rows(xp.take(projections, order, axis=0))
        # Members of class k at padded[k, :], the first member repeated as padding.
        width = int(counts.max())
        members = np.minimum(np.arange(width)[None, :], counts[:, None] - 1)
        self.padded = xp.asarray((self.starts[:, None] + members).ravel(), device=dev)
        self.width = width

    def _check_fitted_arrays(self):
        """Raise ``ValueError`` unless the class ranges ``starts`` cut the training
        projections into non-empty, ordered classes (a model file's check)."""
        reference, starts = self.reference, self.starts
        if (
            getattr(reference, "ndim", None) != 2
            or getattr(getattr(reference, "dtype", None), "kind", None) != "f"
            or not isinstance(starts, np.ndarray)
            or starts.ndim != 1
            or starts.dtype.kind not in "iu"
            or starts.size == 0
            or starts[0] != 0
            or np.any(np.diff(starts) <= 0)
            or starts[-1] >= reference.shape[0]
        ):
            raise ValueError(
                "the training projections of a nearest-neighbour rule are not cut "
                "into non-empty, ordered classes"
            )
        if self.padded is not None:
            padded = np.asarray(self.padded)
            n_classes = starts.shape[0]
            if (
                padded.dtype.kind not in "iu"
                or padded.shape != (n_classes * self.width,)
                or np.any(padded < 0)
                or np.any(padded >= reference.shape[0])
            ):
                raise ValueError(
                    "the class index of a nearest-neighbour rule does not fit its "
                    "training projections"
                )

    @classmethod
    def from_features(cls, X, coef, y, n_classes, block_rows=8192):
        """From training features ``X`` (n x d) and the projection ``coef`` (c x d).

        NumPy projects block by block straight into class order: the only n x c
        array formed is the reference itself (for training sets too large for
        copies). Other namespaces project all of ``X`` at once, on its device.
        """
        if not isinstance(X, np.ndarray):
            return cls(X @ coef.T, y, n_classes)
        self = cls.__new__(cls)
        counts = np.bincount(y, minlength=n_classes)
        if np.any(counts == 0):
            raise ValueError("Every class needs at least one training projection.")
        self.starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        self.padded = None
        position = np.empty_like(y)
        position[np.argsort(y, kind="stable")] = np.arange(y.shape[0])
        self.reference = np.empty((X.shape[0], n_classes), dtype=X.dtype)
        for rows in gen_batches(X.shape[0], block_rows):
            self.reference[position[rows]] = normalize_rows(X[rows] @ coef.T)
        return self

    def scores(self, projections):
        """Per-class maximum cosine similarity, shape (n_samples, n_classes); scores
        within ``sqrt(eps)`` of a row's best are reported equal to it."""
        Z = normalize_rows(projections)
        n_train, n_classes = self.reference.shape[0], self.starts.shape[0]
        if self.padded is None:
            out = np.empty((Z.shape[0], n_classes), dtype=Z.dtype)
            row_bytes = n_train * Z.dtype.itemsize
            chunk = get_chunk_n_rows(row_bytes=row_bytes, max_n_rows=Z.shape[0])
            for rows in gen_batches(Z.shape[0], chunk):
                sim = Z[rows] @ self.reference.T
                out[rows] = np.maximum.reduceat(sim, self.starts, axis=1)
            return snap_ties(out)
        xp = get_namespace(Z)[0]
        row_bytes = (n_train + n_classes * self.width) * 8
        chunk = get_chunk_n_rows(row_bytes=row_bytes, max_n_rows=Z.shape[0])
        parts = []
        for rows in gen_batches(Z.shape[0], chunk):
            sim = xp.take(Z[rows, :] @ self.reference.T, self.padded, axis=1)
            grouped = xp.reshape(sim, (sim.shape[0], n_classes, self.width))
            parts.append(xp.max(grouped, axis=2))
        return snap_ties(xp.concat(parts, axis=0) if len(parts) > 1 else parts[0])

    def knn_scores(self, projections, n_neighbors, weights="uniform"):
        """Share of the ``n_neighbors`` nearest training projections' votes that
        each class receives, shape (n_samples, n_classes), rows summing to 1.

        ``weights="uniform"``: one vote per neighbour; ``"distance"``: votes weighted
        by the inverse Euclidean distance between the normalised projections (as
        scikit-learn's ``KNeighborsClassifier``, neighbours at distance zero, here
        within ``sqrt(eps)``, take all the votes). Neighbours tied within
        ``sqrt(eps)`` at the ``n_neighbors``-th place are taken from the first
        classes; a training set smaller than ``n_neighbors`` votes whole, with a
        ``UserWarning`` (the vote is then the training set's, not the neighbours').
        Shares within ``sqrt(eps)`` of the best are reported equal to it.
        """
        Z = normalize_rows(projections)
        xp = get_namespace(Z)[0]
        n_train = self.reference.shape[0]
        if n_neighbors > n_train:
            warnings.warn(
                f"n_neighbors={n_neighbors} is more than the {n_train} training "
                f"samples: all {n_train} vote; set n_neighbors to {n_train} or less",
                UserWarning,
                stacklevel=3,
            )
        k = min(int(n_neighbors), n_train)
        tol = float(xp.finfo(Z.dtype).eps) ** 0.5
        numpy = isinstance(Z, np.ndarray)
        row_bytes = n_train * xp.finfo(Z.dtype).bits // 2  # four n_train rows
        chunk = get_chunk_n_rows(row_bytes=row_bytes, max_n_rows=Z.shape[0])
        parts = []
        for rows in gen_batches(Z.shape[0], chunk):
            sim = Z[rows, :] @ self.reference.T
            if numpy:
                kth = np.partition(sim, n_train - k, axis=1)[:, n_train - k, None]
            else:
                kth = xp.sort(sim, axis=1, descending=True)[:, k - 1 : k]
            chosen = sim >= kth - tol
            over = xp.sum(xp.astype(chosen, xp.int32), axis=1) > k  # ties at k-th
            if not numpy:
                tied = _first_of_band(sim, kth, k, tol, xp)
                chosen = xp.where(over[:, None], tied, chosen)
            else:
                if over.any():
                    over = np.flatnonzero(over)
                    chosen[over] = _first_of_band(sim[over], kth[over], k, tol, xp)
                parts.append(self._knn_votes(sim, chosen, k, weights, tol))
                continue
            if weights == "uniform":
                votes = xp.astype(chosen, Z.dtype)
            else:
                exact = chosen & (sim >= 1 - tol)
                any_exact = xp.any(exact, axis=1, keepdims=True)
                distance = xp.sqrt(xp.clip(2 - 2 * sim, tol * tol, None))
                votes = xp.where(
                    any_exact,
                    xp.astype(exact, Z.dtype),
                    xp.where(chosen, 1 / distance, xp.zeros_like(sim)),
                )
            parts.append(self._class_sums(votes, xp))
        out = xp.concat(parts, axis=0) if len(parts) > 1 else parts[0]
        return snap_ties(out / xp.sum(out, axis=1, keepdims=True))

    def _knn_votes(self, sim, chosen, k, weights, tol):
        """NumPy: the class votes of the ``k`` chosen neighbours of each row, from
        those ``k`` similarities only (no other n_test x n_train pass)."""
        rows, cols = np.nonzero(chosen)  # row-major: k per row
        near = sim[rows, cols].reshape(-1, k)
        if weights == "uniform":
            w = np.ones_like(near)
        else:
            exact = near >= 1 - tol
            w = np.where(
                exact.any(axis=1, keepdims=True),
                exact.astype(near.dtype),
                1 / np.sqrt(np.clip(2 - 2 * near, tol * tol, None)),
            )
        votes = np.zeros((sim.shape[0], self.starts.shape[0]), dtype=sim.dtype)
        classes = np.searchsorted(self.starts, cols, side="right") - 1
        np.add.at(votes, (rows, classes), w.ravel())
        return votes

    def _class_sums(self, values, xp):
        """Per-class sums of (n_samples, n_train) values in class order."""
        if self.padded is None:
            return np.add.reduceat(values, self.starts, axis=1)
        n_classes = self.starts.shape[0]
        counts = np.diff(np.append(self.starts, self.reference.shape[0]))
        # Padding repeats the first member: weight it out.
        valid = np.arange(self.width)[None, :] < counts[:, None]
        mask = xp.asarray(valid.ravel(), device=device(values))
        taken = xp.take(values, self.padded, axis=1)
        taken = xp.where(mask, taken, xp.zeros_like(taken))
        return xp.sum(xp.reshape(taken, (-1, n_classes, self.width)), axis=2)

    def predict(self, projections):
        """Class codes of the nearest training projections (ties as documented)."""
        scores = self.scores(projections)
        if isinstance(scores, np.ndarray):
            return np.argmax(scores, axis=1)
        return get_namespace(scores)[0].argmax(scores, axis=1)


def class_centroids(projections, y, n_classes):
    """Class centroids of the normalised projections, normalised again: row ``k`` is
    the unit direction of the mean of class ``k``'s normalised training projections,
    shape (n_classes, n_components). A class whose mean is zero keeps a zero row
    (every cosine to it is 0)."""
    Z = normalize_rows(projections)
    return normalize_rows(class_means(y, n_classes, Z.dtype).of(Z.T).T)


def centroids_from_features(X, coef, y, n_classes, block_rows=None):
    """:func:`class_centroids` of ``X @ coef.T`` block by block: no n x c array is
    formed (for training sets too large for copies). Sums of the unit projections have
    the direction of their means. NumPy sums with a sparse indicator, blocks of 8192
    rows by default; other namespaces with a one-hot product on X's device, blocks of
    65536 rows."""
    if not isinstance(X, np.ndarray):
        xp, dev = get_namespace(X)[0], device(X)
        sums = xp.zeros((n_classes, coef.shape[0]), dtype=X.dtype, device=dev)
        for start in range(0, X.shape[0], block_rows or 65536):
            rows = slice(start, min(start + (block_rows or 65536), X.shape[0]))
            unit = normalize_rows(X[rows, ...] @ coef.T)
            sums += one_hot(y[rows], n_classes, X.dtype) @ unit
        return normalize_rows(sums)
    sums = np.zeros((n_classes, coef.shape[0]), dtype=X.dtype)
    for rows in gen_batches(X.shape[0], block_rows or 8192):
        codes = y[rows]
        member = sp.csr_array(
            (np.ones(codes.shape[0], dtype=X.dtype), (codes, np.arange(codes.size))),
            shape=(n_classes, codes.size),
        )
        sums += member @ normalize_rows(X[rows] @ coef.T)
    return normalize_rows(sums)


def centroid_scores(projections, centroids):
    """Cosine of each normalised projection to each class centroid, shape (n_samples,
    n_classes); scores within ``sqrt(eps)`` of a row's best are reported equal."""
    return snap_ties(normalize_rows(projections) @ centroids.T)
