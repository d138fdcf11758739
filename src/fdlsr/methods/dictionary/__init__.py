"""Dictionary-learning classifiers.

* K-SVD with OMP codes and a linear classifier of the codes: LC-KSVD2, LCLE.
* Projective dictionary pairs, class-wise residual: DPL, DRA-DPL.
* Fisher-discrimination dictionaries, global-coding errors: FDDL, LRSDL (defaults
  from Vu & Monga's DICTOL toolbox).

See docs/methods-dictionary.md.
"""

from ..registry import Method
from ._class_blocks import ClassBlocks
from ._padded_classes import PaddedClasses
from .dpl import DPL
from .dradpl import DRADPL
from .fddl import FDDL
from .lcksvd import LCKSVD2
from .lcle import LCLE
from .lrsdl import LRSDL

__all__ = ["DPL", "DRADPL", "FDDL", "LCKSVD2", "LCLE", "LRSDL", "METHODS"]

# The helper objects the fitted estimators keep, for the model-file allowlist
# (fdlsr.methods.model_file_classes).
MODEL_FILE_CLASSES = (ClassBlocks, PaddedClasses)

_VU_MONGA = "T. H. Vu and V. Monga, Fast low-rank shared dictionary learning, TIP 2017"

METHODS = [
    Method(
        "LC-KSVD2",
        LCKSVD2,
        family="dictionary",
        summary="label-consistent K-SVD, OMP codes, linear classifier of the codes",
        reference="Jiang, Lin & Davis, CVPR 2011 / TPAMI 2013",
        # alpha, beta: LCKSVD2's defaults are the code's YaleB values (16, 4), which
        # suit its unnormalised features; for unit-norm samples these were chosen on
        # held-out *training* images of FERET (see docs/methods-dictionary.md), as
        # the authors' README advises ("determined according to the classification
        # performance for training data").
        params=dict(alpha=1e-3, beta=1e-2),
        settings=("alpha", "beta", "n_nonzero_coefs", "max_iter", "init_iter"),
        grid=dict(alpha=[1e-3, 1e-2, 1e-1], beta=[1e-2, 1e-1, 1.0]),
    ),
    Method(
        "LCLE",
        LCLE,
        family="dictionary",
        summary="locality-constrained, label-embedding dictionary, OMP + linear",
        reference="Li, Lai, Xu, Yang & Zhang, IEEE TNNLS 2017",
        settings=(
            "alpha",
            "beta",
            "gamma",
            "n_neighbors",
            "n_nonzero_coefs",
            "max_iter",
            "init_iter",
        ),
        grid=dict(alpha=[1e-4, 1e-2], beta=[1e-3, 1e-1], gamma=[1e-3, 1e-1]),
    ),
    Method(
        "DPL",
        DPL,
        family="dictionary",
        summary="projective dictionary pair learning, class-wise residual",
        reference="Gu, Zhang, Zuo & Feng, NIPS 2014",
        params=dict(random_state=0),  # the same initial dictionaries in every run
        settings=("tau", "lam", "gamma", "max_iter"),
        grid=dict(tau=[0.005, 0.05, 0.5], lam=[3e-4, 3e-3, 3e-2]),
    ),
    Method(
        "DRA-DPL",
        DRADPL,
        family="dictionary",
        summary="robust adaptive dictionary pair learning (l2,1), class-wise residual",
        reference="Sun, Zhang, Jiang, Zhang, Zhang, Yan & Wang, IEEE TNNLS 2020",
        params=dict(random_state=0),  # the same initial dictionaries in every run
        settings=("tau", "alpha", "beta", "lam", "max_iter"),
        grid=dict(alpha=[1e-5, 1e-4, 1e-3], beta=[5e-4, 5e-3, 5e-2]),
    ),
    Method(
        "FDDL",
        FDDL,
        family="dictionary",
        summary="Fisher discrimination dictionary learning, global-coding errors",
        reference="M. Yang et al., Fisher discrimination dictionary learning, "
        "ICCV 2011 / IJCV 2014 (solver: " + _VU_MONGA + ")",
        settings=("lambda1", "lambda2", "weight"),
    ),
    Method(
        "LRSDL",
        LRSDL,
        family="dictionary",
        summary="FDDL plus a low-rank shared dictionary, global-coding errors",
        reference=_VU_MONGA,
        settings=("n_shared_atoms", "lambda1", "lambda2", "eta"),
    ),
]
