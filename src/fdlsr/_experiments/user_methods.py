"""A user's scikit-learn classifier as a method of the experiments.

:func:`estimator_method` makes a :class:`.registry.Method` of an estimator object; its
factory (:class:`Clones`) returns a clone of it (``sklearn.base.clone``) for every run,
with the run's parameters set. The unit of each run carries the estimator itself, so
a worker process unpickles it (joblib's loky pickles with cloudpickle: a class defined
in ``__main__`` or a notebook travels by value) and never looks a name up.
:func:`import_method` reads an import path, ``package.module:ClassName``, as the
command line and config files name one.

The rows of such a method have the family :data:`YOURS` and record the class's import
path as text (``Method.source``, in the setting): reading a store never imports it.
"""

import hashlib
import importlib
import inspect
import math
import re
import types
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import clone

from .._common.messages import quote
from ..errors import ConfigError
from .registry import METHODS, Method, get_method

# The family (row group of the tables) of the user's methods.
YOURS = "yours"


@dataclass(frozen=True)
class Clones:
    """A factory of clones of ``estimator``: ``Clones(e)(**params)`` is
    ``clone(e).set_params(**params)``. Its signature is the estimator's parameters
    with their values as defaults, as a registered method's factory shows its own."""

    estimator: Any

    def __call__(self, **params):
        return clone(self.estimator).set_params(**params)

    @property
    def __signature__(self):
        return inspect.Signature(
            [
                inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=value)
                for name, value in self.estimator.get_params(deep=False).items()
            ]
        )


def class_path(estimator):
    """``module:QualifiedName`` of the estimator's class."""
    cls = type(estimator)
    return f"{cls.__module__}:{cls.__qualname__}"


def estimator_method(name, estimator, *, source=None):
    """The :class:`.registry.Method` that runs clones of ``estimator`` under
    ``name``; ``source`` (default: the class's import path) is recorded in its
    rows."""
    where = f"method {quote(name)}"
    if not isinstance(name, str) or not name or ":" in name or "." in name:
        raise ConfigError(
            f"{where}: a method's name is a non-empty string without ':' or '.' "
            "(they separate import paths and --params METHOD.NAME), e.g. 'Mine'"
        )
    if name.lower() in {m.lower() for m in METHODS}:
        raise ConfigError(
            f"{where}: {name} is a registered method's name (see `fdlsr methods`); "
            "give your estimator another name"
        )
    missing = [a for a in ("fit", "predict", "get_params") if not hasattr(estimator, a)]
    if isinstance(estimator, type) or missing:
        raise ConfigError(
            f"{where}: {quote(estimator)} is not a scikit-learn classifier object "
            f"(it has no {', '.join(missing) or 'instance: give MyClassifier()'}); "
            "give an estimator with fit, predict and get_params"
        )
    try:
        clone(estimator)
    except Exception as error:  # noqa: BLE001 (said in one line)
        raise ConfigError(
            f"{where}: sklearn.base.clone cannot copy {class_path(estimator)} "
            f"({type(error).__name__}: {error}); an estimator's __init__ stores each "
            "parameter unchanged and its values can be deep-copied, as scikit-learn's "
            "estimators do"
        ) from None
    path = source or class_path(estimator)
    return Method(
        name=name,
        factory=Clones(estimator),
        family=YOURS,
        summary=path,
        settings=tuple(estimator.get_params(deep=False)),
        source=path,
    )


def import_method(path):
    """The method named by the import path ``package.module:ClassName`` (an
    estimator class, made with its defaults, or an estimator object), under the
    class's name."""
    module_name, _, attribute = path.partition(":")
    if not module_name or not attribute:
        raise ConfigError(
            f"method {quote(path)}: write an import path as package.module:ClassName"
        )
    try:
        found = importlib.import_module(module_name)
        for part in attribute.split("."):
            found = getattr(found, part)
    except (Exception, SystemExit) as error:  # noqa: BLE001 (the user's module: said in one line)
        raise ConfigError(
            f"method {quote(path)} cannot be imported ({type(error).__name__}: "
            f"{error}); put the folder holding {module_name.split('.')[0]} on "
            "PYTHONPATH, or correct the path"
        ) from None
    if isinstance(found, type):
        try:
            found = found()
        except Exception as error:  # noqa: BLE001 (said in one line)
            raise ConfigError(
                f"method {quote(path)}: {attribute}() fails ({type(error).__name__}: "
                f"{error}); scikit-learn estimators take every parameter with a "
                "default"
            ) from None
    return estimator_method(attribute.split(".")[-1], found, source=path)


def method_of(entry):
    """The :class:`.registry.Method` of a methods list's entry: a Method, an import
    path (``package.module:ClassName``) or a registered name."""
    if isinstance(entry, Method):
        return entry
    if isinstance(entry, str) and ":" in entry:
        return import_method(entry)
    return get_method(entry)


def json_safe(value):
    """``value`` as strict JSON holds it, else its ``repr`` without memory addresses
    (a function's, an object's), so that it names the value the same way in every
    process; a non-finite number as its text (``'inf'``, ``'nan'``: strict JSON has
    none); an array by its dtype, shape and SHA-256."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):  # its repr elides the middle of a large one
        digest = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()
        return f"ndarray {value.dtype.str} {value.shape} sha256 {digest}"
    if isinstance(value, types.FunctionType):  # two lambdas share one repr
        return f"function {value.__module__}.{value.__qualname__} {_code_digest(value)}"
    return without_address(repr(value))


def _code_digest(function):
    """A SHA-256 of what ``function`` computes: its bytecode, names and constants,
    its defaults and the values it closes over (a function among them by its name),
    the same in every process of one Python version."""
    closed = []
    for cell in function.__closure__ or ():
        try:
            value = cell.cell_contents
        except ValueError:  # a cell not yet filled
            value = None
        if isinstance(value, types.FunctionType):  # itself, or another function
            closed.append(value.__qualname__)
        else:
            closed.append(json_safe(value))
    parts = [
        _code_text(function.__code__),
        function.__defaults__,
        function.__kwdefaults__,
        closed,
    ]
    return hashlib.sha256(repr(json_safe(parts)).encode()).hexdigest()[:16]


def _code_text(code):
    """``code`` as text that does not depend on the process (a frozenset's order
    follows the string hash seed, so its items are sorted)."""

    def constant(value):
        if isinstance(value, types.CodeType):
            return _code_text(value)
        if isinstance(value, frozenset):
            return sorted(map(repr, value))
        return repr(value)

    consts = [constant(value) for value in code.co_consts]
    return [code.co_code.hex(), code.co_names, code.co_varnames, consts]


def without_address(text):
    """``text`` without the `` at 0x7f...`` of a default ``repr``."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", text)
