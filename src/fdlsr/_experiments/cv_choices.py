"""What cross-validation chose: the parameters each split of a tuned method picked.

A run tuned by ``fdlsr run --cv`` records in its setting the grid that was searched
(``{"cv": {"grid": {name: values}}}``) and in ``params`` every parameter it was fitted
with, the chosen ones included. A run with one training sample per class had nothing
to validate on and kept its fixed values (its note says so: ``splits.NO_INNER_CV``),
which the reports name. The reports show, per method and ``k``, the value most splits chose and how many
(``alpha=0.01 (7/10)``); the CSV and :func:`fdlsr.results.read_results` give every
split's choice.
"""

import json
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .._common import strict_json
from .cv_ties import ties_text
from .splits import NO_INNER_CV
from .variants import k_order, row_labels, setting_spec, variant


def searched(row):
    """The names of the parameters that ``row``'s search chose (sorted; empty for a
    row whose parameters were fixed)."""
    grid = setting_spec(row.get("setting")).get("cv", {})
    grid = grid.get("grid") if isinstance(grid, dict) else None
    return sorted(grid) if isinstance(grid, dict) else []


def split_choice(row):
    """``{name: value}`` that the search of ``row`` chose, or None: a row not tuned,
    a run that failed, one with nothing to validate on (k=1) or a row that does not
    record its parameters."""
    names = searched(row)
    params = row.get("params")
    if not names or row.get("accuracy") is None or row.get("note") == NO_INNER_CV:
        return None
    if not isinstance(params, dict) or any(name not in params for name in names):
        return None
    return {name: params[name] for name in names}


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
    """The :class:`Choices` of one cell's runs (the rows of one variant at one ``k``
    that ran), or None if they were not tuned."""
    runs = [r for r in runs if searched(r) and r.get("accuracy") is not None]
    if not runs:
        return None
    choices = [c for c in map(split_choice, runs) if c is not None]
    unvalidated = [r for r in runs if r.get("note") == NO_INNER_CV]
    fixed = [_fixed_values(r) for r in unvalidated]
    ties = ties_text([(r.get("n_tied_best"), r.get("n_candidates")) for r in runs])
    return Choices(
        len(runs), len(choices), len(unvalidated), _tally(choices), _tally(fixed), ties
    )


def _fixed_values(row):
    """``{name: value}`` that a run with nothing to validate on was fitted with, for
    the parameters its search would have chosen (those it records)."""
    params = row.get("params")
    params = params if isinstance(params, dict) else {}
    return {name: params[name] for name in searched(row) if name in params}


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
            out.append({"seed": row["seed"], "split": row["split"], **choice})
    return out


def cell_choices(rows):
    """``{label: {k: Choices}}`` for the tuned variants of ``rows``, the rows of one
    table (labels as the table shows them, :func:`.variants.row_labels`)."""
    labels = row_labels(rows)
    cells = defaultdict(lambda: defaultdict(list))
    for row in rows:
        if searched(row) and row.get("accuracy") is not None:
            cells[labels[variant(row)]][row["k"]].append(row)
    return {
        label: {k: choices_of(by_k[k]) for k in sorted(by_k, key=k_order)}
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


def value_text(value):
    """A parameter value in few characters: ``0.01``, ``1e-5``, ``1e4``, ``knn``."""
    if isinstance(value, float):
        text = f"{value:.4g}"
        return re.sub(r"e([+-])0*(\d)", lambda m: "e" + m[1].strip("+") + m[2], text)
    return str(value)


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
