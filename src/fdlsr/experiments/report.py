"""Tables in the paper's layout, rendered from the results store (never typed by hand).

Methods are rows grouped by family in the paper's order (representation, dictionary
learning, least-squares regression, FDLSR; then the scikit-learn baselines); training
sizes ``k`` are columns holding accuracy in % as mean +- sample standard deviation
(``ddof=1``) over the random splits; the last two columns are the mean training and
test times in seconds at the largest ``k`` (the paper prints one time per method
without saying for which ``k``). With ``paper`` the paper's row for the same method is
printed under ours, marked "(paper)". The column "Parameters" says how each of our
rows got its parameters (:data:`TUNING`), explained in a note under the title.
"""

import csv
import io
import json
from collections import defaultdict
from importlib import resources

import numpy as np

from ..errors import ConfigError, UnreliableResultWarning
from ..methods import METHODS, family_rank

FAMILY_TITLES = {
    "representation": "Representation-based",
    "dictionary": "Dictionary learning",
    "relaxed": "Least squares regression",
    "proposed": "Proposed",
    "scikit-learn": "scikit-learn baselines",
    "deep network": "End-to-end networks (the paper's Table VI)",
}
# How a row's parameters were chosen (a row's ``tuning``) as the tables show it.
TUNING = {"paper": "paper", "fixed": "ours", "cv": "CV", "unrecorded": "fixed"}
TUNING_NOTE = (
    "Parameters column: paper = fixed at values the paper states (for this dataset, "
    "or for the one named above); ours = fixed by us (the method's registered "
    "defaults, see `fdlsr methods`, or values of the config or --params); CV = chosen "
    "on each training split by inner cross-validation over the method's grid (with "
    "k=1 there is nothing to validate on: its fixed values); fixed = fixed values in "
    "rows stored before fdlsr recorded whether they are the paper's (the notes above "
    "say which are)."
)
# Rows whose run raised this warning hold a number the method computed faithfully but
# that is known to be unreliable: the table marks their cells (MARK) and says why.
DOUBT = UnreliableResultWarning.__name__ + ":"
MARK = "†"
MARK_TEX = r"$^\dagger$"
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
        resources.files("fdlsr.experiments") / "data" / "paper_results.csv"
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


def _label_settings(rows):
    """A display label per (method, setting): the method, plus what differs if needed."""
    settings = defaultdict(dict)
    for r in rows:
        settings[r["method"]][r["setting"]] = r
    labels = {}
    for method, by_setting in settings.items():
        if len(by_setting) == 1:
            (setting,) = by_setting
            labels[method, setting] = method
            continue
        specs = {s: json.loads(s) for s in by_setting}
        keys = set().union(*(spec["params"] for spec in specs.values()))
        varying = sorted(
            key
            for key in keys
            if len({json.dumps(spec["params"].get(key)) for spec in specs.values()}) > 1
        )
        for setting, spec in specs.items():
            parts = ["cv"] if "cv" in spec else []
            if "cv" not in spec:
                parts += [f"{key}={spec['params'].get(key)}" for key in varying]
            if spec.get("normalise") is False:
                parts.append("raw")
            labels[method, setting] = f"{method} ({', '.join(parts) or 'fixed'})"
    return labels


def _tuning(row):
    """How a stored row's parameters were chosen: ``"cv"``, ``"paper"``, ``"fixed"``
    (by us) or ``"unrecorded"``: fixed, in a row written before fdlsr told the
    paper's values from its own (such rows have no fingerprint either)."""
    tuning = row.get("tuning")
    if tuning is None:  # written before the field existed: from the setting
        tuning = "cv" if '"cv":' in row.get("setting", "") else "fixed"
    if tuning == "fixed" and "fingerprint" not in row:
        return "unrecorded"
    return tuning if tuning in TUNING else "unrecorded"


def chosen_rules(rows):
    """One line per method whose decision rule was chosen by cross-validation
    (``--cv`` with ``decision_rule`` in its grid): how often each rule won, per k."""
    counts = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        rule = (r.get("params") or {}).get("decision_rule")
        setting = json.loads(r.get("setting") or "{}")
        searched = "decision_rule" in setting.get("cv", {}).get("grid", {})
        if rule is None or not searched or r.get("accuracy") is None:
            continue
        per_k = counts[r["method"]][r["k"]]
        per_k[rule] = per_k.get(rule, 0) + 1
    lines = []
    for method, by_k in sorted(counts.items()):
        parts = []
        for k in sorted(by_k, key=lambda k: (isinstance(k, str), str(k).zfill(9))):
            total = sum(by_k[k].values())
            won = sorted(by_k[k].items(), key=lambda item: (-item[1], item[0]))
            parts.append(
                f"k={k}: " + ", ".join(f"{rule} {n}/{total}" for rule, n in won)
            )
        lines.append(
            f"{method} decision rule chosen by cross-validation (splits won): "
            + "; ".join(parts)
            + "."
        )
    return lines


def summarise(rows):
    """Aggregate result rows: one dict per dataset x method setting x k."""
    labels = _label_settings(rows)
    groups = defaultdict(list)
    for r in rows:
        groups[r["dataset"], r["method"], r["setting"], r["k"]].append(r)
    out = []
    for (dataset, method, setting, k), all_runs in groups.items():
        group = [r for r in all_runs if r.get("accuracy") is not None]
        failed = [r for r in all_runs if r.get("accuracy") is None]
        if not group:  # the method could not run in this setting (see the rows' error)
            out.append(
                {
                    "dataset": dataset,
                    "method": method,
                    "label": labels[method, setting],
                    "family": _family(all_runs[0]),
                    "source": "ours",
                    "k": k,
                    "n_splits": 0,
                    "n_failed": len(failed),
                    "mean": None,
                    "std": None,
                    "train_time": None,
                    "test_time": None,
                    "tune_time": None,
                    "tuning": _tuning(all_runs[0]),
                    "error": failed[0].get("error", ""),
                }
            )
            continue
        acc = 100 * np.array([r["accuracy"] for r in group])
        doubts = [w for w in map(_doubt, group) if w]
        out.append(
            {
                "dataset": dataset,
                "method": method,
                "label": labels[method, setting],
                "family": _family(group[0]),
                "source": "ours",
                "k": k,
                "n_splits": len(group),
                "mean": float(acc.mean()),
                "std": float(acc.std(ddof=1)) if acc.size > 1 else None,
                "train_time": float(np.mean([r["fit_time"] for r in group])),
                "test_time": float(np.mean([r["predict_time"] for r in group])),
                "tune_time": float(np.mean([r.get("tune_time", 0.0) for r in group])),
                "tuning": _tuning(group[0]),
                "n_failed": len(failed),
                "n_unreliable": len(doubts),
                "unreliable": doubts[0][len(DOUBT) :].strip() if doubts else "",
            }
        )
    return out


def _doubt(row):
    """The run's warning that its result is unreliable (:data:`DOUBT`), or None."""
    return next((w for w in row.get("warnings", ()) if w.startswith(DOUBT)), None)


def _norm(name):
    return "".join(ch for ch in name.lower() if ch.isalnum())


def _k_order(k):
    """Columns in order: numbers of samples per class, then "fixed" (a dataset's split)."""
    return (isinstance(k, str), str(k) if isinstance(k, str) else k)


def table_rows(summary, paper=None):
    """Ordered table rows ``{label, family, source, cells: {k: (mean, std, n)}, times}``."""
    ks = sorted({s["k"] for s in summary} | {p["k"] for p in paper or []}, key=_k_order)
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
    for row in rows.values():
        ran = [k for k, cell in row["cells"].items() if cell[0] is not None]
        at = [
            s
            for s in summary
            if s["label"] == row["label"] and ran and s["k"] == max(ran, key=_k_order)
        ]
        row["train_time"] = at[0]["train_time"] if at else None
        row["test_time"] = at[0]["test_time"] if at else None
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


def _family(row):
    """A stored row's family; the registry's for a registered method (stores written
    before a family was renamed keep their old name)."""
    method = METHODS.get(row["method"])
    return method.family if method is not None else row["family"]


def _cell(value, n_max, best=False, fmt="md"):
    if value is None:
        return "—" if fmt == "md" else ("--" if fmt == "latex" else "")
    mean, std, n, unreliable = value
    if mean is None:
        return "failed"
    pm = " ± " if fmt == "md" else r"$\pm$"
    text = f"{mean:.2f}" + (f"{pm}{std:.2f}" if std is not None else "")
    if n is not None and n_max is not None and n < n_max:
        text += f" (n={n})"
    if best:
        text = f"**{text}**" if fmt == "md" else rf"\textbf{{{text}}}"
    if unreliable:
        text += MARK if fmt == "md" else MARK_TEX
    return text


def _time(value, fmt="md"):
    """A time in seconds; a dash where there is none (a method that failed, or a
    paper that prints "None")."""
    if value is None:
        return "—" if fmt == "md" else "--"
    return f"{value:.4f}" if value < 100 else f"{value:.1f}"


def _best(ks, rows):
    """Per k, the labels of our best mean, ties included (bold, as in the paper).

    Only cells over the most splits at that k compete: a mean over 3 splits is not
    the best beside means over 10 (a run in progress, or a setting no longer run).
    """
    best = {}
    for k in ks:
        ours = [
            (r["cells"][k][0], r["cells"][k][2], r["label"])
            for r in rows
            if r["source"] == "ours" and r["cells"].get(k, (None,))[0] is not None
        ]
        most = max((n for _, n, _ in ours), default=0)
        ours = [(mean, label) for mean, n, label in ours if n == most]
        if len(ours) > 1:
            top = round(max(mean for mean, _ in ours), 2)
            best[k] = {label for mean, label in ours if round(mean, 2) == top}
    return best


def unreliable_notes(summary):
    """One note per method whose cells hold runs that warned their result is
    unreliable (:data:`DOUBT`): which ``k``, in how many splits, and the warning."""
    marked = defaultdict(list)
    for s in sorted(summary, key=lambda s: _k_order(s["k"])):
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


def render(summary, fmt="md", *, paper=None, title="", notes=()):
    """One table as Markdown (``md``), LaTeX (``latex``) or tidy CSV (``csv``)."""
    ks, rows = table_rows(summary, paper)
    if fmt == "csv":
        return _csv(summary, paper)
    n_max = max((s["n_splits"] + s.get("n_failed", 0) for s in summary), default=None)
    notes = list(notes) + [
        f"{s['label']}, k={s['k']}: failed in every split ({s['error']})."
        for s in summary
        if s["mean"] is None
    ]
    notes += unreliable_notes(summary)
    if any(r.get("tuning") for r in rows):
        notes.append(TUNING_NOTE)
    best = _best(ks, rows)
    if fmt == "md":
        lines = [f"### {title}", ""] if title else []
        lines += [f"> {note}" for note in notes] + ([""] if notes else [])
        head = (
            ["Method"]
            + [f"k={k}" for k in ks]
            + ["Training time (s)", "Test time (s)", "Parameters"]
        )
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        family = None
        for r in rows:
            if r["family"] != family:
                family = r["family"]
                lines.append(
                    f"| *{FAMILY_TITLES.get(family, family)}* |"
                    + " |" * (len(head) - 1)
                )
            cells = [
                _cell(r["cells"].get(k), n_max, r["label"] in best.get(k, ()))
                for k in ks
            ]
            label = r["label"] if r["source"] == "ours" else f"*{r['label']}*"
            lines.append(
                "| "
                + " | ".join(
                    [
                        label,
                        *cells,
                        _time(r["train_time"]),
                        _time(r["test_time"]),
                        _tuning_cell(r),
                    ]
                )
                + " |"
            )
        return "\n".join(lines) + "\n"
    if fmt == "latex":
        return _latex(ks, rows, n_max, best, title, notes)
    raise ConfigError(f"unknown report format {fmt!r}; choose md, latex or csv")


def _tuning_cell(row, fmt="md"):
    """The Parameters cell of a table row (a dash for the paper's own rows)."""
    if row.get("tuning") in TUNING:
        return TUNING[row["tuning"]]
    return "—" if fmt == "md" else "--"


def _tex(text):
    return (
        text.replace("\\", r"\textbackslash{}")
        .replace("_", r"\_")
        .replace("%", r"\%")
        .replace("&", r"\&")
        .replace("#", r"\#")
        .replace(MARK, MARK_TEX)
        .replace("<=", r"$\le$")
        .replace(">=", r"$\ge$")
    )


def _latex(ks, rows, n_max, best, title, notes):
    cols = "l" + "c" * len(ks) + "rrl"
    lines = [
        "% Requires \\usepackage{booktabs}. Rendered by fdlsr report from a results store.",
        r"\begin{table*}[t]",
        r"\centering",
        r"\scriptsize",
    ]
    if title:
        lines.append(rf"\caption{{{_tex(title)}}}")
    lines += [rf"\begin{{tabular}}{{{cols}}}", r"\toprule"]
    lines.append(
        " & ".join(
            ["Train No."]
            + [str(k) for k in ks]
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
            _cell(r["cells"].get(k), n_max, r["label"] in best.get(k, ()), "latex")
            for k in ks
        ]
        label = (
            _tex(r["label"])
            if r["source"] == "ours"
            else rf"\textit{{{_tex(r['label'])}}}"
        )
        lines.append(
            " & ".join(
                [
                    label,
                    *cells,
                    _time(r["train_time"], "latex"),
                    _time(r["test_time"], "latex"),
                    _tuning_cell(r, "latex"),
                ]
            )
            + r" \\"
        )
    lines += [r"\bottomrule", r"\end{tabular}"]
    lines += [rf"\par\smallskip {_tex(note)}" for note in notes]
    lines.append(r"\end{table*}")
    return "\n".join(lines) + "\n"


def _csv(summary, paper):
    fields = [
        "source",
        "dataset",
        "method",
        "label",
        "family",
        "k",
        "n_splits",
        "mean",
        "std",
        "train_time",
        "test_time",
        "tune_time",
        "tuning",
        "n_unreliable",
    ]
    buffer = io.StringIO()
    writer = csv.DictWriter(
        buffer, fieldnames=fields, extrasaction="ignore", lineterminator="\n"
    )
    writer.writeheader()
    for s in sorted(
        summary, key=lambda s: (family_rank(s["family"]), s["label"], s["k"])
    ):
        writer.writerow(s)
    for p in paper or []:
        writer.writerow({**p, "source": "paper", "label": p["method"], "n_splits": 10})
    return buffer.getvalue()
