"""The notes under a table: each sentence computed from the frame of that table.

A store may hold rows of several data sets, settings, normalisations and seeds, and
one ``experiment.json`` for all of them. Each table (one data set, its runs a frame
of :mod:`.results_frame`) therefore says only what is true of its own runs: the
protocol, normalisation and seeds are read from the frame; FDLSR's parameters from the rows' settings; the config's title, note and paper
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
from .variants import setting_spec, table_seed, times_k


def table_notes(frame, table):
    """The notes under the table of ``frame``, the runs of one data set (the commands
    that wrote them apart: :func:`commands_note`, printed last).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table's runs (:func:`.results_frame.frame_of`).
    table : dict
        What the store's ``experiment.json`` says of this data set
        (:func:`~fdlsr._experiments.store.table_info`).

    Returns
    -------
    list of str or tuple
        The notes, each a string or a tuple of pieces (:class:`.escape.Code` for a
        command), to be rendered by :func:`.escape.note`.
    """
    notes = [protocol_note(frame)]
    drawn = frame[_drawn(frame)]
    if drawn.note.fillna("").str.contains(POOLED, regex=False).any():
        notes.append(f"Note: {POOLED}.")
    notes += filter(None, [fdlsr_parameters_note(frame)])
    notes += chosen_parameters_notes(frame)
    notes += filter(None, [missing_methods_note(frame, table)])
    notes += filter(None, [_config_note(frame, table)])
    return notes


def _drawn(frame):
    """Which runs are over random splits (not the data set's own, k=fixed)."""
    return frame.k.astype(object) != FIXED


def missing_methods_note(frame, table):
    """The methods the store's commands asked for that have no row here, or None."""
    present = set(frame.method.astype(str))
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


def protocol_note(frame):
    """How the accuracies were measured: splits, seeds, normalisation, times.

    The number of splits is that of the cells (runs of one label and ``k``, failed
    ones included), the number the table's cells are over unless they say
    ``(n=...)``; the times are at the ``k`` :func:`times_text` names.
    """
    drawn = frame[_drawn(frame)]
    sizes = drawn.groupby(["label", "k"], observed=True).size()
    n = int(sizes.max()) if len(sizes) else 0
    how = []
    if len(drawn):
        seed = (
            f"; seed {table_seed(frame.to_dict('records'))} unless the row says another"
            if frame.seed.nunique() > 1
            else ""
        )
        how.append(
            f"over {n} random split{'s' if n != 1 else ''} (k training samples per "
            f"class, the rest for testing{seed})"
        )
    if len(drawn) < len(frame):
        how.append("on the dataset's own train/test split (column k=fixed, one run)")
    measure = "as mean ± sample std " if n > 1 else ""
    specs = [setting_spec(setting) for setting in frame.setting.unique()]
    kinds = {spec.get("normalise", True) is not False for spec in specs}
    if kinds == {True}:
        samples = "unit-normalised samples"
    elif kinds == {False}:
        samples = "raw samples (--raw)"
    else:
        samples = "unit-normalised samples, raw ones (--raw) in the rows marked raw"
    if any(spec.get("standardize") for spec in specs):
        samples += (
            " (in the rows marked standardized, columns first brought to zero mean "
            "and unit variance on each training split: --standardize)"
        )
    return (
        f"Accuracy (%) {measure}{' and '.join(how)}, {samples}; {times_text(frame)}, "
        "measured in the runs themselves (machine and load in environment.json "
        "beside the results)."
    )


def times_text(frame):
    """At which ``k`` the table's times are (:func:`.variants.times_k`, as
    :func:`.report.table_rows` gives them), and that a row without a run there says
    its own."""
    ran = frame[frame.accuracy.notna()]
    at = times_k(ran.k.unique())
    if at is None:
        return "no run gave a time"
    where = "on the dataset's own split (k=fixed)" if at == FIXED else f"at k={at}"
    text = f"times in seconds are means {where}"
    if set(ran.label) - set(ran.label[ran.k.astype(object) == at]):
        text += " (a time measured at another k says which)"
    return text


def fdlsr_parameters_note(frame):
    """FDLSR's fixed parameters, read from its runs' settings (one sentence), or None.

    The runs of each fixed setting are named by their labels unless every FDLSR row
    of the table has that one setting (a table may also hold FDLSR tuned by --cv).
    """
    fixed = defaultdict(list)  # the parameters of each fixed setting: its labels
    shown = set()
    fdlsr = frame[frame.method.astype(str) == "FDLSR"]
    for setting, label in zip(fdlsr.setting, fdlsr.label, strict=True):
        shown.add(label)
        spec = setting_spec(setting)
        if "cv" not in spec and spec.get("params"):
            text = ", ".join(f"{k}={v}" for k, v in spec["params"].items())
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


def chosen_parameters_notes(frame):
    """One note per variant tuned by cross-validation (``--cv``): per ``k``, the
    value of each searched parameter that most splits chose, and how many
    (:func:`.cv_choices.choices_text`)."""
    return [
        f"{label}: parameters chosen by cross-validation on each training split "
        "(the value most splits chose, in how many of them): "
        + "; ".join(f"k={k}: {choices_text(c)}" for k, c in by_k.items())
        + "."
        for label, by_k in cell_choices(frame).items()
    ]


def _config_note(frame, table):
    """The config's note, said only of the runs run as the config sets them.

    ``table["configured"]`` lists those settings per method.
    """
    note = table.get("note")
    if not note:
        return None
    configured = table.get("configured", {})
    runs = list(zip(frame.method, frame.setting, frame.label, strict=True))
    theirs = {(m, s) for m, s, _ in runs}
    own = {(m, s) for m, s in theirs if s in configured.get(m, ())}
    if not own:
        return None
    if own == theirs:
        return note
    others = sorted({label for m, s, label in runs if (m, s) not in own})
    source = table.get("source") or "the config"
    return (
        f"Of the rows run as {source} sets them (not {', '.join(others)}, run with "
        f"other settings): {note}"
    )
