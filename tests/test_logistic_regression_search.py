"""The tuned LogisticRegression's search over C
(``fdlsr._baselines.logistic_regression_search``) against scikit-learn: the L-BFGS
fits against ``LogisticRegression``'s, the choice against ``GridSearchCV``'s with the
same folds."""

import numpy as np
import pytest
from sklearn import linear_model
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from fdlsr._baselines.estimators import LogisticRegression
from fdlsr._baselines.logistic_regression_search import (
    LogisticRegressionSearch,
    logistic_regression_search,
)
from fdlsr._baselines.multinomial_lbfgs import fit_multinomial_lbfgs
from fdlsr._experiments.registry import get_method
from fdlsr._experiments.splits import inner_cv
from fdlsr._testing import relative_error
from fdlsr.model_selection._split import per_class_split

pytestmark = pytest.mark.usefixtures("one_blas_thread_per_module")

GRID = [10.0, 100.0, 1e3, 1e4]  # the registered grid


def few_samples_many_features(seed, n_per_class=6, n_classes=5, n_features=80):
    """Unit-norm samples around class centres, fewer samples than features."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((n_classes, n_features))
    y = np.repeat(np.arange(n_classes), n_per_class)
    X = centres[y] + 1.5 * rng.standard_normal((y.size, n_features))
    return X / np.linalg.norm(X, axis=1, keepdims=True), y


def span_problem(X):
    """The samples' span coordinates, as the span fit forms them."""
    basis, triangle = np.linalg.qr(X.T)
    return triangle, np.ascontiguousarray(triangle.T)


@pytest.mark.parametrize("C", [10.0, 1e3])
def test_lbfgs_reaches_scikit_learns_optimum(C):
    X, y = few_samples_many_features(0)
    triangle, Z = span_problem(X)
    W, b, _ = fit_multinomial_lbfgs(triangle, y, 5, C=C, tol=1e-10, max_iter=10000)
    reference = linear_model.LogisticRegression(C=C, tol=1e-10, max_iter=10000)
    reference.fit(Z, y)
    # the intercepts up to a common shift (the softmax ignores it)
    assert relative_error(W, reference.coef_) < 1e-6
    shift = np.mean(b - reference.intercept_)
    assert relative_error(b - shift, reference.intercept_) < 1e-6


@pytest.mark.parametrize("C", [10.0, 100.0, 1e3])
def test_lbfgs_stops_where_scikit_learn_stops(C):
    """At the registered tol = 1e-4, short of the optimum: the same steps."""
    X, y = few_samples_many_features(1, n_per_class=10, n_features=120)
    triangle, Z = span_problem(X)
    W, b, n_iter = fit_multinomial_lbfgs(triangle, y, 5, C=C, tol=1e-4, max_iter=1000)
    reference = linear_model.LogisticRegression(C=C, max_iter=1000).fit(Z, y)
    assert n_iter == reference.n_iter_[0]
    assert relative_error(W, reference.coef_) < 1e-8


def test_lbfgs_stops_at_max_iter():
    X, y = few_samples_many_features(2)
    triangle, Z = span_problem(X)
    _, _, n_iter = fit_multinomial_lbfgs(triangle, y, 5, C=1e4, tol=0.0, max_iter=7)
    assert n_iter == 7


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_search_chooses_as_grid_search_cv(seed):
    X, y = few_samples_many_features(seed, n_per_class=9)
    cv = StratifiedKFold(3, shuffle=True, random_state=seed)
    params = LogisticRegression(max_iter=1000).get_params()
    search = LogisticRegressionSearch(Cs=GRID, cv=cv, params=params).fit(X, y)
    grid = GridSearchCV(
        LogisticRegression(**params), {"C": GRID}, cv=cv, scoring="accuracy",
        refit=False,
    ).fit(X, y)  # fmt: skip
    folds = np.column_stack(
        [grid.cv_results_[f"split{f}_test_score"] for f in range(3)]
    )
    np.testing.assert_array_equal(search.cv_scores_, folds)
    assert search.best_params_ == grid.best_params_


def test_ties_go_to_the_first_c_of_the_grid():
    # Far apart classes: every C classifies every fold perfectly.
    X, y = few_samples_many_features(5, n_per_class=9)
    X = X + 10 * np.eye(X.shape[1])[y]
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    for grid in (GRID, GRID[::-1]):
        search = LogisticRegressionSearch(Cs=grid, cv=cv).fit(X, y)
        assert (search.cv_scores_ == 1.0).all()
        assert search.best_params_ == {"C": grid[0]}


@pytest.mark.parametrize("split", [0, 5])
def test_feret_choices_are_grid_search_cvs(feret, split):
    """The protocol's inner folds of FERET k = 2 runs (400 training images, two
    folds of one image per class): fold accuracies within one validation image of
    GridSearchCV's for C = 10 to 1e3, and the same choice (C = 100, ahead of the
    others by 2.5 images or more on the mean)."""
    X, y = feret
    method = get_method("LogisticRegression")
    train, _ = per_class_split(y, 2, 0, split)
    cv = inner_cv(2, split, 3)
    search = method.cv_factory(grid=dict(method.grid), cv=cv, **method.params)
    search.fit(X[train], y[train])
    grid = GridSearchCV(
        method.build(), method.grid, cv=cv, scoring="accuracy", refit=False
    ).fit(X[train], y[train])
    folds = np.column_stack(
        [grid.cv_results_[f"split{f}_test_score"] for f in range(cv.n_splits)]
    )
    # A validation image whose two best classes nearly tie may change its label
    # with rounding; at C = 1e4, tol = 1e-4 stops where rounding puts it (see the
    # module's notes), so its scores are not compared.
    assert np.abs(search.cv_scores_[:3] - folds[:3]).max() <= 1 / 200 + 1e-12
    assert search.best_params_ == grid.best_params_ == {"C": 100.0}


def test_registered_logistic_regression_is_tuned_by_the_search():
    method = get_method("LogisticRegression")
    search = method.cv_factory(grid=dict(method.grid), cv=3, **method.params)
    assert isinstance(search, LogisticRegressionSearch)
    assert search.params["max_iter"] == method.params["max_iter"]


def test_other_settings_and_more_samples_than_features_use_grid_search_cv():
    cv = StratifiedKFold(3)
    for other in (dict(solver="newton-cg"), dict(class_weight="balanced")):
        search = logistic_regression_search(grid={"C": [1.0]}, cv=cv, **other)
        assert isinstance(search, GridSearchCV)
    two_params = logistic_regression_search(grid={"C": [1.0], "tol": [1e-4]}, cv=cv)
    assert isinstance(two_params, GridSearchCV)
    X, y = few_samples_many_features(6, n_features=10)  # 30 samples, 10 features
    search = LogisticRegressionSearch(Cs=[1.0, 100.0], cv=cv)
    grid = GridSearchCV(
        LogisticRegression(), {"C": [1.0, 100.0]}, cv=cv, scoring="accuracy",
        refit=False,
    )  # fmt: skip
    assert search.fit(X, y).best_params_ == grid.fit(X, y).best_params_


def test_two_classes_are_fitted_by_scikit_learn():
    X, y = few_samples_many_features(7, n_classes=2, n_per_class=9)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    search = LogisticRegressionSearch(Cs=GRID, cv=cv).fit(X, y)
    grid = GridSearchCV(
        LogisticRegression(), {"C": GRID}, cv=cv, scoring="accuracy", refit=False
    ).fit(X, y)
    folds = np.column_stack(
        [grid.cv_results_[f"split{f}_test_score"] for f in range(3)]
    )
    np.testing.assert_array_equal(search.cv_scores_, folds)
    assert search.best_params_ == grid.best_params_


def test_refit_is_refused():
    X, y = few_samples_many_features(8)
    with pytest.raises(ValueError, match="refit=False"):
        LogisticRegressionSearch(refit=True).fit(X, y)


def test_a_scipy_without_the_line_search_falls_back_to_grid_search(monkeypatch):
    # SciPy's private DCSRCH may be missing (older or newer SciPy): the search is then
    # scikit-learn's own, never an ImportError.
    from sklearn.model_selection import GridSearchCV

    from fdlsr._baselines import logistic_regression_search as module

    monkeypatch.setattr(module, "DCSRCH", None)
    search = module.logistic_regression_search(grid={"C": [10.0, 100.0]}, cv=3)
    assert isinstance(search, GridSearchCV)
