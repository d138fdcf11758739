"""The least-squares-regression family with relaxed labels (DLSR, ReLSR, ...).

Each method is a scikit-learn classifier whose numerical core is a module-level
function (``fit_lsr``, ``fit_dlsr``, ...). ``METHODS`` registers them for the
experiments at their estimators' defaults, with cross-validation grids; see
``docs/methods-lsr.md`` for how the defaults were chosen.
"""

from ..registry import Method
from .dlsr import DLSR
from .drr import DRR
from .lrdlsr import LRDLSR
from .lsr import LSR
from .relsr import GReLSR, ReLSR
from .rlr import RLR

__all__ = ["DLSR", "DRR", "GReLSR", "LRDLSR", "LSR", "METHODS", "RLR", "ReLSR"]

# The helper objects the fitted estimators keep, for the model-file allowlist
# (fdlsr.methods.model_file_classes): none besides the shared plumbing's.
MODEL_FILE_CLASSES = ()

_RIDGE_GRID = [1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0]
_SMALL_GRID = [1e-3, 1e-2, 1e-1, 1.0]

METHODS = [
    Method(
        "LSR",
        LSR,
        family="relaxed",
        summary="ridge regression to one-hot labels, argmax",
        reference="Chen, Wu & Kittler, FDLSR paper, Eq. (1)",
        settings=("lam",),
        grid=dict(lam=_RIDGE_GRID),
    ),
    Method(
        "DLSR",
        DLSR,
        family="relaxed",
        summary="epsilon-dragged labels with bias, argmax",
        reference="Xiang, Nie, Meng, Pan & Zhang, IEEE TNNLS 23(11), 2012",
        settings=("lam",),
        grid=dict(lam=_RIDGE_GRID),
    ),
    Method(
        "ReLSR",
        ReLSR,
        family="relaxed",
        summary="targets learnt under a unit margin (exact projection), argmax",
        reference="Zhang, Wang, Xiang & Liu, IEEE TNNLS 26(9), 2015",
        settings=("lam",),
        grid=dict(lam=_RIDGE_GRID),
    ),
    Method(
        "GReLSR",
        GReLSR,
        family="relaxed",
        summary="ReLSR with class-wise similar translations, argmax",
        reference="Wang & Pan, IEEE TNNLS 29(4), 2018",
        settings=("lam", "group"),
        grid=dict(lam=_SMALL_GRID, group=[1e-2, 1e-1, 1.0, 10.0]),
    ),
    Method(
        "LRDLSR",
        LRDLSR,
        family="relaxed",
        summary="class-wise low-rank relaxed labels (inexact ALM), 1-NN",
        reference="Chen, Wu & Kittler, Signal Processing 173, 2020",
        settings=("alpha", "beta", "gamma", "lam"),
        grid=dict(beta=[1e-2, 1e-1, 1.0], lam=[1e-3, 1e-2, 1e-1]),
    ),
    Method(
        "RLR",
        RLR,
        family="relaxed",
        summary="dragged labels, class compactness graph (reconstructed), argmax",
        reference="Fang, Xu, Li, Lai, Wong & Fang, IEEE TNNLS 29(4), 2018",
        settings=("lam", "beta"),
        grid=dict(lam=_SMALL_GRID, beta=[1e-3, 1e-2, 1e-1, 1.0, 10.0]),
    ),
    Method(
        "DRR",
        DRR,
        family="relaxed",
        summary="dragged labels, two-projection class graph (reconstructed), argmax",
        reference="Han, Wu, Fang, Wen, Zhan, Xie & Li, IEEE TCSVT 30(2), 2020",
        settings=("lam", "beta"),
        grid=dict(lam=_SMALL_GRID, beta=[1e-3, 1e-2, 1e-1, 1.0, 10.0]),
    ),
]
