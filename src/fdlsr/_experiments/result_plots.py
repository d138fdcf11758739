"""Figures that compare the methods of a results store (``fdlsr plot results``).

Two figures per data set, drawn from the numbers of its table (:func:`.report.summarise`,
so a point is a cell of ``fdlsr report``):

* accuracy against ``k``: one line per method (per setting), the standard deviation
  over the splits as error bars, the paper's numbers as hollow markers;
* accuracy against training time at the ``k`` of the table's times (the largest
  number of samples per class; log scale), one point per method, the Pareto front
  (no other method at least as fast and as accurate, and better in one) marked.

A method has the same colour and marker in every figure and every data set: the hue
is its family's, the shade and marker its place in the family (:func:`method_style`).
The legend sits outside the axes, grouped by family, so 20 methods stay readable.
"""

import hashlib
import textwrap
from dataclasses import dataclass

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from .._common.messages import did_you_mean  # noqa: E402
from ..errors import ConfigError  # noqa: E402
from .escape import one_line  # noqa: E402
from .figures import file_stem, output_files, save_figure  # noqa: E402
from .registry import METHODS, family_rank  # noqa: E402
from .report import FAMILY_TITLES, paper_results, summarise, table_rows  # noqa: E402
from .result_tables import pooled_tables  # noqa: E402
from .variants import times_k  # noqa: E402

# The figures' names, after the data set's (``feret_accuracy_by_k.png``).
KINDS = ("accuracy_by_k", "accuracy_by_time")
FAMILY_COLOURS = {
    "proposed": "Reds",
    "relaxed": "Oranges",
    "representation": "Blues",
    "dictionary": "Greens",
    "scikit-learn": "Purples",
}
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "h")
LINE_STYLES = ("-", "--", ":", "-.")


@dataclass(frozen=True)
class Style:
    """How a method is drawn: its colour and marker."""

    colour: tuple
    marker: str


def method_style(method, family):
    """The colour and marker of ``method`` in every figure: its family's hue, in a
    shade and with a marker given by its place among the family's registered
    methods (a method the registry does not know: grey, from its name)."""
    if method == "FDLSR":
        return Style(plt.get_cmap("Reds")(0.85), "*")
    members = [m.name for m in METHODS.values() if m.family == family]
    if family in FAMILY_COLOURS and method in members:
        i = members.index(method)
        shade = 0.45 + 0.5 * (i / max(len(members) - 1, 1))
        return Style(plt.get_cmap(FAMILY_COLOURS[family])(shade), MARKERS[i % 10])
    digest = int(hashlib.sha256(str(method).encode()).hexdigest(), 16)
    return Style(
        plt.get_cmap("Greys")(0.45 + 0.4 * (digest % 7) / 6), MARKERS[digest % 10]
    )


def pareto_front(points):
    """The indices of ``points`` (``(time, accuracy)`` pairs) that no other point
    beats: none is at least as fast and at least as accurate, and better in one.
    Points alike in both (a tie) are on the front together or not at all."""
    return [
        i
        for i, (time, accuracy) in enumerate(points)
        if not any(
            other_time <= time
            and other_accuracy >= accuracy
            and (other_time < time or other_accuracy > accuracy)
            for other_time, other_accuracy in points
        )
    ]


def accuracy_by_k_data(rows, paper=None, title=""):
    """The numbers of the accuracy-against-k figure of one table's ``rows``.

    Returns
    -------
    data : dict
        ``title``, ``ks`` (the columns, in order), ``lines``: per table row of ours
        ``label``, ``method``, ``family``, and per k its ``mean``, ``std`` (in %)
        and ``n`` (splits; None where it did not run), and ``paper``: the paper's
        rows alike (means only, ``std`` where printed).
    """
    ks, table = table_rows(summarise(rows), paper)
    lines, printed = [], []
    for row in table:
        cells = [row["cells"].get(k) for k in ks]
        entry = {
            "label": row["label"],
            "method": row["method"],
            "family": row["family"],
            "mean": [c[0] if c else None for c in cells],
            "std": [c[1] if c else None for c in cells],
        }
        if row["source"] == "ours":
            lines.append({**entry, "n": [c[2] if c else None for c in cells]})
        else:
            printed.append(entry)
    return {"title": title, "ks": ks, "lines": lines, "paper": printed}


def accuracy_by_time_data(rows, title=""):
    """The numbers of the accuracy-against-time figure of one table's ``rows``: at
    the ``k`` of the table's times (:func:`.variants.times_k`: the largest number of
    samples per class, else the data set's own split), each variant's mean accuracy
    and training time, and whether it is on the Pareto front. A variant without a
    result at that k is left out.

    Returns
    -------
    data : dict
        ``title``, ``k`` and ``points``: ``label``, ``method``, ``family``,
        ``train_time`` (s), ``mean``, ``std`` (%), ``n`` and ``pareto``.
    """
    summary = [s for s in summarise(rows) if s["mean"] is not None]
    k = times_k(s["k"] for s in summary)  # the table's times are at this k too
    _, table = table_rows([s for s in summary if s["k"] == k])
    points = [
        {
            "label": row["label"],
            "method": row["method"],
            "family": row["family"],
            "train_time": row["train_time"],
            "mean": row["cells"][k][0],
            "std": row["cells"][k][1],
            "n": row["cells"][k][2],
        }
        for row in table
    ]
    front = set(pareto_front([(max(p["train_time"], 0.0), p["mean"]) for p in points]))
    for i, point in enumerate(points):
        point["pareto"] = i in front
    return {"title": title, "k": k, "points": points}


def _group_order(entry):
    """The legend's groups: the families in the paper's order (others by name)."""
    family = entry[0]
    return family_rank(family), str(family)


def _legend(ax, entries):
    """A legend outside the axes, right, grouped by family under its title:
    ``entries`` are ``(family, handle)`` in table order."""
    handles, family = [], None
    for fam, handle in entries:
        if fam != family:
            family = fam
            title = FAMILY_TITLES.get(fam, str(fam)).split(" (")[0]
            title = title if fam in FAMILY_TITLES else str(fam)
            title = title[:1].upper() + title[1:]
            handles.append(Line2D([], [], linestyle="none", label=_literal(title)))
        handle.set_label(_literal(handle.get_label()))
        handles.append(handle)
    legend = ax.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        fontsize=7.5,
        frameon=False,
        handlelength=2.4,
        borderaxespad=0.0,
        labelspacing=0.3,
    )
    # the figure grows with the legend, so that every entry stays inside it
    needed = 0.8 + 0.135 * len(handles)
    if needed > ax.figure.get_figheight():
        ax.figure.set_figheight(needed)
    for text, handle in zip(legend.get_texts(), handles, strict=True):
        if handle.get_linestyle() == "None" and handle.get_marker() in ("None", None):
            text.set_fontweight("bold")
    return legend


def _variant_styles(labels_and_methods):
    """A line style per label: solid for a method's first variant, dashed, dotted...
    for its others (settings or seeds of one method share its colour)."""
    seen, out = {}, {}
    for label, method in labels_and_methods:
        i = seen.get(method, 0)
        seen[method] = i + 1
        out[label] = LINE_STYLES[i % len(LINE_STYLES)]
    return out


def _variant_fills(labels_and_methods):
    """A marker fill per label: full for a method's first variant, half-filled for
    its others (settings or seeds of one method share its colour and marker)."""
    fills = ("full", "left", "bottom", "right", "top")
    seen, out = {}, {}
    for label, method in labels_and_methods:
        i = seen.get(method, 0)
        seen[method] = i + 1
        out[label] = fills[i % len(fills)]
    return out


def draw_accuracy_by_k(data):
    """The accuracy-against-k figure of :func:`accuracy_by_k_data` (a Figure)."""
    ks, lines = data["ks"], data["lines"]
    fig, ax = plt.subplots(figsize=(8.6, 4.8))
    x = list(range(len(ks)))
    styles = _variant_styles((line["label"], line["method"]) for line in lines)
    # each line a little apart, so that the error bars do not hide each other
    width = 0.5 / max(len(lines), 1)
    offset = {
        line["label"]: (i - (len(lines) - 1) / 2) * width
        for i, line in enumerate(lines)
    }
    entries = []
    for line in lines:
        style = method_style(line["method"], line["family"])
        xs = [
            xi + offset[line["label"]]
            for xi, m in zip(x, line["mean"], strict=True)
            if m is not None
        ]
        means = [m for m in line["mean"] if m is not None]
        stds = [
            s or 0.0
            for s, m in zip(line["std"], line["mean"], strict=True)
            if m is not None
        ]
        if not means:
            continue
        ax.errorbar(
            xs,
            means,
            yerr=stds,
            color=style.colour,
            marker=style.marker,
            markersize=7 if style.marker == "*" else 4.5,
            linestyle=styles[line["label"]],
            linewidth=2.0 if line["method"] == "FDLSR" else 1.2,
            elinewidth=0.8,
            capsize=2,
            zorder=3 if line["method"] == "FDLSR" else 2,
        )
        entries.append(
            (
                line["family"],
                Line2D(
                    [], [], color=style.colour, marker=style.marker,
                    linestyle=styles[line["label"]], linewidth=1.2,
                    markersize=6 if style.marker == "*" else 4, label=one_line(line["label"]),
                ),
            )
        )  # fmt: skip
    by_method = {line["method"]: line for line in lines}
    drawn_paper = False
    for row in data["paper"]:
        ours = _same_method(row["method"], by_method)
        style = method_style(ours or row["method"], row["family"])
        dx = offset.get(by_method[ours]["label"], 0.0) if ours else 0.0
        xs = [xi + dx for xi, m in zip(x, row["mean"], strict=True) if m is not None]
        means = [m for m in row["mean"] if m is not None]
        ax.plot(
            xs, means, linestyle="none", marker=style.marker, markersize=6,
            markerfacecolor="none", markeredgecolor=style.colour, markeredgewidth=1.1,
        )  # fmt: skip
        if not ours:
            handle = Line2D(
                [], [], linestyle="none", marker=style.marker, markerfacecolor="none",
                markeredgecolor=style.colour, label=f"{one_line(row['method'])} (paper only)",
            )  # fmt: skip
            entries.append((row["family"], handle))
        drawn_paper = drawn_paper or bool(means)
    entries.sort(key=_group_order)
    if drawn_paper:
        entries.append(
            (
                "the paper",
                Line2D(
                    [], [], linestyle="none", marker="o", markerfacecolor="none",
                    markeredgecolor="black", label="the paper's number",
                ),
            )
        )  # fmt: skip
    ax.set_xticks(x, [str(k) for k in ks])
    ax.set_xlim(-0.5, len(ks) - 0.5)
    ax.set_xlabel("k (training samples per class)")
    ax.set_ylabel("test accuracy (%)")
    ax.grid(alpha=0.3)
    ax.set_title(_title(data["title"], "mean ± std over the splits"), fontsize=10)
    _legend(ax, entries)
    fig.tight_layout()
    return fig


def _same_method(name, ours):
    """Our method that the paper's row ``name`` is (names compared loosely)."""
    loose = "".join(ch for ch in str(name).lower() if ch.isalnum())
    for method in ours:
        if "".join(ch for ch in method.lower() if ch.isalnum()) == loose:
            return method
    return None


def draw_accuracy_by_time(data):
    """The accuracy-against-time figure of :func:`accuracy_by_time_data` (a Figure)."""
    # the log axis's limits around a time of 1e300 s (a hand-edited store) overflow
    # inside matplotlib, which then keeps them
    with np.errstate(over="ignore"):
        return _draw_accuracy_by_time(data)


def _draw_accuracy_by_time(data):
    points = data["points"]
    fig, ax = plt.subplots(figsize=(8.6, 4.8))
    fills = _variant_fills((p["label"], p["method"]) for p in points)
    entries = []
    for p in points:
        style = method_style(p["method"], p["family"])
        size = 10 if style.marker == "*" else 6.5
        ring = (
            {"markeredgecolor": "black", "markeredgewidth": 1.2} if p["pareto"] else {}
        )
        ax.errorbar(
            [max(p["train_time"], 1e-6)],
            [p["mean"]],
            yerr=[p["std"] or 0.0],
            color=style.colour,
            marker=style.marker,
            markersize=size,
            fillstyle=fills[p["label"]],
            linestyle="none",
            elinewidth=0.8,
            capsize=2,
            zorder=3 if p["pareto"] else 2,
            **ring,
        )
        entries.append(
            (
                p["family"],
                Line2D(
                    [], [], color=style.colour, marker=style.marker, linestyle="none",
                    markersize=size * 0.8, fillstyle=fills[p["label"]],
                    label=one_line(p["label"]),
                ),
            )
        )  # fmt: skip
    entries.sort(key=_group_order)  # the front's entry last, below
    front = sorted((p for p in points if p["pareto"]), key=lambda p: p["train_time"])
    if front:
        xs = [max(p["train_time"], 1e-6) for p in front]
        ys = [p["mean"] for p in front]
        ax.plot(
            xs,
            ys,
            drawstyle="steps-post",
            color="black",
            linewidth=0.9,
            alpha=0.6,
            zorder=1,
        )
        names = textwrap.wrap(", ".join(one_line(p["label"]) for p in front), 34)
        entries.append(
            (
                "Pareto front (ringed), fastest first",
                Line2D(
                    [], [], color="black", linewidth=0.9, alpha=0.6,
                    label="\n".join(names),
                ),
            )
        )  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlabel(f"training time at k={data['k']} (s, log scale)")
    ax.set_ylabel(f"test accuracy at k={data['k']} (%)")
    ax.grid(alpha=0.3, which="both")
    ax.set_title(
        _title(data["title"], "mean over the splits; no method is both faster and more "
               "accurate than one on the front"),
        fontsize=10,
    )  # fmt: skip
    _legend(ax, entries)
    fig.tight_layout()
    return fig


def _title(title, what):
    return f"{_literal(one_line(title))}\n{what}" if title else what


def _literal(text):
    """``text`` as matplotlib prints it literally: a ``$`` would start mathematics."""
    return str(text).replace("$", r"\$")


# -- files and the public functions -------------------------------------------------


def paths(tables, out):
    """The files :func:`write` writes for ``tables`` into ``out``."""
    stems = _stems(tables)
    return [
        path
        for s in stems
        for kind in KINDS
        for path in output_files(out, f"{s}_{kind}")
    ]


def _stems(tables):
    """The name of each table's figures, each its own: its data set's
    (:func:`.figures.file_stem`), with the first characters of its data's hash when
    two data sets' names give one name, and a number after it if that is taken too
    (a data set may be named ``faces_abababab``)."""
    names = [file_stem(t.dataset) for t in tables]
    stems, taken = [], set()
    for name, table in zip(names, tables, strict=True):
        stem = name
        if names.count(name) > 1:
            stem = f"{name}_{(table.data_sha256 or 'unrecorded')[:8]}"
        number = 1
        while stem in taken or (stem != name and stem in names):
            number += 1
            stem = f"{name}_{(table.data_sha256 or 'unrecorded')[:8]}_{number}"
        taken.add(stem)
        stems.append(stem)
    return stems


def write(tables, papers, out):
    """Draw both figures of each table into ``out`` (PNG, PDF and their numbers as
    JSON); ``papers`` gives the paper's rows of each table (or None). Returns the
    paths written."""
    written = []
    for table, paper, name in zip(tables, papers, _stems(tables), strict=True):
        data = accuracy_by_k_data(table.rows, paper, table.title)
        written += save_figure(
            draw_accuracy_by_k(data), out, f"{name}_accuracy_by_k", data
        )
        data = accuracy_by_time_data(table.rows, table.title)
        written += save_figure(
            draw_accuracy_by_time(data), out, f"{name}_accuracy_by_time", data
        )
    return written


def _one_table(results, dataset):
    """The table of ``results`` (folders, pooled) that ``dataset`` names: a data set's
    name, or, for data sets of one name, the sha256 of its data (its first 8
    characters or more) or the title its table has."""
    if isinstance(results, (str, bytes)) or not hasattr(results, "__iter__"):
        results = [results]
    every, _ = pooled_tables(list(results))
    tables = every
    if dataset is not None:
        tables = [t for t in every if t.dataset == dataset]
        if not tables:
            tables = [t for t in every if t.title == dataset or _data_is(t, dataset)]
        if not tables:
            raise ConfigError(
                f"no rows of the data set {dataset!r} in these results."
                + did_you_mean(dataset, [t.dataset for t in every])
            )
    if len(tables) > 1:
        names = {t.dataset for t in tables}
        if len(names) == 1:  # one name, other data: named by their data
            hashes = ", ".join(repr((t.data_sha256 or "")[:12]) for t in tables)
            raise ConfigError(
                f"these results hold {len(tables)} data sets named "
                f"{tables[0].dataset!r} (other data); name one by the sha256 of its "
                f"data with dataset= one of {hashes}"
            )
        raise ConfigError(
            "these results hold several data sets ("
            + ", ".join(t.title for t in tables)
            + "); name one with dataset="
        )
    return tables[0]


def _data_is(table, text):
    """Whether ``text`` is the sha256 of ``table``'s data, or its first 8 or more
    characters."""
    text = str(text).lower()
    return (
        len(text) >= 8
        and bool(table.data_sha256)
        and table.data_sha256.startswith(text)
    )


def _paper(table, paper):
    if not paper:
        return None
    name = table.info.get("paper_table") if paper is True else paper
    if not name:
        raise ConfigError(
            f"the results record no table of the paper for {table.dataset}; name "
            "one, e.g. paper='III'"
        )
    return paper_results(name, table.dataset)


def plot_accuracy_by_k(results, dataset=None, *, paper=None):
    """Mean accuracy against ``k``, one line per method, from results stores.

    Parameters
    ----------
    results : str, path-like, or a list of them
        Results folders written by ``fdlsr run`` (pooled: a run stored twice is
        counted once).
    dataset : str, optional
        The data set to draw, when the results hold several: its name (for two data
        sets of one name, the sha256 of its data, 8 characters or more).
    paper : bool or str, optional
        Add the paper's numbers as hollow markers: ``True`` for the table the
        results record for the data set, or a table's number (``"III"``).

    Returns
    -------
    matplotlib.figure.Figure
        The figure (the standard deviation over the splits as error bars, the
        legend outside the axes, grouped by family).

    See Also
    --------
    plot_accuracy_by_time, read_results
    """
    table = _one_table(results, dataset)
    data = accuracy_by_k_data(table.rows, _paper(table, paper), table.title)
    return draw_accuracy_by_k(data)


def plot_accuracy_by_time(results, dataset=None):
    """Accuracy against training time at the ``k`` of the table's times (the largest
    number of samples per class), one point per method, with the Pareto front
    marked.

    Parameters
    ----------
    results : str, path-like, or a list of them
        Results folders written by ``fdlsr run`` (pooled: a run stored twice is
        counted once).
    dataset : str, optional
        The data set to draw, when the results hold several: its name (for two data
        sets of one name, the sha256 of its data, 8 characters or more).

    Returns
    -------
    matplotlib.figure.Figure
        The figure: training time on a log scale, the methods on the Pareto front
        (none other is both faster and more accurate) ringed, named and joined.

    See Also
    --------
    plot_accuracy_by_k, read_results
    """
    table = _one_table(results, dataset)
    return draw_accuracy_by_time(accuracy_by_time_data(table.rows, table.title))
