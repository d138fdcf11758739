"""The private scikit-learn names the project relies on, imported in one place."""

from sklearn.base import _fit_context
from sklearn.utils._chunking import get_chunk_n_rows
from sklearn.utils._param_validation import Interval, StrOptions

__all__ = ["Interval", "StrOptions", "_fit_context", "get_chunk_n_rows"]
