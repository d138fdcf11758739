"""A results store as a pandas ``DataFrame``: one row per run, columns to group on.

The store (``results.jsonl``, read through :func:`.rows.read_store` and its schema)
stays the source of truth; the frame is derived from it each time and never written
back. Labels, tuning and families are those of the tables (:mod:`.report`), so a
group of the frame is a cell of ``fdlsr report``.

pandas is an optional dependency (``pip install "fdlsr[pandas]"``): nothing else in
fdlsr needs it, and the command line, the reports and the plots work without it.
"""

import json
import math
import warnings
from collections import defaultdict
from pathlib import Path

from .cv_choices import searched
from .report import family_of, is_doubt, tuning_of
from .result_tables import pooled_rows
from .rows import by_data
from .variants import k_order, row_labels, variant

# The columns every frame has, in order; ``param_<name>`` columns follow.
COLUMNS = (
    "dataset", "method", "family", "label", "k", "split", "seed", "setting",
    "tuning", "searched", "accuracy", "fit_time", "predict_time", "tune_time",
    "n_train", "n_test", "n_classes", "n_features", "warnings", "unreliable",
    "error", "note", "data_sha256", "session", "finished", "fingerprint", "store",
    "n_tied_best", "n_candidates",
)  # fmt: skip
CATEGORIES = (
    "dataset", "method", "family", "label", "setting", "tuning", "searched",
    "data_sha256", "store",
)  # fmt: skip
WHOLE = ("split", "seed", "n_train", "n_test", "n_classes", "n_features", "session",
         "n_tied_best", "n_candidates")  # fmt: skip
SECONDS = ("fit_time", "predict_time", "tune_time")
PARAM = "param_"


def _pandas():
    try:
        import pandas
    except ImportError:
        raise ImportError(
            "fdlsr.results.read_results needs pandas: pip install 'fdlsr[pandas]' "
            "(or pip install pandas)"
        ) from None
    return pandas


def read_results(paths):
    """Read one or several results stores into a ``pandas.DataFrame``, one row per run.

    Each store is a folder written by ``fdlsr run`` (or its ``results.jsonl``). Its
    rows are read as ``fdlsr report`` reads them: a line that is not a valid result
    row is skipped, counted, and said in a warning (and in ``frame.attrs["notices"]``).
    Several stores are pooled as ``fdlsr plot results`` pools them: a run found in
    more than one (same name and data) is one row, the first store's, and a warning
    says how many were left out; labels are given among the pooled rows, so that one
    setting has one label whichever store holds it.

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
          (the tables print 100 times it), NaN where the run failed (``error``
          says why); ``fit_time``, ``predict_time``, ``tune_time`` in seconds;
        * ``warnings``: the warnings the run raised (a tuple of strings);
          ``unreliable``: whether one says its result is unreliable (the tables'
          dagger); ``error``, ``note``, ``fingerprint``: strings;
          ``finished``: when the run finished (UTC);
        * ``param_<name>``: every parameter the run was fitted with, the chosen
          ones of a tuned run included (every split's choice), one column each;
          empty where a method has no such parameter.

    Raises
    ------
    ImportError
        Without pandas (``pip install "fdlsr[pandas]"``).
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
    pandas = _pandas()
    if isinstance(paths, (str, Path)) or not hasattr(paths, "__iter__"):
        paths = [paths]
    pooled = pooled_rows(paths)  # a run stored twice is one row, as in the figures
    label = {}  # each row's label, given among the rows of its (pooled) table
    for rows in by_data(pooled.rows).values():
        labels = row_labels(rows)
        label.update({id(row): labels[variant(row)] for row in rows})
    records = [
        _record(row, label[id(row)], str(pooled.origin[id(row)])) for row in pooled.rows
    ]
    for notice in pooled.notices:
        warnings.warn(notice, stacklevel=2)
    frame = _frame(pandas, records)
    frame.attrs["notices"] = pooled.notices
    return frame


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
        "accuracy": math.nan if row["accuracy"] is None else float(row["accuracy"]),
        "warnings": tuple(str(w) for w in row.get("warnings", ())),
        "unreliable": any(is_doubt(w) for w in row.get("warnings", ())),
        "error": row.get("error", ""),
        "note": row.get("note", ""),
        "data_sha256": row.get("data_sha256"),
        "finished": row.get("finished"),
        "fingerprint": row.get("fingerprint"),
        "store": store,
    }
    for name in SECONDS:
        value = row.get(name)
        record[name] = math.nan if value is None else float(value)
    for name in ("n_train", "n_test", "n_classes", "n_features", "session",
                 "n_tied_best", "n_candidates"):  # fmt: skip
        record[name] = row.get(name)
    for name, value in (row.get("params") or {}).items():
        record[PARAM + str(name)] = value
    return record


def _frame(pandas, records):
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
        data[name] = _param_column(pandas, columns[name])
    return pandas.DataFrame(data, columns=[*COLUMNS, *params])


def _param_column(pandas, values):
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
