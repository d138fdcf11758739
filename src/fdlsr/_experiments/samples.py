"""The samples the methods see, and what the user hears about them before the runs.

Each sample is scaled to unit L2 norm before the methods see it, as in the paper
(Algorithm 1 takes "normalized training samples"). This is per sample, so it uses no
statistic of the test set. The scaling divides by the largest entry first, so samples
of any finite size (1e200 as well as 1e-200) keep their direction. A sample that is all
zero has no direction: it stays zero, and every row it takes part in carries a warning.
With ``--standardize`` the columns are first brought to zero mean and unit variance on
each training split (:func:`standardize_columns`, for columns on other scales:
:func:`scale_warnings`).
"""

import sys

import numpy as np

from .._common.linalg import normalize_rows
from .._common.memory import available_memory, size_in_words
from .._common.messages import setting
from ..errors import DatasetError
from .splits import POOLED, pools_fixed_split


def prepare(dataset, normalize=True):
    """The samples the methods see: float64, unit L2 norm per sample when ``normalize``."""
    X = np.asarray(dataset.X, dtype=np.float64)
    return unit_rows(X) if normalize else X


def standardize_columns(X, train):
    """``X`` with each column at zero mean and unit variance over the rows ``train``
    (a constant column is only centred), as ``StandardScaler`` fitted on them.

    Each column is first divided by the power of two at or just below its largest
    training entry, so that its variance is computed from numbers in (-2, 2)
    (``StandardScaler`` squares the raw entries: columns above about 1e154
    overflow). Dividing by a power of two is exact, and standardising undoes it:
    the result is that of the unscaled columns, to the bit.
    """
    from sklearn.preprocessing import StandardScaler

    X = np.asarray(X, dtype=np.float64)
    largest = np.max(np.abs(X[train]), axis=0, initial=0.0)
    # largest = m * 2**e with 0.5 <= m < 1 (0 for a zero column: divided by 0.5)
    X = X / np.ldexp(1.0, np.frexp(largest)[1] - 1)
    return StandardScaler().fit(X[train]).transform(X)


def unit_rows(X):
    """Each row of ``X`` divided by its L2 norm, as float64, without overflow or
    underflow (:func:`~fdlsr._common.linalg.normalize_rows`, the one normaliser,
    which ``fdlsr fit``'s model applies too: one copy of ``X``, scaled a block of
    rows at a time). An all-zero row stays zero."""
    return normalize_rows(X, dtype=np.float64)


# Copies of the samples that a run holds besides the data set's own: the samples as
# the methods see them, and the training and test rows of the split being run; with
# --standardize, a split's standardised samples too.
RUN_COPIES = 2


def check_run_memory(dataset, standardize=False, available=None):
    """Refuse, in one line, samples whose copies a run holds (:data:`RUN_COPIES`)
    would not fit in the memory this process can still allocate (``available``,
    default :func:`~fdlsr._common.memory.available_memory`; no check where unknown):
    before they are made, instead of a ``MemoryError`` or the system's
    out-of-memory killer halfway through."""
    available = available_memory() if available is None else available
    X = np.asarray(dataset.X)
    needed = (RUN_COPIES + bool(standardize)) * X.shape[0] * X.shape[1] * 8
    if available is not None and needed > available:
        size = "x".join(map(str, X.shape))
        raise DatasetError(
            f"the samples of {dataset.name} ({size}) need {size_in_words(needed)} "
            f"more for the copies a run makes of them (normalised, a split's "
            f"training and test rows), more than the {size_in_words(available)} of "
            "memory left; give less data (fewer samples, a smaller "
            f"{setting('resize', 'resize=(h, w)')}) or run on a machine with more "
            "memory"
        )


def zero_samples(X):
    """Indices of the samples (rows) that are all zero."""
    return np.flatnonzero(~np.any(X, axis=1))


def _zero_text(zero):
    some = "1 sample is" if zero.size == 1 else f"{zero.size} samples are"
    return (
        f"{some} all zero; such a sample has no direction to normalise and no class "
        "information (a method labels it arbitrarily): remove it from the data"
    )


def zero_warning(zero, train, test):
    """The warning stored in a row whose data holds the all-zero samples ``zero``."""
    n_train, n_test = int(np.isin(zero, train).sum()), int(np.isin(zero, test).sum())
    return f"DataWarning: {_zero_text(zero)} ({n_train} training, {n_test} test)"


# Column scales that warn: the largest column std this many times the median one's.
SCALE_SPREAD = 100


def scale_warnings(dataset):
    """A warning when the columns' scales differ by orders of magnitude (a table of
    measurements in several units), where per-sample normalisation lets the largest
    columns decide; image pixels and features of one kind stay within a few times."""
    X = np.asarray(dataset.X, dtype=np.float64)
    largest = np.max(np.abs(X), initial=0.0)
    # the ratio of scales, computed from numbers in [-1, 1]: squares of 1e300 overflow
    std = np.std(X / largest, axis=0) if largest > 0 else np.zeros(X.shape[1])
    std = std[std > 0]
    if std.size < 2 or std.max() <= SCALE_SPREAD * np.median(std):
        return []
    return [
        f"the columns' scales differ by orders of magnitude (the largest column "
        f"std is {std.max() / np.median(std):.0f} times the median one), so unit "
        "normalisation of each sample lets the largest columns decide; pass "
        "--standardize to bring the columns to one scale first"
    ]


def data_warnings(dataset, ks):
    """What the user should hear before the runs start: all-zero samples (stored as a
    warning in every row) and a ``k`` in ``ks`` that ignores the dataset's own split."""
    out = []
    zero = zero_samples(np.asarray(dataset.X))
    if zero.size:
        shown = ", ".join(str(i) for i in zero[:5]) + (", ..." if zero.size > 5 else "")
        out.append(f"{_zero_text(zero)} (0-based index {shown})")
    if any(pools_fixed_split(dataset, k) for k in ks):
        out.append(POOLED)
    return out


def warn(messages, dataset):
    """Print each of ``messages`` about ``dataset`` as a warning on stderr."""
    for message in messages:
        print(f"fdlsr: warning: {dataset.name}: {message}", file=sys.stderr)
