"""Invariants: sample order and label names must not change what FDLSR predicts."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fdlsr import FDLSR


@st.composite
def problems(draw):
    """Gaussian class clusters of random sizes, shapes and counts (d < n and d > n)."""
    seed = draw(st.integers(0, 2**32 - 1))
    n_classes = draw(st.integers(2, 6))
    n_features = draw(st.integers(2, 40))
    sizes = draw(st.lists(st.integers(1, 6), min_size=n_classes, max_size=n_classes))
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((n_classes, n_features)) * 2
    y = np.repeat(np.arange(n_classes), sizes)
    X = centres[y] + rng.standard_normal((y.size, n_features))
    X_test = centres[rng.integers(0, n_classes, 15)] + rng.standard_normal(
        (15, n_features)
    )
    t_step = draw(st.sampled_from(["paper", "exact"]))
    return X, y, X_test, rng, t_step


@settings(max_examples=40, deadline=None)
@given(problems())
def test_permuting_training_samples_keeps_predictions(problem):
    X, y, X_test, rng, t_step = problem
    order = rng.permutation(y.size)
    a = FDLSR(alpha=0.1, beta=0.1, lam=0.5, t_step=t_step).fit(X, y)
    b = FDLSR(alpha=0.1, beta=0.1, lam=0.5, t_step=t_step).fit(X[order], y[order])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-7, atol=1e-10)
    np.testing.assert_array_equal(a.predict(X_test), b.predict(X_test))


@settings(max_examples=40, deadline=None)
@given(problems(), st.permutations(["north", "south", "east", "west", "up", "down"]))
def test_renaming_labels_keeps_predictions(problem, names):
    X, y, X_test, _, t_step = problem
    names = np.array(names)
    a = FDLSR(alpha=0.1, beta=0.1, lam=0.5, t_step=t_step).fit(X, y)
    b = FDLSR(alpha=0.1, beta=0.1, lam=0.5, t_step=t_step).fit(X, names[y])
    # classes tied within sqrt(eps) go to the first in sorted label order, which a
    # renaming may change: there b takes one of the tied classes; elsewhere, a's label
    scores = a.decision_function(X_test)
    if scores.ndim == 1:  # two classes: a score of 0 is a tie
        scores = np.column_stack([-scores, scores])
    tied = scores == scores.max(axis=1, keepdims=True)
    alone = tied.sum(axis=1) == 1
    expected, got = names[a.predict(X_test)], b.predict(X_test)
    np.testing.assert_array_equal(expected[alone], got[alone])
    for row in np.flatnonzero(~alone):
        assert got[row] in names[a.classes_[tied[row]]]
    # a renaming that keeps the order of the labels keeps every prediction, ties too
    ordered = np.array(sorted(names))
    c = FDLSR(alpha=0.1, beta=0.1, lam=0.5, t_step=t_step).fit(X, ordered[y])
    np.testing.assert_array_equal(ordered[a.predict(X_test)], c.predict(X_test))
