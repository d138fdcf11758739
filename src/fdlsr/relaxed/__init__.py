"""The least-squares-regression family with relaxed labels (DLSR, ReLSR, ...)."""

from .dlsr import DLSR
from .drr import DRR
from .lrdlsr import LRDLSR
from .lsr import LSR
from .relsr import GReLSR, ReLSR
from .rlr import RLR

__all__ = ["DLSR", "DRR", "GReLSR", "LRDLSR", "LSR", "RLR", "ReLSR"]

METHODS = []
