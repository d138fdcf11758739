"""Every classifier the experiments can run, by name.

FDLSR itself, the comparison methods of the paper's tables in their three families
(:mod:`.relaxed`, :mod:`.representation`, :mod:`.dictionary`) and the scikit-learn
baselines (:mod:`.baselines`), each described by a :class:`~.registry.Method`.
"""

from ..core.estimator import FDLSR
from ..errors import ConfigError
from . import baselines, dictionary, relaxed, representation
from .registry import PAPER_GRID, Method

__all__ = ["FAMILIES", "METHODS", "PAPER_GRID", "Method", "family_rank", "get_method"]

# Row groups of the paper's tables, in their order; the baselines come last.
FAMILIES = ["representation", "dictionary", "relaxed", "proposed", "scikit-learn"]

PROPOSED = [
    Method(
        "FDLSR",
        FDLSR,
        family="proposed",
        summary="Fisher discriminative LSR, paper's T-step, 1-NN on projections",
        reference="Chen, Wu & Kittler, Fisher Discriminative Least Squares Regression",
        params=dict(alpha=1.0, beta=1e-2, lam=1.0),
        grid=dict(alpha=PAPER_GRID, beta=PAPER_GRID, lam=PAPER_GRID),
        rule="1-NN on L2-normalised projections",
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
