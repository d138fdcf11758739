"""FDLSR as a scikit-learn citizen: common checks, meta-estimators, limiting cases."""

import numpy as np
import pytest
from sklearn.datasets import load_digits, make_blobs
from sklearn.linear_model import Ridge, RidgeClassifier
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer
from sklearn.utils.estimator_checks import parametrize_with_checks

from fdlsr import FDLSR

# No check is skipped: FDLSR passes all of scikit-learn's common checks, the array API
# ones (array-api-strict, PyTorch on the CPU) included. The early-stopping variant uses
# tol=1e-4: the array API checks fit float32 data, where ||Q - Q_prev||^2 < 1e-6 is at
# the level of rounding and the iteration it stops at would depend on the library.
EXPECTED_FAILED_CHECKS = {}


@parametrize_with_checks(
    [
        FDLSR(),
        FDLSR(t_step="exact", decision_rule="linear", tol=1e-4),
        FDLSR(decision_rule="nearest_mean"),
        FDLSR(decision_rule="knn"),
        FDLSR(decision_rule="knn", n_neighbors=3, weights="distance"),
    ],
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS,
)
def test_sklearn_common_checks(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:600], y[:600], X[600:900], y[600:900]


def test_pipeline_gridsearch_and_cross_val_score(digits):
    X, y, X_test, y_test = digits
    pipe = make_pipeline(Normalizer(), FDLSR(alpha=1e-2, beta=1e-3, lam=1e-1))
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,) and scores.min() > 0.75
    grid = GridSearchCV(
        pipe,
        {"fdlsr__lam": [1e-3, 1e-1], "fdlsr__alpha": [1e-2, 1.0]},
        cv=StratifiedKFold(3),
    ).fit(X, y)
    assert grid.best_params_["fdlsr__lam"] in (1e-3, 1e-1)
    assert grid.score(X_test, y_test) > 0.85


def test_zero_iterations_is_ridge_on_one_hot_targets(digits):
    X, y, X_test, _ = digits
    model = FDLSR(max_iter=0, init_ridge=1e-1, decision_rule="linear").fit(X, y)
    Y = (y[:, None] == np.unique(y)).astype(float)
    ridge = Ridge(alpha=1e-1, fit_intercept=False).fit(X, Y)
    np.testing.assert_allclose(model.coef_, ridge.coef_, rtol=1e-6, atol=1e-10)
    assert model.n_iter_ == 0
    # Argmax of ridge on {0,1} targets equals RidgeClassifier on {-1,1} targets.
    clf = RidgeClassifier(alpha=1e-1, fit_intercept=False).fit(X, y)
    np.testing.assert_array_equal(model.predict(X_test), clf.predict(X_test))


def test_decision_function_agrees_with_predict_and_one_nn(digits):
    X, y, X_test, _ = digits
    X, X_test = Normalizer().transform(X), Normalizer().transform(X_test)
    model = FDLSR(alpha=1e-2, beta=1e-3, lam=1e-1).fit(X, y)
    scores = model.decision_function(X_test)
    assert scores.shape == (X_test.shape[0], 10)
    np.testing.assert_array_equal(
        model.classes_[scores.argmax(1)], model.predict(X_test)
    )
    # The paper's rule, by brute force: nearest normalised training projection.
    P_train = Normalizer().transform(model.transform(X))
    P_test = Normalizer().transform(model.transform(X_test))
    d2 = ((P_test[:, None, :] - P_train[None, :, :]) ** 2).sum(-1)
    np.testing.assert_array_equal(model.predict(X_test), y[d2.argmin(1)])


def test_transform_and_feature_names(digits):
    X, y, X_test, _ = digits
    model = FDLSR()
    Z = model.fit_transform(X, y)
    assert Z.shape == (X.shape[0], 10)
    np.testing.assert_allclose(Z, X @ model.coef_.T)
    names = model.get_feature_names_out()
    assert list(names) == [f"fdlsr{i}" for i in range(10)]


def test_labels_of_any_type_order_and_size():
    X, y = make_blobs(n_samples=[3, 9, 5, 1], n_features=6, random_state=0)
    names = np.array(["zebra", "ant", "moose", "bee"])[
        y
    ]  # strings, unsorted, one singleton
    model = FDLSR(alpha=1e-1, beta=1e-2, lam=1e-1).fit(X, names)
    assert list(model.classes_) == ["ant", "bee", "moose", "zebra"]
    assert set(model.predict(X)) <= set(names)
    assert model.score(X, names) > 0.9
    codes = np.array([7, -3, 1000, 42])  # non-contiguous integers for the same classes
    coded = FDLSR(alpha=1e-1, beta=1e-2, lam=1e-1).fit(X, codes[y])
    rename = dict(zip(["zebra", "ant", "moose", "bee"], codes, strict=True))
    np.testing.assert_array_equal(
        coded.predict(X), [rename[v] for v in model.predict(X)]
    )


def test_one_sample_per_class_fits():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((5, 20))
    y = np.array(["a", "b", "c", "d", "e"])
    model = FDLSR().fit(X, y)
    np.testing.assert_array_equal(model.predict(X), y)
    assert np.all(np.isfinite(model.objective_))


def test_float32_stays_float32(digits):
    X, y, X_test, _ = digits
    X32 = Normalizer().transform(X).astype(np.float32)
    model = FDLSR(alpha=1e-2, beta=1e-3, lam=1e-1).fit(X32, y)
    assert model.coef_.dtype == np.float32
    assert model.transform(X_test.astype(np.float32)).dtype == np.float32
    model64 = FDLSR(alpha=1e-2, beta=1e-3, lam=1e-1).fit(X32.astype(np.float64), y)
    assert np.linalg.norm(model.coef_ - model64.coef_) < 1e-3 * np.linalg.norm(
        model64.coef_
    )


def test_tolerance_stops_early(digits):
    X, y, _, _ = digits
    X = Normalizer().transform(X)
    full = FDLSR(max_iter=200).fit(X, y)
    early = FDLSR(max_iter=200, tol=1e-4).fit(X, y)
    assert early.n_iter_ < 200 and full.n_iter_ == 200
    # The stopping rule itself: one more iteration changes Q by less than tol.
    previous = FDLSR(max_iter=early.n_iter_ - 1).fit(X, y)
    assert np.sum((early.coef_ - previous.coef_) ** 2) < 1e-4


@pytest.mark.parametrize(
    "X, y, message",
    [
        ([[1.0, np.nan], [0.0, 1.0]], [0, 1], "NaN"),
        ([[1.0, np.inf], [0.0, 1.0]], [0, 1], "infinity"),
        ([[1.0, 2.0], [0.0, 1.0]], [3, 3], "at least 2 classes"),
        (
            [[1.0, 2.0], [0.0, 1.0], [1.0, 1.0]],
            [0, 1],
            "inconsistent numbers of samples",
        ),
        (np.empty((0, 3)), [], "0 sample"),
        ([["a", "b"], ["c", "d"]], [0, 1], "could not convert"),
    ],
    ids=["nan", "inf", "one-class", "length-mismatch", "empty", "non-numeric"],
)
def test_bad_training_input_is_named(X, y, message):
    with pytest.raises(ValueError, match=message):
        FDLSR().fit(X, y)


@pytest.mark.parametrize(
    "params",
    [
        {"alpha": -1.0},
        {"beta": 0.0},
        {"beta": np.inf},
        {"lam": np.nan},
        {"max_iter": -1},
        {"t_step": "fast"},
        {"decision_rule": "nearest"},
    ],
)
def test_bad_parameters_are_named(params):
    name = next(iter(params))
    with pytest.raises(ValueError, match=f"'{name}' parameter of FDLSR must be"):
        FDLSR(**params).fit([[0.0, 1.0], [1.0, 0.0]], [0, 1])


def test_predict_on_wrong_width_is_named(digits):
    X, y, _, _ = digits
    model = FDLSR().fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but FDLSR is expecting 64"):
        model.predict(X[:, :3])
