"""What a model file must hold: a fitted classifier whose arrays agree.

:mod:`.encoding` decodes only data, but data can contradict itself: a ``coef_`` of
the wrong shape, labels of one length and scores of another, a ``Pipeline`` whose
inner step is a classifier. Such a model fails at ``predict`` or, worse, predicts
quietly wrong, so :func:`check_model` refuses it when it is loaded:

1. every object of the model passes its own checks, where its class declares them
   (``_check_fitted_arrays``: the shapes of a projection classifier's arrays against
   its classes and features, the class ranges of its training projections, ...);
2. the root is a classifier, or a ``Pipeline`` of transformers ending in one, and
   every estimator in it is fitted and has valid parameters;
3. a probe: the model labels a random sample of the width it was fitted on, and
   its ``predict``, ``decision_function`` and ``predict_proba`` give the shapes,
   labels and finite values that its ``classes_`` promise.

The probe is the generic part, the same for every class, scikit-learn's included;
the declared checks cover what a probe cannot see (arrays that only another decision
rule uses, class ranges that are merely out of order).
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator, is_classifier
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from .._common.messages import cut, one_line
from ..errors import ModelFileError

PROBE_SAMPLES = 1  # predicting costs: SRC solves a lasso for each sample


class InconsistentModel(ValueError):
    """A decoded model is not a fitted classifier, or its arrays disagree."""


def check_savable(model):
    """Refuse to save what is not a fitted classifier (:class:`ModelFileError`)."""
    try:
        estimators = _estimators(model)
    except InconsistentModel as error:
        raise ModelFileError(f"cannot save the model: {error}") from None
    for estimator in estimators:
        try:
            check_is_fitted(estimator)
        except Exception:  # NotFittedError, or TypeError for a non-estimator
            name = type(estimator).__name__
            raise ModelFileError(
                f"cannot save the model: its {name} is not fitted; fit it first"
            ) from None


def check_model(model, objects, budget):
    """Raise :class:`InconsistentModel` (one line) unless ``model`` is a fitted
    classifier whose arrays agree (see the module's docstring).

    ``objects`` are all the objects the model is made of, inner ones first (each is
    checked before the objects that hold it). ``budget`` bounds the probe's width: a
    model of ``d`` features holds at least ``d`` numbers, so a file of ``budget``
    bytes cannot honestly declare more.
    """
    for obj in objects:
        check = getattr(obj, "_check_fitted_arrays", None)
        if check is None:
            continue
        try:
            check()
        except Exception as error:  # a missing or mistyped attribute included
            kind = "" if isinstance(error, ValueError) else f"{type(error).__name__}: "
            raise InconsistentModel(f"{kind}{error}") from None
    estimators = _estimators(model)
    for estimator in estimators:
        name = type(estimator).__name__
        try:
            check_is_fitted(estimator)
        except Exception:
            raise InconsistentModel(f"its {name} is not fitted") from None
        try:
            estimator._validate_params()
        except Exception as error:
            message = f"its {name} has invalid parameters ({error})"
            raise InconsistentModel(message) from None
    width = n_features_in(model)
    if not _is_int(width) or not 0 < width <= budget:
        raise InconsistentModel(f"its number of features {cut(width)} is invalid")
    classes = getattr(model, "classes_", None)
    if not _distinct_sorted(classes):
        raise InconsistentModel("its classes_ are not distinct sorted labels")
    _probe(model, int(width), classes)


def n_features_in(model):
    """The number of features ``model`` takes: its ``n_features_in_``, or for a
    ``Pipeline`` whose first steps are skipped (``"passthrough"``, None), that of
    its first step that is not (scikit-learn's ``Pipeline.n_features_in_`` asks the
    first step only). None where it has none."""
    width = getattr(model, "n_features_in_", None)
    if width is None and isinstance(model, Pipeline) and isinstance(model.steps, list):
        for step in model.steps:
            estimator = step[1] if isinstance(step, tuple) and len(step) == 2 else None
            if estimator not in (None, "passthrough"):
                return getattr(estimator, "n_features_in_", None)
    return width


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _distinct_sorted(classes):
    if not isinstance(classes, np.ndarray) or classes.ndim != 1 or classes.size == 0:
        return False
    try:
        return bool(np.array_equal(np.unique(classes), classes))
    except TypeError:  # labels of types that do not compare
        return False


def _estimators(model):
    """The estimators of ``model``: its steps if it is a Pipeline of transformers
    ending in a classifier, else itself if it is a classifier."""
    if isinstance(model, Pipeline):
        steps = model.steps
        if (
            not isinstance(steps, list)
            or not steps
            or not all(isinstance(s, tuple) and len(s) == 2 for s in steps)
        ):
            raise InconsistentModel("its Pipeline's steps are not (name, step) pairs")
        *inner, (_, last) = steps
        for _, step in inner:
            if step in (None, "passthrough"):  # scikit-learn's skipped step
                continue
            if not (hasattr(step, "fit") and hasattr(step, "transform")):
                raise InconsistentModel(
                    f"its Pipeline's inner step {type(step).__name__} is not a "
                    "transformer"
                )
        if not is_classifier(last):
            raise InconsistentModel(
                f"its Pipeline ends in a {type(last).__name__}, not a classifier"
            )
        return [step for _, step in steps if step not in (None, "passthrough")]
    if not isinstance(model, BaseEstimator) or not is_classifier(model):
        raise InconsistentModel(
            f"its root is a {type(model).__name__}, not a classifier"
        )
    return [model]


def _probe(model, width, classes):
    """Label random samples and check what comes back. They are non-negative, so
    that a model of distances (a k-NN of ``metric="precomputed"``) takes them too."""
    X = np.abs(np.random.default_rng(0).standard_normal((PROBE_SAMPLES, width)))
    expected = {
        "decision_function": (PROBE_SAMPLES,)
        if classes.size == 2
        else (PROBE_SAMPLES, classes.size),
        "predict_proba": (PROBE_SAMPLES, classes.size),
    }
    name = type(model).__name__
    for method in ("predict", "decision_function", "predict_proba"):
        if not hasattr(model, method):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = getattr(model, method)(X)
        except NotImplementedError:
            continue
        except NotFittedError as error:  # e.g. a search that fitted no model
            raise InconsistentModel(f"{one_line(error).rstrip('.')}") from None
        except Exception as error:  # any part of the file may be the wrong one
            raise InconsistentModel(
                f"{name}.{method} fails on a random sample of {width} features "
                f"({type(error).__name__}: {one_line(error)})"
            ) from None
        if method == "predict":
            if np.shape(out) != (PROBE_SAMPLES,) or not np.isin(out, classes).all():
                raise InconsistentModel(
                    f"{name}.predict gives labels outside its classes_ (or of the "
                    "wrong shape)"
                )
        elif np.shape(out) != expected[method]:
            raise InconsistentModel(
                f"{name}.{method} gives an array of shape {np.shape(out)} for "
                f"{classes.size} classes (expected {expected[method]})"
            )
        elif not np.isfinite(out).all():
            raise InconsistentModel(f"{name}.{method} gives values that are not finite")
