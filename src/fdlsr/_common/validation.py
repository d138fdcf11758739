"""Input checks shared by every estimator of the package."""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.preprocessing import LabelEncoder
from sklearn.utils.multiclass import check_classification_targets

from ..errors import DataScaleError, DataScaleWarning
from .compat import Interval
from .linalg import row_norms
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


#: Typical norms of training samples (the median norm of the non-zero ones) for which
#: the methods' parameters, chosen for the papers' unit-norm samples, give a sound
#: model; outside, a scale-dependent method warns (docs/getting-started.md, "The
#: samples' scale", says what fails beyond).
SCALE_RANGE = (1e-1, 1e4)
#: Typical norms within which a method that computes on the raw samples keeps its
#: float64 arithmetic in range: products of four samples' entries (a Gram matrix
#: squared, as second-order solvers form) stay within about 1e-200 and 1e200.
SCALE_LIMITS = (1e-50, 1e50)
_FIX = (
    "unit-normalise the samples, as the paper and `fdlsr run` do "
    "(sklearn.preprocessing.normalize(X / abs(X).max()), and the same for test samples)"
)


def check_sample_scale(estimator, X, *, depends_on_scale=True):
    """The samples' scale rule, applied by ``fit`` of every estimator that computes
    on the raw training samples ``X`` (one that unit-normalises them itself does not
    call it).

    The typical norm is the median L2 norm of the non-zero samples
    (:func:`~fdlsr._common.linalg.row_norms`, exact at any scale). Outside
    :data:`SCALE_LIMITS` the fit is refused (:class:`~fdlsr.errors.DataScaleError`);
    outside :data:`SCALE_RANGE` a method whose model ``depends_on_scale`` (a
    penalty or a stopping rule weighed against the samples' size: all but the
    scale-invariant ones) warns once (:class:`~fdlsr.errors.DataScaleWarning`).
    Both messages name the norm found and the fix, unit normalisation. Samples that
    are all zero are left to the method.
    """
    norms = row_norms(X)
    norms = norms[norms > 0]
    if norms.size == 0:
        return
    typical = float(np.median(norms))
    name = type(estimator).__name__
    low, high = SCALE_LIMITS
    if not low <= typical <= high:
        raise DataScaleError(
            f"{name} cannot fit samples of typical norm {typical:.1e} (the median "
            f"norm of the training samples): outside [{low:.0e}, {high:.0e}] its "
            f"float64 arithmetic over- or underflows; {_FIX}."
        )
    low, high = SCALE_RANGE
    if depends_on_scale and not low <= typical <= high:
        warnings.warn(
            f"{name}: the training samples' typical norm is {typical:.1e}, outside "
            f"[{low:g}, {high:g}]; its parameters are chosen for unit-norm samples "
            f"(as in the paper), and at this scale its model may be degenerate: "
            f"{_FIX}.",
            DataScaleWarning,
            stacklevel=5,  # the caller of a ScoreClassifier's fit
        )


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
