"""One run of one method: tune (if asked), warm up, fit and test on one split, and
what it gave.

*Hyperparameters.* A tuned method has the rest of its grid chosen by cross-validation
on the training split only (:func:`tune`); the test split is never seen while
choosing. The inner cross-validation uses ``min(k, cv_folds)`` stratified folds
(:func:`.splits.inner_cv`), so every class keeps a training sample in every fold
(``k = 2``: two halves of one sample per class each; ``k = 3`` with 3 folds: leave
one sample per class out). With ``k = 1`` no validation is possible (a held-out
sample's class would have no training sample): the fixed values are used and the row
says so. Where several candidates tie for the best mean validation score the first in
grid order is taken, and the row records how many tied (:mod:`.cv_ties`).

*Timing.* Training (``fit``) and test (``predict``) are timed separately with
``time.perf_counter``, after one untimed warm-up per method and process on a few
classes of the split (:func:`warm_up`); the parameter search is timed apart
(``tune_time``). With several runs at once (:mod:`.scheduler`: ``--jobs``,
``--scheduler``) each time is that of one process with its share of BLAS threads.
"""

import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import GridSearchCV

from ..errors import TiedScoresWarning
from .cv_ties import search_ties
from .samples import prepare, standardize_columns, unit_rows
from .splits import NO_INNER_CV, inner_cv, run_random_state, seeded, split_indices
from .user_methods import json_safe


def tune(method, X, y, cv, fixed):
    """Parameters chosen by ``cv`` over ``method.grid`` (keys in ``fixed`` stay fixed).

    Only the choice is read (``best_params_``); the caller fits the chosen model once.
    """
    return chosen_params(fitted_search(method, X, y, cv, fixed), fixed)


def fitted_search(method, X, y, cv, fixed):
    """The search of :func:`tune`, fitted (None if nothing is left to search).

    Its ties are counted by :func:`.cv_ties.search_ties` and recorded in the row, so
    FDLSRCV's warning of them is not recorded among the run's warnings too.
    """
    grid = {
        key: list(values) for key, values in method.grid.items() if key not in fixed
    }
    if not grid:
        return None
    if method.cv_factory is not None:
        search = method.cv_factory(grid=grid, cv=cv, **{**method.params, **fixed})
    else:
        search = GridSearchCV(
            method.build(**fixed), grid, cv=cv, scoring="accuracy", refit=False
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TiedScoresWarning)
        search.fit(X, y)
    return search


def chosen_params(search, fixed):
    """``fixed`` and what ``search`` (of :func:`fitted_search`, or None) chose."""
    if search is None:
        return dict(fixed)
    return {**fixed, **{key: _plain(v) for key, v in search.best_params_.items()}}


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def evaluate_split(
    method, X, y, train, test, *, params, tuned, seed, cv_folds, random_state=None
):
    """Tune (if asked), fit and test one method on one split; a result row (a dict).

    ``random_state`` is given to an estimator whose own is not fixed by ``params`` or
    the method's defaults (see :func:`.splits.seeded`); ``seed`` shuffles the inner
    folds.
    """
    k = int(np.bincount(np.unique(y[train], return_inverse=True)[1]).min())
    params = seeded(method, params, random_state)
    note = ""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        chosen = {**method.params, **params}
        ties = {}  # how many candidates tied for the best (cv_ties)
        if tuned:
            cv = inner_cv(k, seed, cv_folds)
            if cv is None:
                note = NO_INNER_CV
            else:
                search = fitted_search(method, X[train], y[train], cv, params)
                chosen = {**method.params, **chosen_params(search, params)}
                ties = search_ties(search) if search is not None else {}
        tune_time = time.perf_counter() - start
        estimator = method.build(**chosen)
        start = time.perf_counter()
        estimator.fit(X[train], y[train])
        fit_time = time.perf_counter() - start
        start = time.perf_counter()
        predicted = estimator.predict(X[test])
        predict_time = time.perf_counter() - start
    if np.shape(predicted) != (test.size,):  # compared label by label below
        raise ValueError(
            f"predict returned an array of shape {np.shape(predicted)} for "
            f"{test.size} test samples; it must return one label per sample"
        )
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
        "params": {key: json_safe(v) for key, v in chosen.items()},
        "n_train": int(train.size),
        "n_test": int(test.size),
        "warnings": messages,
        "note": note,
        **ties,
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
    through the same code paths as the real fit at a small fraction of its cost. A
    method that cannot fit such a part (e.g. one needing more samples than classes)
    is warmed as far as it gets; the real run reports its own errors.
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


@dataclass(frozen=True)
class SharedData:
    """What every unit of an experiment reads: sent once to each worker process.

    ``X`` as the methods see it (:func:`.samples.prepare`; the raw samples with
    ``standardize``, see :meth:`samples`), the labels ``y``, and
    ``splits``: the training and test indices of each ``(k, split)``
    (:func:`.splits.split_indices`).
    """

    X: np.ndarray
    y: np.ndarray
    splits: dict
    seed: int
    cv_folds: int
    standardize: bool = False
    normalize: bool = True

    def samples(self, train):
        """``X`` as the methods see it on a split with training rows ``train``:
        with ``standardize``, ``X`` holds the raw samples, whose columns are
        standardised on ``train`` here, then unit-normalised (if ``normalize``)."""
        if not self.standardize:
            return self.X
        X = standardize_columns(self.X, train)
        return unit_rows(X) if self.normalize else X


def shared_data(experiment, dataset, units):
    """The :class:`SharedData` of ``units`` (the splits of those only)."""
    # standardised per split (on its training rows) in SharedData.samples
    X = prepare(dataset, experiment.normalize and not experiment.standardize)
    y = np.asarray(dataset.y)
    splits = {}
    for unit in units:
        if (unit.k, unit.split) not in splits:
            splits[unit.k, unit.split] = split_indices(
                dataset, y, unit.k, experiment.seed, unit.split
            )
    return SharedData(
        X, y, splits, experiment.seed, experiment.cv_folds,
        experiment.standardize, experiment.normalize,
    )  # fmt: skip


def compute_unit(unit, data, warmed):
    """What one :class:`.planning.Unit` gave: what :func:`evaluate_split` returns, or
    ``accuracy`` None and the error it raised (:func:`.rows.result_row` makes the
    row of it). ``data`` is the experiment's :class:`SharedData`; ``warmed`` holds
    the methods already warmed up in this process."""
    method = unit.method
    train, test = data.splits[unit.k, unit.split]
    X = data.samples(train)
    try:
        if method.name not in warmed:
            warm_up(method, X, data.y, train, test, seeded(method, unit.params, 0))
            warmed.add(method.name)
        return evaluate_split(
            method,
            X,
            data.y,
            train,
            test,
            params=unit.params,
            tuned=unit.tuned,
            seed=data.seed + unit.split,
            cv_folds=data.cv_folds,
            random_state=run_random_state(data.seed, unit.split),
        )
    except Exception as error:  # a method that cannot handle this setting
        # e.g. LDA with one sample per class; recorded, so the table can say so
        return {"accuracy": None, "error": f"{type(error).__name__}: {error}"[:300]}
