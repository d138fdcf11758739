"""Dictionary-learning classifiers.

* K-SVD with OMP codes and a linear classifier of the codes: LC-KSVD2, LCLE.
* Projective dictionary pairs, class-wise residual: DPL, DRA-DPL.
* Fisher-discrimination dictionaries, global-coding errors: FDDL, LRSDL (defaults
  from Vu & Monga's DICTOL toolbox).

See docs/methods-dictionary.md.
"""

from . import _class_blocks, _padded_classes
from ._dpl import DPL
from ._dradpl import DRADPL
from ._fddl import FDDL
from ._lcksvd import LCKSVD2
from ._lcle import LCLE
from ._lrsdl import LRSDL

__all__ = ["DPL", "DRADPL", "FDDL", "LCKSVD2", "LCLE", "LRSDL"]

# The classes a model file of this family may hold (the allowlist of
# fdlsr.persistence): the estimators and the helper objects they keep.
_MODEL_FILE_CLASSES = (
    DPL,
    DRADPL,
    FDDL,
    LCKSVD2,
    LCLE,
    LRSDL,
    _class_blocks.ClassBlocks,
    _padded_classes.PaddedClasses,
)
