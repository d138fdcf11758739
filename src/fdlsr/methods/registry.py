"""The description of a classifier the experiments can run by name.

:mod:`.catalog` lists every method as a ``Method(...)`` entry, in the paper's row
order; :mod:`fdlsr.methods` looks them up by name.
"""

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core import cv
from ..errors import ConfigError

# The paper's grid for every FDLSR parameter, {1e-5, ..., 1}.
PAPER_GRID = list(cv.PAPER_GRID)


@dataclass(frozen=True)
class Method:
    """A named classifier with its settings.

    ``factory(**params)`` returns an unfitted scikit-learn classifier. The experiment
    protocol unit-normalises the samples before fitting (as the paper does for every
    method), so a factory does not add its own normaliser. ``grid`` lists the values
    cross-validation may search for each parameter (empty: nothing to tune).

    The estimator's ``__init__`` holds every default. A registry entry gives in
    ``params`` only the values that differ from those defaults (saying why, in a
    comment), and in ``settings`` the names of the parameters that describe the
    method in ``fdlsr methods``, the reports and the results' setting keys. Once
    built, ``params`` holds those settings: each named parameter at the estimator's
    default, then the given values (in ``settings`` order, then the others).

    ``cv_factory``, when given, replaces scikit-learn's ``GridSearchCV`` for tuning:
    ``cv_factory(grid=..., cv=..., **fixed_params)`` returns an estimator whose
    ``fit(X, y)`` searches ``grid`` with the splitter ``cv`` and sets ``best_params_``,
    and which takes ``refit=False`` (a method can then share work between the
    candidates, e.g. one factorisation per ``beta``). ``rule`` says how the method labels a test sample (for the reports).
    """

    name: str
    factory: Callable[..., Any]
    family: str
    summary: str
    reference: str = ""
    params: dict = field(default_factory=dict)
    settings: tuple = ()
    grid: dict = field(default_factory=dict)
    cv_factory: Callable[..., Any] | None = None
    rule: str = ""

    def __post_init__(self):
        defaults = {
            name: p.default
            for name, p in inspect.signature(self.factory).parameters.items()
            if p.default is not inspect.Parameter.empty
        }
        unknown = [n for n in (*self.settings, *self.params) if n not in defaults]
        if unknown:
            raise ValueError(f"{self.name} has no parameter {unknown[0]!r}")
        names = [*self.settings, *(n for n in self.params if n not in self.settings)]
        settings = {n: self.params.get(n, defaults[n]) for n in names}
        object.__setattr__(self, "params", settings)

    def build(self, **overrides):
        return self.factory(**{**self.params, **overrides})

    def check(self, params):
        """Refuse, before anything runs, parameters the estimator would reject.

        Unknown names, booleans where the default is a number, and values outside
        the estimator's ``_parameter_constraints`` (scikit-learn's own validation,
        which otherwise happens only in ``fit``) raise :class:`ConfigError` with a
        one-line message naming ``METHOD.name``.
        """
        defaults = self.build().get_params(deep=False)
        unknown = sorted(set(params) - set(defaults))
        if unknown:
            raise ConfigError(
                f"{self.name} has no parameter {unknown[0]!r}; its parameters are "
                + ", ".join(sorted(defaults))
            )
        for name, value in params.items():
            where = f"{self.name}.{name}={_show(value)}"
            default = defaults[name]
            if isinstance(value, bool) and _is_number(default):
                raise ConfigError(
                    f"{where} is a boolean; {self.name}.{name} takes a number "
                    f"(default {_show(default)})"
                )
            try:
                estimator = self.build(**{name: value})
                if hasattr(estimator, "_validate_params"):
                    estimator._validate_params()
            except (TypeError, ValueError) as error:
                raise ConfigError(
                    f"{where} is refused: {_one_line(error)} Fix it in --params or "
                    f"the config's [params.{self.name}]"
                ) from None


def _is_number(value):
    return isinstance(value, (int, float, np.number)) and not isinstance(value, bool)


def _show(value):
    """A parameter value for a message: plain Python, never a NumPy repr."""
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def _one_line(error):
    return " ".join(str(error).split())
