"""The paper's classification rule on projected features (Sec. III-D).

Test projections and training projections are L2-normalised and a test sample takes the
label of its nearest training projection. For unit vectors the nearest neighbour in
Euclidean distance is the one of largest cosine similarity, so the per-class maximum
cosine is a decision function whose argmax is exactly the 1-NN label.

Exact ties are real: FERET files some identical images under two people, so a test
image can be equally close to two classes, and rounding noise would then decide. Scores
within ``sqrt(eps)`` of the best therefore count as tied, and ties go to the first class
(as ``argmax`` does for exact ties): predictions do not depend on sample order or on
how the projection was computed.

The n_test x n_train similarity matrix is formed in batches of test rows bounded by
scikit-learn's ``working_memory``, so a large training set never needs it whole.
"""

import numpy as np
from sklearn.preprocessing import normalize
from sklearn.utils import gen_batches

from ._compat import get_chunk_n_rows


def tie_aware_argmax(scores):
    """Column of the largest score per row; scores within ``sqrt(eps)`` of it tie,
    and ties go to the first column. ``scores`` are cosines, so the tolerance is
    absolute."""
    tol = np.finfo(scores.dtype).eps ** 0.5
    best = scores.max(axis=1, keepdims=True)
    return np.argmax(scores >= best - tol, axis=1)


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
        order = np.argsort(y, kind="stable")
        self.reference = normalize(projections[order])
        counts = np.bincount(y, minlength=n_classes)
        if np.any(counts == 0):
            raise ValueError("Every class needs at least one training projection.")
        self.starts = np.concatenate(([0], np.cumsum(counts)[:-1]))

    def scores(self, projections):
        """Per-class maximum cosine similarity, shape (n_samples, n_classes)."""
        Z = normalize(projections)
        n_train = self.reference.shape[0]
        out = np.empty((Z.shape[0], self.starts.shape[0]), dtype=Z.dtype)
        row_bytes = n_train * Z.dtype.itemsize
        chunk = get_chunk_n_rows(row_bytes=row_bytes, max_n_rows=Z.shape[0])
        for rows in gen_batches(Z.shape[0], chunk):
            sim = Z[rows] @ self.reference.T
            out[rows] = np.maximum.reduceat(sim, self.starts, axis=1)
        return out

    def predict(self, projections):
        """Class codes of the nearest training projections (ties as documented)."""
        return tie_aware_argmax(self.scores(projections))
