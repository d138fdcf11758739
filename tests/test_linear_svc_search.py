"""The tuned LinearSVC's batched search over C (``fdlsr._baselines.linear_svc_search``)
against scikit-learn: liblinear's solutions and GridSearchCV's choice."""

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import LinearSVC as SklearnLinearSVC

from fdlsr._baselines.estimators import LinearSVC
from fdlsr._baselines.linear_svc_search import LinearSVCSearch, linear_svc_search
from fdlsr._baselines.squared_hinge import fit_squared_hinge
from fdlsr._experiments.registry import get_method
from fdlsr._testing import relative_error


def few_samples_many_features(seed, n_per_class=6, n_classes=4, n_features=60):
    """Unit-norm samples around class centres, fewer samples than features."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((n_classes, n_features))
    y = np.repeat(np.arange(n_classes), n_per_class)
    X = centres[y] + 1.5 * rng.standard_normal((y.size, n_features))
    return X / np.linalg.norm(X, axis=1, keepdims=True), y


@pytest.mark.parametrize("C", [1.0, 100.0])
def test_batched_newton_steps_reach_liblinears_solution(C):
    X, y = few_samples_many_features(0)
    scaling = 1.0
    classes = np.unique(y)
    signs = np.where(y[None, :] == classes[:, None], 1.0, -1.0)
    A, n_iter = fit_squared_hinge(
        X @ X.T + scaling**2, signs, np.full(len(classes), C), tol=1e-12, max_iter=1000
    )
    reference = SklearnLinearSVC(C=C, dual=False, tol=1e-12, max_iter=1000).fit(X, y)
    # w = X^T a, and the constant feature's weight (times the scaling) the intercept:
    # both solvers stop near the optimum (their rounding differs), not on it.
    ours = np.column_stack([A @ X, scaling**2 * A.sum(axis=1)])
    theirs = np.column_stack([reference.coef_, reference.intercept_])
    assert relative_error(ours, theirs) < 1e-6
    assert (n_iter >= 1).all()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_search_chooses_as_grid_search_cv(seed):
    X, y = few_samples_many_features(seed)
    cv = StratifiedKFold(3, shuffle=True, random_state=seed)
    Cs = [0.1, 1.0, 10.0, 100.0]
    params = LinearSVC(dual=False, tol=1e-10).get_params()
    search = LinearSVCSearch(Cs=Cs, cv=cv, params=params).fit(X, y)
    grid = GridSearchCV(
        LinearSVC(**params), {"C": Cs}, cv=cv, scoring="accuracy", refit=False
    ).fit(X, y)
    folds = np.column_stack(
        [grid.cv_results_[f"split{f}_test_score"] for f in range(3)]
    )
    np.testing.assert_array_equal(search.cv_scores_, folds)
    assert search.best_params_ == grid.best_params_


def test_registered_linear_svc_is_tuned_by_the_batched_search():
    method = get_method("LinearSVC")
    search = method.cv_factory(grid=dict(method.grid), cv=3, **method.params)
    assert isinstance(search, LinearSVCSearch)


def test_other_settings_and_more_samples_than_features_use_grid_search_cv():
    cv = StratifiedKFold(3)
    other = linear_svc_search(grid={"C": [1.0]}, cv=cv, loss="hinge", dual=True)
    assert isinstance(other, GridSearchCV)
    X, y = few_samples_many_features(4, n_features=10)  # 24 samples, 10 features
    search = LinearSVCSearch(Cs=[1.0, 10.0], cv=cv, params=LinearSVC().get_params())
    grid = GridSearchCV(
        LinearSVC(), {"C": [1.0, 10.0]}, cv=cv, scoring="accuracy", refit=False
    )
    assert search.fit(X, y).best_params_ == grid.fit(X, y).best_params_
