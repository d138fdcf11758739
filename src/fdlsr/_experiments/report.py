"""Tables in the paper's layout, computed from the frame of a results store (never
typed by hand).

:func:`summarise` groups the frame of one table (:mod:`.results_frame`) into its cells;
the Markdown, LaTeX and CSV renderers here and the HTML page (:mod:`.html_report`)
print those cells. Methods are rows grouped by family in the paper's order
(representation, dictionary learning, least-squares regression, FDLSR; then the
scikit-learn baselines); training sizes ``k`` are columns holding accuracy in % as
mean +- sample standard deviation (``ddof=1``) over the random splits; then the mean
training and test times in seconds at one ``k``, the largest at which our methods ran
(:func:`.variants.times_k`; a row without a run there says at which ``k`` its times
are), since the paper prints one time per method without saying for which ``k``. A
tuned run's training time is its cost: the search plus the final fit; a table with
tuned rows shows the search's part in a "Tuning (s)" column beside it.
With ``paper`` the paper's row for the same method is printed under ours, marked
"(paper)". The column "Parameters" says how each of our
rows got its parameters (:data:`TUNING`), explained in a note under the table.
"""

import csv
import io
import json
from collections import defaultdict
from importlib import resources

import pandas

from ..errors import ConfigError
from .cv_choices import choices_of, choices_text, per_split
from .escape import MARK, MARK_TEX, csv_cell, latex, markdown, note, prose
from .registry import METHODS, family_rank
from .results_frame import DOUBT, is_doubt
from .splits import FIXED
from .variants import (
    best_cells,
    fairness_note,
    k_order,
    setting_spec,
    times_k,
)

FAMILY_TITLES = {
    "representation": "Representation-based",
    "dictionary": "Dictionary learning",
    "relaxed": "Least squares regression",
    "proposed": "Proposed",
    "scikit-learn": "scikit-learn baselines",
    "yours": "Yours",
    "deep network": "End-to-end networks (the paper's Table VI)",
}
# How a row's parameters were chosen (a row's ``tuning``) as the tables show it.
TUNING = {
    "paper": "paper", "fixed": "ours", "yours": "yours", "cv": "CV",
    "unrecorded": "fixed",
}  # fmt: skip
# What each label of the Parameters column means; a table explains those it shows.
TUNING_MEANING = {
    "paper": "paper = fixed at values the paper states (for this dataset, or for the "
    "one named above)",
    "fixed": "ours = fixed by us (the method's registered defaults, see `fdlsr "
    "methods`, or values of the config or --params)",
    "yours": "yours = your classifier's parameters as you gave them (its "
    "get_params(), in each row's setting)",
    "cv": "CV = chosen on each training split by inner cross-validation over the "
    "method's grid (with k=1 there is nothing to validate on: its fixed values)",
    "unrecorded": "fixed = fixed values in rows stored before fdlsr recorded whether "
    "they are the paper's (the notes above say which are)",
}


def tuning_note(rows):
    """The note explaining the Parameters labels that ``rows`` show, or None."""
    shown = {_tuning(r) for r in rows}
    meanings = [text for key, text in TUNING_MEANING.items() if key in shown]
    return prose(f"Parameters column: {'; '.join(meanings)}.") if meanings else None


PAPER_TABLES = {
    "I": "AR",
    "II": "CMU PIE",
    "III": "FERET",
    "IV": "LFW",
    "V": "COIL-100",
    "VI": "Stanford-40, CUB-200-2011, Oxford 102 Flowers (VGG-19 features)",
}


def paper_results(table, dataset=None):
    """Rows of the paper's Table ``table`` (I-VI) from the shipped transcription.

    ``data/paper_results.csv`` was transcribed from the paper's LaTeX source: accuracy
    mean and std in %, and one training and test time in seconds per method (repeated
    on each of its rows; empty where the paper prints "None"). Two decimal commas in the
    source ("47,61", "1,03") are read as points; values are as printed, typos included.
    Table VI has one column per data set (its official split, ``k = "fixed"``), no
    std and no times; ``dataset`` (a registry name such as ``cub200_vgg19``, or a file
    named after one) picks its column.
    """
    if table not in PAPER_TABLES:
        raise ConfigError(
            f"unknown paper table {table!r}; choose from {', '.join(PAPER_TABLES)}"
        )
    text = (
        resources.files("fdlsr._experiments") / "data" / "paper_results.csv"
    ).read_text()
    rows = [r for r in csv.DictReader(io.StringIO(text)) if r["table"] == table]
    for r in rows:
        r["k"] = int(r["k"]) if r["k"].isdigit() else r["k"]
        for key in ("mean", "std", "train_time", "test_time"):
            r[key] = float(r[key]) if r[key] else None
    datasets = sorted({r["dataset"] for r in rows})
    if len(datasets) > 1:
        stem = str(dataset).replace("\\", "/").rsplit("/", 1)[-1].split(".")[0]
        if stem not in datasets:
            raise ConfigError(
                f"the paper's Table {table} has a column for each of "
                f"{', '.join(datasets)}; name the dataset (or its file) after one"
            )
        rows = [r for r in rows if r["dataset"] == stem]
    return rows


def paper_rows(option, *, paper_table, dataset):
    """The paper's rows of ``--paper [TABLE]`` for ``dataset``, or None without the
    option: ``"auto"`` is ``paper_table``, the table a config or store names for
    these data (None: none)."""
    if option is None:
        return None
    table = paper_table if option == "auto" else option
    if not table:
        raise ConfigError(
            f"the paper has no table for {dataset!r}; name one with --paper I "
            "(AR), II (PIE), III (FERET), IV (LFW), V (COIL-100) or VI (deep features "
            "of Stanford-40, CUB-200-2011, Oxford 102 Flowers)"
        )
    return paper_results(table, dataset)


def tables_papers(option, tables):
    """The paper's rows for each :class:`~fdlsr._experiments.result_tables.ResultTable`
    of ``--paper [TABLE]``, and a note when they are forced on it: ``[(rows or None,
    note or None), ...]``.

    ``--paper`` alone gives each data set the paper's table that its config names
    (an error if none does); ``--paper TABLE`` puts that table under every one, with
    a note where it is not the data set's own.
    """
    if option is None:
        return [(None, None)] * len(tables)
    out = []
    for table in tables:
        dataset, own = table.dataset, table.info.get("paper_table")
        name = own if option == "auto" else option
        if not name:
            out.append((None, None))
            continue
        rows = paper_rows(name, paper_table=None, dataset=dataset)
        forced = None
        if name != own:
            recorded = f"Table {own}" if own else "no table of the paper"
            forced = (
                f"Rows marked (paper): the paper's Table {name} ({PAPER_TABLES[name]}), "
                f"asked for with --paper {name}; the store records {recorded} for "
                "these data."
            )
        out.append((rows, forced))
    if tables and not any(rows for rows, _ in out):
        # raises: no table anywhere
        paper_rows(option, paper_table=None, dataset=tables[0].dataset)
    return out


def summarise(frame):
    """The cells of one table: its frame (:func:`.results_frame.frame_of`) grouped by
    variant (method, setting, seed) and ``k``, one dict per cell, in the order the
    frame first holds each, with the splits it is over (``draws``), its
    normalisation, accuracy in % and times in seconds (``train_time``: tuning plus
    fit; ``fit_time`` and ``tune_time`` its parts)."""
    out = []
    keys = ["dataset", "method", "setting", "seed", "k"]
    for (dataset, method, setting, seed, k), runs in frame.groupby(
        keys, observed=True, sort=False, dropna=False
    ):
        ran = runs[runs.accuracy.notna()]
        failed = runs[runs.accuracy.isna()]
        first = (ran if len(ran) else runs).iloc[0]
        common = {
            "dataset": dataset,
            "method": method,
            "label": first["label"],
            "family": first["family"],
            "seed": int(seed),
            "normalized": _normalized(setting),
            "draws": _draws(ran, k),
            "data_sha256": None
            if pandas.isna(first["data_sha256"])
            else first["data_sha256"],
            "n_failed": len(failed),
            "error": str(failed["error"].iloc[0]) if len(failed) else "",
            "source": "ours",
            "k": k,
            "n_splits": len(ran),
            "tuning": first["tuning"],
        }
        if ran.empty:  # the method could not run in this setting (see the rows' error)
            out.append(
                {
                    **common,
                    **dict.fromkeys(
                        ("mean", "std", "train_time", "fit_time", "tune_time"), None
                    ),
                    "test_time": None,
                }
            )
            continue
        acc = 100 * ran["accuracy"].to_numpy()
        doubts = [
            next(w for w in warnings if is_doubt(w))
            for warnings in ran.loc[ran.unreliable, "warnings"]
        ]
        records = ran.to_dict("records")
        choices = choices_of(records)
        out.append(
            {
                **common,
                "mean": float(acc.mean()),
                "std": float(acc.std(ddof=1)) if acc.size > 1 else None,
                "train_time": float(ran["train_time"].to_numpy().mean()),
                "fit_time": float(ran["fit_time"].to_numpy().mean()),
                "tune_time": float(ran["tune_time"].to_numpy().mean()),
                "test_time": float(ran["predict_time"].to_numpy().mean()),
                "n_unreliable": len(doubts),
                "unreliable": doubts[0][len(DOUBT) :].strip() if doubts else "",
                "chosen": choices_text(choices) if choices else "",
                "chosen_per_split": (
                    json.dumps(per_split(records), default=str) if choices else ""
                ),
            }
        )
    return out


def _normalized(setting):
    """Whether the runs of ``setting`` had unit-normalised samples."""
    return setting_spec(setting).get("normalise", True) is not False


def _draws(runs, k):
    """The random splits a cell is over: its ``(seed, split)`` pairs (a data set's own
    split, ``k="fixed"``, is the same whatever the seed)."""
    return tuple(
        sorted(
            (-1 if k == FIXED else int(seed), int(split))
            for seed, split in zip(runs["seed"], runs["split"], strict=True)
        )
    )


def _norm(name):
    return "".join(ch for ch in name.lower() if ch.isalnum())


def table_rows(summary, paper=None):
    """The columns and the ordered table rows: ``(ks, rows)``, each row
    ``{label, family, source, cells: {k: (mean, std, n, unreliable)}, train_time,
    tune_time, test_time, times_k}`` (``train_time``: tuning plus fit); our times are at :func:`.variants.times_k` of the cells
    that ran, or, for a row without a run there, at its own (``times_k`` says which;
    None when at the table's)."""
    ks = sorted({s["k"] for s in summary} | {p["k"] for p in paper or []}, key=k_order)
    order = {_norm(name): i for i, name in enumerate(METHODS)}
    paper_order = {}
    for p in paper or []:
        paper_order.setdefault(_norm(p["method"]), len(paper_order))
    rows = {}
    for s in summary:
        row = rows.setdefault(
            (s["method"], s["label"], "ours"),
            {
                "method": s["method"],
                "label": s["label"],
                "family": s["family"],
                "source": "ours",
                "cells": {},
                "tuning": s.get("tuning"),
            },
        )
        row["cells"][s["k"]] = (
            s["mean"],
            s["std"],
            s["n_splits"],
            s.get("n_unreliable", 0),
        )
    at = times_k(s["k"] for s in summary if s["mean"] is not None)
    for row in rows.values():
        ran = [k for k, cell in row["cells"].items() if cell[0] is not None]
        own = at if at in ran else times_k(ran)
        times = [s for s in summary if s["label"] == row["label"] and s["k"] == own]
        for name in ("train_time", "fit_time", "tune_time", "test_time"):
            row[name] = times[0][name] if times else None
        # a row without a run at the table's k gives its times at its own
        row["times_k"] = own if times and own != at else None
    ours_by_norm = {_norm(m) for m, _, _ in rows}
    for p in paper or []:
        matched = _norm(p["method"]) in ours_by_norm
        label = f"{p['method']} (paper)" if matched else f"{p['method']} (paper only)"
        row = rows.setdefault(
            (p["method"], label, "paper"),
            {
                "method": p["method"],
                "label": label,
                "family": p["family"],
                "source": "paper",
                "cells": {},
                "train_time": p["train_time"],
                "test_time": p["test_time"],
            },
        )
        row["cells"][p["k"]] = (p["mean"], p["std"], None, 0)

    def sort_key(row):
        name = _norm(row["method"])
        within = paper_order.get(name, len(paper_order) + order.get(name, len(order)))
        return (
            family_rank(row["family"]),
            within,
            row["method"],
            row["source"] != "ours",
            row["label"],
        )

    return ks, sorted(rows.values(), key=sort_key)


def cell_text(value, n_max, best=False, fmt="md"):
    """A cell of the table (``value`` from :func:`table_rows`: mean, std, splits,
    unreliable runs) in ``fmt`` (``md``, ``latex`` or ``html``): mean ± std, ``(n=...)``
    when over fewer splits than the table's most (``n_max``), bold when ``best``."""
    if value is None:
        return {"md": "—", "latex": "--", "html": "—"}.get(fmt, "")
    mean, std, n, unreliable = value
    if mean is None:
        return "failed"
    pm = r"$\pm$" if fmt == "latex" else " ± "
    text = f"{mean:.2f}" + (f"{pm}{std:.2f}" if std is not None else "")
    if n is not None and n_max is not None and n < n_max:
        text += f" (n={n})"
    if best:
        bold = {
            "md": "**{}**",
            "latex": "\\textbf{{{}}}",
            "html": "<strong>{}</strong>",
        }
        text = bold[fmt].format(text)
    if unreliable:
        text += MARK_TEX if fmt == "latex" else MARK
    return text


def time_text(value, fmt="md", k=None):
    """A time in seconds (``k``: the ``k`` it was measured at, said when it is not the
    table's); a dash where there is none (a method that failed, or a paper that prints
    "None")."""
    if value is None:
        return "--" if fmt == "latex" else "—"
    if value < 100:
        text = f"{value:.4f}"
    elif value < 1e5:
        text = f"{value:.1f}"
    else:  # a number of seconds no run takes, from a hand-edited store: kept short
        text = f"{value:.3g}"
    return text if k is None else f"{text} (k={k})"


def unreliable_notes(summary):
    """One note per method whose cells hold runs that warned their result is
    unreliable (:data:`DOUBT`): which ``k``, in how many splits, and the warning."""
    marked = defaultdict(list)
    for s in sorted(summary, key=lambda s: k_order(s["k"])):
        if s.get("n_unreliable"):
            marked[s["label"]].append(s)
    return [
        f"{MARK} {label}, "
        + ", ".join(
            f"k={s['k']} ({s['n_unreliable']} of {s['n_splits']} splits)" for s in cells
        )
        + f": {cells[0]['unreliable']}"
        for label, cells in marked.items()
    ]


def render(summary, fmt="md", *, paper=None, title="", notes=(), sources=None):
    """One table as Markdown (``md``), LaTeX (``latex``) or tidy CSV (``csv``; the
    tables of several data sets make one CSV: :func:`csv_rows`, :func:`csv_text`).

    ``notes`` (strings, or tuples of pieces: :func:`.escape.note`) are printed under
    the table, then those that the summary itself calls for (:func:`table_notes`),
    then ``sources``, the note naming the commands that wrote and rendered it.
    """
    ks, rows = table_rows(summary, paper)
    if fmt == "csv":
        return csv_text(csv_rows(summary, paper, table=title))
    n_max = max((s["n_splits"] + s.get("n_failed", 0) for s in summary), default=None)
    notes = list(notes) + table_notes(summary, rows) + ([sources] if sources else [])
    best, _ = best_cells(summary)
    if fmt == "md":
        return _markdown(ks, rows, n_max, best, title, notes)
    if fmt == "latex":
        return _latex(ks, rows, n_max, best, title, notes)
    raise ConfigError(f"unknown report format {fmt!r}; choose md, latex or csv")


def table_notes(summary, rows):
    """The notes that the summary of a table calls for: cells with splits that
    failed, cells marked unreliable, cells left out of the comparison for bold, the
    meaning of the Parameters labels shown and of the paper's times
    (``rows`` from :func:`table_rows`)."""
    notes = failure_notes(summary)
    notes += unreliable_notes(summary)
    _, left_out = best_cells(summary)
    notes += filter(None, [fairness_note(left_out)])
    notes += filter(
        None, [tuning_note(rows), tuning_time_note(rows), paper_times_note(rows)]
    )
    return notes


def paper_times_note(rows):
    """What the times of the paper's rows are, when the table shows one, or None."""
    shown = [
        r
        for r in rows
        if r["source"] == "paper"
        and (r["train_time"] is not None or r["test_time"] is not None)
    ]
    if not shown:
        return None
    return (
        "Times of the rows marked (paper): the one training and test time the paper "
        "prints per method (it does not say at which k)."
    )


def failure_notes(summary):
    """One note per cell with runs that failed: in how many of its splits, the first
    error, and what the cell's mean is over."""
    notes = []
    for s in sorted(summary, key=lambda s: (s["label"], k_order(s["k"]))):
        if not s.get("n_failed"):
            continue
        if s["mean"] is None:
            notes.append(
                f"{s['label']}, k={s['k']}: failed in every split ({s['error']})."
            )
            continue
        total = s["n_failed"] + s["n_splits"]
        notes.append(
            f"{s['label']}, k={s['k']}: failed in {s['n_failed']} of {total} splits "
            f"({s['error']}); the cell is the mean of the {s['n_splits']} that ran."
        )
    return notes


def _markdown(ks, rows, n_max, best, title, notes):
    """The Markdown table: its title, the table, then the notes, one paragraph each."""
    lines = [f"### {markdown(title)}", ""] if title else []
    head = [METHOD_HEAD] + [f"k={markdown(k)}" for k in ks] + time_heads(rows)
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    family = None
    for r in rows:
        if r["family"] != family:
            family = r["family"]
            lines.append(
                f"| *{markdown(FAMILY_TITLES.get(family, family))}* |"
                + " |" * (len(head) - 1)
            )
        cells = [
            cell_text(r["cells"].get(k), n_max, r["label"] in best.get(k, ()))
            for k in ks
        ]
        label = markdown(r["label"])
        label = label if r["source"] == "ours" else f"*{label}*"
        lines.append(
            "| "
            + " | ".join(
                [
                    label,
                    *cells,
                    *time_cells(r, rows),
                    tuning_text(r),
                ]
            )
            + " |"
        )
    if notes:
        lines.append("")
        lines += "\n>\n".join(f"> {note(n, 'md')}" for n in notes).splitlines()
    return "\n".join(lines) + "\n"


# The first column's head: the cells of the k columns are accuracies in %.
METHOD_HEAD = "Method (accuracy in %)"


def is_tuned(rows):
    """Whether a table (``rows`` from :func:`table_rows`) has rows of ours whose
    parameters cross-validation chose: it then shows their tuning time."""
    return any(r["source"] == "ours" and r.get("tuning") == "cv" for r in rows)


def time_heads(rows):
    """The heads of the columns after the ``k`` ones: the times, "Tuning (s)" beside
    the training time when the table has tuned rows, and "Parameters"."""
    tuning = ["Tuning (s)"] if is_tuned(rows) else []
    return ["Training time (s)", *tuning, "Test time (s)", "Parameters"]


def time_cells(row, rows, fmt="md"):
    """A row's time cells under :func:`time_heads` (``rows``: the table's): the
    training time (a tuned row's tuning plus fit), its tuning (a dash for a row
    not tuned), the test time."""
    at = row.get("times_k")
    cells = [time_text(row["train_time"], fmt, at)]
    if is_tuned(rows):
        tuning = row.get("tune_time") if row.get("tuning") == "cv" else None
        cells.append(time_text(tuning, fmt, at))
    return [*cells, time_text(row["test_time"], fmt, at)]


def tuning_time_note(rows):
    """What the training time of a tuned row is, when the table has one, or None."""
    if not is_tuned(rows):
        return None
    return (
        "Training time of the rows tuned by CV: the search on each training split "
        "plus the final fit, their mean; Tuning (s): the search's part."
    )


def tuning_text(row, fmt="md"):
    """The Parameters cell of a table row (a dash for the paper's own rows)."""
    if _tuning(row) in TUNING:
        return TUNING[_tuning(row)]
    return "--" if fmt == "latex" else "—"


def _tuning(row):
    """How a table row's parameters were chosen; a user's classifier with fixed
    parameters has them from its user ("yours"), not from fdlsr's registry."""
    if row.get("tuning") == "fixed" and row.get("family") == "yours":
        return "yours"
    return row.get("tuning")


def _latex(ks, rows, n_max, best, title, notes):
    cols = "l" + "c" * len(ks) + "r" * (len(time_heads(rows)) - 1) + "l"
    lines = [
        "% Requires \\usepackage{booktabs}. Rendered by fdlsr report from a results store.",
        r"\begin{table*}[t]",
        r"\centering",
        r"\scriptsize",
    ]
    if title:
        lines.append(rf"\caption{{{latex(title)}}}")
    lines += [rf"\begin{{tabular}}{{{cols}}}", r"\toprule"]
    lines.append(
        " & ".join(
            [r"Train No. (accuracy in \%)"]
            + [latex(k) for k in ks]
            + [head.replace(" (s)", "") for head in time_heads(rows)]
        )
        + r" \\"
    )
    family = None
    for r in rows:
        if r["family"] != family:
            lines.append(r"\midrule")
            family = r["family"]
        cells = [
            cell_text(r["cells"].get(k), n_max, r["label"] in best.get(k, ()), "latex")
            for k in ks
        ]
        label = (
            latex(r["label"])
            if r["source"] == "ours"
            else rf"\textit{{{latex(r['label'])}}}"
        )
        lines.append(
            " & ".join(
                [
                    label,
                    *cells,
                    *time_cells(r, rows, "latex"),
                    tuning_text(r, "latex"),
                ]
            )
            + r" \\"
        )
    lines += [r"\bottomrule", r"\end{tabular}"]
    lines += [rf"\par\smallskip {note(n, 'latex')}" for n in notes]
    lines.append(r"\end{table*}")
    return "\n".join(lines) + "\n"


# The CSV's columns: first the table a row belongs to (its title: two data sets of
# one name have two), then the cell; the data set's name and data last.
# Each number's unit is in its column's name: accuracy in % (``_pct``; the frame's
# ``accuracy`` is the fraction), times in seconds (``_s``; ``train_time_s`` is tuning
# plus fit, as the frame's ``train_time``).
CSV_FIELDS = (
    "source", "table", "method", "label", "family", "k", "n_splits",
    "accuracy_mean_pct", "accuracy_std_pct", "train_time_s", "fit_time_s",
    "tune_time_s", "predict_time_s", "tuning", "n_unreliable", "n_failed", "error",
    "chosen", "chosen_per_split", "dataset", "data_sha256",
)  # fmt: skip
# The CSV's names of the cells' numbers (:func:`summarise`'s keys).
CSV_NAMES = {
    "mean": "accuracy_mean_pct",
    "std": "accuracy_std_pct",
    "train_time": "train_time_s",
    "fit_time": "fit_time_s",
    "tune_time": "tune_time_s",
    "test_time": "predict_time_s",
}


def csv_rows(summary, paper=None, *, table=""):
    """The rows of one table in the CSV: each cell of ours (every ``k``, times
    included), then the paper's; ``table`` is the table's title, which tells the
    tables of one CSV apart (two data sets may share a name)."""
    out = [
        {**s, "table": table}
        for s in sorted(
            summary,
            key=lambda s: (family_rank(s["family"]), s["label"], k_order(s["k"])),
        )
    ]
    out += [
        {**p, "source": "paper", "label": p["method"], "n_splits": 10, "table": table}
        for p in paper or []
    ]
    return [{CSV_NAMES.get(key, key): value for key, value in r.items()} for r in out]


def csv_text(rows):
    """One CSV table (one header row) of ``rows`` from :func:`csv_rows`, those of
    every table of a report."""
    buffer = io.StringIO()
    writer = csv.DictWriter(
        buffer, fieldnames=CSV_FIELDS, extrasaction="ignore", lineterminator="\n"
    )
    writer.writeheader()
    writer.writerows(
        {key: csv_cell(v) if isinstance(v, str) else v for key, v in row.items()}
        for row in rows
    )
    return buffer.getvalue()
