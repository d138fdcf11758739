"""Every classifier the experiments can run, by name."""

from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import LogisticRegression, RidgeClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import LinearSVC

from . import dictionary, relaxed, representation
from ._registry import Method
from .errors import ConfigError
from .estimator import FDLSR

PAPER_GRID = [1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0]

PROPOSED = [
    Method(
        "FDLSR",
        FDLSR,
        family="proposed",
        summary="Fisher discriminative LSR, paper's T-step, 1-NN on projections",
        reference="Chen, Wu & Kittler, Fisher Discriminative Least Squares Regression",
        params=dict(alpha=1.0, beta=1e-2, lam=1.0),
        grid=dict(alpha=PAPER_GRID, beta=PAPER_GRID, lam=PAPER_GRID),
    ),
]

SKLEARN = [
    Method(
        "RidgeClassifier",
        RidgeClassifier,
        family="scikit-learn",
        summary="ridge regression to {-1, 1} targets, argmax",
        params=dict(alpha=1e-2),
        grid=dict(alpha=PAPER_GRID),
    ),
    Method(
        "LDA",
        LinearDiscriminantAnalysis,
        family="scikit-learn",
        summary="linear discriminant analysis, Ledoit-Wolf shrinkage",
        params=dict(solver="lsqr", shrinkage="auto"),
    ),
    Method(
        "LinearSVC",
        LinearSVC,
        family="scikit-learn",
        summary="one-vs-rest linear SVM (squared hinge)",
        params=dict(C=1.0),
        grid=dict(C=[1e-2, 1e-1, 1.0, 10.0, 100.0]),
    ),
    Method(
        "LogisticRegression",
        LogisticRegression,
        family="scikit-learn",
        summary="multinomial logistic regression, L2 penalty",
        params=dict(C=10.0, max_iter=1000),
        grid=dict(C=[1e-1, 1.0, 10.0, 100.0, 1000.0]),
    ),
    Method(
        "1-NN",
        KNeighborsClassifier,
        family="scikit-learn",
        summary="nearest neighbour on the (normalised) raw features",
        params=dict(n_neighbors=1),
    ),
]

METHODS = {
    m.name: m
    for m in PROPOSED
    + relaxed.METHODS
    + representation.METHODS
    + dictionary.METHODS
    + SKLEARN
}


def get_method(name):
    """The :class:`Method` called ``name`` (case-insensitive)."""
    by_lower = {key.lower(): m for key, m in METHODS.items()}
    try:
        return by_lower[name.lower()]
    except KeyError:
        raise ConfigError(
            f"unknown method {name!r}; choose from: {', '.join(METHODS)}"
        ) from None
