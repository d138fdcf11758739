"""The paper's split: ``k`` random training samples per class, the rest for testing.

Split ``i`` under seed ``s`` is drawn from ``numpy.random.default_rng([s, i])``, so it
depends only on the labels, ``k``, the seed and ``i``: every method sees the same
splits, in any process, in any order, and adding splits later keeps the first ones.
:class:`PerClassSplit` is the scikit-learn splitter over these splits (for
``cross_val_score`` or ``FDLSRCV(cv=...)``); ``fdlsr run`` draws its splits with
:func:`per_class_split`.
"""

import numpy as np

from .._common.messages import quote
from ..errors import ConfigError

DEFAULT_SPLITS = 10


def per_class_split(y, k, seed, index):
    """Training and test indices (sorted) of split ``index``: ``k`` per class for training.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels.
    k : int
        Training samples per class.
    seed : int
        Seed of the experiment (>= 0).
    index : int
        Which split (0, 1, ...).

    Returns
    -------
    train, test : ndarray of int
        Sorted indices of the training and of the test samples.

    Raises
    ------
    ConfigError
        When a class has fewer than ``k + 1`` samples, or ``k`` or ``seed`` is not a
        whole number of the right range.
    """
    y = np.asarray(y)
    classes, codes, counts = np.unique(y, return_inverse=True, return_counts=True)
    check_k(classes, counts, k)
    check_seed(seed)
    rng = np.random.default_rng([seed, index])
    train = np.concatenate(
        [
            rng.choice(np.flatnonzero(codes == c), k, replace=False)
            for c in range(len(classes))
        ]
    )
    train.sort()
    mask = np.ones(y.shape[0], dtype=bool)
    mask[train] = False
    return train, np.flatnonzero(mask)


def check_k(classes, counts, k):
    """Refuse a ``k`` that leaves some class without a test sample."""
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ConfigError(
            f"k must be a positive whole number of samples per class, got {k!r}"
        )
    short = np.flatnonzero(counts < k + 1)
    if short.size:
        worst = short[np.argmin(counts[short])]  # the smallest class
        others = (
            f" ({short.size} of the {classes.size} classes have {k} samples or fewer)"
            if short.size > 1
            else ""
        )
        has = "a single sample" if counts[worst] == 1 else f"{counts[worst]} samples"
        if counts[worst] > 1:
            fix = f"choose k <= {counts[worst] - 1}"
        else:  # no k leaves it a test sample
            fix = (
                "no k leaves it a test sample: give it more samples, or remove the "
                "class from the data"
            )
        raise ConfigError(
            f"k={k} training samples per class leaves no test sample for class "
            f"{quote(classes[worst])}, which has {has}{others}; k must be smaller "
            f"than the smallest class: {fix}"
        )


def check_seed(seed):
    """Refuse a seed that ``numpy.random.default_rng`` cannot take."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        shown = seed.item() if isinstance(seed, np.generic) else seed
        raise ConfigError(
            f"the seed must be a whole number >= 0 (--seed), got {shown!r}"
        )


class PerClassSplit:
    """Scikit-learn splitter: ``k`` random training samples per class, the rest for testing.

    Parameters
    ----------
    k : int
        Training samples per class.
    n_splits : int, default=10
        Number of random repetitions.
    random_state : int, default=0
        Seed; split ``i`` uses ``numpy.random.default_rng([random_state, i])``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import cross_val_score
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> cv = PerClassSplit(5, n_splits=3)
    >>> scores = cross_val_score(KNeighborsClassifier(1), X, y, cv=cv)
    >>> scores.shape
    (3,)
    """

    def __init__(self, k, *, n_splits=DEFAULT_SPLITS, random_state=0):
        self.k = k
        self.n_splits = n_splits
        self.random_state = random_state

    def get_n_splits(self, X=None, y=None, groups=None):
        """The number of splits, ``n_splits``.

        Parameters
        ----------
        X, y, groups : object
            Ignored; there for scikit-learn's splitter API.

        Returns
        -------
        n_splits : int
            The number of splits.
        """
        return self.n_splits

    def split(self, X, y, groups=None):
        """Yield the training and test indices of each split.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples (only their number matters).
        y : array-like of shape (n_samples,)
            The labels: ``k`` samples of each class are drawn for training.
        groups : object
            Ignored; there for scikit-learn's splitter API.

        Yields
        ------
        train, test : ndarray of int
            The indices of the training and the test samples, sorted.
        """
        for index in range(self.n_splits):
            yield per_class_split(y, self.k, self.random_state, index)

    def __repr__(self):
        return (
            f"PerClassSplit(k={self.k}, n_splits={self.n_splits}, "
            f"random_state={self.random_state})"
        )
