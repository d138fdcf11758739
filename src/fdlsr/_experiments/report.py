"""Tables in the paper's layout, rendered from the results store (never typed by hand).

Methods are rows grouped by family in the paper's order (representation, dictionary
learning, least-squares regression, FDLSR; then the scikit-learn baselines); training
sizes ``k`` are columns holding accuracy in % as mean +- sample standard deviation
(``ddof=1``) over the random splits; the last two columns are the mean training and
test times in seconds at one ``k``, the largest at which our methods ran
(:func:`.variants.times_k`; a row without a run there says at which ``k`` its times
are), since the paper prints one time per method without saying for which ``k``.
With ``paper`` the paper's row for the same method is printed under ours, marked
"(paper)". The column "Parameters" says how each of our
rows got its parameters (:data:`TUNING`), explained in a note under the table.
"""

import csv
import io
import json
from collections import defaultdict
from importlib import resources

import numpy as np

from ..errors import ConfigError, UnreliableResultWarning
from .cv_choices import choices_of, choices_text, per_split
from .escape import MARK, MARK_TEX, latex, markdown, note, prose
from .registry import METHODS, family_rank
from .variants import (
    best_cells,
    fairness_note,
    is_normalized,
    k_order,
    row_labels,
    splits_of,
    times_k,
    variant,
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
TUNING = {"paper": "paper", "fixed": "ours", "cv": "CV", "unrecorded": "fixed"}
# What each label of the Parameters column means; a table explains those it shows.
TUNING_MEANING = {
    "paper": "paper = fixed at values the paper states (for this dataset, or for the "
    "one named above)",
    "fixed": "ours = fixed by us (the method's registered defaults, see `fdlsr "
    "methods`, or values of the config or --params)",
    "cv": "CV = chosen on each training split by inner cross-validation over the "
    "method's grid (with k=1 there is nothing to validate on: its fixed values)",
    "unrecorded": "fixed = fixed values in rows stored before fdlsr recorded whether "
    "they are the paper's (the notes above say which are)",
}


def tuning_note(rows):
    """The note explaining the Parameters labels that ``rows`` show, or None."""
    shown = {r.get("tuning") for r in rows}
    meanings = [text for key, text in TUNING_MEANING.items() if key in shown]
    return prose(f"Parameters column: {'; '.join(meanings)}.") if meanings else None


# Rows whose run raised this warning hold a number the method computed faithfully but
# that is known to be unreliable: the table marks their cells (MARK) and says why.
DOUBT = UnreliableResultWarning.__name__ + ":"
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


def tuning_of(row):
    """How a stored row's parameters were chosen: ``"cv"``, ``"paper"``, ``"fixed"``
    (by us) or ``"unrecorded"``: fixed, in a row written before fdlsr told the
    paper's values from its own (such rows have no fingerprint either: some of the
    shipped FERET store's)."""
    tuning = row.get("tuning")
    if tuning == "fixed" and "fingerprint" not in row:
        return "unrecorded"
    return tuning if tuning in TUNING else "unrecorded"


def summarise(rows):
    """Aggregate the result rows of one table: one dict per variant (method, setting,
    seed) x k, with the splits it is over (``draws``) and its normalisation."""
    labels = row_labels(rows)
    groups = defaultdict(list)
    for r in rows:
        groups[(r["dataset"], *variant(r), r["k"])].append(r)
    out = []
    for (dataset, method, setting, seed, k), all_runs in groups.items():
        group = [r for r in all_runs if r.get("accuracy") is not None]
        failed = [r for r in all_runs if r.get("accuracy") is None]
        common = {
            "dataset": dataset,
            "method": method,
            "label": labels[method, setting, seed],
            "seed": seed,
            "normalized": is_normalized(all_runs[0]),
            "draws": splits_of(group, k),
            "data_sha256": all_runs[0].get("data_sha256"),
            "n_failed": len(failed),
            "error": failed[0].get("error", "") if failed else "",
        }
        if not group:  # the method could not run in this setting (see the rows' error)
            out.append(
                {
                    **common,
                    "family": family_of(all_runs[0]),
                    "source": "ours",
                    "k": k,
                    "n_splits": 0,
                    "mean": None,
                    "std": None,
                    "train_time": None,
                    "test_time": None,
                    "tune_time": None,
                    "tuning": tuning_of(all_runs[0]),
                }
            )
            continue
        acc = 100 * np.array([r["accuracy"] for r in group])
        doubts = [w for w in map(_doubt, group) if w]
        choices = choices_of(group)
        out.append(
            {
                **common,
                "family": family_of(group[0]),
                "source": "ours",
                "k": k,
                "n_splits": len(group),
                "mean": float(acc.mean()),
                "std": float(acc.std(ddof=1)) if acc.size > 1 else None,
                "train_time": float(np.mean([r["fit_time"] for r in group])),
                "test_time": float(np.mean([r["predict_time"] for r in group])),
                "tune_time": float(np.mean([r.get("tune_time", 0.0) for r in group])),
                "tuning": tuning_of(group[0]),
                "n_unreliable": len(doubts),
                "unreliable": doubts[0][len(DOUBT) :].strip() if doubts else "",
                "chosen": choices_text(choices) if choices else "",
                "chosen_per_split": (
                    json.dumps(per_split(group), default=str) if choices else ""
                ),
            }
        )
    return out


def _doubt(row):
    """The run's warning that its result is unreliable (:data:`DOUBT`), or None."""
    return next((w for w in row.get("warnings", ()) if is_doubt(w)), None)


def is_doubt(warning):
    """Whether a run's recorded warning says its result is unreliable."""
    return isinstance(warning, str) and warning.startswith(DOUBT)


def _norm(name):
    return "".join(ch for ch in name.lower() if ch.isalnum())


def table_rows(summary, paper=None):
    """The columns and the ordered table rows: ``(ks, rows)``, each row
    ``{label, family, source, cells: {k: (mean, std, n, unreliable)}, train_time,
    test_time, times_k}``; our times are at :func:`.variants.times_k` of the cells
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
        row["train_time"] = times[0]["train_time"] if times else None
        row["test_time"] = times[0]["test_time"] if times else None
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


def family_of(row):
    """A stored row's family; the registry's for a registered method (stores written
    before a family was renamed keep their old name)."""
    method = METHODS.get(row["method"])
    return method.family if method is not None else row["family"]


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
    notes += filter(None, [tuning_note(rows), paper_times_note(rows)])
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
    head = (
        ["Method"]
        + [f"k={markdown(k)}" for k in ks]
        + ["Training time (s)", "Test time (s)", "Parameters"]
    )
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
                    time_text(r["train_time"], k=r.get("times_k")),
                    time_text(r["test_time"], k=r.get("times_k")),
                    tuning_text(r),
                ]
            )
            + " |"
        )
    if notes:
        lines.append("")
        lines += "\n>\n".join(f"> {note(n, 'md')}" for n in notes).splitlines()
    return "\n".join(lines) + "\n"


def tuning_text(row, fmt="md"):
    """The Parameters cell of a table row (a dash for the paper's own rows)."""
    if row.get("tuning") in TUNING:
        return TUNING[row["tuning"]]
    return "--" if fmt == "latex" else "—"


def _latex(ks, rows, n_max, best, title, notes):
    cols = "l" + "c" * len(ks) + "rrl"
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
            ["Train No."]
            + [latex(k) for k in ks]
            + ["Training time", "Test time", "Parameters"]
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
                    time_text(r["train_time"], "latex", r.get("times_k")),
                    time_text(r["test_time"], "latex", r.get("times_k")),
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
CSV_FIELDS = (
    "source", "table", "method", "label", "family", "k", "n_splits", "mean", "std",
    "train_time", "test_time", "tune_time", "tuning", "n_unreliable", "n_failed",
    "error", "chosen", "chosen_per_split", "dataset", "data_sha256",
)  # fmt: skip


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
    return out


def csv_text(rows):
    """One CSV table (one header row) of ``rows`` from :func:`csv_rows`, those of
    every table of a report."""
    buffer = io.StringIO()
    writer = csv.DictWriter(
        buffer, fieldnames=CSV_FIELDS, extrasaction="ignore", lineterminator="\n"
    )
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()
