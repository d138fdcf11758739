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

from .splits import POOLED, pools_fixed_split


def prepare(dataset, normalize=True):
    """The samples the methods see: float64, unit L2 norm per sample when ``normalize``."""
    X = np.asarray(dataset.X, dtype=np.float64)
    return unit_rows(X) if normalize else X


def standardize_columns(X, train):
    """``X`` with each column at zero mean and unit variance over the rows ``train``
    (a constant column is only centred), as ``StandardScaler`` fitted on them."""
    from sklearn.preprocessing import StandardScaler

    return StandardScaler().fit(X[train]).transform(X)


def unit_rows(X):
    """Each row of ``X`` divided by its L2 norm, without overflow or underflow.

    A row is first divided by its largest absolute entry, so its norm is computed from
    numbers in [-1, 1] (``sklearn.preprocessing.normalize`` squares the raw entries:
    rows above about 1e154 overflow to zero rows, rows below 1e-154 stay unscaled).
    An all-zero row stays zero.
    """
    X = np.asarray(X, dtype=np.float64)
    largest = np.max(np.abs(X), axis=1, keepdims=True, initial=0.0)
    largest[largest == 0] = 1.0
    X = X / largest
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return X / norms


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
    std = np.std(np.asarray(dataset.X, dtype=np.float64), axis=0)
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
