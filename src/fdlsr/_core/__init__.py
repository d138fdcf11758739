"""The FDLSR model: the estimator, its solvers (in memory, blocked, Dask, stacked for
the grid search) and its cross-validation. Imports only :mod:`fdlsr._common` and
the splitters of :mod:`fdlsr.model_selection`."""

from ..model_selection._split import PerClassSplit
from .cv import FDLSRCV
from .estimator import FDLSR

# What a model file of FDLSR may hold (the allowlist of fdlsr.persistence): the
# estimators and the splitter FDLSRCV may keep as its cv.
_MODEL_FILE_CLASSES = (FDLSR, FDLSRCV, PerClassSplit)
