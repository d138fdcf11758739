"""What the representation-based classifiers share: the dictionary and the batching.

These classifiers learn nothing beyond a few factorisations in ``fit``: the (unit-
normalised) training samples are the dictionary, and all the work (coding each test
sample over the dictionary, then comparing class-wise residuals) happens at predict
time, in chunks of test samples bounded by scikit-learn's ``working_memory``.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils import gen_batches

from .._common.classifiers import ScoreClassifier
from .._common.compat import get_chunk_n_rows
from .._common.docstrings import fill_doc
from .._common.linalg import normalize_rows
from .._common.validation import check_fitted_shapes
from ._residuals import ClassResiduals

#: The ``normalize`` parameter of CRC, ProCRC and NRC, for ``%(normalize)s``.
NORMALIZE_DOC = """
    normalize : bool, default=True
        Scale training and test samples to unit L2 norm, the authors' setting.
"""
#: The dictionary every family member keeps, for ``%(dictionary)s``.
DICTIONARY_DOC = """
    classes_ : ndarray of shape (n_classes,)
    dictionary_ : ndarray of shape (n_samples, n_features)
        The training samples (unit-normalised if ``normalize``), one atom each.
    dictionary_labels_ : ndarray of int of shape (n_samples,)
        Index into ``classes_`` of each training sample.
"""
representation_doc = fill_doc(normalize=NORMALIZE_DOC, dictionary=DICTIONARY_DOC)


class RepresentationClassifier(ScoreClassifier):
    """Base class: subclasses implement ``_prepare``, ``_codes`` and ``_residuals``.

    ``_prepare(D, y)`` precomputes what coding needs; ``_codes(Y)`` returns the codes
    of a chunk of (normalised) test samples, shape (m, n_atoms); ``_residuals(Y)``
    returns their class-wise residuals, shape (m, n_classes), smaller meaning closer.
    The class scores are the negated residuals.
    """

    _parameter_constraints: dict = {"normalize": ["boolean"]}

    # Temporaries per test sample, in units of n_atoms floats (codes, products, ...).
    _rows_per_sample = 6

    def _normalizes_samples(self):
        return self.normalize

    def _fit_encoded(self, X, codes, n_classes):
        # The (normalised) training samples are the dictionary.
        dictionary = normalize_rows(X) if self.normalize else np.array(X, order="C")
        self.dictionary_ = dictionary
        self.dictionary_labels_ = codes
        self._class_residuals = ClassResiduals(dictionary, codes, n_classes)
        self._prepare(dictionary, codes)
        return self

    def _check_fitted_arrays(self):
        """Raise ``ValueError`` if the dictionary, its labels and what was prepared
        from them disagree (a model file's check)."""
        if not hasattr(self, "dictionary_"):
            return  # not fitted
        c, d = len(self.classes_), self.n_features_in_
        n = np.shape(self.dictionary_)[0]
        shapes = {"dictionary_": (n, d), "dictionary_labels_": (n,)}
        shapes.update(gram_=(n, n), projection_=(d, n), _inverse=(n, n))
        check_fitted_shapes(self, shapes)
        labels = self.dictionary_labels_
        if labels.dtype.kind not in "iu" or np.any((labels < 0) | (labels >= c)):
            raise ValueError(
                f"{type(self).__name__}.dictionary_labels_ are not class codes of its "
                f"{c} classes"
            )
        residuals = self._class_residuals
        expected = sp.csr_array((np.ones(n), (np.arange(n), labels)), shape=(n, c))
        if (
            not isinstance(residuals, ClassResiduals)
            or residuals.indicator.shape != (n, c)
            or (residuals.indicator != expected).nnz
            or residuals.block_gram.shape != (n, n)
        ):
            raise ValueError(
                f"{type(self).__name__}'s class residuals disagree with its dictionary"
            )

    def _by_chunks(self, X, compute, width):
        """``compute`` on memory-bounded chunks of the normalised samples ``X``
        (validated), stacked into shape (n_samples, width)."""
        n_atoms = self.dictionary_.shape[0]
        row_bytes = 8 * (self._rows_per_sample * n_atoms + X.shape[1])
        chunk = get_chunk_n_rows(row_bytes=row_bytes, max_n_rows=X.shape[0])
        out = np.empty((X.shape[0], width))
        for rows in gen_batches(X.shape[0], chunk):
            Y = normalize_rows(X[rows]) if self.normalize else X[rows]
            out[rows] = compute(np.ascontiguousarray(Y))
        return out

    def encode(self, X):
        """Code each sample of ``X`` over the dictionary (the training samples).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples to code over the training samples.

        Returns
        -------
        codes : ndarray of shape (n_samples, n_training_samples)
            Column ``j`` weighs training sample ``j`` (in the order given to ``fit``).
        """
        X = self._test_data(X, "encode")
        return self._by_chunks(X, self._codes, self.dictionary_.shape[0])

    def class_residuals(self, X):
        """The class-wise residuals the rule compares (smaller is closer).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples to compare with each class.

        Returns
        -------
        residuals : ndarray of shape (n_samples, n_classes)
        """
        return self._residuals_of(self._test_data(X, "class_residuals"))

    def _residuals_of(self, X):
        return self._by_chunks(X, self._residuals, len(self.classes_))

    def _class_scores(self, X):
        # Negated, so that the argmax (the first on ties) is the smallest residual.
        return -self._residuals_of(X)
