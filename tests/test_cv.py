"""FDLSRCV: the same search as GridSearchCV(FDLSR()), by shared factorisations."""

import numpy as np
import pytest
import sklearn
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.preprocessing import normalize
from sklearn.utils.estimator_checks import parametrize_with_checks

from fdlsr import FDLSR, FDLSRCV
from fdlsr._common.class_means import one_hot
from fdlsr._core.dense import fit_fdlsr
from fdlsr._core.grid import HatOperators, fit_grid
from fdlsr._testing import relative_error

RULES = ["nearest_neighbor", "nearest_mean", "knn", "linear"]
GRID = dict(alphas=[1e-3, 1.0], betas=[1e-4, 1e-1], lams=[1e-5, 1e-1])
PARAM_GRID = {
    "alpha": GRID["alphas"],
    "beta": GRID["betas"],
    "lam": GRID["lams"],
    "decision_rule": RULES,
}


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    order = np.random.default_rng(0).permutation(y.size)[:150]
    return normalize(X[order]), y[order]


@parametrize_with_checks(
    [FDLSRCV(alphas=[1e-2], betas=[1e-2, 1.0], lams=[1e-1], cv=2)],
    expected_failed_checks=lambda est: {},
)
def test_sklearn_common_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize(
    "solver, t_step, scoring, knn",
    [
        ("auto", "paper", None, {}),  # d = 64 < n: primal form
        ("dual", "exact", None, {"n_neighbors": 3, "weights": "distance"}),
        ("primal", "paper", "balanced_accuracy", {}),  # a generic scorer
    ],
)
def test_same_search_as_gridsearchcv(digits, solver, t_step, scoring, knn):
    """Parameters and decision rule: FDLSRCV chooses what GridSearchCV chooses."""
    X, y = digits
    cv = StratifiedKFold(3)
    fixed = dict(solver=solver, t_step=t_step, max_iter=10, **knn)
    fast = FDLSRCV(**GRID, cv=cv, scoring=scoring, **fixed).fit(X, y)
    slow = GridSearchCV(FDLSR(**fixed), PARAM_GRID, cv=cv, scoring=scoring).fit(X, y)
    assert fast.best_params_ == slow.best_params_
    assert fast.best_score_ == slow.best_score_
    for key in ["mean_test_score", "std_test_score", "rank_test_score"]:
        np.testing.assert_allclose(fast.cv_results_[key], slow.cv_results_[key])
    assert fast.cv_results_["params"] == list(slow.cv_results_["params"])
    np.testing.assert_allclose(fast.coef_, slow.best_estimator_.coef_, rtol=1e-10)
    np.testing.assert_array_equal(fast.predict(X), slow.predict(X))
    assert (fast.alpha_, fast.beta_, fast.lam_, fast.decision_rule_) == tuple(
        slow.best_params_[k] for k in ("alpha", "beta", "lam", "decision_rule")
    )
    assert list(fast.cv_results_["param_decision_rule"]) == list(
        slow.cv_results_["param_decision_rule"]
    )


def test_rule_choice_on_noisy_data_is_gridsearchcvs():
    """A problem where the rules differ (many noisy samples per class): the rule
    chosen and every rule's score are GridSearchCV's."""
    from sklearn.datasets import make_classification

    X, y = make_classification(
        n_samples=240,
        n_features=30,
        n_informative=10,
        n_classes=4,
        flip_y=0.1,
        random_state=0,
    )
    X = normalize(X)
    grid = dict(alphas=[1e-2], betas=[1e-2], lams=[1e-1])
    cv = StratifiedKFold(4)
    fast = FDLSRCV(**grid, cv=cv, max_iter=10).fit(X, y)
    slow = GridSearchCV(
        FDLSR(max_iter=10),
        {"alpha": [1e-2], "beta": [1e-2], "lam": [1e-1], "decision_rule": RULES},
        cv=cv,
    ).fit(X, y)
    np.testing.assert_allclose(
        fast.cv_results_["mean_test_score"], slow.cv_results_["mean_test_score"]
    )
    assert len(set(fast.cv_results_["mean_test_score"])) > 1  # the rules differ
    assert fast.decision_rule_ == slow.best_params_["decision_rule"] != RULES[0]
    neighbour_rule = fast.decision_rule_ in ("nearest_neighbor", "knn")
    assert hasattr(fast, "neighbors_") == neighbour_rule
    np.testing.assert_array_equal(fast.predict(X), slow.predict(X))


def test_paper_rule_only(digits):
    X, y = digits
    model = FDLSRCV(**GRID, cv=2, max_iter=5, decision_rules=["nearest_neighbor"])
    model.fit(X, y)
    assert model.decision_rule_ == "nearest_neighbor"
    assert len(model.cv_results_["params"]) == 8
    with pytest.raises(ValueError, match="decision_rules must be"):
        FDLSRCV(**GRID, decision_rules=["nearest"]).fit(X, y)


@pytest.mark.parametrize("form", ["primal", "dual"])
@pytest.mark.parametrize("n_samples", [40, 150])  # explicit and factored products
def test_batched_grid_equals_single_fits(digits, form, n_samples):
    """Every (alpha, lam) of a stacked run equals its own fit_fdlsr, Q and Q X^T."""
    X, y = digits[0][:n_samples], digits[1][:n_samples]
    codes = np.unique(y, return_inverse=True)[1]
    c = codes.max() + 1
    hats = HatOperators(X, form)
    init = hats.fitted(1e-4)(one_hot(codes, c))
    alphas, lams, beta = np.array([0.0, 1e-2, 1.0]), np.array([1e-1, 0.0, 1.0]), 1e-2
    T, fitted = fit_grid(
        hats.fitted(beta), init, codes, c, alphas, lams, max_iter=7, t_step="paper"
    )
    C = hats.coef(beta)
    for j in range(alphas.size):
        single = fit_fdlsr(
            X, codes, c, alpha=alphas[j], beta=beta, lam=lams[j], max_iter=7,
            tol=None, init_ridge=1e-4, t_step="paper", solver="auto",
        )  # fmt: skip
        assert relative_error(T[j] @ C, single.coef) < 1e-9
        assert relative_error(fitted[j], single.fitted) < 1e-9


def test_default_cv_is_capped_by_the_smallest_class():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((9, 20))
    y = np.repeat([0, 1, 2], 3)  # 3 per class: 3 stratified folds, not 5
    model = FDLSRCV(alphas=[0.1], betas=[0.1], lams=[0.1]).fit(X, y)
    assert model.n_splits_ == 3
    with pytest.raises(ValueError, match="only 1 training sample"):
        FDLSRCV().fit(X[:7], np.array([0, 0, 0, 1, 1, 1, 2]))


def test_float32_search_stays_float32(digits):
    X, y = digits
    model = FDLSRCV(**GRID, cv=2, max_iter=5).fit(X.astype(np.float32), y)
    assert model.coef_.dtype == np.float32
    reference = FDLSRCV(**GRID, cv=2, max_iter=5).fit(X, y)
    assert model.best_params_ == reference.best_params_


@pytest.mark.parametrize(
    "grid, message",
    [({"betas": [0.0, 1.0]}, "betas must be"), ({"alphas": []}, "alphas must be")],
)
def test_bad_grid_is_named(digits, grid, message):
    with pytest.raises(ValueError, match=message):
        FDLSRCV(**grid).fit(*digits)


@pytest.mark.parametrize("t_step", ["paper", "exact"])
@pytest.mark.parametrize("max_iter", [0, 1, 6])
def test_batched_grid_equals_numpy_loop(digits, t_step, max_iter):
    """The namespace-generic batched iterations (run here on NumPy arrays through
    array-api-strict) equal the threaded NumPy loop, T and Q X^T."""
    xp = pytest.importorskip("array_api_strict")
    from fdlsr._core.grid import fit_grid_batched

    X, y = digits[0][:90], digits[1][:90]
    codes = np.unique(y, return_inverse=True)[1]
    c = codes.max() + 1
    alphas, lams, beta = np.array([0.0, 1e-2, 1.0]), np.array([1e-1, 0.0, 1.0]), 1e-2
    kwargs = dict(max_iter=max_iter, t_step=t_step)
    hats = HatOperators(X, "dual")
    init = hats.fitted(1e-4)(one_hot(codes, c))
    T, fitted = fit_grid(hats.fitted(beta), init, codes, c, alphas, lams, **kwargs)
    with sklearn.config_context(array_api_dispatch=True):
        hats_xp = HatOperators(xp.asarray(X), "dual")
        codes_xp = xp.asarray(codes)
        T_xp, fitted_xp = fit_grid_batched(
            hats_xp.fitted(beta),
            hats_xp.fitted(1e-4)(one_hot(codes_xp, c, xp.float64)),
            codes_xp,
            c,
            alphas,
            lams,
            **kwargs,
        )
    assert relative_error(np.asarray(T_xp), T) < 1e-9
    assert relative_error(np.asarray(fitted_xp), fitted) < 1e-9


def test_verbose_progress_on_stdout(digits, capsys):
    """verbose=0 prints nothing; 1 the fits of each round, a line per fold and beta
    and the refit; 2 also a line per candidate (as GridSearchCV's verbose)."""
    X, y = digits
    quiet = FDLSRCV(**GRID, cv=3, max_iter=5).fit(X, y)
    assert capsys.readouterr().out == ""
    loud = FDLSRCV(**GRID, cv=3, max_iter=5, verbose=1).fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Fitting 3 folds for each of 32 candidates, totalling 96 fits"
    per_beta = [line for line in lines if line.startswith("[CV ")]
    assert len(per_beta) == 3 * len(GRID["betas"])
    assert "[CV 3/3] beta=0.1 (2/2): 16 candidates, best score" in per_beta[-1]
    assert lines[-1].startswith("Refitting on all 150 samples: alpha=")
    assert loud.best_params_ == quiet.best_params_
    FDLSRCV(**GRID, cv=3, max_iter=5, verbose=2).fit(X, y)
    ends = [line for line in capsys.readouterr().out.splitlines() if " END " in line]
    assert len(ends) == 96 and ends[0].endswith(f"score={ends[0][-5:]}")


def test_verbose_halving_prints_each_round(digits, capsys):
    X, y = digits
    model = FDLSRCV(**GRID, cv=2, max_iter=9, search="halving", verbose=2).fit(X, y)
    out = capsys.readouterr().out
    assert out.count("----------\niter: ") == model.n_iterations_
    for n in model.n_candidates_:
        assert f"n_candidates: {n}\n" in out
    assert out.count(" END ") == 2 * sum(model.n_candidates_)
