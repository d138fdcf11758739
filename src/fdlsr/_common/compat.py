"""The private scikit-learn and SciPy names the project relies on, imported in one place."""

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

try:  # SciPy's kernel of CSR @ dense, which adds into an output it is given
    from scipy.sparse._sparsetools import csr_matvecs as _csr_matvecs
except ImportError:  # pragma: no cover - a SciPy that moved it: the public product
    _csr_matvecs = None


def csr_add_product(indptr, indices, data, X, out):
    """``out += A @ X`` for the CSR matrix ``A = (data, indices, indptr)``, in place.

    ``X`` and ``out`` are C-contiguous float64; ``A`` has ``out.shape[0]`` rows and
    ``X.shape[0]`` columns. SciPy's kernel writes into ``out`` (no temporary of its
    size) and releases the GIL; each row of ``out`` gets its terms in the order of
    ``indices``.
    """
    if _csr_matvecs is None:  # pragma: no cover
        from scipy.sparse import csr_array

        out += csr_array((data, indices, indptr), shape=(out.shape[0], X.shape[0])) @ X
        return
    _csr_matvecs(
        out.shape[0], X.shape[0], X.shape[1], indptr, indices, data, X.ravel(),
        out.ravel(),
    )  # fmt: skip


__all__ = [
    "Interval",
    "StrOptions",
    "_convert_to_numpy",
    "_fit_context",
    "_max_precision_float_dtype",
    "check_same_namespace",
    "csr_add_product",
    "device",
    "get_chunk_n_rows",
    "get_namespace",
    "get_namespace_and_device",
]
