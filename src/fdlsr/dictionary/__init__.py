"""Dictionary-learning classifiers (LC-KSVD, LCLE, FDDL, LRSDL, DPL, DRA-DPL)."""

METHODS = []

# --- FDDL and LRSDL (Fisher discrimination dictionaries); defaults from DICTOL ---
from .._registry import Method  # noqa: E402
from .fddl import FDDL  # noqa: E402
from .lrsdl import LRSDL  # noqa: E402

_VU_MONGA = "T. H. Vu and V. Monga, Fast low-rank shared dictionary learning, TIP 2017"
METHODS += [
    Method(
        "FDDL",
        FDDL,
        family="dictionary",
        summary="Fisher discrimination dictionary learning, global-coding errors",
        reference="M. Yang et al., Fisher discrimination dictionary learning, "
        "ICCV 2011 / IJCV 2014 (solver: " + _VU_MONGA + ")",
        params=dict(lambda1=1e-3, lambda2=5e-2, weight=0.1),
    ),
    Method(
        "LRSDL",
        LRSDL,
        family="dictionary",
        summary="FDDL plus a low-rank shared dictionary, global-coding errors",
        reference=_VU_MONGA,
        params=dict(n_shared_atoms=5, lambda1=1e-3, lambda2=1e-2, eta=2e-2),
    ),
]
# --- end FDDL and LRSDL ---
