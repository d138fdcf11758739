"""Result rows: how one is made, their schema, and how a store's ``results.jsonl``
is read.

A row names its run (``KEY_FIELDS``: dataset, method, k, split, seed, setting) and
says what it gave (accuracy, times) and what was computed (``data_sha256``, the
SHA-256 of the arrays used, and ``fingerprint``, of everything that determines the
result). :func:`result_row` makes every row a run stores; every line of a store is
read through :func:`validate_row`; a line that fails it, or repeats a run already
read, is skipped and counted, never used.
"""

import math
from collections import Counter
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from .._common import strict_json
from .._common.strict_json import JSONError, JSONSyntaxError, RepeatedKeyError

RESULTS = "results.jsonl"


@dataclass(frozen=True)
class RunKey:
    """The name of a run: what was asked for, not what it gave (one row per key)."""

    dataset: str
    method: str
    k: int | str
    split: int
    seed: int
    setting: str


KEY_FIELDS = tuple(f.name for f in fields(RunKey))


def row_key(row):
    """The :class:`RunKey` of a row."""
    return RunKey(**{name: row[name] for name in KEY_FIELDS})


def result_row(
    key,
    *,
    family,
    tuning,
    outcome,
    n_classes,
    n_features,
    data_sha256,
    fingerprint,
    data_warning=None,
    data_note=None,
):
    """The row of one finished run, as the store keeps it (the store adds the
    ``session`` that wrote it and when it ``finished``).

    Parameters
    ----------
    key : RunKey
        The run's name.
    family, tuning : str
        The method's family and how its parameters were chosen (``"cv"``,
        ``"paper"`` or ``"fixed"``).
    outcome : dict
        What the run gave (:func:`.evaluation.compute_unit`): accuracy, times,
        parameters, sizes, warnings and note, or ``accuracy`` None and the ``error``.
    n_classes, n_features : int
        The data's.
    data_sha256, fingerprint : str
        What identifies the data and the run (:mod:`.fingerprints`).
    data_warning, data_note : str, optional
        A warning about the data (all-zero samples) added to the run's own, and a
        note added to its own (a split that pools the data set's own).
    """
    row = {**asdict(key), "family": family, "tuning": tuning, **outcome}
    if data_warning:
        row["warnings"] = [*row.get("warnings", []), data_warning]
    if data_note:
        row["note"] = "; ".join(filter(None, [row.get("note"), data_note]))
    row["n_classes"] = n_classes
    row["n_features"] = n_features
    row["data_sha256"] = data_sha256
    row["fingerprint"] = fingerprint
    return row


# -- the schema of a row ------------------------------------------------------------


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _name(value):
    return None if isinstance(value, str) and value else "of the wrong type"


def _count(value):
    return None if _whole(value) and value >= 0 else "of the wrong type"


def _k(value):
    if value == "fixed":
        return None
    if not _whole(value):
        return "of the wrong type"
    return None if value >= 1 else "not a positive number of samples"


def _setting(value):
    try:
        spec = (
            strict_json.loads(value, allow_nan=True) if isinstance(value, str) else None
        )
    except JSONError:
        spec = None
    if isinstance(spec, dict) and isinstance(spec.get("params"), dict):
        return None
    return "not a JSON object of parameters"


def _seconds(value):
    if not _number(value):
        return "of the wrong type"
    return None if math.isfinite(value) and value >= 0 else "not a time in seconds"


def _accuracy(value):
    if value is None:
        return None  # the method failed in this setting; the row says why
    if not _number(value):
        return "of the wrong type"
    if not math.isfinite(value):
        return "not a finite number"
    return None if 0 <= value <= 1 else "outside [0, 1]"


def _of(kind):
    return lambda value: None if isinstance(value, kind) else "of the wrong type"


REQUIRED = {
    "dataset": _name,
    "method": _name,
    "family": _name,
    "k": _k,
    "split": _count,
    "seed": lambda value: None if _whole(value) else "of the wrong type",
    "setting": _setting,
    "accuracy": _accuracy,
}
REQUIRED_WITH_ACCURACY = {"fit_time": _seconds, "predict_time": _seconds}
OPTIONAL = {
    "tune_time": _seconds,
    "session": _count,
    "n_train": _count,
    "n_test": _count,
    "n_classes": _count,
    "n_features": _count,
    "params": _of(dict),
    "warnings": _of(list),
    "note": _of(str),
    "error": _of(str),
    "tuning": _of(str),
    "finished": _of(str),
    "data_sha256": _name,
    "fingerprint": _name,
    "n_tied_best": _count,  # a tuned run: the candidates tied for the best score
    "n_candidates": _count,  # and those searched (cv_ties)
}


def validate_row(row):
    """Why ``row`` (a decoded JSON line) is not a result row, in a few words; or None.

    A row needs its run's name (``KEY_FIELDS``), a family and an accuracy (a fraction
    in [0, 1], or null for a run that failed), with the fit and predict times of a run
    that did not fail; the other fields are optional, and checked when present.
    """
    if not isinstance(row, dict):
        return "not a JSON object"
    checks = {**REQUIRED}
    if row.get("accuracy") is not None:
        checks.update(REQUIRED_WITH_ACCURACY)
    for name, check in checks.items():
        if name not in row:
            return f"'{name}' missing"
        problem = check(row[name])
        if problem:
            return f"'{name}' {problem}"
    for name, check in OPTIONAL.items():
        problem = check(row[name]) if name in row else None
        if problem:
            return f"'{name}' {problem}"
    return None


# -- reading a store's lines ---------------------------------------------------------


def whole_lines(data):
    """``(lines, torn)``: the lines of a ``results.jsonl``'s bytes, and its last line if
    an interruption cut it short (``b""`` if none).

    The one rule of the reader (:func:`read_lines`) and of the writer, which ends the
    last line before appending (``ResultStore``). The last line may lack its newline
    and still be whole (a file written as ``"\\n".join(rows)``, or a write stopped just
    before its newline): it is cut short only if it does not parse as JSON. A row cut
    anywhere before its newline never parses, since its closing brace is its last
    character. Blank lines are not lines.
    """
    *ended, last = data.split(b"\n")  # last: b"" after a final newline
    lines = [line for line in ended if line.strip()]
    if not last.strip():
        return lines, b""
    if _parses(last):
        return [*lines, last], b""
    return lines, last


def _parses(line):
    try:
        strict_json.loads(line, allow_nan=True)
    except JSONSyntaxError:
        return False
    except JSONError:  # whole, though not a row (a key named twice): kept as a line
        return True
    return True


@dataclass
class StoreRows:
    """The valid rows of a ``results.jsonl``, and what was skipped and why."""

    path: Path
    rows: list = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    n_lines: int = 0

    def skipped_text(self):
        """``"skipped 3 of 20 lines (2 not JSON, 1 ...)"``, or ``""``."""
        n = sum(self.skipped.values())
        if not n:
            return ""
        why = ", ".join(f"{count} {reason}" for reason, count in self.skipped.items())
        return f"skipped {n} of {self.n_lines} lines ({why})"

    @property
    def n_legacy(self):
        return sum("fingerprint" not in row for row in self.rows)

    def notices(self):
        """One line per thing a reader of the table should know about the store."""
        out = []
        if self.skipped:
            out.append(f"{self.path}: {self.skipped_text()}; the rest is used")
        if self.n_legacy:
            out.append(
                f"{self.path}: {n_rows(self.n_legacy)} without a fingerprint (written "
                "before fdlsr recorded the data of each run): used as stored; a run "
                "checks only their sizes against its data"
            )
        return out


def n_rows(n):
    """``"1 row"``, ``"3 rows"``."""
    return f"{n} row" + ("" if n == 1 else "s")


def read_lines(data, path):
    """The :class:`StoreRows` of ``data``, the bytes of the ``results.jsonl`` at ``path``.

    Every line goes through :func:`validate_row`. A line that is not UTF-8, not JSON,
    names a field twice (read by :func:`~fdlsr._common.strict_json.loads`: which
    value counts would be a guess), fails the schema, repeats a run already read (the first is kept; see
    ``_repeats``), or is a last line cut short by an interruption (:func:`whole_lines`),
    is skipped and counted in ``skipped`` by reason.
    """
    store = StoreRows(Path(path))
    lines, torn = whole_lines(data)
    seen = {}
    for line in lines:
        store.n_lines += 1
        _read_line(line, store, seen)
    if torn:
        store.n_lines += 1
        store.skipped["cut short by an interruption"] += 1
    return store


def _read_line(line, store, seen):
    try:
        row = strict_json.loads(line.decode("utf-8"), allow_nan=True)
    except UnicodeDecodeError:
        reason = "not UTF-8"
    except RepeatedKeyError:
        reason = "name a field twice"
    except JSONError:
        reason = "not JSON"
    else:
        reason = validate_row(row)
        if reason is None:
            reason = _repeats(row, seen)
        if reason is None:
            seen.setdefault(row_key(row), []).append(row)
            store.rows.append(row)
            return
    store.skipped[reason] += 1


def _repeats(row, seen):
    """Why ``row`` is a run already read (same name, and same data or data not
    recorded), or None. Rows of one name and other data are other runs."""
    data = row.get("data_sha256")
    for other in seen.get(row_key(row), ()):
        if data is None or other.get("data_sha256") in (None, data):
            if other.get("fingerprint") == row.get("fingerprint"):
                return "repeat a run already read"
            return "give another result for a run already read (the first is used)"
    return None


def by_data(rows):
    """Rows grouped by dataset name and data: ``{(name, data_sha256): rows}``.

    Rows written before fingerprints (no ``data_sha256``) join the one data set of their
    name when there is one; otherwise they are grouped under ``None``.
    """
    groups = {}
    for row in rows:
        groups.setdefault((row["dataset"], row.get("data_sha256")), []).append(row)
    for name in {name for name, _ in groups}:
        hashes = [data for n, data in groups if n == name and data is not None]
        if len(hashes) == 1 and (name, None) in groups:
            legacy = groups.pop((name, None))
            groups[name, hashes[0]] = legacy + groups[name, hashes[0]]
    return groups
