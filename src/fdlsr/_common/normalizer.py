"""The unit normalisation of samples as a scikit-learn step, at any finite scale.

``fdlsr fit`` saves ``Pipeline([("normalizer", UnitNormalizer()), ("classifier",
method)])`` so that the model takes raw samples and normalises them as ``fdlsr run``
does (:func:`~fdlsr._common.linalg.normalize_rows`). scikit-learn's ``Normalizer``
squares the raw entries: samples above about 1e154 become zero rows, and a model
fitted on them labels every sample alike.
"""

import scipy.sparse as sp
from sklearn.preprocessing import Normalizer
from sklearn.utils.validation import check_is_fitted, validate_data

from .linalg import normalize_rows


class UnitNormalizer(Normalizer):
    """scikit-learn's :class:`~sklearn.preprocessing.Normalizer` whose L2 scaling
    divides each sample by its largest absolute entry first, so that samples of any
    finite scale (1e200 as well as 1e-200) keep their direction.

    Parameters
    ----------
    norm : {"l1", "l2", "max"}, default="l2"
        As scikit-learn's; the scaling above is that of ``"l2"`` on dense samples
        (``"l1"`` and ``"max"`` do not square, and sparse samples are scikit-learn's).
    copy : bool, default=True
        As scikit-learn's (the dense L2 scaling always returns a new array).

    See Also
    --------
    fdlsr._common.linalg.normalize_rows : the scaling itself.

    Examples
    --------
    >>> import numpy as np
    >>> from fdlsr._common.normalizer import UnitNormalizer
    >>> UnitNormalizer().fit_transform(np.array([[3e200, 4e200]]))
    array([[0.6, 0.8]])
    """

    def transform(self, X, copy=None):
        """Each sample of ``X`` scaled to unit norm.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples.
        copy : bool, optional
            As scikit-learn's ``Normalizer.transform``.

        Returns
        -------
        ndarray or sparse matrix of shape (n_samples, n_features)
        """
        if self.norm != "l2" or sp.issparse(X):
            return super().transform(X, copy=copy)
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=["float64", "float32"])
        return normalize_rows(X)


# What a model file may hold of this module (the allowlist of fdlsr.persistence):
# ``fdlsr fit``'s first step.
_MODEL_FILE_CLASSES = (UnitNormalizer,)
