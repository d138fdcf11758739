"""The registered LDA: scikit-learn's shrinkage LDA with the pooled covariance formed
in one product. Same decision values as scikit-learn's class; one class and a
covariance matrix too large for the memory are refused in one line."""

import numpy as np
import pytest
from sklearn import discriminant_analysis
from sklearn.covariance import OAS

from fdlsr._baselines import estimators as baselines
from fdlsr._baselines.estimators import LinearDiscriminantAnalysis
from fdlsr._experiments.registry import get_method
from fdlsr._testing import cli, relative_error


def problem(n, d, n_classes, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    y[:n_classes] = np.arange(n_classes)  # every class present
    X = rng.normal(size=(n_classes, d))[y] + rng.normal(size=(n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True), y


@pytest.mark.parametrize("n, d, n_classes", [(60, 200, 6), (300, 20, 5), (40, 30, 2)])
@pytest.mark.parametrize("shrinkage", [0.01, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("priors", [None, "given"])
def test_decision_values_are_scikit_learns(n, d, n_classes, shrinkage, priors):
    X, y = problem(n, d, n_classes)
    test, _ = problem(50, d, n_classes, seed=1)
    if priors == "given":
        priors = np.arange(1.0, n_classes + 1) / np.arange(1, n_classes + 1).sum()
    kwargs = dict(solver="lsqr", shrinkage=shrinkage, priors=priors)
    ours = LinearDiscriminantAnalysis(**kwargs).fit(X, y)
    theirs = discriminant_analysis.LinearDiscriminantAnalysis(**kwargs).fit(X, y)
    for attribute in ("coef_", "intercept_", "means_", "covariance_", "priors_"):
        assert relative_error(getattr(ours, attribute), getattr(theirs, attribute)) < (
            1e-10
        ), attribute
    assert (
        relative_error(ours.decision_function(test), theirs.decision_function(test))
        < 1e-10
    )
    np.testing.assert_array_equal(ours.predict(test), theirs.predict(test))
    np.testing.assert_allclose(ours.predict_proba(test), theirs.predict_proba(test))


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(solver="lsqr", shrinkage="auto"),
        dict(solver="lsqr", shrinkage=0.0),
        dict(solver="lsqr", covariance_estimator=OAS()),
        dict(solver="eigen", shrinkage=0.5),
        dict(solver="svd"),
    ],
    ids=str,
)
def test_other_settings_are_scikit_learns_own_fit(kwargs):
    X, y = problem(300, 20, 5)
    ours = LinearDiscriminantAnalysis(**kwargs).fit(X, y)
    theirs = discriminant_analysis.LinearDiscriminantAnalysis(**kwargs).fit(X, y)
    np.testing.assert_array_equal(ours.coef_, theirs.coef_)
    np.testing.assert_array_equal(ours.intercept_, theirs.intercept_)


def test_the_one_product_path_is_the_one_taken(monkeypatch):
    """scikit-learn's fit still hands the lsqr solve to ``_solve_lstsq`` (the method
    our class replaces), and the per-class covariances are not formed."""
    assert "_solve_lstsq" in vars(discriminant_analysis.LinearDiscriminantAnalysis)

    def per_class(*args, **kwargs):
        raise AssertionError("per-class covariance matrices formed")

    monkeypatch.setattr(discriminant_analysis, "_class_cov", per_class)
    X, y = problem(60, 200, 6)
    get_method("LDA").build().fit(X, y)


def test_the_registered_lda_refuses_one_class_at_fit():
    X, y = problem(20, 10, 2)
    with pytest.raises(ValueError, match="needs samples from at least 2 classes"):
        get_method("LDA").build().fit(X, np.zeros(len(y)))


def test_a_covariance_larger_than_the_memory_is_refused_before_it_is_allocated(
    monkeypatch,
):
    monkeypatch.setattr(baselines, "available_memory", lambda: 10**6)
    X, y = problem(20, 300, 2)  # a 300 x 300 covariance: 1.4 MB with its factor
    with pytest.raises(ValueError) as error:
        get_method("LDA").build().fit(X, y)
    message = str(error.value)
    assert "\n" not in message
    assert "300 x 300 covariance matrix" in message and "1.0 MB" in message
    monkeypatch.setattr(baselines, "available_memory", lambda: 2 * 10**6)
    get_method("LDA").build().fit(X, y)


def test_fdlsr_fit_reports_the_memory_refusal_in_one_line(tmp_path, monkeypatch):
    """Where the issue met a MemoryError traceback (20 samples x 50,000 features)."""
    monkeypatch.setattr(baselines, "available_memory", lambda: 10**6)
    X, y = problem(20, 300, 2)
    path = tmp_path / "wide.csv"
    np.savetxt(path, np.column_stack([y, X]), delimiter=",")
    out = tmp_path / "lda.fdlsr"
    argv = [
        "fit",
        "--dataset",
        str(path),
        "--y",
        "0",
        "--method",
        "LDA",
        "-o",
        str(out),
    ]
    status, _, err = cli(argv)
    assert status == 2
    assert err.count("\n") == 1 and "covariance matrix" in err, err
    assert not out.exists()
