"""fdlsr: Fisher Discriminative Least Squares Regression and its relatives."""

from .cv import FDLSRCV
from .estimator import FDLSR

__version__ = "0.1.0"

__all__ = ["FDLSR", "FDLSRCV", "__version__"]
