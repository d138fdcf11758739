"""The description of a classifier the experiments can run by name.

Each family package (``fdlsr.relaxed``, ``fdlsr.representation``, ``fdlsr.dictionary``)
lists its methods as ``METHODS = [Method(...), ...]``; ``fdlsr.methods`` gathers them.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


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
