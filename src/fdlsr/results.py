"""The results of ``fdlsr run`` as data and as figures.

* :func:`read_results`: one or several results folders as a pandas ``DataFrame``,
  one row per run: the table every report and figure of fdlsr is computed from.
* :func:`plot_accuracy_by_k` and :func:`plot_accuracy_by_time`: the comparison
  figures of ``fdlsr plot results``, as matplotlib Figures.
* :func:`paired_comparison`: each method against a reference on the same splits
  (wins, ties, losses, Wilcoxon with Holm's correction); :func:`rank_comparison`
  and :func:`plot_critical_difference`: average ranks across data sets and k,
  Demšar's Friedman test and critical-difference diagram (``fdlsr report --stats``).
* :func:`paper_results`: the numbers of the paper's tables, as printed (``fdlsr
  report --paper``).

The results folders stay the source of truth; all of these are derived from them.
"""

from ._experiments.paired_stats import (
    RankComparison,
    paired_comparison,
    plot_critical_difference,
    rank_comparison,
)
from ._experiments.report import paper_results as _paper_results
from ._experiments.result_plots import plot_accuracy_by_k, plot_accuracy_by_time
from ._experiments.results_frame import read_results

__all__ = [
    "RankComparison",
    "paired_comparison",
    "paper_results",
    "plot_accuracy_by_k",
    "plot_accuracy_by_time",
    "plot_critical_difference",
    "rank_comparison",
    "read_results",
]


def paper_results(table, dataset=None):
    """The rows of one of the paper's tables, as printed.

    The numbers ship with the package, transcribed from the paper's LaTeX source
    (``fdlsr report --paper`` puts them beside ours).

    Parameters
    ----------
    table : {"I", "II", "III", "IV", "V", "VI"}
        The paper's table: I AR, II CMU PIE, III FERET, IV LFW, V COIL-100, VI
        VGG-19 features (one column per data set, its official split).
    dataset : str, optional
        Table VI's column: a registry name such as ``"cub200_vgg19"``, or a file
        named after one.

    Returns
    -------
    rows : list of dict
        One per method and ``k``: ``table``, ``dataset``, ``method`` (its name
        here) and ``paper_name``, ``family``, ``k``, ``mean`` and ``std`` (accuracy
        in %), ``train_time`` and ``test_time`` (seconds; None where the paper
        prints none).

    See Also
    --------
    read_results

    Examples
    --------
    >>> from fdlsr.results import paper_results
    >>> fdlsr = [r for r in paper_results("III") if r["method"] == "FDLSR"]
    >>> [r["k"] for r in fdlsr]
    [1, 2, 3, 4, 5]
    """
    return _paper_results(table, dataset)
