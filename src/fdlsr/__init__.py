"""fdlsr: Fisher Discriminative Least Squares Regression and its relatives."""

from .estimator import FDLSR

__version__ = "0.1.0"

__all__ = ["FDLSR", "__version__"]
