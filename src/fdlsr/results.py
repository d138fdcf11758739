"""The results of ``fdlsr run`` as data and as figures.

* :func:`read_results`: one or several results folders as a pandas ``DataFrame``,
  one row per run (needs pandas: ``pip install "fdlsr[pandas]"``).
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
from ._experiments.report import paper_results
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
