"""The scikit-learn plumbing every classifier of the package shares.

A classifier here learns from integer class codes and scores test samples per class,
larger meaning closer; everything around that is written once:

- :class:`ScoreClassifier`: validation of the training and test samples, labels of
  any type through :func:`~fdlsr._common.validation.encode_labels`, and the step from
  class scores to ``decision_function`` and ``predict`` (as scikit-learn's
  ``LinearClassifierMixin`` does for its linear models).
- :class:`ProjectionClassifier`: classifiers that learn a projection ``coef_`` onto
  one dimension per class (FDLSR and the relaxed-regression family). They are also
  transformers, and classify by one of four rules (``decision_rule``): the two of
  those papers, the largest projection (``"linear"``) and the label of the nearest
  training sample after projecting and L2-normalising (``"nearest_neighbor"``), and
  two that the same normalised projections allow: a vote of the ``n_neighbors``
  nearest (``"knn"``) and the nearest class centroid (``"nearest_mean"``).
"""

from numbers import Integral

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted, validate_data

from .compat import (
    Interval,
    StrOptions,
    _convert_to_numpy,
    _fit_context,
    check_same_namespace,
    get_namespace_and_device,
)
from .neighbors import NearestProjection, centroid_scores, class_centroids
from .validation import check_fitted_shapes, check_sample_scale, encode_labels

# The helper objects a fitted classifier of this plumbing keeps, for the model-file
# allowlist (fdlsr.persistence).
_MODEL_FILE_CLASSES = (NearestProjection,)

#: The decision rules of :class:`ProjectionClassifier`, the paper's first.
RULES = ("nearest_neighbor", "nearest_mean", "knn", "linear")
#: The rules that need the training projections (``neighbors_``).
NEIGHBOR_RULES = {"nearest_neighbor", "knn"}
#: Validation of ``decision_rule``, ``n_neighbors`` and ``weights``.
RULE_CONSTRAINTS = {
    "decision_rule": [StrOptions(set(RULES))],
    "n_neighbors": [Interval(Integral, 1, None, closed="left")],
    "weights": [StrOptions({"uniform", "distance"})],
}


class ScoreClassifier(ClassifierMixin, BaseEstimator):
    """Base class: a classifier that scores every class of a test sample.

    Subclasses implement ``_fit_encoded(X, codes, n_classes)``, which learns from
    validated samples and integer class codes and returns ``self``, and
    ``_class_scores(X)``: the scores of validated test samples, shape
    (n_samples, n_classes), the largest for the predicted class.

    A subclass whose learning is a numerical core calls it in ``_fit_encoded`` with
    its parameters by name (``fit_<name>(X, codes, n_classes, alpha=self.alpha,
    ...)``) and keeps the fields of its result as fitted attributes, one by one.
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Learn the model from training samples ``X`` and their labels ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Labels of any hashable, sortable type.

        Returns
        -------
        self : object
            The fitted classifier.
        """
        X, codes = self._training_data(X, y)
        return self._fit_encoded(X, codes, self.classes_.shape[0])

    def _training_data(self, X, y, dtype=np.float64):
        """Validated samples and integer class codes; sets ``classes_``. Samples far
        from unit norm are refused or warned of (:func:`~fdlsr._common.validation.
        check_sample_scale`) unless the method normalises them itself."""
        X, y = validate_data(self, X, y, dtype=dtype)
        codes = encode_labels(self, y)
        if not self._normalizes_samples():
            check_sample_scale(self, X)
        return X, codes

    def _normalizes_samples(self):
        """Whether the method scales every sample to unit norm before using it, so
        that its model does not depend on the samples' scale."""
        return False

    def _test_data(self, X, method):
        """Validated test samples, checked against what ``fit`` saw.

        ``method`` names the public method asking, for error messages.
        """
        check_is_fitted(self)
        return validate_data(self, X, reset=False, dtype=np.float64)

    def decision_function(self, X):
        """Class scores whose argmax is the prediction.

        For two classes the difference of the two scores is returned (positive
        means ``classes_[1]``), as in scikit-learn.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples to score.

        Returns
        -------
        scores : ndarray of shape (n_samples, n_classes) or (n_samples,)
            One score per class (or their difference for two classes).
        """
        scores = self._class_scores(self._test_data(X, "decision_function"))
        if scores.shape[1] == 2:
            return scores[:, 1] - scores[:, 0]
        return scores

    def predict(self, X):
        """Predict class labels: the class of largest score (the first on ties).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples to label.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            A label of ``classes_`` for each sample.
        """
        scores = self._class_scores(self._test_data(X, "predict"))
        if isinstance(scores, np.ndarray):
            return self._label(np.argmax(scores, axis=1))
        return self._label(get_namespace_and_device(scores)[0].argmax(scores, axis=1))

    def _label(self, codes):
        """``classes_[codes]`` in the namespace of the codes (that of ``X``); labels
        that only NumPy holds (strings, objects) come back as NumPy."""
        classes = self.classes_
        if isinstance(classes, np.ndarray) and (
            isinstance(codes, np.ndarray) or classes.dtype.kind not in "biuf"
        ):
            if not isinstance(codes, np.ndarray):
                codes = _convert_to_numpy(codes, get_namespace_and_device(codes)[0])
            return classes[codes]
        xp = get_namespace_and_device(codes)[0]
        return xp.take(on_device(classes, codes), codes, axis=0)


class ProjectionClassifier(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, ScoreClassifier
):
    """Base class: a learnt projection ``coef_`` (n_classes x n_features) and four
    decision rules on it.

    Subclasses have the parameters ``decision_rule``, ``n_neighbors`` and ``weights``
    (validated by :data:`RULE_CONSTRAINTS`) and call :meth:`_fit_rule` with the
    training projections once ``coef_`` is learnt. What a fitted model keeps:

    - ``"nearest_neighbor"`` (the paper's rule): the class of the nearest normalised
      training projection; keeps ``neighbors_`` (n x c) and ``centroids_``.
    - ``"knn"``: a vote of the ``n_neighbors`` nearest (``weights``: uniform or
      inverse distance); keeps the same. With fewer training samples than
      ``n_neighbors`` all of them vote, and ``predict`` warns.
    - ``"nearest_mean"``: the largest cosine to a class centroid; keeps
      ``centroids_`` (c x c) only.
    - ``"linear"``: the largest projection; keeps ``centroids_`` only.

    ``centroids_`` costs c x c numbers and is always kept, so the rule can be changed
    after fitting with ``set_params(decision_rule=...)`` (and ``n_neighbors``,
    ``weights``) without refitting, except towards a neighbour rule on a model
    fitted with ``"nearest_mean"`` or ``"linear"``, which did not keep the training
    projections: that raises :class:`~sklearn.exceptions.NotFittedError` naming the
    refit. With ``_array_api = True`` test samples may come from any array namespace
    that scikit-learn's array-API support knows, and float32 stays float32.
    """

    _array_api = False

    def _project(self, X):
        return X @ self.coef_.T

    def _fit_rule(self, projections, codes, n_classes, neighbors=None):
        """Keep what the decision rules need from the training ``projections``
        (n_samples x n_classes): the class centroids always, the projections
        themselves (or the ``neighbors`` given) for a neighbour rule only."""
        self.centroids_ = class_centroids(projections, codes, n_classes)
        self._set_neighbors(
            lambda: (
                neighbors
                if neighbors is not None
                else NearestProjection(projections, codes, n_classes)
            )
        )
        return self

    def _set_neighbors(self, make):
        """``neighbors_ = make()`` if the rule needs it; otherwise drop any left by an
        earlier fit."""
        if self._decision_rule() in NEIGHBOR_RULES:
            self.neighbors_ = make()
        elif hasattr(self, "neighbors_"):
            del self.neighbors_

    def _decision_rule(self):
        """The rule ``predict`` applies (``FDLSRCV``: the one it chose)."""
        return self.decision_rule

    def _check_fitted_arrays(self):
        """Raise ``ValueError`` if the fitted arrays disagree with the classes and
        features, for every rule (a model file's check, :mod:`fdlsr._experiments.
        model_checks`)."""
        if not hasattr(self, "coef_"):
            return  # not fitted
        c, d = len(self.classes_), self.n_features_in_
        shapes = {"coef_": (c, d), "intercept_": (c,), "centroids_": (c, c)}
        check_fitted_shapes(self, shapes)
        neighbors = getattr(self, "neighbors_", None)
        if neighbors is not None and (
            not isinstance(neighbors, NearestProjection)
            or neighbors.starts.shape != (c,)
            or neighbors.reference.shape[1:] != (c,)
        ):
            raise ValueError(
                f"{type(self).__name__}.neighbors_ does not hold projections onto "
                f"its {c} classes"
            )

    def _test_data(self, X, method):
        if not self._array_api:
            return super()._test_data(X, method)
        check_is_fitted(self)
        check_same_namespace(X, self, attribute="coef_", method=method)
        xp = get_namespace_and_device(X)[0]
        return validate_data(self, X, reset=False, dtype=[xp.float64, xp.float32])

    def transform(self, X):
        """Project ``X``: the regression features, one per class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples to project.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_classes)
            ``Q x + b`` for each sample ``x``.
        """
        return self._project(self._test_data(X, "transform"))

    def decision_function(self, X):
        """Class scores whose argmax is the prediction.

        By ``decision_rule``: ``"linear"``, the projections; ``"nearest_neighbor"``,
        per class, the largest cosine similarity between the projected sample and
        that class's projected training samples; ``"nearest_mean"``, the cosine to
        each class centroid; ``"knn"``, the share of the ``n_neighbors`` nearest
        training projections' votes that each class gets. For the last three, scores
        within ``sqrt(eps)`` of the best are reported equal to it, so ties go to the
        first class. For two classes, the second score minus the first (positive
        means ``classes_[1]``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples to score, projected by ``Q`` first.

        Returns
        -------
        scores : ndarray of shape (n_samples, n_classes) or (n_samples,)
            One score per class (or their difference for two classes).
        """
        return super().decision_function(X)

    def _class_scores(self, X):
        rule = self._decision_rule()
        Z = self._project(X)
        if rule == "linear":
            return Z
        if rule == "nearest_mean":
            return centroid_scores(Z, on_device(self.centroids_, Z))
        neighbors = getattr(self, "neighbors_", None)
        if neighbors is None:
            raise NotFittedError(
                f"This {type(self).__name__} was fitted with a decision rule that "
                f"keeps no training projections; decision_rule={rule!r} needs them. "
                f"Fit it again with decision_rule={rule!r} (or fit with "
                "'nearest_neighbor' or 'knn', which keep them, to switch rules "
                "afterwards)."
            )
        if rule == "knn":
            return neighbors.knn_scores(Z, self.n_neighbors, self.weights)
        return neighbors.scores(Z)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        if self._array_api:
            tags.transformer_tags.preserves_dtype = ["float64", "float32"]
            tags.array_api_support = True
        return tags


def on_device(a, like):
    """``a`` in the namespace and on the device of ``like`` (labels of mixed inputs)."""
    xp, _, dev = get_namespace_and_device(like)
    a_xp, _, a_dev = get_namespace_and_device(a)
    if a_xp is xp and a_dev == dev:
        return a
    if not isinstance(a, np.ndarray):
        a = _convert_to_numpy(a, a_xp)
    if isinstance(like, np.ndarray):
        return a
    return xp.asarray(a, device=dev)
