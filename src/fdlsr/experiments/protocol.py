"""The paper's evaluation protocol: splits, tuning, timing, one split at a time.

*Splits.* ``k`` random training samples per class and every other sample for testing,
repeated ``n_splits`` times (10 in the paper). Split ``i`` is drawn from
``numpy.random.default_rng([seed, i])``, so it depends only on the labels, ``k``, the
seed and ``i``: every method sees the same splits, in any process, in any order, and
adding splits later keeps the first ones.

*Samples.* Each sample is scaled to unit L2 norm before anything else, as in the paper
(Algorithm 1 takes "normalized training samples"). This is per sample, so it uses no
statistic of the test set. The scaling divides by the largest entry first, so samples
of any finite size (1e200 as well as 1e-200) keep their direction. A sample that is all
zero has no direction: it stays zero, and every row it takes part in carries a warning.

*Randomness.* A method with a ``random_state`` that no setting fixes gets one derived
from the seed and the split (:func:`run_random_state`), so a seeded experiment gives the
same numbers every time.

*Hyperparameters.* Either fixed (the paper's per-dataset values, from a shipped config)
or chosen by cross-validation on the training split only, over the method's grid; the
test split is never seen while choosing. With ``k`` training samples per class the inner
cross-validation uses ``min(k, cv_folds)`` stratified folds, so every class keeps a
training sample in every fold (``k = 2``: two halves of one sample per class each;
``k = 3`` with 3 folds: leave one sample per class out). With ``k = 1`` no validation is
possible (a held-out sample's class would have no training sample): the fixed values are
used and the row says so.

*Timing.* Training (``fit``) and test (``predict``) are timed separately with
``time.perf_counter``, after one untimed warm-up per method and process on a few
classes of the split (:func:`warm_up`); the parameter search is timed apart
(``tune_time``). With several runs at once (:mod:`.scheduler`: ``--jobs``,
``--scheduler``) each time is that of one process with its share of BLAS threads.

The experiment is planned here (:func:`experiment_runs`: one :class:`Unit` per method,
``k`` and split) and one unit computed (:func:`compute_unit`); :mod:`.scheduler`
decides where and in which order the units run, and stores their rows.
"""

import json
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from ..errors import ConfigError, quote
from ..methods import Method, get_method
from .datasets import check_classes
from .results import KEY_FIELDS

DEFAULT_SPLITS = 10
DEFAULT_CV_FOLDS = 3


def per_class_split(y, k, seed, index):
    """Training and test indices (sorted) of split ``index``: ``k`` per class for training.

    Raises :class:`ConfigError` when a class has fewer than ``k + 1`` samples.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The labels.
    k : int
        Training samples per class.
    seed : int
        The seed of the series of splits.
    index : int
        Which split of the series; split ``index`` draws from
        ``numpy.random.default_rng([seed, index])``.

    Returns
    -------
    train, test : ndarray of int
        The indices of the training and the test samples, sorted.
    """
    y = np.asarray(y)
    classes, codes, counts = np.unique(y, return_inverse=True, return_counts=True)
    check_k(classes, counts, k)
    check_seed(seed)
    rng = np.random.default_rng([seed, index])
    train = np.concatenate(
        [
            rng.choice(np.flatnonzero(codes == c), k, replace=False)
            for c in range(len(classes))
        ]
    )
    train.sort()
    mask = np.ones(y.shape[0], dtype=bool)
    mask[train] = False
    return train, np.flatnonzero(mask)


def check_k(classes, counts, k):
    """Refuse a ``k`` that leaves some class without a test sample."""
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ConfigError(
            f"k must be a positive whole number of samples per class, got {k!r}"
        )
    short = np.flatnonzero(counts < k + 1)
    if short.size:
        worst = short[np.argmin(counts[short])]
        others = (
            f" ({short.size} of the {classes.size} classes have {k} samples or fewer)"
            if short.size > 1
            else ""
        )
        raise ConfigError(
            f"k={k} training samples per class leaves no test sample for class "
            f"{quote(classes[worst])}, which has {counts[worst]} samples{others}; "
            f"choose k <= {counts.min() - 1}"
        )


def check_seed(seed):
    """Refuse a seed that ``numpy.random.default_rng`` cannot take."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ConfigError(
            f"the seed must be a whole number >= 0 (--seed), got {_plain(seed)!r}"
        )


def run_random_state(seed, index):
    """The ``random_state`` of the estimators of split ``index`` under ``seed``.

    Drawn from ``numpy.random.SeedSequence([seed, index, 1])``: a stream apart from the
    split's own (``[seed, index]``), the same in every process.
    """
    check_seed(seed)
    return int(np.random.SeedSequence([seed, index, 1]).generate_state(1)[0] >> 1)


def seeded(method, params, random_state):
    """``params`` plus ``random_state`` when the method's estimator takes one that
    neither its defaults nor ``params`` fix (otherwise it would draw from the global
    NumPy generator and differ from run to run)."""
    if random_state is None or "random_state" not in method.build().get_params():
        return params
    if {**method.params, **params}.get("random_state") is not None:
        return params
    return {**params, "random_state": random_state}


class PerClassSplit:
    """Scikit-learn splitter: ``k`` random training samples per class, the rest for testing.

    Parameters
    ----------
    k : int
        Training samples per class.
    n_splits : int, default=10
        Number of random repetitions.
    random_state : int, default=0
        Seed; split ``i`` uses ``numpy.random.default_rng([random_state, i])``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import cross_val_score
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> cv = PerClassSplit(5, n_splits=3)
    >>> scores = cross_val_score(KNeighborsClassifier(1), X, y, cv=cv)
    >>> scores.shape
    (3,)
    """

    def __init__(self, k, *, n_splits=DEFAULT_SPLITS, random_state=0):
        self.k = k
        self.n_splits = n_splits
        self.random_state = random_state

    def get_n_splits(self, X=None, y=None, groups=None):
        """The number of splits, ``n_splits``.

        Parameters
        ----------
        X, y, groups : object
            Ignored; there for scikit-learn's splitter API.

        Returns
        -------
        n_splits : int
        """
        return self.n_splits

    def split(self, X, y, groups=None):
        """Yield the training and test indices of each split.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples (only their number matters).
        y : array-like of shape (n_samples,)
            The labels: ``k`` samples of each class are drawn for training.
        groups : object
            Ignored; there for scikit-learn's splitter API.

        Yields
        ------
        train, test : ndarray of int
            The indices of the training and the test samples, sorted.
        """
        for index in range(self.n_splits):
            yield per_class_split(y, self.k, self.random_state, index)

    def __repr__(self):
        return (
            f"PerClassSplit(k={self.k}, n_splits={self.n_splits}, "
            f"random_state={self.random_state})"
        )


def inner_cv(k, seed, folds=DEFAULT_CV_FOLDS):
    """The cross-validation splitter used inside a training split, or None for ``k = 1``."""
    if k is None or k >= 2:
        n = folds if k is None else min(k, folds)
        return StratifiedKFold(n_splits=n, shuffle=True, random_state=seed)
    return None


def tune(method, X, y, cv, fixed):
    """Parameters chosen by ``cv`` over ``method.grid`` (keys in ``fixed`` stay fixed).

    Only the choice is read: the search fits no model with it (``refit=False``); the
    caller fits the chosen model once.
    """
    grid = {
        key: list(values) for key, values in method.grid.items() if key not in fixed
    }
    if not grid:
        return dict(fixed)
    if method.cv_factory is not None:
        search = method.cv_factory(grid=grid, cv=cv, **{**method.params, **fixed})
    else:
        search = GridSearchCV(method.build(**fixed), grid, cv=cv, scoring="accuracy")
    search.set_params(refit=False)
    search.fit(X, y)
    return {**fixed, **{key: _plain(v) for key, v in search.best_params_.items()}}


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


@dataclass
class Experiment:
    """What to run: a dataset, training sizes, methods and how to set their parameters.

    ``params`` maps a method name to fixed overrides of its defaults; methods named in
    ``cv`` have the rest of their grid chosen by inner cross-validation. Methods named
    in ``paper_params`` run with values stated in the paper (their rows' ``tuning`` is
    ``"paper"`` instead of ``"fixed"``, for the tables).
    """

    dataset: str
    ks: list
    methods: list
    splits: int = DEFAULT_SPLITS
    seed: int = 0
    params: dict = field(default_factory=dict)
    cv: list = field(default_factory=list)
    cv_folds: int = DEFAULT_CV_FOLDS
    normalise: bool = True
    data_dir: str | None = None
    paper_params: list = field(default_factory=list)

    def resolved(self):
        """Methods resolved by name with validated overrides: ``[(Method, params, cv)]``."""
        if not self.methods:
            raise ConfigError(
                "no methods selected; name at least one, e.g. --methods FDLSR"
            )
        methods = [get_method(name) for name in self.methods]
        names = {m.name.lower(): m for m in methods}
        for name in list(self.params) + list(self.cv):
            if name.lower() not in names:
                raise ConfigError(
                    f"parameters or --cv given for {name!r}, which is not among the "
                    f"selected methods ({', '.join(m.name for m in methods)})"
                )
        out = []
        for m in methods:
            params = {
                key: value
                for name, values in self.params.items()
                if name.lower() == m.name.lower()
                for key, value in values.items()
            }
            m.check(params)  # names and values, before any run
            tuned = any(name.lower() == m.name.lower() for name in self.cv)
            # nothing to search when every parameter of the grid is fixed
            searched = any(key not in params for key in m.grid)
            out.append((m, params, tuned and searched))
        return out


def setting_key(method, params, tuned, cv_folds, normalise):
    """A stable string naming how a method was configured (part of a row's identity)."""
    spec = {"params": {**method.params, **params}}
    if tuned:
        spec["cv"] = {
            "folds": cv_folds,
            "grid": {k: method.grid[k] for k in sorted(method.grid) if k not in params},
        }
    if not normalise:
        spec["normalise"] = False
    return json.dumps(spec, sort_keys=True, default=str)


def evaluate_split(
    method, X, y, train, test, *, params, tuned, seed, cv_folds, random_state=None
):
    """Tune (if asked), fit and test one method on one split; a result row (a dict).

    ``random_state`` is given to an estimator whose own is not fixed by ``params`` or
    the method's defaults (see :func:`seeded`); ``seed`` shuffles the inner folds.
    """
    k = int(np.bincount(np.unique(y[train], return_inverse=True)[1]).min())
    params = seeded(method, params, random_state)
    note = ""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        chosen = {**method.params, **params}
        if tuned:
            cv = inner_cv(k, seed, cv_folds)
            if cv is None:
                note = "k=1: no inner cross-validation possible, fixed parameters used"
            else:
                chosen = {
                    **method.params,
                    **tune(method, X[train], y[train], cv, params),
                }
        tune_time = time.perf_counter() - start
        estimator = method.build(**chosen)
        start = time.perf_counter()
        estimator.fit(X[train], y[train])
        fit_time = time.perf_counter() - start
        start = time.perf_counter()
        predicted = estimator.predict(X[test])
        predict_time = time.perf_counter() - start
    messages = sorted(
        {
            f"{w.category.__name__}: {str(w.message).splitlines()[0][:120]}"
            for w in caught
        }
    )
    return {
        "accuracy": float(np.mean(predicted == y[test])),
        "fit_time": fit_time,
        "predict_time": predict_time,
        "tune_time": tune_time if tuned else 0.0,
        "params": {key: _plain(v) for key, v in chosen.items()},
        "n_train": int(train.size),
        "n_test": int(test.size),
        "warnings": messages,
        "note": note,
    }


# The warm-up's subset: a few classes of the training split, all their training samples.
WARM_UP_CLASSES = 4
WARM_UP_TEST = 8


def warm_up(method, X, y, train, test, params):
    """One untimed fit and predict on a small part of the split, so that the timed
    runs pay no one-off start-up costs (imports done on first use, BLAS and thread
    pool start-up, first calls into compiled code).

    The part is the training samples of the first :data:`WARM_UP_CLASSES` classes of
    the split (all ``k`` of each) and a few test samples, with every feature: it goes
    through the same code paths as the real fit at a small fraction of its cost (a full
    fit here used to double the time of a one-split run). A method that cannot fit
    such a part (e.g. one needing more samples than classes) is warmed as far as it
    gets; the real run reports its own errors.
    """
    classes = np.unique(y[train])[:WARM_UP_CLASSES]
    part = train[np.isin(y[train], classes)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            estimator = method.build(**{**method.params, **params})
            estimator.fit(X[part], y[part]).predict(X[test[:WARM_UP_TEST]])
        except Exception:  # noqa: BLE001 (the timed run reports what fails)
            pass


def prepare(dataset, normalise=True):
    """The samples the methods see: float64, unit L2 norm per sample when ``normalise``."""
    X = np.asarray(dataset.X, dtype=np.float64)
    return unit_rows(X) if normalise else X


def unit_rows(X):
    """Each row of ``X`` divided by its L2 norm, without overflow or underflow.

    A row is first divided by its largest absolute entry, so its norm is computed from
    numbers in [-1, 1] (``sklearn.preprocessing.normalize`` squares the raw entries:
    rows above about 1e154 overflow to zero rows, rows below 1e-154 stay unscaled).
    An all-zero row stays zero.
    """
    X = np.asarray(X, dtype=np.float64)
    largest = np.max(np.abs(X), axis=1, keepdims=True, initial=0.0)
    largest[largest == 0] = 1.0
    X = X / largest
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return X / norms


def zero_samples(X):
    """Indices of the samples (rows) that are all zero."""
    return np.flatnonzero(~np.any(X, axis=1))


def _zero_text(zero):
    some = "1 sample is" if zero.size == 1 else f"{zero.size} samples are"
    return (
        f"{some} all zero; such a sample has no direction to normalise and no class "
        "information (a method labels it arbitrarily): remove it from the data"
    )


def zero_warning(zero, train, test):
    """The warning stored in a row whose data holds the all-zero samples ``zero``."""
    n_train, n_test = int(np.isin(zero, train).sum()), int(np.isin(zero, test).sum())
    return f"DataWarning: {_zero_text(zero)} ({n_train} training, {n_test} test)"


def data_warnings(dataset, ks):
    """What the user should hear before the runs start: all-zero samples (stored as a
    warning in every row) and a ``k`` in ``ks`` that ignores the dataset's own split."""
    out = []
    zero = zero_samples(np.asarray(dataset.X))
    if zero.size:
        shown = ", ".join(str(i) for i in zero[:5]) + (", ..." if zero.size > 5 else "")
        out.append(f"{_zero_text(zero)} (0-based index {shown})")
    if any(pools_fixed_split(dataset, k) for k in ks):
        out.append(POOLED)
    return out


FIXED = "fixed"
POOLED = (
    "the dataset comes with its own train/test split, but these k training samples "
    "per class were drawn from its training and test samples together (-k fixed "
    "runs its own split)"
)


def pools_fixed_split(dataset, k):
    """Whether a run with ``k`` per class ignores the dataset's own split (``POOLED``)."""
    return k != FIXED and getattr(dataset, "fixed_split", None) is not None


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


def split_indices(dataset, y, k, seed, index):
    """Training and test indices of one run: a random per-class split or the fixed one."""
    if k == FIXED:
        train, test = dataset.fixed_split
        return np.asarray(train), np.asarray(test)
    return per_class_split(y, k, seed, index)


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
        """The row's identity in the results store (``results.KEY_FIELDS``)."""
        return (
            self.dataset,
            self.method.name,
            self.k,
            self.split,
            self.seed,
            self.setting,
        )


@dataclass(frozen=True)
class SharedData:
    """What every unit of an experiment reads: sent once to each worker process.

    ``X`` as the methods see it (:func:`prepare`), the labels ``y``, and ``splits``:
    the training and test indices of each ``(k, split)`` (:func:`split_indices`).
    """

    X: np.ndarray
    y: np.ndarray
    splits: dict
    seed: int
    cv_folds: int


def experiment_runs(experiment, dataset):
    """Every :class:`Unit` of the experiment, in the order of the plan: each ``k``,
    each split, each method.

    Checks the methods, their parameters and ``k`` on the labels first.
    """
    methods = experiment.resolved()
    from_paper = {name.lower() for name in experiment.paper_params}
    units = []
    for k, index in plan(experiment, dataset):
        for method, params, tuned in methods:
            setting = setting_key(
                method, params, tuned, experiment.cv_folds, experiment.normalise
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
                    params=params,
                    tuned=tuned,
                    tuning="cv" if tuned else "paper" if paper else "fixed",
                )
            )
    return units


def shared_data(experiment, dataset, units):
    """The :class:`SharedData` of ``units`` (the splits of those only)."""
    X = prepare(dataset, experiment.normalise)
    y = np.asarray(dataset.y)
    splits = {}
    for unit in units:
        if (unit.k, unit.split) not in splits:
            splits[unit.k, unit.split] = split_indices(
                dataset, y, unit.k, experiment.seed, unit.split
            )
    return SharedData(X, y, splits, experiment.seed, experiment.cv_folds)


def compute_unit(unit, data, warmed):
    """The result row of one :class:`Unit`: its key fields, how its parameters were
    chosen and what :func:`evaluate_split` returns (or the error it raised).
    ``data`` is the experiment's :class:`SharedData`; ``warmed`` holds the methods
    already warmed up in this process."""
    method = unit.method
    train, test = data.splits[unit.k, unit.split]
    row = dict(zip(KEY_FIELDS, unit.key, strict=True))
    row["family"] = method.family
    row["tuning"] = unit.tuning
    try:
        if method.name not in warmed:
            warm_up(method, data.X, data.y, train, test, seeded(method, unit.params, 0))
            warmed.add(method.name)
        row.update(
            evaluate_split(
                method,
                data.X,
                data.y,
                train,
                test,
                params=unit.params,
                tuned=unit.tuned,
                seed=data.seed + unit.split,
                cv_folds=data.cv_folds,
                random_state=run_random_state(data.seed, unit.split),
            )
        )
    except Exception as error:  # a method that cannot handle this setting
        # e.g. LDA with one sample per class; recorded, so the table can say so
        row.update(accuracy=None, error=f"{type(error).__name__}: {error}"[:300])
    return row
