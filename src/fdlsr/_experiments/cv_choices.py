"""What cross-validation chose: the parameters each split of a tuned method picked.

A run tuned by ``fdlsr run --cv`` records in its setting the grid that was searched
(``{"cv": {"grid": {name: values}}}``) and in ``params`` every parameter it was fitted
with, the chosen ones included. A run with one training sample per class had nothing
to validate on and kept its fixed values (its note says so: ``splits.NO_INNER_CV``),
which the reports name. The reports show, per method and ``k``, the value most splits
chose and how many (``alpha=0.01 (7/10)``); the CSV and
:func:`fdlsr.results.read_results` give every split's choice.

Everything here is read from the frame of :mod:`.results_frame` (its ``searched``,
``note`` and ``param_<name>`` columns), a run being one of its records.
"""

import json
import math
from collections import Counter
from dataclasses import dataclass, field

import pandas

from .._common import strict_json
from .cv_ties import ties_text
from .results_frame import PARAM
from .splits import NO_INNER_CV
from .variants import k_order, value_text

__all__ = ["cell_choices", "choices_of", "choices_text", "per_split", "value_text"]


def searched(run):
    """The names of the parameters that a run's search chose (a record of the frame;
    empty for a run whose parameters were fixed)."""
    return run["searched"].split(",") if run["searched"] else []


def _ran(run):
    return not math.isnan(run["accuracy"])


def _param(run, name):
    """The value a run was fitted with for parameter ``name`` (a plain Python value),
    or None where it records none."""
    value = run.get(PARAM + name)
    if (
        value is None
        or value is pandas.NA
        or (isinstance(value, float) and math.isnan(value))
    ):
        return None
    return value.item() if hasattr(value, "item") else value


def split_choice(run):
    """``{name: value}`` that the search of ``run`` chose, or None: a run not tuned,
    a run that failed, one with nothing to validate on (k=1) or a run that does not
    record its parameters."""
    names = searched(run)
    if not names or not _ran(run) or run["note"] == NO_INNER_CV:
        return None
    choice = {name: _param(run, name) for name in names}
    return None if None in choice.values() else choice


@dataclass(frozen=True)
class Choices:
    """What the splits of one cell (a tuned method at one ``k``) chose.

    ``splits``: the runs of the cell that ran; ``chosen``: how many of them chose;
    ``unvalidated``: how many had nothing to validate on (one training sample per
    class); the rest do not record their parameters. ``counts``: per searched
    parameter, ``[(value, splits), ...]``, the most chosen first; ``fixed``: the
    same of the values the unvalidated runs were fitted with instead.
    """

    splits: int
    chosen: int
    unvalidated: int
    counts: dict
    fixed: dict = field(default_factory=dict)
    ties: str = ""  # where candidates tied for the best (cv_ties.ties_text)


def choices_of(runs):
    """The :class:`Choices` of one cell's runs (the records of one variant at one
    ``k``), or None if they were not tuned."""
    runs = [r for r in runs if searched(r) and _ran(r)]
    if not runs:
        return None
    choices = [c for c in map(split_choice, runs) if c is not None]
    unvalidated = [r for r in runs if r["note"] == NO_INNER_CV]
    fixed = [_fixed_values(r) for r in unvalidated]
    ties = ties_text([(r.get("n_tied_best"), r.get("n_candidates")) for r in runs])
    return Choices(
        len(runs), len(choices), len(unvalidated), _tally(choices), _tally(fixed), ties
    )


def _fixed_values(row):
    """``{name: value}`` that a run with nothing to validate on was fitted with, for
    the parameters its search would have chosen (those it records)."""
    values = {name: _param(row, name) for name in searched(row)}
    return {name: value for name, value in values.items() if value is not None}


def _tally(choices):
    """Per parameter of ``choices`` (``{name: value}`` each), ``[(value, count),
    ...]``, the most common first."""
    counts = {}
    for name in sorted({name for c in choices for name in c}):
        tally = Counter(_key(c[name]) for c in choices if name in c)
        counts[name] = sorted(
            (
                (strict_json.loads(value, allow_nan=True), n)
                for value, n in tally.items()
            ),
            key=lambda item: (-item[1], _order(item[0])),
        )
    return counts


def per_split(runs):
    """Every split's choice among ``runs``: ``[{"seed": .., "split": .., name:
    value, ...}, ...]`` in the order of the splits (the CSV's ``chosen_per_split``)."""
    out = []
    for row in sorted(runs, key=lambda r: (r["seed"], r["split"])):
        choice = split_choice(row)
        if choice is not None:
            out.append({"seed": int(row["seed"]), "split": int(row["split"]), **choice})
    return out


def cell_choices(frame):
    """``{label: {k: Choices}}`` for the tuned variants of ``frame``, the runs of one
    table (labels as the table shows them)."""
    tuned = frame[(frame.searched.astype(str) != "") & frame.accuracy.notna()]
    cells = {}
    for (label, k), runs in tuned.groupby(["label", "k"], observed=True):
        cells.setdefault(label, {})[k] = choices_of(runs.to_dict("records"))
    return {
        label: {k: by_k[k] for k in sorted(by_k, key=k_order)}
        for label, by_k in sorted(cells.items())
    }


def _key(value):
    """A hashable, exact key of a parameter value (a JSON text)."""
    return json.dumps(value, sort_keys=True, default=str)


def _order(value):
    """Numbers before text, in their own order."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value if math.isfinite(value) else math.inf, "")
    return (1, 0, str(value))


def choices_text(choices):
    """``alpha=0.01 (7/10), lam=0.1 or 1 (5/10 each)``: per parameter the value most
    splits chose and how many did (out of the cell's splits)."""
    fixed = _fixed_text(choices.fixed)
    if choices.unvalidated == choices.splits:
        return (
            f"fixed values{' ' + fixed if fixed else ''} (one sample per class: "
            "nothing to validate on)"
        )
    parts = []
    for name, counts in choices.counts.items():
        top = counts[0][1]
        tied = [value_text(value) for value, n in counts if n == top]
        each = " each" if len(tied) > 1 else ""
        parts.append(f"{name}={' or '.join(tied)} ({top}/{choices.splits}{each})")
    unrecorded = choices.splits - choices.chosen - choices.unvalidated
    if choices.unvalidated:
        parts.append(
            f"{_splits(choices.unvalidated)} with nothing to validate on"
            + (f" (fixed values {fixed})" if fixed else "")
        )
    if unrecorded:
        parts.append(f"{_splits(unrecorded)} without a record of the choice")
    if choices.ties:
        parts.append(choices.ties)
    return ", ".join(parts)


def _fixed_text(counts):
    """The fixed values of ``counts`` (from :attr:`Choices.fixed`): ``alpha=1,
    lam=0.1``, or ``alpha=1 or 0.1`` where the runs differ."""
    return ", ".join(
        f"{name}={' or '.join(value_text(value) for value, _ in values)}"
        for name, values in counts.items()
    )


def _splits(n):
    return f"{n} split" + ("" if n == 1 else "s")
