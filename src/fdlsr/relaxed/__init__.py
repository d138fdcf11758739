"""The least-squares-regression family with relaxed labels (DLSR, ReLSR, ...).

Each method is a scikit-learn classifier whose numerical core is a module-level
function (``fit_lsr``, ``fit_dlsr``, ...); :mod:`fdlsr._experiments.registry` registers
them for the experiments. See ``docs/methods-lsr.md`` for how the defaults were
chosen.
"""

from ._dlsr import DLSR
from ._drr import DRR
from ._lrdlsr import LRDLSR
from ._lsr import LSR
from ._relsr import GReLSR, ReLSR
from ._rlr import RLR

__all__ = ["DLSR", "DRR", "GReLSR", "LRDLSR", "LSR", "RLR", "ReLSR"]

# The classes a model file of this family may hold (the allowlist of
# fdlsr.persistence): the estimators; their helpers are the shared plumbing's.
_MODEL_FILE_CLASSES = (DLSR, DRR, GReLSR, LRDLSR, LSR, RLR, ReLSR)
