"""What LC-KSVD2, LCLE, DPL and DRA-DPL share as scikit-learn classifiers.

Each estimator validates its input here, learns from integer class codes with a pure
function of its own module, and scores test samples per class; the class of largest
score is the prediction.
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ...common.compat import Interval
from ...common.linalg import _single_threaded_lapack
from ...common.validation import encode_labels

N_ATOMS = [Interval(Integral, 1, None, closed="left"), None]


def single_threaded_lapack():
    """Context for LAPACK-heavy fitting code (eigh, QR, inverses) on one thread.

    On a shared 2-core machine OpenBLAS's two threads make these factorisations up
    to 8x slower than one thread (they spin waiting for each other), while matrix
    products lose little; see also :mod:`fdlsr.linalg`.
    """
    return _single_threaded_lapack()


class DictionaryClassifier(ClassifierMixin, BaseEstimator):
    """Base class: input checks, labels, atoms per class, predict from scores."""

    def _training_data(self, X, y):
        """Validated float64 samples, integer class codes and atoms per class."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        codes = encode_labels(self, y)
        counts = np.bincount(codes, minlength=len(self.classes_))
        if self.n_atoms is None:
            atoms = counts.copy()
        else:
            atoms = np.full(len(counts), self.n_atoms)
        return X, codes, atoms

    def _test_data(self, X):
        check_is_fitted(self)
        return validate_data(self, X, reset=False, dtype=np.float64)

    def decision_function(self, X):
        """Class scores whose argmax is the prediction.

        Returns
        -------
        scores : ndarray of shape (n_samples, n_classes), or (n_samples,) for two
            classes (positive means ``classes_[1]``, as in scikit-learn).
        """
        scores = self._class_scores(self._test_data(X))
        if scores.shape[1] == 2:
            return scores[:, 1] - scores[:, 0]
        return scores

    def predict(self, X):
        """Predict class labels.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


class ClassResidualClassifier(DictionaryClassifier):
    """Base of the dictionary-pair methods, which classify by class-wise residuals."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Each class is modelled by a linear subspace (the range of D_c P_c), which
        # cannot tell apart the 2-feature Gaussian blobs off the origin of
        # scikit-learn's score check (DPL reaches 0.70 there, the check asks 0.83);
        # they are meant for high-dimensional data such as images.
        tags.classifier_tags.poor_score = True
        return tags


def class_residual_scores(X, encoders, decoders):
    """Minus the class-wise reconstruction errors ``||x - D_c P_c x||``.

    ``encoders`` is the stacked analysis dictionary (n_atoms x n_features) and
    ``decoders`` the list of synthesis dictionaries D_c (n_features x m_c); class c
    uses the next m_c rows of ``encoders``. The squared error is expanded as
    ``||x||^2 - 2 a^T D_c^T x + a^T D_c^T D_c a`` (``a = P_c x``) so that all classes
    are scored with two matrix products instead of one residual matrix per class.
    """
    codes = X @ encoders.T
    D = np.hstack(decoders)
    gram = sp.block_diag([Dc.T @ Dc for Dc in decoders], format="csr")
    starts = np.cumsum([0] + [Dc.shape[1] for Dc in decoders[:-1]])
    cross = np.add.reduceat(codes * (X @ D), starts, axis=1)
    quad = np.add.reduceat(np.asarray(codes @ gram) * codes, starts, axis=1)
    sq = np.einsum("ij,ij->i", X, X)[:, None] - 2 * cross + quad
    return -np.sqrt(np.maximum(sq, 0.0))
