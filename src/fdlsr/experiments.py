"""Experiments under the paper's protocol, from Python: :func:`run_experiment`.

An experiment runs methods (FDLSR, the comparison methods of ``fdlsr methods``, and
any scikit-learn classifier of yours) on a data set, at ``k`` training samples per
class, over random per-class splits (:class:`~fdlsr.model_selection.PerClassSplit`),
the same splits for every method, into a results store (a folder) that it resumes:
the runs already stored are not computed again. It is what ``fdlsr run`` does (both
build one request and run it); :func:`fdlsr.results.read_results`, ``fdlsr report``
and ``fdlsr plot results`` read the store.

Your classifier runs as the registered methods do: a clone
(``sklearn.base.clone``) per run, fitted on the same unit-normalised samples of the
same splits. Its rows record its class's import path and its parameters
(``get_params(deep=False)``) in their setting: another value of a parameter is
another setting, with rows of its own. A run that raises records the error in its
row; the others go on. Reading a store never imports your code.
"""

from ._experiments.python_api import run_experiment

__all__ = ["run_experiment"]
