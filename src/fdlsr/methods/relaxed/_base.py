"""What every classifier of the family shares once its projection is learnt.

A fitted model holds a projection ``coef_`` (n_classes x n_features) and an
``intercept_``; ``transform`` gives the regression features ``Q x + b``. Samples are
classified by one of the two rules the papers use: the largest regression output
(``"linear"``, DLSR and ReLSR) or the label of the nearest training sample after
projecting and L2-normalising (``"nearest_neighbor"``, LRDLSR and FDLSR).
"""

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils.validation import check_is_fitted, validate_data

from ...common.compat import _fit_context
from ...common.neighbors import NearestProjection
from ...common.validation import encode_labels

DECISION_RULES = {"nearest_neighbor", "linear"}


class RelaxedRegressionClassifier(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClassifierMixin, BaseEstimator
):
    """Base class: validation of the training data and the two decision rules.

    Subclasses implement ``_fit_core(X, codes, n_classes)`` returning
    ``(coef, intercept)`` (intercept may be ``None``) and set ``decision_rule``.
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Learn the projection from samples ``X`` and labels ``y`` of any type.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        codes = encode_labels(self, y)
        n_classes = len(self.classes_)
        coef, intercept = self._fit_core(X, codes, n_classes)
        self.coef_ = coef
        self.intercept_ = np.zeros(n_classes) if intercept is None else intercept
        self._n_features_out = n_classes
        if self.decision_rule == "nearest_neighbor":
            self.neighbors_ = NearestProjection(self._project(X), codes, n_classes)
        return self

    def _project(self, X):
        return X @ self.coef_.T + self.intercept_

    def transform(self, X):
        """The regression features ``Q x + b``.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self._project(X)

    def decision_function(self, X):
        """Class scores whose argmax is the prediction.

        ``"linear"``: the regression outputs ``Q x + b``. ``"nearest_neighbor"``: per
        class, the largest cosine similarity between the projected sample and that
        class's projected training samples. With two classes the difference of the
        two scores is returned (positive means ``classes_[1]``), as in scikit-learn.

        Returns
        -------
        scores : ndarray of shape (n_samples, n_classes) or (n_samples,)
        """
        Z = self.transform(X)
        scores = (
            self.neighbors_.scores(Z) if self.decision_rule == "nearest_neighbor" else Z
        )
        if scores.shape[1] == 2:
            return scores[:, 1] - scores[:, 0]
        return scores

    def predict(self, X):
        """Predict class labels with the model's decision rule.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]
