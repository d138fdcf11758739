"""The paper's evaluation protocol, under its old import path.

The protocol lives in one module per concept; this module re-exports their public
names so that ``from fdlsr.experiments.protocol import ...`` keeps working:

* :mod:`fdlsr.core.model_selection`: the per-class split (:func:`per_class_split`,
  :class:`PerClassSplit`);
* :mod:`.splits`: fixed splits, seeds and random states, the inner cross-validation;
* :mod:`.samples`: the samples the methods see (unit L2 norm per sample) and the
  warnings about them;
* :mod:`.planning`: what to run (:class:`Experiment`) and every run of it (:class:`Unit`);
* :mod:`.evaluation`: one run of one method (tune, warm up, fit, predict, its row);
* :mod:`.scheduler`: where and in which order the runs are computed, each row stored.
"""

from ..core.model_selection import PerClassSplit, per_class_split
from .evaluation import evaluate_split, tune
from .planning import Experiment, Unit, experiment_runs
from .samples import prepare, unit_rows
from .splits import inner_cv, run_random_state, seeded

__all__ = [
    "Experiment",
    "PerClassSplit",
    "Unit",
    "evaluate_split",
    "experiment_runs",
    "inner_cv",
    "per_class_split",
    "prepare",
    "run_random_state",
    "seeded",
    "tune",
    "unit_rows",
]
