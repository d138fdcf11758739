"""Reading results stores into one pandas ``DataFrame``: the table every view is
computed from.

The path from a store to a view is: *reading* (the rows of ``results.jsonl``, through
:func:`.store_folder.read_store` and its schema; several stores pooled by
:func:`pooled_rows`), then *the frame* (:func:`frame_of`: one row per run, typed
columns, each run's label among the rows of its data set), then *the views*, each
computed from the frame with pandas: the tables in Markdown, LaTeX, CSV and HTML
(:mod:`.report`, :mod:`.html_report`), their notes (:mod:`.notes`), the choices of
cross-validation (:mod:`.cv_choices`) and the figures (:mod:`.result_plots`).
:mod:`.result_tables` cuts the frame into one table per data set.

The store stays the source of truth; the frame is derived from it each time and never
written back. Units: ``accuracy`` is a fraction in [0, 1] (scikit-learn's score);
times are in seconds. The formatted tables print accuracy in %, and say so.
"""

import json
import math
import warnings
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pandas

from ..errors import UnreliableResultWarning
from .registry import METHODS
from .rows import by_data, n_rows, row_key
from .store import read_info
from .store_folder import read_store
from .variants import k_order, row_labels, searched, variant

# The columns every frame has, in order; ``param_<name>`` columns follow.
COLUMNS = (
    "dataset", "method", "family", "label", "k", "split", "seed", "setting",
    "tuning", "searched", "accuracy", "fit_time", "tune_time", "train_time",
    "predict_time", "n_train", "n_test", "n_classes", "n_features", "warnings",
    "unreliable", "error", "note", "data_sha256", "session", "finished",
    "fingerprint", "store", "n_tied_best", "n_candidates",
)  # fmt: skip
CATEGORIES = (
    "dataset", "method", "family", "label", "setting", "tuning", "searched",
    "data_sha256", "store",
)  # fmt: skip
WHOLE = ("split", "seed", "n_train", "n_test", "n_classes", "n_features", "session",
         "n_tied_best", "n_candidates")  # fmt: skip
SECONDS = ("fit_time", "tune_time", "train_time", "predict_time")
PARAM = "param_"
# How a row's parameters were chosen: the paper's values, ours, by cross-validation,
# or fixed in a row stored before fdlsr told the paper's values from its own.
TUNINGS = ("paper", "fixed", "cv", "unrecorded")
# Rows whose run raised this warning hold a number the method computed faithfully but
# that is known to be unreliable: the tables mark their cells and say why.
DOUBT = UnreliableResultWarning.__name__ + ":"


def is_doubt(warning):
    """Whether a run's recorded warning says its result is unreliable."""
    return isinstance(warning, str) and warning.startswith(DOUBT)


def tuning_of(row):
    """How a stored row's parameters were chosen: ``"cv"``, ``"paper"``, ``"fixed"``
    (by us) or ``"unrecorded"``: fixed, in a row written before fdlsr told the
    paper's values from its own (such rows have no fingerprint either)."""
    tuning = row.get("tuning")
    if tuning == "fixed" and "fingerprint" not in row:
        return "unrecorded"
    return tuning if tuning in TUNINGS else "unrecorded"


def family_of(row):
    """A stored row's family; the registry's for a registered method."""
    method = METHODS.get(row["method"])
    return method.family if method is not None else row["family"]


@dataclass
class PooledRows:
    """The rows of several stores, each run once (:func:`pooled_rows`): ``rows`` in
    the stores' order, ``origin`` the folder of each (by ``id``), ``infos`` each
    folder's ``experiment.json`` and ``notices`` what a reader should know."""

    rows: list
    origin: dict
    infos: list
    notices: list


def pooled_rows(folders):
    """The rows of the stores ``folders`` pooled: a run found in more than one store
    (same name and data) is taken from the first, and a notice says how many were
    left out of each later one (a :class:`PooledRows`)."""
    rows, seen, infos, notices, origin = [], set(), [], [], {}
    for folder in folders:
        store = read_store(folder)
        info, problem = read_info(store.path.parent)
        infos.append((store.path.parent, info))
        notices += [*store.notices(), *([problem] if problem else [])]
        repeats = 0
        for row in store.rows:
            key = (row_key(row), row.get("data_sha256"))
            if key in seen:
                repeats += 1
                continue
            seen.add(key)
            rows.append(row)
            origin[id(row)] = store.path.parent
        if repeats:
            notices.append(
                f"{store.path}: {n_rows(repeats)} repeat runs of a store named before "
                "it: the first store's are used"
            )
    return PooledRows(rows, origin, infos, notices)


def read_results(paths):
    """Read one or several results stores into a ``pandas.DataFrame``, one row per run.

    Each store is a folder written by ``fdlsr run`` (or its ``results.jsonl``). Its
    rows are read as ``fdlsr report`` reads them: a line that is not a valid result
    row is skipped, counted, and said in a warning (and in ``frame.attrs["notices"]``).
    Several stores are pooled as ``fdlsr plot results`` pools them: a run found in
    more than one (same name and data) is one row, the first store's, and a warning
    says how many were left out; labels are given among the pooled rows, so that one
    setting has one label whichever store holds it. Every table, note and figure of
    ``fdlsr report`` and ``fdlsr plot results`` is computed from this frame.

    Parameters
    ----------
    paths : str, path-like, or a list of them
        The results folder(s).

    Returns
    -------
    frame : pandas.DataFrame
        One row per run, in the stores' order, with the columns

        * ``dataset``, ``method``, ``family``, ``label`` (the row label of the tables:
          the method and what sets this setting or seed apart), ``setting`` (the
          stored setting, JSON), ``tuning`` (``paper``, ``fixed``, ``cv`` or
          ``unrecorded``), ``searched`` (the parameters cross-validation chose, comma
          separated; empty when fixed), ``data_sha256`` and ``store`` (the folder it
          was read from): categoricals;
        * ``k``: an ordered categorical of the training samples per class, the
          numbers in order, then ``"fixed"`` (the data set's own split);
        * ``split``, ``seed``, ``n_train``, ``n_test``, ``n_classes``,
          ``n_features``, ``session``, ``n_tied_best``, ``n_candidates`` (a tuned
          run's candidates tied for the best inner score, and those searched):
          nullable integers (``Int64``);
        * ``accuracy``: the fraction of test samples labelled right, in [0, 1]
          (scikit-learn's score; the tables print 100 times it, in %), NaN where the
          run failed (``error`` says why);
        * times in seconds: ``fit_time`` (the final fit), ``tune_time`` (the search
          of a tuned run, 0 where nothing was tuned), ``train_time`` (its training
          cost: ``tune_time + fit_time``, what the tables' "Training time (s)" and
          the time figure show), ``predict_time``;
        * ``warnings``: the warnings the run raised (a tuple of strings);
          ``unreliable``: whether one says its result is unreliable (the tables'
          dagger); ``error``, ``note``, ``fingerprint``: strings;
          ``finished``: when the run finished (UTC);
        * ``param_<name>``: every parameter the run was fitted with, the chosen
          ones of a tuned run included (every split's choice), one column each;
          empty where a method has no such parameter.

    Raises
    ------
    fdlsr.errors.ConfigError
        A path that is not a results store, or cannot be read.

    See Also
    --------
    fdlsr.results.plot_accuracy_by_k, fdlsr.results.plot_accuracy_by_time

    Examples
    --------
    >>> from fdlsr.results import read_results
    >>> frame = read_results("docs/results/feret")  # doctest: +SKIP
    >>> frame.groupby(["label", "k"], observed=True).accuracy.mean().unstack()
    ... # doctest: +SKIP
    """
    if isinstance(paths, (str, Path)) or not hasattr(paths, "__iter__"):
        paths = [paths]
    pooled = pooled_rows(paths)  # a run stored twice is one row, as in the figures
    for notice in pooled.notices:
        warnings.warn(notice, stacklevel=2)
    frame = frame_of(pooled.rows, pooled.origin)
    frame.attrs["notices"] = pooled.notices
    return frame


def frame_of(rows, origin=None):
    """The frame of stored ``rows`` (dicts, as :func:`.store_folder.read_store`
    gives them), in their order; ``origin`` maps each row (by ``id``) to the folder
    it was read from (the ``store`` column). Each row's label is given among the
    rows of its data set (same name and data), as its table shows it."""
    label = {}
    for group in by_data(rows).values():
        labels = row_labels(group)
        label.update({id(row): labels[variant(row)] for row in group})
    records = [
        _record(row, label[id(row)], str(origin[id(row)]) if origin else None)
        for row in rows
    ]
    return _frame(records)


def _number(value):
    return math.nan if value is None else float(value)


def _record(row, label, store):
    """The frame's values of one stored row."""
    record = {
        "dataset": row["dataset"],
        "method": row["method"],
        "family": family_of(row),
        "label": label,
        "k": row["k"],
        "split": row["split"],
        "seed": row["seed"],
        "setting": row["setting"],
        "tuning": tuning_of(row),
        "searched": ",".join(searched(row)),
        "accuracy": _number(row["accuracy"]),
        "fit_time": _number(row.get("fit_time")),
        "tune_time": float(row.get("tune_time") or 0.0),  # none recorded: untuned
        "predict_time": _number(row.get("predict_time")),
        "warnings": tuple(str(w) for w in row.get("warnings", ())),
        "unreliable": any(is_doubt(w) for w in row.get("warnings", ())),
        "error": row.get("error", ""),
        "note": row.get("note", ""),
        "data_sha256": row.get("data_sha256"),
        "finished": row.get("finished"),
        "fingerprint": row.get("fingerprint"),
        "store": store,
    }
    record["train_time"] = record["tune_time"] + record["fit_time"]
    for name in ("n_train", "n_test", "n_classes", "n_features", "session",
                 "n_tied_best", "n_candidates"):  # fmt: skip
        record[name] = row.get(name)
    for name, value in (row.get("params") or {}).items():
        record[PARAM + str(name)] = value
    return record


def _frame(records):
    """The DataFrame of ``records``, each column in the dtype a user groups on."""
    params = sorted({key for r in records for key in r if key.startswith(PARAM)})
    columns = defaultdict(list)
    for record in records:
        for name in (*COLUMNS, *params):
            columns[name].append(record.get(name))
    data = {}
    for name in COLUMNS:
        values = columns[name]
        if name in CATEGORIES:
            data[name] = pandas.Categorical(values)
        elif name == "k":
            order = sorted(set(values), key=k_order)
            data[name] = pandas.Categorical(values, categories=order, ordered=True)
        elif name in WHOLE:
            data[name] = pandas.array(values, dtype="Int64")
        elif name == "unreliable":
            data[name] = pandas.array(values, dtype="bool")
        elif name == "finished":
            data[name] = pandas.to_datetime(values, utc=True, errors="coerce")
        elif name in ("accuracy", *SECONDS):
            data[name] = pandas.array(values, dtype="float64")
        elif name == "warnings":
            data[name] = pandas.Series(values, dtype="object")
        else:
            data[name] = pandas.Series(values, dtype="string")
    for name in params:
        data[name] = _param_column(columns[name])
    return pandas.DataFrame(data, columns=[*COLUMNS, *params])


def _param_column(values):
    """A parameter's column: numbers as floats (whole numbers as ``Int64``), text as
    a categorical, true/false as ``boolean``; anything else (a list, a mix) as the
    stored JSON values."""
    present = [v for v in values if v is not None]
    if all(isinstance(v, bool) for v in present):
        return pandas.array(values, dtype="boolean")
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pandas.array(values, dtype="Int64")
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return pandas.array(
            [math.nan if v is None else float(v) for v in values], dtype="float64"
        )
    if all(isinstance(v, str) for v in present):
        return pandas.Categorical(values)
    return pandas.Series(
        [v if not isinstance(v, (dict, list)) else json.dumps(v) for v in values],
        dtype="object",
    )
