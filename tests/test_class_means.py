"""fdlsr._common.class_means: the one home of class means, sums and spreads, and the
class-sorted layout of FDDL and LRSDL that takes its means from there."""

import numpy as np
import pytest

from fdlsr._common.class_means import ClassMeans, DenseClassMeans, one_hot
from fdlsr.dictionary._class_blocks import ClassBlocks

LABELS = {
    "unsorted": np.array([2, 0, 1, 0, 2, 2, 1]),
    "sorted": np.array([0, 0, 1, 2, 2, 2, 2]),
    "equal blocks": np.repeat(np.arange(3), 3),
}


@pytest.mark.parametrize("order", LABELS)
def test_means_sums_and_spread_equal_a_plain_computation(order):
    y = LABELS[order]
    T = np.random.default_rng(0).standard_normal((2, 4, y.size))  # a stack of two
    means = ClassMeans(y, 3)
    sums = np.stack([T[..., y == k].sum(axis=-1) for k in range(3)], axis=-1)
    np.testing.assert_allclose(means.sums(T), sums, rtol=1e-12)
    np.testing.assert_allclose(means.of(T), sums / np.bincount(y), rtol=1e-12)
    m = means.of(T)
    np.testing.assert_array_equal(means.spread(m), m[..., y])
    out = T.copy()
    np.testing.assert_array_equal(means.add_spread(out, m), T + m[..., y])


@pytest.mark.parametrize("order", LABELS)
def test_add_spread_updates_rows_of_a_larger_array_in_place(order):
    """Rows taken with a step are not contiguous: the reshape of the equal-blocks
    path would update a copy."""
    y = LABELS[order]
    whole = np.zeros((6, y.size))
    T = whole[::2]
    m = np.arange(9.0).reshape(3, 3)
    ClassMeans(y, 3).add_spread(T, m)
    np.testing.assert_array_equal(whole[::2], m[:, y])
    np.testing.assert_array_equal(whole[1::2], 0.0)


def test_dense_class_means_equal_the_sparse_ones():
    y = LABELS["unsorted"]
    T = np.random.default_rng(1).standard_normal((4, y.size))
    dense, sparse = DenseClassMeans(y, 3, np.float64, block=2), ClassMeans(y, 3)
    np.testing.assert_allclose(dense.of(T), sparse.of(T), rtol=1e-12)
    np.testing.assert_array_equal(dense.spread(sparse.of(T)), sparse.of(T)[:, y])
    assert dense.sq_norm_within(T[:, :3]) == pytest.approx(
        sparse.sq_norm_within(T[:, :3])
    )
    np.testing.assert_array_equal(one_hot(y, 3) @ np.ones(y.size), np.bincount(y))


@pytest.mark.parametrize("counts", [[2, 2, 2], [1, 3, 2]])
def test_class_blocks_take_their_means_from_class_means(counts):
    blocks = ClassBlocks(counts, [2, 1, 2])
    X = np.random.default_rng(2).standard_normal((5, sum(counts)))
    y = blocks.sample_class
    means = np.stack([X[:, y == k].mean(axis=1) for k in range(3)], axis=1)
    np.testing.assert_allclose(blocks.class_means(X), means, rtol=1e-12)
    Z = X.copy()
    np.testing.assert_allclose(blocks.subtract_spread(Z, means), X - means[:, y])


def test_class_blocks_state_holds_the_layout():
    """Model files keep a ClassBlocks' state (``__getstate__``): the layout only; the
    class means are rebuilt on load."""
    blocks = ClassBlocks([2, 3], [2, 2])
    X = np.random.default_rng(3).standard_normal((4, 5))
    state = blocks.__getstate__()
    assert "_means" not in state
    loaded = ClassBlocks.__new__(ClassBlocks)
    loaded.__setstate__(dict(state))
    np.testing.assert_array_equal(loaded.class_means(X), blocks.class_means(X))
