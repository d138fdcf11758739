"""Rows of one table that differ: their labels, and which cells may be compared.

One table holds the rows of one data set, but a store may give it rows of several
settings (parameters, a search, ``--raw``) and seeds. A row's *variant* is its method,
setting and seed; each variant gets a label that says what sets it apart
(:func:`row_labels`), and the bold of a column compares only cells over the same
random splits of samples normalised alike (:func:`best_cells`).
"""

import hashlib
import json
import re
from collections import Counter, defaultdict

from .._common import strict_json


def k_order(k):
    """Columns in order: numbers of samples per class, then "fixed" (a dataset's split)."""
    return (isinstance(k, str), str(k) if isinstance(k, str) else k)


def times_k(ks):
    """The ``k`` at which a table gives its times, among ``ks``, the columns where a
    cell of ours ran: the largest number of samples per class, else the data set's
    own split (``"fixed"``); None when nothing ran. The time figure is drawn there
    too."""
    ks = list(ks)
    numbers = [k for k in ks if not isinstance(k, str)]
    if numbers:
        return max(numbers)
    return max(ks, key=k_order) if ks else None


def setting_spec(setting):
    """A row's setting as a dict (``params``, and ``cv`` or ``normalise`` when set)."""
    try:
        spec = strict_json.loads(setting, allow_nan=True)  # a row's setting
    except (TypeError, ValueError):
        spec = None
    if not isinstance(spec, dict):
        return {"params": {}}
    return spec if isinstance(spec.get("params"), dict) else {**spec, "params": {}}


def searched(row):
    """The names of the parameters that ``row``'s search chose (sorted; empty for a
    row whose parameters were fixed)."""
    grid = setting_spec(row.get("setting")).get("cv", {})
    grid = grid.get("grid") if isinstance(grid, dict) else None
    return sorted(grid) if isinstance(grid, dict) else []


def value_text(value):
    """A parameter value in few characters: ``0.01``, ``1e-5``, ``1e4``, ``1``
    (for 1.0), ``knn``."""
    if isinstance(value, float):
        text = f"{value:.4g}"
        return re.sub(r"e([+-])0*(\d)", lambda m: "e" + m[1].strip("+") + m[2], text)
    return str(value)


def is_normalized(row):
    """Whether a row's samples were unit-normalised (its setting says when not)."""
    return setting_spec(row.get("setting")).get("normalise", True) is not False


def variant(row):
    """What sets a row's cells apart from other rows of its method in a table: its
    setting (parameters, tuning, normalisation) and the seed of its splits."""
    return row["method"], row["setting"], row["seed"]


def table_seed(rows):
    """The seed of most of the rows (the smallest of the most common)."""
    seeds = Counter(r["seed"] for r in rows)
    return min(seeds, key=lambda seed: (-seeds[seed], seed)) if seeds else None


def row_labels(rows):
    """A display label per variant (:func:`variant`) of ``rows``, the rows of one
    table: the method, plus what sets the variant apart where something does.

    Settings of one method are told apart by the parameters that differ, as a
    reader writes them (``C=1``; a parameter a setting leaves unset is not named),
    or ``cv``, and ``fixed`` beside a tuned setting; ``raw`` marks rows of raw samples in a table
    that also has unit-normalised ones; ``standardized`` rows whose columns were
    standardised (``--standardize``); ``seed S`` rows whose splits were drawn with
    another seed than most rows of the table.
    """
    settings = defaultdict(lambda: defaultdict(set))
    for r in rows:
        settings[r["method"]][r["setting"]].add(r["seed"])
    mixed = len({is_normalized(r) for r in rows}) > 1
    usual = table_seed(rows)
    labels = {}
    for method, by_setting in settings.items():
        specs = {setting: setting_spec(setting) for setting in by_setting}
        varying = sorted(
            key
            for key in set().union(*(spec.get("params", {}) for spec in specs.values()))
            if len(
                {json.dumps(spec.get("params", {}).get(key)) for spec in specs.values()}
            )
            > 1
        )
        searches = [spec["cv"] for spec in specs.values() if "cv" in spec]
        folds = {json.dumps(search.get("folds")) for search in searches}
        for setting, spec in specs.items():
            parts = []
            if len(specs) > 1 and "cv" in spec:
                parts.append("cv")
                if len(folds) > 1:  # searches over other folds
                    parts.append(f"folds={spec['cv'].get('folds')}")
            elif len(specs) > 1:
                parts += [
                    f"{key}={value_text(spec['params'][key])}"
                    for key in varying
                    if spec["params"].get(key) is not None
                ]
                if not parts and searches:
                    parts.append("fixed")
            if mixed and spec.get("normalise", True) is False:
                parts.append("raw")
            if spec.get("standardize"):
                parts.append("standardized")
            for seed in by_setting[setting]:
                shown = parts + ([f"seed {seed}"] if seed != usual else [])
                labels[method, setting, seed] = (
                    f"{method} ({', '.join(shown)})" if shown else method
                )
    counts = Counter(labels.values())
    for (method, setting, seed), label in labels.items():  # still alike: by setting
        if counts[label] > 1:
            digest = hashlib.sha256(setting.encode()).hexdigest()[:6]
            labels[method, setting, seed] = f"{label} [setting {digest}]"
    return labels


def best_cells(summary):
    """Per k, the labels of our best mean, ties included (bold, as in the paper), among
    the cells that can fairly be compared; and why each other cell of ours was not.

    Cells compete only if they are over the same random splits (seed and split
    numbers, hence as many) of samples normalised alike; a table holds one data set.
    In each column the largest such group competes: the one over the most splits (a
    mean over 3 splits is not the best beside means over 10, as in a run in progress),
    then the one with the most cells, then unit-normalised samples; when two groups
    tie on all of these (and on their smallest seed), none competes and nothing in
    the column is bold.

    Returns
    -------
    best : dict
        ``{k: {label, ...}}``.
    left_out : dict
        ``{(label, reason): [k, ...]}`` for the cells that were not compared.
    """
    best, left_out = {}, defaultdict(list)
    columns = defaultdict(lambda: defaultdict(list))
    for s in summary:
        if s["mean"] is not None:
            columns[s["k"]][s["draws"], s["normalized"]].append(s)
    for k in sorted(columns, key=k_order):
        groups = columns[k]
        ranks = {key: _rank(key, cells) for key, cells in groups.items()}
        draws, normalize = max(groups, key=ranks.get)
        tied = [key for key in groups if ranks[key] == ranks[draws, normalize]]
        competing = groups[draws, normalize] if len(tied) == 1 else []
        if len(competing) > 1:
            top = round(max(s["mean"] for s in competing), 2)
            best[k] = {s["label"] for s in competing if round(s["mean"], 2) == top}
        for key, cells in groups.items():
            if len(tied) > 1 and key in tied:  # no group is the column's own
                why = "as many splits as other cells, but other ones"
                for s in cells:
                    left_out[s["label"], why].append(k)
                continue
            for s in cells if key != (draws, normalize) else ():
                left_out[s["label"], _why_apart(s, draws, normalize)].append(k)
    return best, left_out


def _rank(key, cells):
    """The order of the groups of a column (see :func:`best_cells`); last, the smaller
    seed, so that the choice never depends on the order of the rows."""
    draws, normalize = key
    return len(draws), len(cells), normalize, -min(seed for seed, _ in draws)


def _why_apart(cell, draws, normalize):
    """Why ``cell`` was not compared with cells over ``draws`` normalised as
    ``normalize`` says, in a few words."""
    if cell["normalized"] != normalize:
        return "raw samples" if normalize else "unit-normalised samples, the rest raw"
    if len(cell["draws"]) < len(draws):
        return f"{len(cell['draws'])} of {len(draws)} splits"
    seeds = sorted({seed for seed, _ in cell["draws"]})
    if seeds != sorted({seed for seed, _ in draws}):
        return "other random splits (seed " + ", ".join(map(str, seeds)) + ")"
    return "other random splits"


def fairness_note(left_out):
    """The note that says which cells were left out of the comparison for bold, and why
    (``left_out`` from :func:`best_cells`); or None."""
    if not left_out:
        return None
    parts = [
        f"{label} at k={', '.join(map(str, ks))} ({reason})"
        for (label, reason), ks in left_out.items()
    ]
    return (
        "Bold: the best of our means in a column, among cells over the same random "
        "splits of samples normalised alike; not compared: " + "; ".join(parts) + "."
    )
