"""Paired statistics of the methods of a results frame: does one beat another on the
same splits, and by how much that the splits' noise cannot explain.

*Per table* (one data set and k), :func:`paired_comparison` compares each method with
a reference over the runs both made with the same seed and split index (the same
training and test samples): wins, ties and losses, the mean difference in test
accuracy and its standard deviation, the two-sided Wilcoxon signed-rank test
(``scipy.stats.wilcoxon``) and Holm's correction across the methods of the table.

*Across tables* (several data sets and k), :func:`rank_comparison` ranks the methods
by mean accuracy in each table and tests whether the average ranks differ (Demšar
2006: the Friedman test, its Iman-Davenport F form, and the Nemenyi critical
difference), drawn by :func:`plot_critical_difference`.

Both read the frame of :func:`.results_frame.read_results` (one row per run); a
method is a row label of the tables (its ``label`` column). :func:`statistics_text`
and :func:`statistics_html` render them for ``fdlsr report --stats`` and the HTML
report.
"""

import io
import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import ConfigError
from .escape import csv_cell, html, markdown
from .results_frame import read_results
from .variants import k_order

#: The frame's column compared: test accuracy as a fraction in [0, 1].
ACCURACY = "accuracy"
#: Differences are reported in percentage points: 100 times the fractions'.
POINTS = 100.0
#: Differences are rounded to this many decimals before counting and ranking, so
#: that two splits on which the methods differ by the same number of test samples
#: tie (their fractions' differences may differ in the last bits).
DECIMALS = 12
#: Below this many non-zero differences no two-sided Wilcoxon p-value is below 0.05
#: (the smallest, all of one sign, is 2 / 2**n: 0.0625 for n = 5).
WILCOXON_05 = 6
#: The columns of :func:`paired_comparison`, in order.
PAIRED_COLUMNS = (
    "dataset", "data_sha256", "k", "method", "reference", "paired", "n_pairs", "wins", "ties",
    "losses", "mean_difference_pp", "std_difference_pp", "wilcoxon_p", "holm_p",
    "note",
)  # fmt: skip
#: Demšar (2006), Table 5(a): the Nemenyi test's q_0.05 for 2 to 10 methods.
Q_05 = (1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164)


def paired_comparison(frame, reference="FDLSR"):
    """Each method against ``reference`` on the splits both ran, per data set and k.

    Two runs are a pair when they are of the same data set and k and have the same
    ``seed`` and ``split`` (so the same training and test samples) and both gave an
    accuracy. Runs without such a partner are left out; a method that shares no
    split with the reference (other seeds, other splits) is not paired at all: its
    row says so (``paired`` False, ``n_pairs`` 0) and has no statistics.

    Parameters
    ----------
    frame : pandas.DataFrame
        The frame of :func:`fdlsr.results.read_results`; methods are its ``label``
        values (the tables' row labels).
    reference : str, default="FDLSR"
        The method the others are compared with: a label, or a method name that has
        one label in a table.

    Returns
    -------
    comparison : pandas.DataFrame
        One row per data set, k and method other than the reference, with the columns

        * ``dataset``, ``data_sha256`` (which data of that name: two data sets of
          one name are two tables), ``k``, ``method``, ``reference``;
        * ``paired`` (whether any split is shared) and ``n_pairs`` (how many);
        * ``wins``, ``ties``, ``losses``: the pairs on which the method's accuracy is
          above, equal to, below the reference's;
        * ``mean_difference_pp``, ``std_difference_pp``: the mean and standard
          deviation (``ddof=1``) of the method's accuracy minus the reference's, in
          percentage points (positive: the method is better);
        * ``wilcoxon_p``: the two-sided p-value of ``scipy.stats.wilcoxon`` on the
          differences (its defaults: zero differences dropped; exact or normal
          approximation as it chooses); NaN when no difference is non-zero;
        * ``holm_p``: ``wilcoxon_p`` adjusted by Holm's step-down method across the
          methods of one data set and k that have one;
        * ``note``: why a value is missing, what was left out, or that too few
          differences are non-zero for any p-value to reach 0.05.

        Differences are rounded to 12 decimals before they are counted and tested,
        so that equal differences in test samples are equal.

    Raises
    ------
    fdlsr.errors.ConfigError
        If ``reference`` is in no table of the frame.

    See Also
    --------
    rank_comparison : the methods' average ranks across data sets and k.

    Examples
    --------
    >>> from fdlsr.results import paired_comparison, read_results
    >>> frame = read_results("docs/results/feret")  # doctest: +SKIP
    >>> paired_comparison(frame).query("holm_p < 0.05")  # doctest: +SKIP
    """
    out = []
    found = False
    for (dataset, data, k), table in _tables(frame):
        ref = _reference_label(table, reference)
        if ref is None:
            continue
        found = True
        ref_acc = _accuracies(table[table["label"] == ref])
        rows = []
        for label in _labels(table):
            if label == ref:
                continue
            acc = _accuracies(table[table["label"] == label])
            rows.append(_pair(dataset, data, k, label, ref, acc, ref_acc))
        for row, adjusted in zip(
            rows, holm([r["wilcoxon_p"] for r in rows]), strict=True
        ):
            row["holm_p"] = adjusted
        out += rows
    if not found and len(frame):
        names = ", ".join(sorted(map(str, frame["label"].unique())))
        raise ConfigError(
            f"the reference {reference!r} is not a method of these results; name one "
            f"of: {names}"
        )
    return pd.DataFrame(out, columns=list(PAIRED_COLUMNS))


def _tables(frame):
    """``((dataset, data_sha256, k), rows)`` per table of ``frame``: data sets by
    name, then data (runs that record no data join the one data of their name, as
    in the tables), k in order."""
    data = frame["data_sha256"].astype("object")
    for name in frame["dataset"].unique():
        of_name = frame["dataset"] == name
        hashes = data[of_name].dropna().unique()
        if len(hashes) == 1:
            data = data.where(~(of_name & data.isna()), hashes[0])
    data = data.where(data.notna(), "")
    keys = pd.DataFrame({"dataset": frame["dataset"], "data": data, "k": frame["k"]})
    keys = keys.drop_duplicates().itertuples(index=False)
    keys = sorted(keys, key=lambda key: (str(key[0]), key[1], k_order(key[2])))
    for dataset, sha, k in keys:
        rows = (frame["dataset"] == dataset) & (data == sha) & (frame["k"] == k)
        yield (dataset, sha or None, k), frame[rows]


def _labels(table):
    """The methods of ``table`` in the order of their first run."""
    return list(dict.fromkeys(table["label"].astype(str)))


def _reference_label(table, reference):
    """The label of ``reference`` in ``table``: itself, or the one label of the
    method of that name; None if neither."""
    labels = set(table["label"].astype(str))
    if reference in labels:
        return reference
    theirs = set(table.loc[table["method"] == reference, "label"].astype(str))
    return theirs.pop() if len(theirs) == 1 else None


def _accuracies(runs):
    """``{(seed, split): accuracy}`` of the runs that gave one (the first run of a
    seed and split where a frame pools two data of one name)."""
    runs = runs[runs[ACCURACY].notna()]
    acc = {}
    for seed, split, value in zip(
        runs["seed"], runs["split"], runs[ACCURACY], strict=True
    ):
        acc.setdefault((int(seed), int(split)), float(value))
    return acc


def _pair(dataset, data, k, label, ref, acc, ref_acc):
    """The row of :func:`paired_comparison` of one method in one table."""
    shared = sorted(set(acc) & set(ref_acc))
    row = dict.fromkeys(PAIRED_COLUMNS, math.nan)
    row.update(dataset=dataset, data_sha256=data, k=k, method=label, reference=ref)
    row.update(paired=bool(shared), n_pairs=len(shared), wins=0, ties=0, losses=0)
    notes = []
    if not shared:
        failed = label if not acc else ref if not ref_acc else None
        row["note"] = (
            f"not paired: no run of {failed} gave an accuracy"
            if failed
            else f"not paired: no seed and split in common with {ref} ({label}: "
            f"{_splits_text(acc)}; {ref}: {_splits_text(ref_acc)})"
        )
        return row
    unpaired = len(acc) - len(shared)
    if unpaired:
        notes.append(f"{unpaired} of its {len(acc)} runs have no {ref} run to pair")
    d = np.round([acc[key] - ref_acc[key] for key in shared], DECIMALS)
    row.update(wins=int((d > 0).sum()), ties=int((d == 0).sum()))
    row["losses"] = int((d < 0).sum())
    row["mean_difference_pp"] = POINTS * float(d.mean())
    row["std_difference_pp"] = POINTS * float(d.std(ddof=1)) if d.size > 1 else math.nan
    nonzero = row["wins"] + row["losses"]
    if nonzero == 0:
        notes.append(f"no p-value: all {d.size} differences are zero")
    else:
        row["wilcoxon_p"] = wilcoxon_p(d)
        if nonzero < WILCOXON_05:
            notes.append(
                f"{nonzero} non-zero difference{'s' if nonzero > 1 else ''}: "
                f"no p-value can be below 0.05 with fewer than {WILCOXON_05}"
            )
    row["note"] = "; ".join(notes)
    return row


def wilcoxon_p(d):
    """The two-sided p-value of ``scipy.stats.wilcoxon(d)`` with its defaults.

    With ties or zeros among at most 13 differences scipy computes it by a
    permutation test over every change of signs, calling its statistic once per
    change (about 0.3 s for 10 differences); here the same permutation test
    (``scipy.stats.permutation_test``, every change, the same statistic: the sum of
    the ranks of the positive differences, zeros dropped) is run with the
    statistic over all the changes at once. Otherwise scipy's own call.
    """
    d = np.asarray(d, dtype=float)
    nonzero = d[d != 0]
    has_ties = np.unique(np.abs(nonzero)).size < nonzero.size
    with warnings.catch_warnings():  # scipy's choice of method, said in its docs
        warnings.simplefilter("ignore")
        if d.size > 13 or not (has_ties or nonzero.size < d.size):
            return float(stats.wilcoxon(d).pvalue)
        # the ranks of |d| (zeros dropped) do not change with the signs
        ranks = np.zeros(d.size)
        ranks[d != 0] = stats.rankdata(np.abs(nonzero))

        def r_plus(x, axis=-1):
            return np.sum(np.where(x > 0, ranks, 0.0), axis=axis)

        test = stats.permutation_test(
            (d,), r_plus, permutation_type="samples", n_resamples=np.inf,
            vectorized=True, alternative="two-sided", axis=-1,
        )  # fmt: skip
    return float(test.pvalue)


def _splits_text(acc):
    seeds = sorted({seed for seed, _ in acc})
    if not acc:
        return "no runs with an accuracy"
    return (
        f"{len(acc)} run{'s' if len(acc) != 1 else ''} of seed"
        f"{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}"
    )


def holm(pvalues):
    """Holm's step-down adjustment of ``pvalues`` (NaN stays NaN and is not counted).

    The i-th smallest of m p-values becomes ``max_{j <= i} min(1, (m - j + 1) p_(j))``.
    """
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    order = valid[np.argsort(p[valid], kind="stable")]
    m = order.size
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(scaled)
    return out


# -- across tables ------------------------------------------------------------------


@dataclass(frozen=True)
class RankComparison:
    """The methods' ranks across tables and Demšar's (2006) tests of them, as
    :func:`rank_comparison` computes them (each field is an attribute of the result).

    Parameters
    ----------
    ranks : pandas.DataFrame
        One row per table (``dataset``, ``data_sha256``, ``k``), one column per
        method: its rank by
        mean accuracy in that table (1 the best; ties share the mean of their ranks).
    average_ranks : pandas.Series
        Per method, its mean rank over the tables, best first.
    n_tables, n_methods : int
        N and k of Demšar's formulas.
    friedman_chi2, friedman_p : float
        Friedman's statistic from the average ranks (Demšar's Eq., without a
        correction for ties) and its chi-square p-value (k - 1 degrees of freedom).
    iman_davenport_f, iman_davenport_p : float
        Iman and Davenport's F form of it and its p-value (k - 1 and
        (k - 1)(N - 1) degrees of freedom), the less conservative test Demšar
        recommends.
    alpha : float
        The level of the critical difference.
    q_alpha : float
        The Nemenyi test's critical value: Demšar's Table 5 for alpha = 0.05 and up
        to 10 methods, else the studentized range's quantile over sqrt(2).
    critical_difference : float
        ``q_alpha * sqrt(k (k + 1) / (6 N))``: two methods whose average ranks
        differ by less are not significantly different (Nemenyi).
    notes : tuple of str
        What was left out (methods without a result in every table) and why a
        value is missing.
    """

    ranks: pd.DataFrame
    average_ranks: pd.Series
    n_tables: int
    n_methods: int
    friedman_chi2: float
    friedman_p: float
    iman_davenport_f: float
    iman_davenport_p: float
    alpha: float
    q_alpha: float
    critical_difference: float
    notes: tuple = ()


def rank_comparison(frame, alpha=0.05):
    """Average ranks of the methods across the tables of ``frame`` (data sets and k),
    the Friedman test and the Nemenyi critical difference (Demšar 2006).

    In each table (one data set and k) the methods are ranked by their mean accuracy
    over its runs (1 the best, ties averaged). Only methods with a mean in every
    table are ranked (the tests need every method in every table); the others are
    named in ``notes``. The k of one data set share their test samples' source, so
    they are not independent data sets as the test assumes: read the p-value as a
    guide, not a guarantee.

    Parameters
    ----------
    frame : pandas.DataFrame
        The frame of :func:`fdlsr.results.read_results`.
    alpha : float, default=0.05
        The level of the critical difference.

    Returns
    -------
    RankComparison

    See Also
    --------
    paired_comparison, plot_critical_difference

    References
    ----------
    J. Demšar, "Statistical comparisons of classifiers over multiple data sets",
    Journal of Machine Learning Research 7 (2006) 1-30.
    """
    means = {}
    for key, table in _tables(frame):
        runs = table[table[ACCURACY].notna()]
        means[key] = runs.groupby(runs["label"].astype(str))[ACCURACY].mean()
    means = pd.DataFrame(means).T  # tables x methods
    labels = _labels(frame)
    means = means.reindex(columns=[m for m in labels if m in means.columns])
    complete = means.columns[means.notna().all(axis=0)]
    notes = []
    left = [m for m in means.columns if m not in complete]
    if left:
        notes.append(f"not ranked (no result in every table): {', '.join(left)}")
    means = means[complete]
    means.index.names = ["dataset", "data_sha256", "k"]
    ranks = means.rank(axis=1, ascending=False, method="average")
    average = ranks.mean(axis=0).sort_values(kind="stable")
    n, k = ranks.shape
    chi2 = f_id = p_chi2 = p_f = cd = q = math.nan
    if n >= 2 and k >= 2:
        chi2 = (
            12 * n / (k * (k + 1)) * (float((average**2).sum()) - k * (k + 1) ** 2 / 4)
        )
        p_chi2 = float(stats.chi2.sf(chi2, k - 1))
        denominator = n * (k - 1) - chi2
        f_id = (n - 1) * chi2 / denominator if denominator > 0 else math.inf
        p_f = float(stats.f.sf(f_id, k - 1, (k - 1) * (n - 1)))
        q = q_alpha(k, alpha)
        cd = q * math.sqrt(k * (k + 1) / (6 * n))
    else:
        notes.append(
            f"no test: it needs at least 2 tables and 2 methods ranked in each "
            f"(here {n} and {k})"
        )
    return RankComparison(
        ranks, average, n, k, chi2, p_chi2, f_id, p_f, alpha, q, cd, tuple(notes)
    )


def q_alpha(k, alpha=0.05):
    """The Nemenyi test's critical value for ``k`` methods: Demšar's (2006) Table 5
    for alpha = 0.05 and k <= 10, else the studentized range's ``1 - alpha``
    quantile (infinite degrees of freedom) over sqrt(2), from which that table
    comes."""
    if alpha == 0.05 and 2 <= k <= len(Q_05) + 1:
        return Q_05[k - 2]
    return float(stats.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2))


def plot_critical_difference(comparison, ax=None):
    """Demšar's critical-difference diagram of a :class:`RankComparison`.

    The methods on an axis of average rank (1, the best, on the left), half named on
    each side; a thick line joins methods whose average ranks differ by less than
    the critical difference (not significantly different, Nemenyi), and a bar above
    the axis shows its length.

    Parameters
    ----------
    comparison : RankComparison
        From :func:`rank_comparison`.
    ax : matplotlib Axes, optional
        Where to draw; by default a new figure sized to the number of methods.

    Returns
    -------
    figure : matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    average = comparison.average_ranks
    k = len(average)
    half = (k + 1) // 2
    cd = comparison.critical_difference
    cliques = _cliques(average.to_numpy(), cd) if math.isfinite(cd) else []
    top = 0.6 + 0.3 * len(cliques)  # the first label's row, below the cliques
    if ax is None:
        height = 1.4 + 0.22 * (half + top)
        _, ax = plt.subplots(figsize=(8, height), layout="constrained")
    fig = ax.figure
    low, high = 1, max(k, 2)
    ax.set_xlim(low - 0.5, high + 0.5)
    ax.set_ylim(top + half + 0.5, -1.6)
    ax.axis("off")
    ax.plot([low, high], [0, 0], color="black", lw=1)
    step = 1 if high <= 12 else 5
    for tick in range(low, high + 1):
        labelled = tick in (low, high) or tick % step == 0
        ax.plot([tick, tick], [0, -0.2 if labelled else -0.1], color="black", lw=1)
        if labelled:
            ax.text(tick, -0.3, str(tick), ha="center", va="bottom", fontsize=8)
    for i, (label, rank) in enumerate(average.items()):
        left = i < half
        row = top + (i if left else k - 1 - i)
        end = low - 0.4 if left else high + 0.4
        ax.plot([rank, rank, end], [0, row, row], color="0.45", lw=0.8)
        ax.text(
            end + (-0.05 if left else 0.05), row, f"{label} ({rank:.2f})",
            ha="right" if left else "left", va="center", fontsize=8,
        )  # fmt: skip
    if math.isfinite(cd):
        ax.plot([low, low + cd], [-1.1, -1.1], color="black", lw=2)
        ax.text(low + cd / 2, -1.2, f"CD = {cd:.2f}", ha="center", va="bottom",
                fontsize=8)  # fmt: skip
    for j, (start, stop) in enumerate(cliques):
        y = 0.3 + 0.3 * j
        ax.plot([start - 0.05, stop + 0.05], [y, y], color="black", lw=3)
    return fig


def _cliques(ranks, cd):
    """``[(lowest, highest), ...]``: the average ranks (sorted) of each largest run
    of methods whose ranks differ by less than ``cd``."""
    out = []
    for i in range(len(ranks)):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] - ranks[i] < cd:
            j += 1
        if j > i and not (out and out[-1][1] >= ranks[j]):
            out.append((ranks[i], ranks[j]))
    return out


# -- views ----------------------------------------------------------------------------


def frame_of_stores(folders):
    """``(frame, notices)``: :func:`.results_frame.read_results` of ``folders``, with
    what it would warn of returned as lines for the caller to print."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = read_results(list(folders))
    return frame, list(frame.attrs.get("notices", ()))


def stores_statistics_html(folders, png=None):
    """:func:`statistics_html` of the stores ``folders`` (each read once), for the
    HTML report; what reading them would warn of, the report says already."""
    return statistics_html(frame_of_stores(dict.fromkeys(folders))[0], png=png)


def statistics_of_stores(folders, reference="FDLSR", fmt="md"):
    """``(text, notices)`` of ``fdlsr report --stats``: :func:`statistics_text` of
    the stores ``folders``."""
    frame, notices = frame_of_stores(folders)
    return statistics_text(frame, reference, fmt), notices


def statistics_frame(frame, reference="FDLSR"):
    """The rows of ``fdlsr report --stats --format csv``: :func:`paired_comparison`
    with each method's ``average_rank`` across the frame's tables (NaN where it is
    not ranked)."""
    paired = paired_comparison(frame, reference)
    average = rank_comparison(frame).average_ranks
    paired["average_rank"] = paired["method"].map(average).astype(float)
    return paired


def statistics_text(frame, reference="FDLSR", fmt="md"):
    """``fdlsr report --stats``: Markdown tables of :func:`paired_comparison`, one
    per data set and k, and the ranks of :func:`rank_comparison` (``fmt="md"``), or
    the CSV of :func:`statistics_frame` (``fmt="csv"``)."""
    if fmt == "csv":
        buffer = io.StringIO()
        table = statistics_frame(frame, reference).astype(object)
        table = table.map(lambda v: csv_cell(v) if isinstance(v, str) else v)
        table.to_csv(buffer, index=False)
        return buffer.getvalue()
    paired = paired_comparison(frame, reference)
    out = []
    header = (
        "| Method | Pairs | Wins / ties / losses | Mean diff. (pp) | SD (pp) "
        "| Wilcoxon p | Holm p | Note |\n|---|---:|---:|---:|---:|---:|---:|---|"
    )
    several = paired.groupby("dataset")["data_sha256"].nunique(dropna=False) > 1
    groups = paired.groupby(["dataset", "data_sha256", "k"], sort=False, dropna=False)
    for (dataset, data, k), rows in groups:
        ref = rows["reference"].iloc[0]
        name = f"{dataset} (data {str(data)[:12]})" if several[dataset] else dataset
        out.append(
            f"### {markdown(name)}, k={markdown(k)}: against "
            f"{markdown(ref)}, on the same splits\n\n{header}"
        )
        for row in rows.itertuples(index=False):
            out.append(
                f"| {markdown(row.method)} | {row.n_pairs} | "
                f"{row.wins} / {row.ties} / {row.losses} | "
                f"{_num(row.mean_difference_pp, '+.2f')} | "
                f"{_num(row.std_difference_pp, '.2f')} | {_p(row.wilcoxon_p)} | "
                f"{_p(row.holm_p)} | {markdown(row.note)} |"
            )
        out.append("")
    out.append(_ranks_text(rank_comparison(frame)))
    return "\n".join(out) + "\n"


def _ranks_text(ranks):
    lines = [
        f"### Average ranks over {ranks.n_tables} tables (data set and k)\n",
        "| Method | Average rank |\n|---|---:|",
    ]
    lines += [f"| {markdown(m)} | {r:.2f} |" for m, r in ranks.average_ranks.items()]
    lines += ["", _friedman_sentence(ranks)]
    for text in ranks.notes:
        lines += ["", markdown(text)]
    return "\n".join(lines) + "\n"


def _friedman_sentence(ranks):
    if not math.isfinite(ranks.friedman_chi2):
        return "No Friedman test."
    return (
        f"Friedman (Demšar 2006): chi2_F = {ranks.friedman_chi2:.2f} "
        f"(p = {_p(ranks.friedman_p)}); Iman-Davenport F_F = "
        f"{ranks.iman_davenport_f:.2f} (p = {_p(ranks.iman_davenport_p)}); "
        f"Nemenyi critical difference at alpha = {ranks.alpha:g}: "
        f"{ranks.critical_difference:.2f} (q = {ranks.q_alpha:.3f}, "
        f"{ranks.n_methods} methods, {ranks.n_tables} tables). The k of one data "
        "set are not independent data sets: read the p-values as a guide."
    )


def _num(value, spec):
    return "—" if value is None or not math.isfinite(value) else format(value, spec)


def _p(value):
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value:.2g}" if value < 0.001 else f"{value:.3f}"


def statistics_html(frame, reference="FDLSR", png=None):
    """The HTML report's section of paired statistics: per data set a table of the
    methods against ``reference`` at each k (wins/ties/losses, mean difference,
    Holm-adjusted p), then the average ranks, the Friedman test and (given ``png``,
    a function from a Figure to an ``<img`` tag's start) the critical-difference
    diagram. Every text from the frame is escaped."""
    try:
        paired = paired_comparison(frame, reference)
    except ConfigError:
        return (
            '<section id="statistics"><h2>Paired statistics</h2><p class="muted">'
            f"No paired statistics: {html(reference)} is not among the methods."
            "</p></section>"
        )
    out = [
        '<section id="statistics">',
        "<h2>Paired statistics</h2>",
        f'<p class="muted">Each method against {html(reference)} on the splits both '
        "ran (same seed and split): wins / ties / losses, the mean difference in "
        "accuracy (percentage points, positive: the method is better) and the "
        "two-sided Wilcoxon signed-rank p-value with Holm's correction across the "
        "methods of one table (*: below 0.05); in each cell: wins/ties/losses, mean "
        "difference, Holm p. Methods run on other splits are not paired. "
        "<code>fdlsr report --stats</code> gives every value, "
        "<code>fdlsr.results.paired_comparison</code> the DataFrame.</p>",
    ]
    several = paired.groupby("dataset")["data_sha256"].nunique(dropna=False) > 1
    for (dataset, data), rows in paired.groupby(
        ["dataset", "data_sha256"], sort=False, dropna=False
    ):
        ks = list(dict.fromkeys(rows["k"]))
        name = f"{dataset} (data {str(data)[:12]})" if several[dataset] else dataset
        out.append(f"<h3>{html(name)}</h3>")
        out.append(
            # wider than the page: it scrolls, no column is hidden
            '<table style="display: block; max-width: 100%; overflow-x: auto">'
            "<thead><tr><th>Method</th>"
            + "".join(f"<th>k={html(k)}</th>" for k in ks)
            + "</tr></thead><tbody>"
        )
        cells = {(r.method, r.k): r for r in rows.itertuples(index=False)}
        for method in dict.fromkeys(rows["method"]):
            out.append(
                f"<tr><td>{html(method)}</td>"
                + "".join(_html_cell(cells.get((method, k))) for k in ks)
                + "</tr>"
            )
        out.append("</tbody></table>")
    ranks = rank_comparison(frame)
    out.append(f"<h3>Average ranks over {ranks.n_tables} tables</h3>")
    out.append(f'<p class="notes">{html(_friedman_sentence(ranks))}</p>')
    out += [f'<p class="muted">{html(n)}</p>' for n in ranks.notes]
    if png is not None and math.isfinite(ranks.critical_difference):
        out.append(
            f'<figure>{png(plot_critical_difference(ranks))} alt="Critical-difference'
            ' diagram"><figcaption class="muted">Each method at its average rank (1:'
            " the best; in brackets); a thick line joins methods not significantly "
            f"different (Nemenyi, alpha = {ranks.alpha:g}).</figcaption></figure>"
        )
    else:  # no diagram: the ranks as a table
        out.append(
            "<table><thead><tr><th>Method</th><th>Average rank</th></tr></thead>"
            "<tbody>"
            + "".join(
                f"<tr><td>{html(m)}</td><td>{r:.2f}</td></tr>"
                for m, r in ranks.average_ranks.items()
            )
            + "</tbody></table>"
        )
    out.append("</section>")
    return "\n".join(out)


def _html_cell(row):
    if row is None:
        return "<td>—</td>"
    td = f'<td title="{html(row.note)}">' if row.note else "<td>"
    if not row.paired:
        return f"{td}not paired</td>"
    star = "*" if math.isfinite(row.holm_p) and row.holm_p < 0.05 else ""
    return (
        f"{td}{row.wins}/{row.ties}/{row.losses}, "
        f"{_num(row.mean_difference_pp, '+.2f')}, {_p(row.holm_p)}{star}</td>"
    )
