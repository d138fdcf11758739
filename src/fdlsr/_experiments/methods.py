"""Every classifier the experiments can run, by name: FDLSR, the comparison methods of
the paper's tables (:mod:`fdlsr.relaxed`, :mod:`fdlsr.representation`,
:mod:`fdlsr.dictionary`) and the scikit-learn baselines, each described by a
:class:`~.registry.Method` in :mod:`.registry`."""

from ..errors import ConfigError, did_you_mean
from .registry import FAMILIES, METHODS, PAPER_GRID, Method

__all__ = [
    "FAMILIES",
    "METHODS",
    "PAPER_GRID",
    "Method",
    "family_rank",
    "get_method",
]


def get_method(name):
    """The :class:`Method` called ``name`` (case-insensitive)."""
    by_lower = {key.lower(): m for key, m in METHODS.items()}
    try:
        return by_lower[name.lower()]
    except KeyError:
        raise ConfigError(
            f"unknown method {name!r}; choose from: {', '.join(METHODS)}."
            + did_you_mean(name, METHODS)
        ) from None


def family_rank(family):
    """Position of a family in the paper's row order (unknown families last)."""
    return FAMILIES.index(family) if family in FAMILIES else len(FAMILIES)
