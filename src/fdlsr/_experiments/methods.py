"""Every classifier the experiments can run, by name.

FDLSR itself, the comparison methods of the paper's tables in their three families
(:mod:`.relaxed`, :mod:`.representation`, :mod:`.dictionary`) and the scikit-learn
baselines (:mod:`.baselines`), each described by a :class:`~.registry.Method` in
:mod:`.registry`.
"""

from .. import _core as core
from .. import dictionary, relaxed, representation
from .._common import classifiers
from ..errors import ConfigError, did_you_mean
from .registry import FAMILIES, METHODS, PAPER_GRID, Method

__all__ = [
    "FAMILIES",
    "METHODS",
    "PAPER_GRID",
    "Method",
    "family_rank",
    "get_method",
    "model_file_classes",
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
