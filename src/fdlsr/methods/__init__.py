"""Every classifier the experiments can run, by name.

FDLSR itself, the comparison methods of the paper's tables in their three families
(:mod:`.relaxed`, :mod:`.representation`, :mod:`.dictionary`) and the scikit-learn
baselines (:mod:`.baselines`), each described by a :class:`~.registry.Method`.
"""

from sklearn.model_selection import GridSearchCV

from .. import core
from ..common import classifiers
from ..common.classifiers import RULES
from ..core.cv import FDLSRCV
from ..core.estimator import FDLSR
from ..errors import ConfigError
from . import baselines, dictionary, relaxed, representation
from .registry import PAPER_GRID, Method

__all__ = [
    "FAMILIES",
    "METHODS",
    "PAPER_GRID",
    "Method",
    "family_rank",
    "get_method",
    "model_file_classes",
]

# Row groups of the paper's tables, in their order; the baselines come last.
FAMILIES = ["representation", "dictionary", "relaxed", "proposed", "scikit-learn"]

# FDLSR's parameters and their FDLSRCV grid arguments.
_SEARCHED = {
    "alpha": "alphas",
    "beta": "betas",
    "lam": "lams",
    "decision_rule": "decision_rules",
}


def fdlsr_search(*, grid, cv, **fixed):
    """The search behind ``fdlsr run --cv FDLSR``: :class:`~fdlsr.FDLSRCV` over
    ``grid`` (one factorisation per fold and beta; the decision rules share each
    fitted projection), choosing what ``GridSearchCV`` would. A fixed parameter that
    FDLSRCV does not take (``tol``) falls back to ``GridSearchCV``."""
    known = FDLSRCV().get_params()
    extra = {k: v for k, v in fixed.items() if k not in _SEARCHED and k not in known}
    if any(v is not None for v in extra.values()):
        base = FDLSR(**{k: v for k, v in fixed.items() if k not in grid})
        return GridSearchCV(base, grid, cv=cv, scoring="accuracy", refit=False)
    defaults = FDLSR().get_params()
    lists = {
        name: list(grid[key]) if key in grid else [fixed.get(key, defaults[key])]
        for key, name in _SEARCHED.items()
    }
    rest = {k: v for k, v in fixed.items() if k in known and k not in _SEARCHED}
    return FDLSRCV(**lists, cv=cv, **rest)


PROPOSED = [
    Method(
        "FDLSR",
        FDLSR,
        family="proposed",
        summary="Fisher discriminative LSR, paper's T-step, 1-NN on projections",
        reference="Chen, Wu & Kittler, Fisher Discriminative Least Squares Regression",
        settings=("alpha", "beta", "lam"),
        # --cv FDLSR also chooses the decision rule (the paper's 1-NN on ties).
        grid=dict(
            alpha=PAPER_GRID,
            beta=PAPER_GRID,
            lam=PAPER_GRID,
            decision_rule=list(RULES),
        ),
        cv_factory=fdlsr_search,
        rule="1-NN on L2-normalised projections (--cv: chosen among 1-NN, k-NN, "
        "nearest class centroid and argmax)",
    ),
]

METHODS = {
    m.name: m
    for m in PROPOSED
    + relaxed.METHODS
    + representation.METHODS
    + dictionary.METHODS
    + baselines.METHODS
}


def get_method(name):
    """The :class:`Method` called ``name`` (case-insensitive)."""
    by_lower = {key.lower(): m for key, m in METHODS.items()}
    try:
        return by_lower[name.lower()]
    except KeyError:
        raise ConfigError(
            f"unknown method {name!r}; choose from: {', '.join(METHODS)}"
        ) from None


def family_rank(family):
    """Position of a family in the paper's row order (unknown families last)."""
    return FAMILIES.index(family) if family in FAMILIES else len(FAMILIES)


def model_file_classes():
    """The classes of this package that a model file may hold (the allowlist of
    :mod:`fdlsr.persistence`): every registered method's estimator and the classes
    that each family declares in its ``MODEL_FILE_CLASSES`` (the helper objects its
    fitted estimators keep), FDLSR's and the shared classifier plumbing's included."""
    classes = {type(method.build()) for method in METHODS.values()}
    for declared in (
        classifiers.MODEL_FILE_CLASSES,
        core.MODEL_FILE_CLASSES,
        relaxed.MODEL_FILE_CLASSES,
        representation.MODEL_FILE_CLASSES,
        dictionary.MODEL_FILE_CLASSES,
    ):
        classes.update(declared)
    return classes
