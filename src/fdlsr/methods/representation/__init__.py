"""Representation-based classifiers (SRC, CRC, ProCRC, NRC).

Each codes a test sample over all training samples (the dictionary) and assigns the
class whose samples reconstruct it best; they differ in the coding penalty and the
class-wise rule. See docs/methods-representation.md.
"""

from ..registry import Method
from .crc import CRC, ProCRC
from .nrc import NRC
from .residuals import ClassResiduals
from .src import SRC

__all__ = ["CRC", "NRC", "SRC", "ProCRC", "METHODS"]

# The helper objects the fitted estimators keep, for the model-file allowlist
# (fdlsr.methods.model_file_classes).
MODEL_FILE_CLASSES = (ClassResiduals,)

# Values cross-validation may try. The methods run at their estimators' defaults,
# the authors' settings (SRC: see its Notes).
_RIDGE_GRID = [1e-4, 1e-3, 1e-2, 1e-1, 1.0]

METHODS = [
    Method(
        "SRC",
        SRC,
        family="representation",
        summary="l1 (lasso) coding over the training samples, class-residual rule",
        reference="Wright, Yang, Ganesh, Sastry & Ma, TPAMI 2009",
        settings=("lam",),
        grid=dict(lam=[1e-2, 3e-2, 1e-1]),  # below 1e-2 coordinate descent stalls
    ),
    Method(
        "CRC",
        CRC,
        family="representation",
        summary="ridge coding over the training samples, regularised residual rule",
        reference="Zhang, Yang & Feng, ICCV 2011",
        settings=("lam",),
        grid=dict(lam=_RIDGE_GRID),
    ),
    Method(
        "ProCRC",
        ProCRC,
        family="representation",
        summary="probabilistic collaborative coding, maximum class probability",
        reference="Cai, Zhang, Zuo & Feng, CVPR 2016",
        settings=("lam", "gamma"),
        grid=dict(lam=_RIDGE_GRID, gamma=[1e-3, 1e-2, 1e-1]),
    ),
    Method(
        "NRC",
        NRC,
        family="representation",
        summary="non-negative coding (authors' ADMM, 5 iterations), residual rule",
        reference="Xu, An, Zhang & Zhang, Pattern Recognition 2019",
        settings=("rho", "max_iter"),
        grid=dict(rho=[1e-2, 1e-1, 1.0], max_iter=[5, 10, 20]),
    ),
]
