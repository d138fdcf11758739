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
import math
import textwrap
from dataclasses import dataclass

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

from .._common.messages import did_you_mean  # noqa: E402
from ..errors import ConfigError  # noqa: E402
from .escape import one_line  # noqa: E402
from .figures import file_stem, output_files, save_figure  # noqa: E402
from .registry import METHODS, family_rank  # noqa: E402
from .report import FAMILY_TITLES, paper_results, summarise, table_rows  # noqa: E402
from .result_tables import pooled_tables  # noqa: E402
from .variants import times_k  # noqa: E402

# The keys of the figures' numbers (their JSON), each naming its unit.
MEAN, STD, TRAIN = "accuracy_mean_pct", "accuracy_std_pct", "train_time_s"
# The figures' names, after the data set's (``feret_accuracy_by_k.png``).
KINDS = ("accuracy_by_k", "accuracy_by_time")
# The method every panel draws for reference.
REFERENCE = "FDLSR"
# A family's marker; its methods' colours from PALETTE (tab10 without its red, grey
# and black-like shades), distinct within a family of up to 8.
FAMILY_MARKERS = {
    "proposed": "*",
    "representation": "o",
    "dictionary": "s",
    "relaxed": "^",
    "scikit-learn": "D",
}
PALETTE = (
    "tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:pink",
    "tab:olive", "tab:cyan",
)  # fmt: skip
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "h")
LINE_STYLES = ("-", "--", ":", "-.")


@dataclass(frozen=True)
class Style:
    """How a method is drawn: its colour and marker."""

    colour: tuple
    marker: str


def method_style(method, family):
    """The colour and marker of ``method`` in every figure: its family's marker, and
    a colour of a qualitative palette given by its place among the family's
    registered methods, so that the methods of one family (one panel) are told
    apart; FDLSR, the reference, is black. A method the registry does not know:
    grey, a marker from its name."""
    if method == REFERENCE:
        return Style((0.0, 0.0, 0.0, 1.0), "*")
    members = [m.name for m in METHODS.values() if m.family == family]
    if family in FAMILY_MARKERS and method in members:
        colour = PALETTE[members.index(method) % len(PALETTE)]
        return Style(matplotlib.colors.to_rgba(colour), FAMILY_MARKERS[family])
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


def accuracy_by_k_data(frame, paper=None, title=""):
    """The numbers of the accuracy-against-k figure of one table's ``frame`` (the
    cells of its table: :func:`.report.summarise`).

    Returns
    -------
    data : dict
        ``title``, ``ks`` (the columns, in order), ``lines``: per table row of ours
        ``label``, ``method``, ``family``, and per k its ``accuracy_mean_pct``,
        ``accuracy_std_pct`` (in %) and ``n`` (splits; None where it did not run),
        and ``paper``: the paper's rows alike (means only, the std where printed).
    """
    ks, table = table_rows(summarise(frame), paper)
    lines, printed = [], []
    for row in table:
        cells = [row["cells"].get(k) for k in ks]
        entry = {
            "label": row["label"],
            "method": row["method"],
            "family": row["family"],
            MEAN: [c[0] if c else None for c in cells],
            STD: [c[1] if c else None for c in cells],
        }
        if row["source"] == "ours":
            lines.append({**entry, "n": [c[2] if c else None for c in cells]})
        else:
            printed.append(entry)
    return {"title": title, "ks": ks, "lines": lines, "paper": printed}


def accuracy_by_time_data(frame, title=""):
    """The numbers of the accuracy-against-time figure of one table's ``frame``: at
    the ``k`` of the table's times (:func:`.variants.times_k`: the largest number of
    samples per class, else the data set's own split), each variant's mean accuracy
    and training cost (a tuned method's tuning plus its fit, as the table's
    "Training time (s)"), and whether it is on the Pareto front. A variant without a
    result at that k is left out.

    Returns
    -------
    data : dict
        ``title``, ``k``, ``train_time`` (what the times sum) and ``points``:
        ``label``, ``method``, ``family``, ``train_time_s`` (the point's place:
        ``tune_time_s + fit_time_s``), ``fit_time_s``, ``tune_time_s``,
        ``accuracy_mean_pct``, ``accuracy_std_pct``, ``n`` and ``pareto``.
    """
    summary = [s for s in summarise(frame) if s["mean"] is not None]
    k = times_k(s["k"] for s in summary)  # the table's times are at this k too
    _, table = table_rows([s for s in summary if s["k"] == k])
    points = [
        {
            "label": row["label"],
            "method": row["method"],
            "family": row["family"],
            TRAIN: row["train_time"],
            "fit_time_s": row["fit_time"],
            "tune_time_s": row["tune_time"],
            MEAN: row["cells"][k][0],
            STD: row["cells"][k][1],
            "n": row["cells"][k][2],
        }
        for row in table
    ]
    front = set(pareto_front([(max(p[TRAIN], 0.0), p[MEAN]) for p in points]))
    for i, point in enumerate(points):
        point["pareto"] = i in front
    return {
        "title": title,
        "k": k,
        "train_time": "train_time_s = tune_time_s + fit_time_s: the search of "
        "cross-validation (0 where nothing was tuned) plus the final fit, the mean "
        "over the splits",
        "points": points,
    }


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
    """The accuracy-against-k figure of :func:`accuracy_by_k_data` (a Figure): one
    panel per family (small multiples, shared axes), FDLSR drawn in each for
    reference, each panel's legend under it."""
    ks, lines = data["ks"], data["lines"]
    reference = [line for line in lines if line["method"] == REFERENCE]
    families = _panels(lines, data["paper"])
    columns = 2 if len(families) > 1 else 1
    rows = math.ceil(len(families) / columns)
    fig, axes = plt.subplots(
        rows, columns, figsize=(5.6 * columns, 3.9 * rows + 0.6), sharex=True,
        sharey=True, squeeze=False, layout="constrained",
    )  # fmt: skip
    x = list(range(len(ks)))
    styles = _variant_styles((line["label"], line["method"]) for line in lines)
    by_method = {line["method"]: line for line in lines}
    drawn_paper = False
    for i, (ax, family) in enumerate(zip(axes.flat, families, strict=False)):
        below = -0.24 if i >= len(families) - columns else -0.14  # under the k label
        own = [line for line in lines if line["family"] == family]
        shown = own + [line for line in reference if line not in own]
        # each line a little apart, so that the error bars do not hide each other
        width = 0.24 / max(len(shown), 1)
        offset = {
            line["label"]: (i - (len(shown) - 1) / 2) * width
            for i, line in enumerate(shown)
        }
        handles = []
        for line in shown:
            handle = _draw_line(ax, line, x, offset[line["label"]], styles)
            if handle is not None:
                handles.append(handle)
        for row in data["paper"]:
            ours = _same_method(row["method"], by_method)
            if (by_method[ours]["family"] if ours else row["family"]) != family:
                continue
            style = method_style(ours or row["method"], row["family"])
            dx = offset.get(by_method[ours]["label"], 0.0) if ours else 0.0
            xs = [xi + dx for xi, m in zip(x, row[MEAN], strict=True) if m is not None]
            means = [m for m in row[MEAN] if m is not None]
            ax.plot(
                xs, means, linestyle="none", marker=style.marker, markersize=6,
                markerfacecolor="none", markeredgecolor=style.colour,
                markeredgewidth=1.1,
            )  # fmt: skip
            if not ours:
                handles.append(
                    Line2D(
                        [], [], linestyle="none", marker=style.marker,
                        markerfacecolor="none", markeredgecolor=style.colour,
                        label=_literal(f"{one_line(row['method'])} (paper only)"),
                    )
                )  # fmt: skip
            drawn_paper = drawn_paper or bool(means)
        ax.set_title(_literal(_family_title(family)), fontsize=10, loc="left")
        ax.grid(alpha=0.3)
        ax.legend(
            handles=handles, loc="upper center", bbox_to_anchor=(0.5, below),
            ncols=2, fontsize=7.5, frameon=False, handlelength=2.4,
            columnspacing=1.2, labelspacing=0.3,
        )  # fmt: skip
    for ax in axes.flat[len(families) :]:
        ax.set_visible(False)
    for ax in axes.flat[: len(families)]:
        ax.set_xticks(x, [str(k) for k in ks])
        ax.tick_params(labelbottom=True)
        ax.set_xlim(-0.5, len(ks) - 0.5)
    for ax in axes[:, 0]:
        ax.set_ylabel("test accuracy (%)")
    for ax in axes.flat[max(len(families) - columns, 0) : len(families)]:
        ax.set_xlabel("k (training samples per class)")
    what = "mean ± std over the splits, k = training samples per class"
    if reference:
        what += f"; {REFERENCE} (black) in every panel"
    if drawn_paper:
        what += "; hollow markers: the paper's numbers"
    fig.suptitle(_title(data["title"], what), fontsize=10)
    return fig


def _panels(lines, paper):
    """The families that get a panel, in the paper's order: those of our lines (the
    reference's own only if it is alone) and of the paper's rows without ours."""
    ours = {line["method"] for line in lines}
    families = {line["family"] for line in lines if line["method"] != REFERENCE}
    families |= {
        row["family"] for row in paper if not _same_method(row["method"], ours)
    }
    if not families:
        families = {line["family"] for line in lines} or {"proposed"}
    return sorted(families, key=lambda family: (family_rank(family), str(family)))


def _family_title(family):
    title = FAMILY_TITLES.get(family, str(family)).split(" (")[0]
    return title[:1].upper() + title[1:]


def _draw_line(ax, line, x, dx, styles):
    """One line of ours with its error bars; its legend handle (None: no mean)."""
    style = method_style(line["method"], line["family"])
    cells = [
        (xi + dx, m, s or 0.0)
        for xi, m, s in zip(x, line[MEAN], line[STD], strict=True)
        if m is not None
    ]
    if not cells:
        return None
    xs, means, stds = zip(*cells, strict=True)
    reference = line["method"] == REFERENCE
    ax.errorbar(
        xs, means, yerr=stds, color=style.colour, marker=style.marker,
        markersize=7 if style.marker == "*" else 4.5,
        linestyle=styles[line["label"]], linewidth=2.0 if reference else 1.3,
        elinewidth=0.8, capsize=2, zorder=3 if reference else 2,
    )  # fmt: skip
    return Line2D(
        [], [], color=style.colour, marker=style.marker,
        linestyle=styles[line["label"]], linewidth=1.3,
        markersize=6 if style.marker == "*" else 4,
        label=_literal(one_line(line["label"])),
    )  # fmt: skip


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
            [max(p[TRAIN], 1e-6)],
            [p[MEAN]],
            yerr=[p[STD] or 0.0],
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
    front = sorted((p for p in points if p["pareto"]), key=lambda p: p[TRAIN])
    if front:
        xs = [max(p[TRAIN], 1e-6) for p in front]
        ys = [p[MEAN] for p in front]
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
    # a label at every decade the axis spans, written as numbers (0.01, 1, 100)
    ax.xaxis.set_major_locator(LogLocator(base=10, numticks=100))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(
        f"training time at k={data['k']} (s, log scale; a tuned method's tuning "
        "plus its fit)"
    )
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
        data = accuracy_by_k_data(table.frame, paper, table.title)
        written += save_figure(
            draw_accuracy_by_k(data), out, f"{name}_accuracy_by_k", data
        )
        data = accuracy_by_time_data(table.frame, table.title)
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
    data = accuracy_by_k_data(table.frame, _paper(table, paper), table.title)
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
    return draw_accuracy_by_time(accuracy_by_time_data(table.frame, table.title))
