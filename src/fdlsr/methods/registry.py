"""The description of a classifier the experiments can run by name.

Each family package (:mod:`.relaxed`, :mod:`.representation`, :mod:`.dictionary`) and
:mod:`.baselines` list their methods as ``METHODS = [Method(...), ...]``;
:mod:`fdlsr.methods` gathers them.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..core import cv

# The paper's grid for every FDLSR parameter, {1e-5, ..., 1}.
PAPER_GRID = list(cv.PAPER_GRID)


@dataclass(frozen=True)
class Method:
    """A named classifier with its documented default settings.

    ``factory(**params)`` returns an unfitted scikit-learn classifier. The experiment
    protocol unit-normalises the samples before fitting (as the paper does for every
    method), so a factory does not add its own normaliser. ``grid`` lists the values
    cross-validation may search for each parameter (empty: nothing to tune).

    ``cv_factory``, when given, replaces scikit-learn's ``GridSearchCV`` for tuning:
    ``cv_factory(grid=..., cv=..., **fixed_params)`` returns an estimator whose
    ``fit(X, y)`` searches ``grid`` with the splitter ``cv`` and sets ``best_params_``
    (a method can then share work between the candidates, e.g. one factorisation per
    ``beta``). ``rule`` says how the method labels a test sample (for the reports).
    """

    name: str
    factory: Callable[..., Any]
    family: str
    summary: str
    reference: str = ""
    params: dict = field(default_factory=dict)
    grid: dict = field(default_factory=dict)
    cv_factory: Callable[..., Any] | None = None
    rule: str = ""

    def build(self, **overrides):
        return self.factory(**{**self.params, **overrides})
