"""Representation-based classifiers (SRC, CRC, ProCRC, NRC).

Each codes a test sample over all training samples (the dictionary) and assigns the
class whose samples reconstruct it best; they differ in the coding penalty and the
class-wise rule. See docs/methods-representation.md.
"""

from . import _residuals
from ._crc import CRC, ProCRC
from ._nrc import NRC
from ._src import SRC

__all__ = ["CRC", "NRC", "SRC", "ProCRC"]

# The classes a model file of this family may hold (the allowlist of
# fdlsr.persistence): the estimators and the helper object they keep.
_MODEL_FILE_CLASSES = (CRC, NRC, SRC, ProCRC, _residuals.ClassResiduals)
