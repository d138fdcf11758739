"""Experiment configs: TOML files, shipped ones by name (``fdlsr run --config feret``).

Why TOML: it is the format of ``pyproject.toml``, readable and commentable by people,
with real numbers and lists; Python 3.11 reads it with the standard ``tomllib``, and
3.10 with the small ``tomli`` backport (the same parser). A config looks like::

    title = "FERET, the paper's Table III"
    dataset = "feret"
    k = [1, 2, 3, 4, 5]
    splits = 10                  # random splits per k
    seed = 0
    methods = "all"              # or a list of names
    cv = []                      # methods whose grid is searched on the training split
    cv_rules = false             # search their decision rule too (FDLSR: 1-NN, ...)
    paper_params = ["FDLSR"]     # methods whose [params] below are the paper's values
    paper_table = "III"          # the paper's numbers to show beside ours

    [params.FDLSR]               # fixed values (the paper's, for this dataset)
    alpha = 1e-2
    beta = 1e-3
    lam = 1e-1

    [grid.FDLSR]                 # values cv tries for a method in cv (default: its grid)
    alpha = [1e-3, 1e-2, 1e-1]

    [figures]                    # settings of `fdlsr plot`
    k = 5

Every key is checked against :data:`SCHEMA` (what it must be, in words and as a
check) before anything is built; a wrong type or value raises :class:`ConfigError`
with one line naming the key, what it expects and an example. A name is a shipped
config only if it is one (:func:`shipped_configs`); anything else is a path. The
command line's values override a config in one place, :func:`resolve_config`, for
every command that reads one (run, plot, fit).
"""

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from .._common.files import open_input
from .._common.messages import did_you_mean
from ..datasets._dataset import one_line
from ..errors import ConfigError
from ..model_selection._split import DEFAULT_SPLITS
from .planning import Experiment
from .registry import METHODS
from .report import PAPER_TABLES
from .splits import DEFAULT_CV_FOLDS, FIXED

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_k(value):
    return value == FIXED or (_is_int(value) and value >= 1)


def _is_names(value):
    return isinstance(value, list) and all(isinstance(v, str) and v for v in value)


@dataclass(frozen=True)
class Setting:
    """One key of a config: what it must be, in words and as a check, with an example."""

    expected: str
    check: Callable[[Any], bool]
    example: str


SCHEMA = {
    "title": Setting("a string", lambda v: isinstance(v, str), 'title = "FERET"'),
    "dataset": Setting(
        "a dataset name or path",
        lambda v: isinstance(v, str) and v,
        'dataset = "feret"',
    ),
    "data_dir": Setting(
        "a folder path", lambda v: isinstance(v, str) and v, 'data_dir = "../data"'
    ),
    "k": Setting(
        'a whole number >= 1, "fixed", or a list of them',
        lambda v: _is_k(v) or (isinstance(v, list) and all(_is_k(x) for x in v)),
        "k = [1, 2, 3]",
    ),
    "splits": Setting(
        "a whole number >= 1", lambda v: _is_int(v) and v >= 1, "splits = 10"
    ),
    "seed": Setting("a whole number >= 0", lambda v: _is_int(v) and v >= 0, "seed = 0"),
    "methods": Setting(
        '"all" (a string, not in a list: every method) or a non-empty list of method names',
        lambda v: (
            v == "all"
            or (_is_names(v) and len(v) > 0 and "all" not in {m.lower() for m in v})
        ),
        'methods = ["FDLSR", "1-NN"]',
    ),
    "cv": Setting("a list of method names", _is_names, 'cv = ["FDLSR"]'),
    "cv_rules": Setting(
        "true or false (no quotes)", lambda v: isinstance(v, bool), "cv_rules = true"
    ),
    "paper_params": Setting(
        "a list of method names", _is_names, 'paper_params = ["FDLSR"]'
    ),
    "cv_folds": Setting(
        "a whole number >= 2", lambda v: _is_int(v) and v >= 2, "cv_folds = 3"
    ),
    "normalise": Setting(
        "true or false (no quotes)", lambda v: isinstance(v, bool), "normalise = false"
    ),
    "paper_table": Setting(
        "one of the paper's tables " + ", ".join(f'"{t}"' for t in PAPER_TABLES),
        lambda v: isinstance(v, str) and v in PAPER_TABLES,
        'paper_table = "III"',
    ),
    "note": Setting("a string", lambda v: isinstance(v, str), 'note = "..."'),
    "params": Setting(
        "a table of [params.METHOD] tables",
        lambda v: isinstance(v, dict),
        "[params.FDLSR] then alpha = 0.01",
    ),
    "grid": Setting(
        "a table of [grid.METHOD] tables",
        lambda v: isinstance(v, dict),
        "[grid.MyClassifier] then alpha = [0.1, 1.0]",
    ),
    "figures": Setting(
        "a [figures] table", lambda v: isinstance(v, dict), "[figures] then k = 5"
    ),
}
PARAMS_SCHEMA = Setting(
    "a table of parameter values",
    lambda v: isinstance(v, dict),
    "[params.FDLSR] then alpha = 0.01",
)
GRID_SCHEMA = Setting(
    "a table of non-empty lists of values for cross-validation to try",
    lambda v: (
        isinstance(v, dict) and all(isinstance(x, list) and x for x in v.values())
    ),
    "[grid.MyClassifier] then alpha = [0.1, 1.0]",
)
FIGURES_SCHEMA = {
    "k": Setting("a whole number >= 1", lambda v: _is_int(v) and v >= 1, "k = 5"),
}
KNOWN_KEYS = set(SCHEMA)


@dataclass
class Config:
    """An experiment plus what the reports and figures need to know about it.

    ``source`` says where the config came from: ``"shipped config NAME"`` or
    ``"config file /absolute/path.toml"`` (recorded beside the results); ``path`` is
    that file (None for a shipped config), an input no command writes over.
    """

    experiment: Experiment
    title: str = ""
    paper_table: str | None = None
    note: str = ""
    figures: dict = field(default_factory=dict)
    source: str = ""
    path: Path | None = None


def shipped_configs():
    """Names of the configs shipped with the package."""
    folder = resources.files("fdlsr._experiments") / "configs"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def find_config(name_or_path):
    """Text, origin and file (None for a shipped one) of a config given by shipped
    name or by file path.

    A name is a shipped config only if it is one of :func:`shipped_configs` (write
    ``./feret`` for a file called ``feret``); anything else is a path, which must
    exist: it is never looked up inside the shipped folder.
    """
    name = str(name_or_path)
    if isinstance(name_or_path, str) and name in shipped_configs():
        shipped = resources.files("fdlsr._experiments") / "configs" / f"{name}.toml"
        return shipped.read_text(encoding="utf-8"), f"shipped config {name}", None
    path = Path(name_or_path).expanduser()
    try:  # a regular file: a pipe or a device is refused, not waited on
        with open_input(
            path, "r", error=ConfigError, what="config file", encoding="utf-8"
        ) as f:
            text = f.read()
    except ConfigError:
        raise
    except FileNotFoundError:
        raise ConfigError(
            f"config file {path} not found; give an existing .toml file or one of the "
            f"shipped configs ({', '.join(shipped_configs())})."
            + did_you_mean(name, shipped_configs())
        ) from None
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise ConfigError(
            f"cannot read config file {path} ({one_line(error)}); save it as UTF-8 TOML"
        ) from None
    return text, f"config file {path.resolve()}", Path(name_or_path)


def _show(value):
    """A value as the config wrote it, short, on one line."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, dict):
        text = "{" + ", ".join(f"{k} = {_show(v)}" for k, v in value.items()) + "}"
    elif isinstance(value, list):
        text = (
            "["
            + ", ".join(_show(v) for v in value[:4])
            + (", ...]" if len(value) > 4 else "]")
        )
    else:
        text = str(value)
    return one_line(text)[:60]


def _check(source, key, value, setting):
    if not setting.check(value):
        raise ConfigError(
            f"{source}: {key} = {_show(value)} is invalid; "
            f"expected {setting.expected}, e.g. {setting.example}"
        )


def check_settings(raw, source):
    """Check the parsed TOML ``raw`` against :data:`SCHEMA` (one-line errors)."""
    unknown = sorted(set(raw) - set(SCHEMA))
    if unknown:
        raise ConfigError(
            f"{source}: unknown setting {unknown[0]!r}; known settings are "
            + ", ".join(sorted(SCHEMA))
            + "."
            + did_you_mean(unknown[0], SCHEMA)
        )
    if "dataset" not in raw:
        raise ConfigError(f'{source}: missing dataset = NAME, e.g. dataset = "feret"')
    for key, value in raw.items():
        _check(source, key, value, SCHEMA[key])
    for method, values in raw.get("params", {}).items():
        _check(source, f"params.{method}", values, PARAMS_SCHEMA)
    for method, values in raw.get("grid", {}).items():
        _check(source, f"grid.{method}", values, GRID_SCHEMA)
    _check_tuned_params(raw, source)
    for key, value in raw.get("figures", {}).items():
        if key not in FIGURES_SCHEMA:
            raise ConfigError(
                f"{source}: figures.{key} is not a setting of [figures]: "
                f"expected one of {', '.join(FIGURES_SCHEMA)}"
            )
        _check(source, f"figures.{key}", value, FIGURES_SCHEMA[key])


def _registered(name):
    """The registered method called ``name`` (case-insensitive), or None."""
    return next((m for m in METHODS.values() if m.name.lower() == name.lower()), None)


def _chosen_by_cv(method, rules):
    """The parameters cross-validation chooses for ``method``: its grid, and its
    decision rule where ``rules`` (``--cv-rules``) and it has rules to choose among."""
    chosen = set(method.grid)
    if rules and method.rules:
        chosen.add("decision_rule")
    return chosen


def _check_tuned_params(raw, source):
    """A method named in ``cv`` is searched over its whole grid (as ``--cv`` does):
    a value of ``[params.METHOD]`` that its search would choose is a contradiction,
    refused rather than ignored or silently taken out of the grid."""
    tuned = {name.lower() for name in raw.get("cv", [])}
    for method, values in raw.get("params", {}).items():
        registered = _registered(method)
        if method.lower() not in tuned or registered is None:
            continue
        grid = _chosen_by_cv(registered, raw.get("cv_rules"))
        fixed = [name for name in values if name in grid]
        if fixed:
            raise ConfigError(
                f"{source}: cv names {method}, whose {', '.join(fixed)} cross-"
                f"validation chooses over its grid, and [params.{method}] fixes "
                f"{'them' if len(fixed) > 1 else 'it'}; remove {', '.join(fixed)} "
                f"from [params.{method}], or {method} from cv"
            )


def _refuse_inapplicable_keys(raw, source):
    """A setting that does not apply is refused, from a config as from the command
    line (:mod:`.run_options`): ``cv_folds`` needs a method in ``cv``, ``splits`` a
    ``k`` that is a number. The config is judged as written, before the command
    line's values override it."""
    ks = raw.get("k", [])
    ks = ks if isinstance(ks, list) else [ks]
    if "cv_folds" in raw and not raw.get("cv"):
        raise ConfigError(
            f"{source}: cv_folds = {raw['cv_folds']} applies when cv names a method: "
            "it sets the inner folds of the cross-validation of cv; name a method in "
            "cv, or remove cv_folds"
        )
    if "splits" in raw and ks and all(k == FIXED for k in ks):
        raise ConfigError(
            f"{source}: splits = {raw['splits']} applies with a k that is a number of "
            'samples per class: k = "fixed" runs the data set\'s own split once; '
            "remove splits"
        )


def load_config(name_or_path):
    """Parse and check a config into a :class:`Config`.

    Every key is checked against :data:`SCHEMA` before anything is built: a wrong
    type or value raises :class:`ConfigError` naming the key and what it expects.
    """
    text, source, path = find_config(name_or_path)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{source} is not valid TOML: {one_line(error)}") from None
    check_settings(raw, source)
    _refuse_inapplicable_keys(raw, source)
    ks = raw.get("k", [])
    methods = raw.get("methods", "all")
    experiment = Experiment(
        dataset=raw["dataset"],
        ks=list(ks) if isinstance(ks, list) else [ks],
        methods=all_methods() if methods == "all" else list(methods),
        splits=raw.get("splits", DEFAULT_SPLITS),
        seed=raw.get("seed", 0),
        params={name: dict(values) for name, values in raw.get("params", {}).items()},
        cv=list(raw.get("cv", [])),
        paper_params=list(raw.get("paper_params", [])),
        cv_folds=raw.get("cv_folds", DEFAULT_CV_FOLDS),
        cv_rules=raw.get("cv_rules", False),
        normalize=raw.get("normalise", True),  # the config file's key
        data_dir=raw.get("data_dir"),
        grid={name: dict(values) for name, values in raw.get("grid", {}).items()},
    )
    if methods == "all":  # parameters for a method not (yet) available are kept aside
        experiment.params = {
            name: values
            for name, values in experiment.params.items()
            if name.lower() in {m.lower() for m in experiment.methods}
        }
    return Config(
        experiment=experiment,
        title=raw.get("title", ""),
        paper_table=raw.get("paper_table"),
        note=raw.get("note", ""),
        figures=dict(raw.get("figures", {})),
        source=source,
        path=path,
    )


def resolve_config(
    config=None,
    dataset=None,
    *,
    data_dir=None,
    methods=None,
    ks=None,
    splits=None,
    seed=None,
    cv_folds=None,
    params=(),
    cv=None,
    cv_rules=False,
    raw=False,
    standardize=False,
):
    """The :class:`Config` a command asks for: the config ``config`` (a shipped name
    or a file), else the data set ``dataset`` (with its shipped config if it has
    one), overridden by the command line's values.

    Parameters
    ----------
    config, dataset : str, optional
        ``--config`` and ``--dataset``; ``dataset`` with ``config`` replaces the
        config's data set.
    data_dir, methods, ks, splits, seed, cv_folds : optional
        ``--data-dir``, ``--methods`` (``["all"]``: every method), ``-k``,
        ``--splits``, ``--seed``, ``--cv-folds``; None (or empty) leaves the
        config's.
    params : sequence of (str, object)
        ``--params``: ``("METHOD.name", value)``, or ``("name", value)`` when one
        method is selected.
    cv : list of str, optional
        ``--cv``: the methods whose grid is searched (``[]``: every method).
    cv_rules, raw, standardize : bool
        ``--cv-rules``, ``--raw`` and ``--standardize``.

    Values the command line changes are no longer the paper's
    (``Experiment.paper_params``).
    """
    if config:
        resolved = load_config(config)
        if dataset:
            resolved.experiment.dataset = dataset
    elif dataset and dataset in shipped_configs():
        resolved = load_config(dataset)
    elif dataset:
        resolved = Config(Experiment(dataset=dataset, ks=[], methods=all_methods()))
    else:
        raise ConfigError(
            "say what to run: --dataset NAME (see `fdlsr datasets`) or --config NAME "
            f"(shipped: {', '.join(shipped_configs())})"
        )
    ex = resolved.experiment
    if methods:
        every = [m.lower() for m in methods] == ["all"]
        if not every and "all" in {m.lower() for m in methods}:
            raise ConfigError(
                "--methods all stands alone (it names every method): give all, or "
                "the methods by name"
            )
        ex.methods = all_methods() if every else list(methods)
        selected = {m.lower() for m in ex.methods}
        # an import path's method is named by its class too (--params Mine.x=...)
        selected |= {m.rpartition(":")[2].lower() for m in ex.methods if ":" in m}
        ex.params = {m: p for m, p in ex.params.items() if m.lower() in selected}
        ex.grid = {m: g for m, g in ex.grid.items() if m.lower() in selected}
        ex.cv = [m for m in ex.cv if m.lower() in selected]
    if data_dir:
        ex.data_dir = data_dir
    if ks:
        ex.ks = list(ks)
    if splits is not None:
        ex.splits = splits
    if seed is not None:
        ex.seed = seed
    if cv_folds is not None:
        ex.cv_folds = cv_folds
    overridden = _split_params(params, ex.methods)
    changed = {method.lower() for method in overridden}
    if cv is not None:
        _check_cv_names(cv, cv_rules or ex.cv_rules)
        ex.cv = list(cv) if cv else _searchable(ex.methods, ex.grid)
        # A method the command line tunes is searched over its whole grid: the
        # config's fixed values of it no longer apply (only --params fixes a
        # parameter during the search), so that --cv FDLSR is the paper's search.
        tuned = {name.lower() for name in ex.cv}
        ex.params = {m: p for m, p in ex.params.items() if m.lower() not in tuned}
        changed |= tuned
    for method, values in overridden.items():
        ex.params.setdefault(method, {}).update(values)
    # values changed on the command line are no longer the paper's
    ex.paper_params = [m for m in ex.paper_params if m.lower() not in changed]
    if cv_rules:
        ex.cv_rules = True
    if raw:
        ex.normalize = False
    if standardize:
        ex.standardize = True
    return resolved


def _check_cv_names(names, rules):
    """``--cv NAME``: a method named to be tuned must have something to choose (a
    grid, or decision rules with ``--cv-rules``), else the option would be ignored.
    ``--cv`` alone tunes whichever of the methods have a grid."""
    for name in names:
        method = _registered(name)
        if method is None:  # named wrong: said, with a guess, where methods resolve
            continue
        if not _chosen_by_cv(method, rules):
            raise ConfigError(
                f"--cv {name}: {method.name} has no parameters for cross-validation "
                "to choose (its grid is empty, see `fdlsr methods`); leave it out "
                "of --cv"
            )


def _searchable(methods, grids):
    """The ``methods`` that ``--cv`` alone tunes: all but the user's classifiers
    (import paths) with no ``[grid.NAME]`` (their grid is the config's only)."""
    named = {name.lower() for name in grids}
    return [
        m
        for m in methods
        if ":" not in m or {m.lower(), m.rpartition(":")[2].lower()} & named
    ]


def _split_params(pairs, methods):
    """``[(key, value)]`` from ``--params`` as ``{method: {name: value}}``."""
    out = {}
    for key, value in pairs:
        if "." in key:
            method, name = key.rsplit(".", 1)
        elif len(methods) == 1:
            method, name = methods[0], key
        else:
            raise ConfigError(
                f"--params {key}=...: write METHOD.{key}=VALUE (e.g. FDLSR.{key}) when "
                "several methods are selected"
            )
        out.setdefault(method, {})[name] = value
    return out


def all_methods():
    """Every registered method, in registry order."""
    return list(METHODS)
