"""The splits and seeds of an experiment's runs.

*Splits.* ``k`` random training samples per class and every other sample for testing
(:func:`fdlsr.model_selection._split.per_class_split`), repeated ``n_splits`` times
(10 in the paper); ``k = "fixed"`` (:data:`FIXED`) is the train/test split a dataset
comes with, run once.

*Randomness.* A method with a ``random_state`` that no setting fixes gets one derived
from the seed and the split (:func:`run_random_state`), so a seeded experiment gives the
same numbers every time; the inner cross-validation's folds are shuffled with the seed
too (:func:`inner_cv`).
"""

import numpy as np
from sklearn.model_selection import StratifiedKFold

from ..model_selection._split import check_seed, per_class_split

DEFAULT_CV_FOLDS = 3
# The note of a tuned run that had nothing to validate on (one sample per class).
NO_INNER_CV = "k=1: no inner cross-validation possible, fixed parameters used"

FIXED = "fixed"
POOLED = (
    "the dataset comes with its own train/test split, but these k training samples "
    "per class were drawn from its training and test samples together (-k fixed "
    "runs its own split)"
)


def pools_fixed_split(dataset, k):
    """Whether a run with ``k`` per class ignores the dataset's own split (``POOLED``)."""
    return k != FIXED and getattr(dataset, "fixed_split", None) is not None


def split_indices(dataset, y, k, seed, index):
    """Training and test indices of one run: a random per-class split or the fixed one."""
    if k == FIXED:
        train, test = dataset.fixed_split
        return np.asarray(train), np.asarray(test)
    return per_class_split(y, k, seed, index)


def run_random_state(seed, index):
    """The ``random_state`` of the estimators of split ``index`` under ``seed``.

    Drawn from ``numpy.random.SeedSequence([seed, index, 1])``: a stream apart from the
    split's own (``[seed, index]``), the same in every process.
    """
    check_seed(seed)
    return int(np.random.SeedSequence([seed, index, 1]).generate_state(1)[0] >> 1)


def seeded(method, params, random_state):
    """``params`` plus ``random_state`` when the method's estimator takes one that
    neither its defaults nor ``params`` fix (otherwise it would draw from the global
    NumPy generator and differ from run to run)."""
    if random_state is None or "random_state" not in method.build().get_params():
        return params
    if {**method.params, **params}.get("random_state") is not None:
        return params
    return {**params, "random_state": random_state}


def inner_cv(k, seed, folds=DEFAULT_CV_FOLDS):
    """The cross-validation splitter used inside a training split, or None for ``k = 1``.

    With ``k`` training samples per class the inner cross-validation uses
    ``min(k, folds)`` stratified folds, so every class keeps a training sample in
    every fold; with ``k = 1`` no validation is possible.
    """
    if k is None or k >= 2:
        n = folds if k is None else min(k, folds)
        return StratifiedKFold(n_splits=n, shuffle=True, random_state=seed)
    return None
