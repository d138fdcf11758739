"""``fdlsr.experiments.run_experiment``: an experiment's :class:`.run.RunRequest` of
Python arguments (estimator objects among the methods), run by :func:`.run.run` as
``fdlsr run`` runs its own."""

import numpy as np

from ..datasets import Dataset
from ..errors import ConfigError
from .config import Config, load_config
from .executor import usable_cores
from .planning import Experiment
from .run import RunRequest, run
from .user_methods import estimator_method, method_of


def run_experiment(
    dataset=None,
    methods=None,
    *,
    k=None,
    n_splits=None,
    random_state=None,
    params=None,
    cv=None,
    cv_folds=None,
    normalize=None,
    config=None,
    data_dir=None,
    n_jobs=1,
    scheduler=None,
    out=None,
    paper=None,
    verbose=True,
):
    """Run an experiment into a results store and read the store back.

    Parameters
    ----------
    dataset : str, path-like, (X, y) or Dataset, optional
        A data set name (``fdlsr datasets``; ``"faces"`` ships with the package), a
        file or folder, the arrays ``(X, y)`` (stored under the name ``"data"``) or
        a :class:`~fdlsr.datasets.Dataset`. Default: the config's.
    methods : list or dict, optional
        Registered names (``"FDLSR"``, ``"LSR"``...), import paths of classifier
        classes (``"mypkg.models:MyClassifier"``) and scikit-learn classifier
        objects (named by their class); or a dict ``{name: any of those}``, naming
        each. Default: the config's.
    k : int or list of int, optional
        Training samples per class. Default: the config's.
    n_splits : int, optional
        Random splits per ``k`` (default: the config's, else 10).
    random_state : int, optional
        Seed of the splits and of the methods' random states (default 0).
    params : dict, optional
        ``{method: {parameter: value}}``, fixed values (``--params``).
    cv : list or dict, optional
        The methods whose parameters inner cross-validation chooses on each
        training split (``--cv``): names, or ``{method: {parameter: [values]}}``
        giving the grid (needed for a classifier of yours).
    cv_folds : int, optional
        Folds of that cross-validation (default 3).
    normalize : bool, optional
        Unit-normalise the samples, as the paper does (default True).
    config : str or path-like, optional
        A TOML config (a shipped name such as ``"orl"``, or a file; see
        :doc:`/experiments`); the arguments given replace its values.
    data_dir : str or path-like, optional
        The folder of the data sets named by name (default: ``FDLSR_DATA_DIR``).
    n_jobs : int, default=1
        Runs computed at once in worker processes (-1: one per core).
    scheduler : str, optional
        A dask scheduler's address (``"tcp://HOST:8786"``, ``"local:N"``) whose
        workers compute the runs instead of ``n_jobs``.
    out : str or path-like, optional
        The results store (default ``fdlsr-results/DATASET``).
    paper : bool or str, optional
        Print the paper's numbers beside ours in the table (``--paper``): ``True``
        for the config's table, or a table's number (``"III"``).
    verbose : bool, default=True
        Print the progress (stderr) and the table (stdout), as ``fdlsr run`` does.

    Returns
    -------
    results : pandas.DataFrame
        Every row of the store, as :func:`fdlsr.results.read_results` reads it
        (the store may hold rows of earlier experiments too).

    Examples
    --------
    >>> from sklearn.neighbors import NearestCentroid
    >>> from fdlsr.experiments import run_experiment
    >>> results = run_experiment(  # doctest: +SKIP
    ...     "faces", {"FDLSR": "FDLSR", "Centroid": NearestCentroid()},
    ...     k=[2, 3], n_splits=3, out="results/faces")
    """
    from .results_frame import read_results  # pandas, needed only here

    if config is not None:
        chosen = load_config(config)
    elif dataset is None or methods is None or k is None:
        raise ConfigError(
            "run_experiment needs dataset, methods and k (or a config that gives them)"
        )
    else:
        chosen = Config(Experiment(dataset="", ks=[], methods=[]))
    ex = chosen.experiment
    data = _dataset(dataset) if dataset is not None else None
    if dataset is not None:
        ex.dataset = data.name if data is not None else str(dataset)
    if methods is not None:
        ex.methods = _methods(methods)
        named = {
            e.lower() if isinstance(e, str) else e.name.lower() for e in ex.methods
        }
        ex.params = {m: p for m, p in ex.params.items() if m.lower() in named}
        ex.cv = [m for m in ex.cv if m.lower() in named]
    if k is not None:
        ex.ks = list(np.atleast_1d(k).tolist())
    for name, value in [
        ("splits", n_splits),
        ("seed", random_state),
        ("cv_folds", cv_folds),
        ("normalize", normalize),
        ("data_dir", data_dir),
    ]:
        if value is not None:
            setattr(ex, name, value)
    if params is not None:
        for name, values in params.items():
            ex.params.setdefault(name, {}).update(values)
    if cv is not None:
        ex.cv = list(cv)
        if isinstance(cv, dict):
            ex.grid = {name: _grid(name, grid) for name, grid in cv.items() if grid}
    if n_jobs is None:
        n_jobs = 1
    elif isinstance(n_jobs, int) and n_jobs < 0:
        n_jobs = max(1, usable_cores() + 1 + n_jobs)
    request = RunRequest(
        chosen,
        jobs=n_jobs,
        scheduler=scheduler,
        out=out,
        paper="auto" if paper is True else paper or None,
        table=verbose,
        command="fdlsr.experiments.run_experiment",
    )
    result = run(request, dataset=data, progress=None if verbose else _silent)
    return read_results(result.out)


def _silent(event):
    """A progress callback that shows nothing."""


def _dataset(dataset):
    """The data in memory (a :class:`Dataset`), or None for a name or path."""
    if isinstance(dataset, Dataset):
        return dataset
    if isinstance(dataset, tuple) and len(dataset) == 2:
        X, y = dataset
        return Dataset(X=np.asarray(X, dtype=np.float64), y=np.asarray(y), name="data")
    return None


def _methods(methods):
    """The methods list of an :class:`Experiment`: names, import paths and the
    methods of estimator objects."""
    if isinstance(methods, (str, bytes)) or not hasattr(methods, "__iter__"):
        raise ConfigError(
            f"methods must be a list or a dict of methods, got {methods!r}; e.g. "
            "methods=['FDLSR', 'LSR']"
        )
    if isinstance(methods, dict):
        return [_named(name, entry) for name, entry in methods.items()]
    return [
        entry
        if isinstance(entry, str)
        else estimator_method(type(entry).__name__, entry)
        for entry in methods
    ]


def _named(name, entry):
    """The entry ``name: entry`` of a methods dict."""
    if not isinstance(entry, str):
        return estimator_method(name, entry)
    method = method_of(entry)
    if method.source:  # an import path, under the name given
        return estimator_method(name, method.factory.estimator, source=method.source)
    if method.name.lower() != str(name).lower():
        raise ConfigError(
            f"methods: {name!r} names the registered method {method.name}; write "
            f"{method.name!r}: {entry!r} (a registered method keeps its name)"
        )
    return entry


def _grid(name, grid):
    """``{parameter: [values]}`` of ``cv[name]``, checked to be lists."""
    if not isinstance(grid, dict) or not all(
        isinstance(v, (list, tuple)) and v for v in grid.values()
    ):
        raise ConfigError(
            f"cv[{name!r}] must map parameters to non-empty lists of values to try, "
            f"got {grid!r}; e.g. cv={{{name!r}: {{'alpha': [0.1, 1.0]}}}}"
        )
    return {key: list(values) for key, values in grid.items()}
