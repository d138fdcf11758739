"""The notes under a table: each sentence derived from the rows of that table.

A store may hold rows of several data sets, settings, normalisations and seeds, and
one ``experiment.json`` for all of them. Each table (one data set) therefore says only
what is true of its own rows: the protocol, normalisation and seeds are read from the
rows; FDLSR's parameters from the rows' settings; the config's title, note and paper
table from the store's record of that data set (:func:`.store.table_info`), and the
config's note only of the rows run as that config sets them. The commands the notes
quote are those that ran, the data folder written ``DATA_DIR``
(:func:`neutral_command`).

A note is a string, or a tuple of strings with :class:`.escape.Code` pieces for the
commands it quotes: the renderers escape everything (the store's text included) for
their format (:func:`.escape.note`).
"""

import re
from collections import defaultdict

from .cv_choices import cell_choices, choices_text
from .escape import Code
from .splits import FIXED, POOLED
from .variants import (
    cell_sizes,
    is_normalized,
    row_labels,
    setting_spec,
    table_seed,
    times_k,
    variant,
)


def table_notes(rows, table):
    """The notes under the table of ``rows``, the rows of one data set (the commands
    that wrote them apart: :func:`commands_note`, printed last).

    Parameters
    ----------
    rows : list of dict
        The table's result rows.
    table : dict
        What the store's ``experiment.json`` says of this data set
        (:func:`~fdlsr._experiments.store.table_info`).

    Returns
    -------
    list of str or tuple
        The notes, each a string or a tuple of pieces (:class:`.escape.Code` for a
        command), to be rendered by :func:`.escape.note`.
    """
    labels = row_labels(rows)
    notes = [protocol_note(rows)]
    if any(POOLED in (r.get("note") or "") for r in rows if r["k"] != FIXED):
        notes.append(f"Note: {POOLED}.")
    notes += filter(None, [fdlsr_parameters_note(rows, labels)])
    notes += chosen_parameters_notes(rows)
    notes += filter(None, [missing_methods_note(rows, table)])
    notes += filter(None, [_config_note(rows, table, labels)])
    return notes


def missing_methods_note(rows, table):
    """The methods the store's commands asked for that have no row here, or None."""
    present = {r["method"] for r in rows}
    missing = [m for m in table.get("methods") or [] if m not in present]
    if not missing:
        return None
    return (
        f"Not computed yet: {', '.join(missing)} (asked for by the commands that "
        "wrote the results; the same ",
        Code("fdlsr run"),
        " command computes what is missing).",
    )


def commands_note(table, command=None):
    """The commands that wrote the rows and the one rendering them, or None."""
    written = list(
        dict.fromkeys(neutral_command(c) for c in table.get("commands") or [])
    )
    command = command and neutral_command(command)
    if not command:
        return None
    if not written:
        return ("Rendered by ", Code(command), ".")
    pieces = ["Rendered by ", Code(command), " from results written by "]
    for i, written_by in enumerate(written):
        pieces += ["; "] if i else []
        pieces.append(Code(written_by))
    if any(DATA_DIR in c for c in written):
        pieces += [" (", Code(DATA_DIR), ": the folder that holds the data files)"]
    pieces.append(".")
    return tuple(pieces)


DATA_DIR = "DATA_DIR"
_DATA_DIR_OPTION = re.compile(r"--data-dir(?:=|\s+)\S+")


def neutral_command(command):
    """``command`` as it ran, its data folder (``--data-dir``) written ``DATA_DIR``,
    which the note quoting it explains: every other path (``--out``, ``--dataset``,
    a store) is kept as given, absolute or relative to where it ran."""
    return _DATA_DIR_OPTION.sub(f"--data-dir {DATA_DIR}", command)


def protocol_note(rows):
    """How the accuracies were measured: splits, seeds, normalisation, times.

    The number of splits is that of the cells (:func:`.variants.cell_sizes`), the
    number the table's cells are over unless they say ``(n=...)``; the times are at
    the ``k`` :func:`times_text` names.
    """
    drawn = [r for r in rows if r["k"] != FIXED]
    sizes = cell_sizes(rows)
    n = max((size for (_, k), size in sizes.items() if k != FIXED), default=0)
    how = []
    if drawn:
        seeds = {r["seed"] for r in rows}
        seed = (
            f"; seed {table_seed(rows)} unless the row says another"
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
        f"Accuracy (%) {measure}{' and '.join(how)}, {samples}; {times_text(rows)}, "
        "measured in the runs themselves (machine and load in environment.json "
        "beside the results)."
    )


def times_text(rows):
    """At which ``k`` the table's times are (:func:`.variants.times_k`, as
    :func:`.report.table_rows` gives them), and that a row without a run there says
    its own."""
    ran = [r for r in rows if r.get("accuracy") is not None]
    at = times_k(r["k"] for r in ran)
    if at is None:
        return "no run gave a time"
    where = "on the dataset's own split (k=fixed)" if at == FIXED else f"at k={at}"
    text = f"times in seconds are means {where}"
    if {variant(r) for r in ran} - {variant(r) for r in ran if r["k"] == at}:
        text += " (a time measured at another k says which)"
    return text


def fdlsr_parameters_note(rows, labels):
    """FDLSR's fixed parameters, read from its rows' settings (one sentence), or None.

    The rows of each fixed setting are named by their labels unless every FDLSR row
    of the table has that one setting (a table may also hold FDLSR tuned by --cv).
    """
    fixed = defaultdict(list)  # the parameters of each fixed setting: its labels
    shown = set()
    for r in rows:
        if r["method"] != "FDLSR":
            continue
        shown.add(labels[variant(r)])
        spec = setting_spec(r["setting"])
        if "cv" not in spec and spec.get("params"):
            text = ", ".join(f"{k}={v}" for k, v in spec["params"].items())
            label = labels[variant(r)]
            if label not in fixed[text]:
                fixed[text].append(label)
    if not fixed:
        return None
    if len(fixed) == 1 and set(next(iter(fixed.values()))) == shown:
        return f"FDLSR parameters: {next(iter(fixed))}."
    return (
        "FDLSR parameters: "
        + "; ".join(f"{', '.join(named)}: {text}" for text, named in fixed.items())
        + "."
    )


def chosen_parameters_notes(rows):
    """One note per variant tuned by cross-validation (``--cv``): per ``k``, the
    value of each searched parameter that most splits chose, and how many
    (:func:`.cv_choices.choices_text`)."""
    return [
        f"{label}: parameters chosen by cross-validation on each training split "
        "(the value most splits chose, in how many of them): "
        + "; ".join(f"k={k}: {choices_text(c)}" for k, c in by_k.items())
        + "."
        for label, by_k in cell_choices(rows).items()
    ]


def _config_note(rows, table, labels):
    """The config's note, said only of the rows run as the config sets them.

    ``table["configured"]`` lists those settings per method.
    """
    note = table.get("note")
    if not note:
        return None
    configured = table.get("configured", {})
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
