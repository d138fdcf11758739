"""The tuned baselines choose C by scikit-learn's own searches: LogisticRegression by
``LogisticRegressionCV``, LinearSVC by ``GridSearchCV``, over the registry's grids and
the run's inner folds; their rows name the search in their setting."""

import json

import numpy as np
import pytest
from sklearn import linear_model, svm
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from fdlsr._baselines.estimators import LogisticRegressionCV
from fdlsr._experiments.cli import main
from fdlsr._experiments.evaluation import tune
from fdlsr._experiments.planning import setting_key
from fdlsr._experiments.registry import get_method


def problem(n_per_class=9, n_classes=5, d=120, seed=0, spread=2.0):
    """Fewer samples than features, unit-norm rows, classes that overlap."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_classes, d))
    y = np.repeat(np.arange(n_classes), n_per_class)
    X = centres[y] + spread * rng.normal(size=(y.size, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True), y


FOLDS = StratifiedKFold(3, shuffle=True, random_state=0)


def test_tuned_logistic_regression_runs_logistic_regression_cv():
    method = get_method("LogisticRegression")
    search = method.cv_factory(grid=dict(method.grid), cv=FOLDS, **method.params)
    assert isinstance(search, linear_model.LogisticRegressionCV)
    assert list(search.Cs) == method.grid["C"] and search.cv is FOLDS
    assert search.scoring == "accuracy" and search.max_iter == 1000
    with pytest.raises(ValueError, match="C only"):
        method.cv_factory(grid={"C": [1.0], "tol": [1e-4]}, cv=3)


@pytest.mark.parametrize(("spread", "seed"), [(4.0, 0), (4.0, 1), (8.0, 2)])
def test_logistic_regression_cv_chooses_as_grid_search(spread, seed):
    """LogisticRegressionCV warm-starts each fold's fits along the grid, so its
    validation scores equal GridSearchCV's (fits from zero) only where both reach the
    optimum: with a tight ``tol`` they do, and the chosen C is the same (here 100,
    100 on a tie with 1e3, and 1e3)."""
    X, y = problem(seed=seed, spread=spread)
    method = get_method("LogisticRegression")
    grid = method.grid["C"]
    tight = {**method.params, "tol": 1e-10, "max_iter": 10000}
    chosen = tune(method, X, y, FOLDS, {"tol": 1e-10, "max_iter": 10000})
    search = method.cv_factory(grid={"C": grid}, cv=FOLDS, **tight).fit(X, y)
    plain = linear_model.LogisticRegression(tol=1e-10, max_iter=10000)
    theirs = GridSearchCV(plain, {"C": grid}, cv=FOLDS, scoring="accuracy").fit(X, y)
    np.testing.assert_allclose(
        search.scores_.mean(axis=0).ravel(), theirs.cv_results_["mean_test_score"]
    )
    assert chosen["C"] == theirs.best_params_["C"] == search.best_params_["C"]


def test_logistic_regression_cv_in_the_span_is_scikit_learns():
    """Fitted in the span of the samples, LogisticRegressionCV scores the folds and
    chooses as scikit-learn's own on the features."""
    X, y = problem(seed=3)
    kwargs = dict(
        Cs=[10.0, 100.0, 1e3, 1e4], cv=FOLDS, scoring="accuracy", tol=1e-10,
        max_iter=10000, l1_ratios=(0.0,), use_legacy_attributes=False,
    )  # fmt: skip
    ours = LogisticRegressionCV(**kwargs).fit(X, y)
    theirs = linear_model.LogisticRegressionCV(**kwargs).fit(X, y)
    np.testing.assert_allclose(ours.scores_, theirs.scores_)
    assert ours.C_ == theirs.C_
    assert ours.coef_.shape == theirs.coef_.shape == (5, 120)
    np.testing.assert_allclose(
        ours.predict_proba(X), theirs.predict_proba(X), atol=1e-5
    )


@pytest.mark.parametrize(("spread", "seed"), [(4.0, 2), (8.0, 0), (8.0, 2)])
def test_tuned_linear_svc_is_grid_search_over_the_folds(spread, seed):
    """--cv LinearSVC chooses the C of the best mean validation accuracy over the
    folds, the first of the grid on ties: a loop over the folds written here (it
    chooses 1e3, 100 and 10 on a tie)."""
    X, y = problem(seed=seed, spread=spread)
    method = get_method("LinearSVC")
    assert method.cv_factory is None  # evaluation.tune's GridSearchCV
    grid = method.grid["C"]
    folds = list(FOLDS.split(X, y))
    means = [
        np.mean(
            [
                svm.LinearSVC(C=C, dual=False).fit(X[a], y[a]).score(X[b], y[b])
                for a, b in folds
            ]
        )
        for C in grid
    ]
    assert tune(method, X, y, FOLDS, {})["C"] == grid[int(np.argmax(means))]


def test_the_setting_of_a_tuned_baseline_names_its_search():
    svc, logistic, crc = (
        get_method(n) for n in ("LinearSVC", "LogisticRegression", "CRC")
    )
    assert json.loads(setting_key(svc, {}, True, 3, True))["cv"]["search"] == (
        "GridSearchCV"
    )
    assert json.loads(setting_key(logistic, {}, True, 3, True))["cv"]["search"] == (
        "LogisticRegressionCV"
    )
    # untuned rows, and other methods' tuned rows, keep their settings
    assert "search" not in setting_key(logistic, {}, False, 3, True)
    assert "search" not in json.loads(setting_key(crc, {}, True, 3, True))["cv"]


def test_rows_of_the_earlier_searches_are_not_reused(tmp_path, monkeypatch, capsys):
    """A store whose tuned LinearSVC and LogisticRegression rows have the setting
    that the earlier searches wrote (no search named) is computed again, not
    resumed."""
    monkeypatch.chdir(tmp_path)
    X, y = problem(n_per_class=6, n_classes=4, d=30)
    np.savez(tmp_path / "faces.npz", X=X, y=y)
    run = [
        "run", "--dataset", "faces.npz", "--methods", "LinearSVC",
        "LogisticRegression", "--cv", "-k", "3", "--splits", "1", "--no-table",
    ]  # fmt: skip
    assert main(run) == 0
    assert "2 runs computed, 0 already" in capsys.readouterr().err
    results = tmp_path / "fdlsr-results" / "faces" / "results.jsonl"
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    for row in rows:
        setting = json.loads(row["setting"])
        del setting["cv"]["search"]
        row["setting"] = json.dumps(setting, sort_keys=True, default=str)
    results.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert main(run) == 0
    assert "2 runs computed, 0 already" in capsys.readouterr().err
    assert main(run) == 0
    assert "0 runs computed, 2 already" in capsys.readouterr().err
