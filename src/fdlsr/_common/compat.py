"""The private scikit-learn and SciPy names the project relies on, imported in one place."""

try:  # MINPACK-2's line search, as L-BFGS-B's (SciPy's Python port of it)
    from scipy.optimize._dcsrch import DCSRCH
except ImportError:  # pragma: no cover - an older SciPy: the search uses GridSearchCV
    DCSRCH = None
from sklearn.base import _fit_context
from sklearn.utils._array_api import (
    _convert_to_numpy,
    _max_precision_float_dtype,
    device,
    get_namespace,
    get_namespace_and_device,
)
from sklearn.utils._chunking import get_chunk_n_rows

try:  # scikit-learn >= 1.8: refuse predict-time arrays of another namespace/device
    from sklearn.utils._array_api import check_same_namespace
except ImportError:  # pragma: no cover - older scikit-learn has no such check

    def check_same_namespace(X, estimator, *, attribute, method):
        return None


from sklearn.utils._param_validation import Interval, StrOptions

__all__ = [
    "DCSRCH",
    "Interval",
    "StrOptions",
    "_convert_to_numpy",
    "_fit_context",
    "_max_precision_float_dtype",
    "check_same_namespace",
    "device",
    "get_chunk_n_rows",
    "get_namespace",
    "get_namespace_and_device",
]
