"""LinearSVC and LogisticRegression fitted in the span of the training samples (n < d):
the same models as scikit-learn's own, and the same choice of C by cross-validation."""

import numpy as np
import pytest
from sklearn import linear_model, svm
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from fdlsr._baselines.estimators import LinearSVC, LogisticRegression
from fdlsr._experiments.registry import get_method


def problem(n_per_class=8, n_classes=5, d=120, seed=0):
    """Fewer samples than features, unit-norm rows, classes that overlap."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_classes, d))
    y = np.repeat(np.arange(n_classes), n_per_class)
    X = centres[y] + 2.0 * rng.normal(size=(y.size, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True), y


@pytest.mark.parametrize("C", [1.0, 100.0])
def test_linear_svc_in_the_span_is_liblinears_primal_fit(C):
    X, y = problem()
    test, _ = problem(seed=1)
    ours = LinearSVC(C=C, dual=False, tol=1e-8).fit(X, y)
    theirs = svm.LinearSVC(C=C, dual=False, tol=1e-8).fit(X, y)
    assert ours.coef_.shape == theirs.coef_.shape == (5, 120)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-6)
    np.testing.assert_array_equal(ours.predict(test), theirs.predict(test))


def test_logistic_regression_in_the_span_reaches_the_same_optimum():
    X, y = problem()
    test, _ = problem(seed=1)
    kwargs = dict(C=100.0, tol=1e-10, max_iter=10000)
    ours = LogisticRegression(**kwargs).fit(X, y)
    theirs = linear_model.LogisticRegression(**kwargs).fit(X, y)
    np.testing.assert_allclose(
        ours.predict_proba(test), theirs.predict_proba(test), atol=1e-5
    )


def test_more_samples_than_features_fit_as_usual():
    X, y = problem(n_per_class=40, d=20)
    ours = LinearSVC(dual=False).fit(X, y)
    theirs = svm.LinearSVC(dual=False).fit(X, y)
    np.testing.assert_array_equal(ours.coef_, theirs.coef_)


@pytest.mark.parametrize(
    "name, plain",
    [
        ("LinearSVC", svm.LinearSVC(dual=False)),
        ("LogisticRegression", linear_model.LogisticRegression(max_iter=1000)),
    ],
)
def test_cross_validation_chooses_the_c_of_scikit_learns_own(name, plain):
    X, y = problem(n_per_class=9)
    method = get_method(name)
    folds = StratifiedKFold(3, shuffle=True, random_state=0)
    grid = {"C": method.grid["C"]}
    ours = GridSearchCV(method.build(), grid, cv=folds).fit(X, y)
    theirs = GridSearchCV(plain, grid, cv=folds).fit(X, y)
    assert ours.best_params_ == theirs.best_params_
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"]
    )


def test_bad_samples_are_refused_as_scikit_learn_does():
    X, y = problem()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        LinearSVC().fit(X, y)
