"""What the representation-based classifiers share: the dictionary and the batching.

These classifiers learn nothing beyond a few factorisations in ``fit``: the (unit-
normalised) training samples are the dictionary, and all the work (coding each test
sample over the dictionary, then comparing class-wise residuals) happens at predict
time, in chunks of test samples bounded by scikit-learn's ``working_memory``.
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.preprocessing import normalize as l2_normalize
from sklearn.utils import gen_batches
from sklearn.utils.validation import check_is_fitted, validate_data

from ...common.compat import _fit_context, get_chunk_n_rows
from ...common.validation import encode_labels
from .residuals import ClassResiduals


class RepresentationClassifier(ClassifierMixin, BaseEstimator):
    """Base class: subclasses implement ``_prepare``, ``_codes`` and ``_residuals``.

    ``_prepare(D, y)`` precomputes what coding needs; ``_codes(Y)`` returns the codes
    of a chunk of (normalised) test samples, shape (m, n_atoms); ``_residuals(Y)``
    returns their class-wise residuals, shape (m, n_classes), smaller meaning closer.
    """

    _parameter_constraints: dict = {"normalize": ["boolean"]}

    # Temporaries per test sample, in units of n_atoms floats (codes, products, ...).
    _rows_per_sample = 6

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Store the training samples as the dictionary and precompute the coding.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Labels of any hashable, sortable type.

        Returns
        -------
        self : object
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        codes = encode_labels(self, y)
        dictionary = l2_normalize(X) if self.normalize else np.array(X, order="C")
        self.dictionary_ = dictionary
        self.dictionary_labels_ = codes
        self._class_residuals = ClassResiduals(dictionary, codes, len(self.classes_))
        self._prepare(dictionary, codes)
        return self

    def _test_batches(self, X):
        """Validated, normalised test samples, in memory-bounded chunks."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return X.shape[0], self._chunks(X)

    def _chunks(self, X):
        n_atoms = self.dictionary_.shape[0]
        row_bytes = 8 * (self._rows_per_sample * n_atoms + X.shape[1])
        chunk = get_chunk_n_rows(row_bytes=row_bytes, max_n_rows=X.shape[0])
        for rows in gen_batches(X.shape[0], chunk):
            Y = l2_normalize(X[rows]) if self.normalize else X[rows]
            yield rows, np.ascontiguousarray(Y)

    def encode(self, X):
        """Code each sample of ``X`` over the dictionary (the training samples).

        Returns
        -------
        codes : ndarray of shape (n_samples, n_training_samples)
            Column ``j`` weighs training sample ``j`` (in the order given to ``fit``).
        """
        n_samples, chunks = self._test_batches(X)
        out = np.empty((n_samples, self.dictionary_.shape[0]))
        for rows, Y in chunks:
            out[rows] = self._codes(Y)
        return out

    def class_residuals(self, X):
        """The class-wise residuals the rule compares (smaller is closer).

        Returns
        -------
        residuals : ndarray of shape (n_samples, n_classes)
        """
        n_samples, chunks = self._test_batches(X)
        out = np.empty((n_samples, len(self.classes_)))
        for rows, Y in chunks:
            out[rows] = self._residuals(Y)
        return out

    def decision_function(self, X):
        """Negated class-wise residuals, so that the argmax is the prediction.

        For two classes the difference of the two scores is returned (positive
        means ``classes_[1]``), as in scikit-learn.

        Returns
        -------
        scores : ndarray of shape (n_samples, n_classes) or (n_samples,)
        """
        scores = -self.class_residuals(X)
        if scores.shape[1] == 2:
            return scores[:, 1] - scores[:, 0]
        return scores

    def predict(self, X):
        """The class of smallest residual (the first such class on ties).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        residuals = self.class_residuals(X)
        return self.classes_[np.argmin(residuals, axis=1)]
