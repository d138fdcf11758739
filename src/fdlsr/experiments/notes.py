"""The notes under a table: each sentence derived from the rows of that table.

A store may hold rows of several data sets, settings, normalisations and seeds, and
one ``experiment.json`` for all of them. Each table (one data set) therefore says only
what is true of its own rows: the protocol, normalisation and seeds are read from the
rows; FDLSR's parameters from the rows' settings; the config's title, note and paper
table from the store's record of that data set (:func:`.results.table_info`), and the
config's note only of the rows run as that config sets them. The commands the notes
quote name no folder of the machine that ran them (:func:`neutral_command`).
"""

import re
from collections import defaultdict
from pathlib import Path

from .splits import FIXED, POOLED
from .variants import (
    is_normalized,
    k_order,
    row_labels,
    setting_spec,
    table_seed,
    variant,
)


def table_notes(rows, table, command=None):
    """The notes under the table of ``rows``, the rows of one data set.

    Parameters
    ----------
    rows : list of dict
        The table's result rows.
    table : dict
        What the store's ``experiment.json`` says of this data set
        (:func:`~fdlsr.experiments.results.table_info`).
    command : str, optional
        The ``fdlsr report`` command rendering the table.

    Returns
    -------
    list of str
    """
    labels = row_labels(rows)
    notes = [_protocol(rows, labels)]
    if any(POOLED in (r.get("note") or "") for r in rows if r["k"] != FIXED):
        notes.append(f"Note: {POOLED}.")
    notes += filter(None, [_fdlsr_parameters(rows, labels)])
    notes += chosen_rules(rows, labels)
    present = {r["method"] for r in rows}
    missing = [m for m in table.get("methods") or [] if m not in present]
    if missing:
        notes.append(
            f"Not computed yet: {', '.join(missing)} (asked for by the commands "
            "below; the same `fdlsr run` command computes what is missing)."
        )
    notes += filter(None, [_config_note(rows, table, labels)])
    written = [neutral_command(c) for c in table.get("commands") or []]
    command = command and neutral_command(command)
    if command and written:
        where = (
            " (DATA_DIR: the folder that holds the data files)"
            if any(DATA_DIR in c for c in written)
            else ""
        )
        notes.append(
            f"Rendered by `{command}` from results written by "
            + "; ".join(f"`{c}`" for c in dict.fromkeys(written))
            + f"{where}."
        )
    elif command:
        notes.append(f"Rendered by `{command}`.")
    return notes


DATA_DIR = "DATA_DIR"
_DATA_DIR_OPTION = re.compile(r"--data-dir(?:=|\s+)\S+")
_ABSOLUTE_PATH = re.compile(r"(?<!\S)[/~]\S*")


def neutral_command(command):
    """``command`` as a reader elsewhere can use it: the data folder becomes
    ``DATA_DIR``, an absolute path inside the working folder is made relative to it,
    and one outside (a temporary folder, a home) keeps only its last name."""
    command = _DATA_DIR_OPTION.sub(f"--data-dir {DATA_DIR}", command)
    return _ABSOLUTE_PATH.sub(lambda m: _neutral_path(m.group()), command)


def _neutral_path(text):
    path = Path(text).expanduser()
    try:
        return path.relative_to(Path.cwd()).as_posix() or "."
    except ValueError:
        return path.name or text


def _protocol(rows, labels):
    """How the accuracies were measured: splits, seeds, normalisation, times."""
    drawn = [r for r in rows if r["k"] != FIXED]
    n = max((r["split"] for r in drawn), default=-1) + 1
    how = []
    if drawn:
        seeds = {r["seed"] for r in drawn}
        seed = (
            f"; seed {table_seed(drawn)} unless the row says another"
            if len(seeds) > 1
            else ""
        )
        how.append(
            f"over {n} random split{'s' if n != 1 else ''} (k training samples per "
            f"class, the rest for testing{seed})"
        )
    if len(drawn) < len(rows):
        how.append("on the dataset's own train/test split (column k=fixed, one run)")
    measure = "as mean ± sample std " if n > 1 else ""
    kinds = {is_normalized(r) for r in rows}
    if kinds == {True}:
        samples = "unit-normalised samples"
    elif kinds == {False}:
        samples = "raw samples (--raw)"
    else:
        samples = "unit-normalised samples, raw ones (--raw) in the rows marked raw"
    if any(setting_spec(r.get("setting")).get("standardize") for r in rows):
        samples += (
            " (in the rows marked standardized, columns first brought to zero mean "
            "and unit variance on each training split: --standardize)"
        )
    return (
        f"Accuracy (%) {measure}{' and '.join(how)}, {samples}; "
        "times in seconds are means at the largest k, measured in the runs themselves "
        "(machine and load in environment.json beside the results)."
    )


def _fdlsr_parameters(rows, labels):
    """FDLSR's fixed parameters, read from its rows' settings (one sentence), or None."""
    fixed = defaultdict(list)  # the parameters of each fixed setting: its labels
    for r in rows:
        spec = setting_spec(r["setting"])
        if r["method"] == "FDLSR" and "cv" not in spec and spec.get("params"):
            text = ", ".join(f"{k}={v}" for k, v in spec["params"].items())
            label = labels[variant(r)]
            if label not in fixed[text]:
                fixed[text].append(label)
    if not fixed:
        return None
    if len(fixed) == 1:
        return f"FDLSR parameters: {next(iter(fixed))}."
    return (
        "FDLSR parameters: "
        + "; ".join(f"{', '.join(shown)}: {text}" for text, shown in fixed.items())
        + "."
    )


def chosen_rules(rows, labels=None):
    """One line per method (label) whose decision rule was chosen by cross-validation
    (``--cv`` with ``decision_rule`` in its grid): how often each rule won, per k."""
    labels = labels or row_labels(rows)
    counts = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        rule = (r.get("params") or {}).get("decision_rule")
        searched = "decision_rule" in setting_spec(r["setting"]).get("cv", {}).get(
            "grid", {}
        )
        if rule is None or not searched or r.get("accuracy") is None:
            continue
        per_k = counts[labels[variant(r)]][r["k"]]
        per_k[rule] = per_k.get(rule, 0) + 1
    lines = []
    for label, by_k in sorted(counts.items()):
        parts = []
        for k in sorted(by_k, key=k_order):
            total = sum(by_k[k].values())
            won = sorted(by_k[k].items(), key=lambda item: (-item[1], item[0]))
            parts.append(
                f"k={k}: " + ", ".join(f"{rule} {n}/{total}" for rule, n in won)
            )
        lines.append(
            f"{label} decision rule chosen by cross-validation (splits won): "
            + "; ".join(parts)
            + "."
        )
    return lines


def _config_note(rows, table, labels):
    """The config's note, said only of the rows run as the config sets them.

    ``table["configured"]`` lists those settings per method; a store written before it
    was recorded gives the note as stored.
    """
    note = table.get("note")
    if not note:
        return None
    configured = table.get("configured")
    if configured is None:
        return note
    theirs = {(r["method"], r["setting"]) for r in rows}
    own = {(m, s) for m, s in theirs if s in configured.get(m, ())}
    if not own:
        return None
    if own == theirs:
        return note
    others = sorted(
        {labels[variant(r)] for r in rows if (r["method"], r["setting"]) not in own}
    )
    source = table.get("source") or "the config"
    return (
        f"Of the rows run as {source} sets them (not {', '.join(others)}, run with "
        f"other settings): {note}"
    )
