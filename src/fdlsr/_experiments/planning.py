"""The plan of an experiment: what to run (:class:`Experiment`), the data it reads
(:func:`load_data`, with the :class:`DataOptions` of a command) and every run of it
(:class:`Unit`: one method at one ``k`` on one split), checked before anything runs.

*Hyperparameters.* Either fixed (the paper's per-dataset values, from a shipped config)
or chosen by cross-validation on the training split only, over the method's grid
(:mod:`.evaluation`); the test split is never seen while choosing. The way a method is
configured is part of its rows' identity (:func:`setting_key`).
"""

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..datasets import dataset_info, load_dataset
from ..datasets._labels import check_classes
from ..errors import ConfigError, FdlsrError
from ..model_selection._split import DEFAULT_SPLITS, check_k, check_seed
from .plan_size import check_plan_size
from .registry import Method
from .rows import RunKey
from .splits import DEFAULT_CV_FOLDS, FIXED
from .user_methods import json_safe, method_of


@dataclass(frozen=True)
class MethodSetting:
    """A selected method with its fixed overrides (``params``); ``tuned``: the rest of
    its grid is chosen by inner cross-validation."""

    method: Method
    params: dict
    tuned: bool


@dataclass
class Experiment:
    """What to run: a dataset, training sizes, methods and how to set their parameters.

    ``params`` maps a method name to fixed overrides of its defaults; methods named in
    ``cv`` have the rest of their grid chosen by inner cross-validation, and their
    decision rule too with ``cv_rules`` (among the method's ``rules``). Methods named
    in ``paper_params`` run with values stated in the paper (their rows' ``tuning`` is
    ``"paper"`` instead of ``"fixed"``, for the tables). ``grid`` maps a method name
    to the values cross-validation tries for its parameters (replacing its
    registry's, or giving a user's estimator one).

    ``methods`` holds registered names, import paths of a user's estimator class
    (``package.module:ClassName``) and :class:`.registry.Method` objects (a user's
    estimator, :func:`.user_methods.estimator_method`).
    """

    dataset: str
    ks: list
    methods: list
    splits: int = DEFAULT_SPLITS
    seed: int = 0
    params: dict = field(default_factory=dict)
    cv: list = field(default_factory=list)
    cv_folds: int = DEFAULT_CV_FOLDS
    cv_rules: bool = False
    normalize: bool = True
    standardize: bool = False
    data_dir: str | None = None
    paper_params: list = field(default_factory=list)
    grid: dict = field(default_factory=dict)

    def resolved(self):
        """The methods resolved (registered names, import paths
        ``package.module:ClassName`` or :class:`.registry.Method` objects) with
        validated overrides: a list of :class:`MethodSetting`."""
        if not self.methods:
            raise ConfigError(
                "no methods selected; name at least one, e.g. --methods FDLSR"
            )
        methods = [method_of(entry) for entry in self.methods]
        given = [e if isinstance(e, str) else e.name for e in self.methods]
        _check_named_once(methods, given)
        _check_ks_once(self.ks)
        # a method's parameters, grid and --cv are named by its name or as given
        aliases = [
            {m.name.lower(), g.lower()} for m, g in zip(methods, given, strict=True)
        ]
        known = set().union(*aliases)
        for name in [*self.params, *self.cv, *self.grid]:
            if name.lower() not in known:
                raise ConfigError(
                    f"parameters, a grid or --cv given for {name!r}, which is not "
                    f"among the selected methods ({', '.join(m.name for m in methods)})"
                )
        if self.cv_rules:
            _check_rules_searched(methods, self.cv)
        out = []
        for m, names in zip(methods, aliases, strict=True):
            tuned = any(name.lower() in names for name in self.cv)
            grid = _merged(self.grid, names)
            if grid:
                for key, values in grid.items():
                    for value in values:
                        m.check({key: value})
                m = dataclasses.replace(m, grid={**m.grid, **grid})
            if tuned and self.cv_rules and m.rules:
                m = dataclasses.replace(
                    m, grid={**m.grid, "decision_rule": list(m.rules)}
                )
            params = _merged(self.params, names)
            if tuned and m.source and not set(m.grid) - set(params):
                raise ConfigError(
                    f"--cv (cv) names {m.name}, your classifier, with no grid to "
                    f"search: give one ([grid.{m.name}] in a config, or "
                    f"cv={{{m.name!r}: {{'PARAM': [VALUES]}}}}) of parameters that "
                    "--params ([params]) leaves free, or leave it out of cv"
                )
            if tuned and self.cv_rules and m.rules and "decision_rule" in params:
                raise ConfigError(
                    f"--cv-rules (cv_rules) asks cross-validation to choose "
                    f"{m.name}'s decision rule, and --params (or [params.{m.name}]) "
                    f"fixes it: {m.name}.decision_rule={params['decision_rule']}; "
                    "drop one of the two"
                )
            m.check(params)  # names and values, before any run
            # nothing to search when every parameter of the grid is fixed
            searched = any(key not in params for key in m.grid)
            out.append(MethodSetting(m, params, tuned and searched))
        return out


def _merged(by_method, names):
    """The values of ``by_method`` (``{method: {key: value}}``) given under any of
    ``names`` (lower case), merged."""
    return {
        key: value
        for name, values in by_method.items()
        if name.lower() in names
        for key, value in values.items()
    }


@dataclass(frozen=True)
class DataOptions:
    """How to read a data set's file, as the command line gave it (None: not given):
    the loader's keywords ``x``, ``y``, ``samples`` and ``resize``
    (:func:`~fdlsr.datasets.load_dataset`), which refuses those that do
    not apply to the data. The folder of registry names is the experiment's
    ``data_dir``."""

    x: str | None = None
    y: str | None = None
    samples: str | None = None
    resize: list | None = None

    def given(self):
        """The options given, as the loader's keywords."""
        return {
            name: value
            for name, value in dataclasses.asdict(self).items()
            if value is not None
        }


def load_data(experiment, options=DataOptions()):
    """The data set of ``experiment`` (its ``dataset`` in its ``data_dir``), read with
    ``options``; data of fewer than two classes is refused (every command that loads
    data trains on it)."""
    dataset = load_dataset(
        experiment.dataset, data_dir=experiment.data_dir, **options.given()
    )
    check_classes(dataset.y, dataset.name)
    return dataset


def dataset_file(name, data_dir=None):
    """The file or folder that a dataset name or path reads, or None when there is
    none (yet): a name the registry does not know, a missing file, scikit-learn's."""
    path = Path(name).expanduser()
    if path.exists():
        return path
    try:
        found = dataset_info(name, data_dir).get("path")
    except FdlsrError:
        return None
    return Path(found) if found else None


def _check_named_once(methods, given):
    """A request names each method once: a method's runs share their keys, so a
    repeated name would ask for every run of it twice (a run is stored once,
    :meth:`.store.ResultStore.append`)."""
    seen = {}
    for method, name in zip(methods, given, strict=True):
        if method.name in seen:
            first = seen[method.name]
            spelled = f" ({first!r} and {name!r})" if first != name else ""
            raise ConfigError(
                f"the methods name {method.name} twice{spelled}; name each method "
                "once (--methods, or methods = [...] in a config)"
            )
        seen[method.name] = name


def _check_ks_once(ks):
    """A request names each ``k`` once, as each method: a repeated ``k`` would ask
    for every run at it twice."""
    for i, k in enumerate(ks or []):
        if k in ks[:i]:
            raise ConfigError(
                f"the training sizes name k={k} twice; name each k once (-k, or "
                "k = [...] in a config)"
            )


def _check_rules_searched(methods, cv):
    """``cv_rules`` needs a tuned method with decision rules to choose among."""
    tuned = {name.lower() for name in cv}
    if not any(m.rules and m.name.lower() in tuned for m in methods):
        with_rules = [m.name for m in methods if m.rules] or ["FDLSR"]
        raise ConfigError(
            "--cv-rules chooses the decision rule of a method tuned by --cv, and none "
            f"of those has rules to choose among; add --cv {with_rules[0]}"
        )


def setting_key(method, params, tuned, cv_folds, normalize, standardize=False):
    """A stable string naming how a method was configured (part of a row's identity).

    A user's estimator (``method.source``) is named by its class's import path and
    every parameter of ``get_params(deep=False)``, values JSON cannot hold by their
    ``repr``."""
    spec = {"params": {**method.params, **params}}
    if method.source:
        spec = {"class": method.source, "params": json_safe(spec["params"])}
    if tuned:
        spec["cv"] = {
            "folds": cv_folds,
            "grid": {k: method.grid[k] for k in sorted(method.grid) if k not in params},
        }
        if method.search:
            spec["cv"]["search"] = method.search
    if not normalize:
        spec["normalise"] = False  # the stored key's spelling: old stores resume
    if standardize:
        spec["standardize"] = True
    return json.dumps(spec, sort_keys=True, default=str)


def plan(experiment, dataset):
    """All ``(k, split_index)`` pairs of the experiment, with ``k`` checked on the labels.

    ``k = "fixed"`` (the default for a dataset that comes with a train/test split, such
    as MNIST) is that split, run once.
    """
    check_seed(experiment.seed)
    classes, counts = np.unique(dataset.y, return_counts=True)
    fixed = getattr(dataset, "fixed_split", None)
    ks = experiment.ks or ([FIXED] if fixed is not None else [])
    if not ks:
        raise ConfigError(
            "no training size given; pass -k with samples per class, e.g. -k 2 3"
        )
    pairs = []
    for k in ks:
        if k == FIXED:
            if fixed is None:
                raise ConfigError(
                    f"{dataset.name} has no fixed train/test split; give -k with a "
                    "number of training samples per class"
                )
            train = dataset.y[fixed[0]]
            check_classes(train, f"the training part of {dataset.name}'s own split")
            pairs.append((FIXED, 0))
            continue
        check_classes(dataset.y, dataset.name)
        check_k(classes, counts, k)
        if experiment.splits < 1:
            raise ConfigError(f"--splits must be at least 1, got {experiment.splits}")
        pairs += [(k, index) for index in range(experiment.splits)]
    return pairs


@dataclass(frozen=True)
class Unit:
    """One run of an experiment: a method at one ``k`` on one split.

    ``params`` are the method's fixed overrides; ``tuned``: the rest of its grid is
    chosen by inner cross-validation; ``tuning`` is what its row records of that
    (``"cv"``, ``"paper"``: values the paper states, or ``"fixed"``).
    """

    dataset: str
    method: Method
    k: int | str
    split: int
    seed: int
    setting: str
    params: dict
    tuned: bool
    tuning: str

    @property
    def key(self):
        """The row's identity in the results store (:class:`.rows.RunKey`)."""
        return RunKey(
            dataset=self.dataset,
            method=self.method.name,
            k=self.k,
            split=self.split,
            seed=self.seed,
            setting=self.setting,
        )


def experiment_runs(experiment, dataset):
    """Every :class:`Unit` of the experiment, in the order of the plan: each ``k``,
    each split, each method.

    Checks the methods, their parameters and ``k`` on the labels first, and the
    plan's size (:func:`.plan_size.check_plan_size`) before it is made.
    """
    methods = experiment.resolved()
    check_plan_size(experiment, dataset, methods)
    from_paper = {name.lower() for name in experiment.paper_params}
    units = []
    for k, index in plan(experiment, dataset):
        for chosen in methods:
            method = chosen.method
            setting = setting_key(
                method,
                chosen.params,
                chosen.tuned,
                experiment.cv_folds,
                experiment.normalize,
                experiment.standardize,
            )
            paper = method.name.lower() in from_paper
            units.append(
                Unit(
                    dataset=dataset.name,
                    method=method,
                    k=k,
                    split=index,
                    seed=experiment.seed,
                    setting=setting,
                    params=chosen.params,
                    tuned=chosen.tuned,
                    tuning="cv" if chosen.tuned else "paper" if paper else "fixed",
                )
            )
    return units
