"""Input checks shared by every estimator of the package."""

from numbers import Integral, Real

import numpy as np
from sklearn.preprocessing import LabelEncoder
from sklearn.utils.multiclass import check_classification_targets

from .compat import Interval
from .messages import quote

NON_NEGATIVE = Interval(Real, 0, np.inf, closed="left")
POSITIVE = Interval(Real, 0, np.inf, closed="neither")
# An iteration count where 0 means "no iterations": the initial solution.
N_ITER = Interval(Integral, 0, None, closed="left")


def encode_labels(estimator, y, min_classes=2):
    """Set ``estimator.classes_`` and return integer codes in ``[0, n_classes)``.

    Labels may be of any sortable type and in any order; fewer than ``min_classes``
    distinct labels is refused with a message in the user's terms.
    """
    check_classification_targets(y)
    encoder = LabelEncoder().fit(y)
    estimator.classes_ = encoder.classes_
    n_classes = encoder.classes_.shape[0]
    if n_classes < min_classes:
        raise ValueError(
            f"{type(estimator).__name__} needs samples from at least {min_classes} "
            f"classes; got {n_classes} class "
            f"({label_repr(encoder.classes_[0])}). Provide training samples of other "
            "classes."
        )
    return encoder.transform(y)


def check_fitted_shapes(obj, shapes):
    """Raise ``ValueError`` naming the first array attribute of ``obj`` that is not
    real numbers of the shape ``shapes`` gives it (attributes ``obj`` lacks are
    skipped): how a fitted model's arrays are checked against each other when a
    model file is loaded (``_check_fitted_arrays``)."""
    for name, shape in shapes.items():
        value = getattr(obj, name, None)
        if value is None:
            continue
        kind = getattr(getattr(value, "dtype", None), "kind", None)
        if np.shape(value) != shape or kind not in ("b", "i", "u", "f"):
            raise ValueError(
                f"{type(obj).__name__}.{name} is {getattr(value, 'dtype', '')} of shape "
                f"{np.shape(value)} where real numbers of shape {shape} are due"
            )


def label_repr(label):
    """A class label as a user wrote it: ``77`` or ``'cat'``, not ``np.int64(77)``
    (cut short: a label comes from the user's file)."""
    return quote(label)


def is_dask_array(X):
    """Whether ``X`` is a Dask array, without importing Dask for other inputs."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "chunks")
