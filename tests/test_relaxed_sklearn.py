"""The LSR family as scikit-learn citizens: common checks, labels, bad input."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_blobs
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer
from sklearn.utils.estimator_checks import parametrize_with_checks

from fdlsr.relaxed import DLSR, DRR, LRDLSR, LSR, RLR, GReLSR, ReLSR

ESTIMATORS = [
    LSR(),
    DLSR(),
    ReLSR(),
    GReLSR(),
    LRDLSR(),
    RLR(),
    DRR(),
    LRDLSR(decision_rule="nearest_mean"),
    LRDLSR(decision_rule="knn", weights="distance"),
    DLSR(decision_rule="knn"),
]

# No check is expected to fail: every estimator passes all common checks.
EXPECTED_FAILED_CHECKS = {}


# Small problems: BLAS threads only add contention on shared cores.
pytestmark = pytest.mark.usefixtures("one_blas_thread_per_module")


@parametrize_with_checks(
    ESTIMATORS, expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS
)
def test_sklearn_common_checks(estimator, check):
    check(estimator)


ALL = [LSR(), DLSR(), ReLSR(), GReLSR(), LRDLSR(), RLR(), DRR()]
IDS = [type(m).__name__ for m in ALL]


@pytest.fixture(scope="module")
def blobs():
    # Unequal classes, one of them a single sample; more features than samples.
    X, y = make_blobs(
        n_samples=[3, 9, 5, 1], n_features=30, cluster_std=0.5, random_state=0
    )
    return X, y


@pytest.mark.parametrize("model", ALL, ids=IDS)
def test_labels_of_any_type_order_and_size(blobs, model):
    X, y = blobs
    names = np.array(["zebra", "ant", "moose", "bee"])[y]
    fitted = clone(model).fit(X, names)
    assert list(fitted.classes_) == ["ant", "bee", "moose", "zebra"]
    assert fitted.score(X, names) == 1.0
    codes = np.array([7, -3, 1000, 42])  # non-contiguous integers, same classes
    coded = clone(model).fit(X, codes[y])
    rename = dict(zip(["zebra", "ant", "moose", "bee"], codes, strict=True))
    np.testing.assert_array_equal(
        coded.predict(X), [rename[v] for v in fitted.predict(X)]
    )
    # Sample order does not matter.
    order = np.random.default_rng(0).permutation(y.size)
    shuffled = clone(model).fit(X[order], names[order])
    np.testing.assert_allclose(shuffled.coef_, fitted.coef_, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("model", ALL, ids=IDS)
def test_one_sample_per_class(model):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((5, 20))
    y = np.array(["a", "b", "c", "d", "e"])
    fitted = clone(model).fit(X, y)
    np.testing.assert_array_equal(fitted.predict(X), y)
    assert np.all(np.isfinite(fitted.coef_))


@pytest.mark.parametrize("model", ALL, ids=IDS)
def test_transform_and_feature_names(blobs, model):
    X, y = blobs
    fitted = clone(model).fit(X, y)
    Z = fitted.transform(X)
    np.testing.assert_allclose(Z, X @ fitted.coef_.T + fitted.intercept_)
    prefix = type(model).__name__.lower()
    assert list(fitted.get_feature_names_out()) == [f"{prefix}{i}" for i in range(4)]


@pytest.mark.parametrize("model", ALL, ids=IDS)
def test_one_class_is_refused_by_name(model):
    with pytest.raises(ValueError, match="at least 2 classes"):
        clone(model).fit([[1.0, 2.0], [0.0, 1.0]], ["x", "x"])


@pytest.mark.parametrize(
    "model, params",
    [
        (LSR, {"lam": 0.0}),
        (DLSR, {"tol": -1.0}),
        (ReLSR, {"max_iter": -1}),
        (GReLSR, {"group": -0.5}),
        (LRDLSR, {"rho": 0.5}),
        (RLR, {"beta": np.nan}),
        (DRR, {"decision_rule": "nearest"}),
    ],
)
def test_bad_parameters_are_named(model, params):
    name = next(iter(params))
    with pytest.raises(ValueError, match=f"'{name}' parameter of {model.__name__}"):
        model(**params).fit([[0.0, 1.0], [1.0, 0.0]], [0, 1])


def test_pipeline_and_grid_search(blobs):
    X, y = make_blobs(n_samples=120, centers=4, n_features=10, random_state=1)
    pipe = make_pipeline(Normalizer(), GReLSR())
    grid = GridSearchCV(pipe, {"grelsr__group": [0.0, 1.0]}, cv=3).fit(X, y)
    assert grid.best_score_ > 0.9
