"""Dictionary-learning classifiers.

* K-SVD with OMP codes and a linear classifier of the codes: LC-KSVD2, LCLE.
* Projective dictionary pairs, class-wise residual: DPL, DRA-DPL.
* Fisher-discrimination dictionaries, global-coding errors: FDDL, LRSDL (defaults
  from Vu & Monga's DICTOL toolbox).

See docs/methods-dictionary.md.
"""

from ._class_blocks import ClassBlocks
from ._padded_classes import PaddedClasses
from .dpl import DPL
from .dradpl import DRADPL
from .fddl import FDDL
from .lcksvd import LCKSVD2
from .lcle import LCLE
from .lrsdl import LRSDL

__all__ = ["DPL", "DRADPL", "FDDL", "LCKSVD2", "LCLE", "LRSDL"]

# The helper objects the fitted estimators keep, for the model-file allowlist
# (fdlsr.methods.model_file_classes).
MODEL_FILE_CLASSES = (ClassBlocks, PaddedClasses)
