"""The results of ``fdlsr run`` as data and as figures.

* :func:`read_results`: one or several results folders as a pandas ``DataFrame``,
  one row per run: the table every report and figure of fdlsr is computed from.
* :func:`plot_accuracy_by_k` and :func:`plot_accuracy_by_time`: the comparison
  figures of ``fdlsr plot results``, as matplotlib Figures.

The results folders stay the source of truth; all of these are derived from them.
"""

from ._experiments.result_plots import plot_accuracy_by_k, plot_accuracy_by_time
from ._experiments.results_frame import read_results

__all__ = ["plot_accuracy_by_k", "plot_accuracy_by_time", "read_results"]
