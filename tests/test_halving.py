"""FDLSRCV(search="halving"): successive halving over the iterations, warm-started."""

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_digits
from sklearn.exceptions import NotFittedError
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import HalvingGridSearchCV, StratifiedKFold
from sklearn.preprocessing import normalize

from fdlsr import FDLSR, FDLSRCV
from fdlsr._common.class_means import one_hot
from fdlsr._core import grid as grid_module
from fdlsr._core.grid import HatOperators, fit_grid, fit_grid_threaded
from fdlsr._core.halving import halving_schedule

GRID = dict(alphas=[1e-3, 1e-1, 1.0], betas=[1e-3, 1e-1], lams=[1e-5, 1e-1, 1.0])
PARAM_GRID = {"alpha": GRID["alphas"], "beta": GRID["betas"], "lam": GRID["lams"]}
# The keys that GridSearchCV and a halving search share.
COMMON = [
    "params", "param_alpha", "param_beta", "param_decision_rule", "param_lam",
    "split0_test_score", "split1_test_score", "split2_test_score",
    "mean_test_score", "std_test_score", "rank_test_score",
]  # fmt: skip


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    order = np.random.default_rng(0).permutation(y.size)[:240]
    return normalize(X[order]), y[order]


class Iterations(ClassifierMixin, BaseEstimator):
    """A classifier with a ``max_iter`` that costs nothing to fit."""

    def __init__(self, C=1.0, max_iter=1):
        self.C = C
        self.max_iter = max_iter

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


@pytest.mark.parametrize(
    "n_candidates, max_iter, factor, min_resources",
    [(100, 30, 3, "exhaust"), (1, 30, 3, "exhaust"), (7, 30, 2, "smallest"),
     (18, 30, 3, 2), (40, 10, 2.5, "exhaust"), (27, 9, 3, 1), (60, 30, 4, 5),
     (50, 30, 2, "exhaust"), (18, 30, 3, 30)],
)  # fmt: skip
def test_schedule_is_scikit_learns(n_candidates, max_iter, factor, min_resources):
    """Rounds and candidates per round as HalvingGridSearchCV's with resource
    max_iter; only the last round differs, run to max_iter."""
    X = np.zeros((6, 1))
    y = np.repeat([0, 1], 3)
    peer = HalvingGridSearchCV(
        Iterations(),
        {"C": np.arange(n_candidates)},
        resource="max_iter",
        max_resources=max_iter,
        factor=factor,
        min_resources=min_resources,
        cv=2,
    ).fit(X, y)
    ours = halving_schedule(n_candidates, max_iter, factor, min_resources)
    assert list(ours.n_candidates) == peer.n_candidates_
    assert list(ours.n_resources[:-1]) == peer.n_resources_[:-1]
    assert ours.n_resources[-1] == max_iter
    assert ours.min_resources == peer.min_resources_
    assert ours.n_required_iterations == peer.n_required_iterations_
    assert ours.n_possible_iterations == peer.n_possible_iterations_


@pytest.mark.parametrize(
    "halving",
    [
        dict(factor=100, min_resources=1),
        dict(factor=2, min_resources=8),
        dict(min_resources=40),
    ],
    ids=["factor above the candidates", "min_resources = max_iter", "beyond"],
)
@pytest.mark.parametrize("rules", [["nearest_neighbor"], None])
def test_one_round_keeping_every_candidate_is_the_grid(digits, halving, rules):
    """A factor large enough to keep every candidate to the end (or a first round
    that is already the last) gives the exact grid's cv_results_ and choice."""
    X, y = digits
    kwargs = dict(GRID, cv=StratifiedKFold(3), max_iter=8)
    if rules:
        kwargs["decision_rules"] = rules
    exact = FDLSRCV(**kwargs).fit(X, y)
    model = FDLSRCV(**kwargs, search="halving", **halving).fit(X, y)
    assert model.n_iterations_ == 1 and model.n_resources_ == [8]
    assert model.n_candidates_ == [len(exact.cv_results_["params"])]
    for key in COMMON:
        np.testing.assert_array_equal(model.cv_results_[key], exact.cv_results_[key])
    assert not model.cv_results_["continued"].any()
    assert model.best_params_ == exact.best_params_
    assert model.best_index_ == exact.best_index_
    np.testing.assert_array_equal(model.coef_, exact.coef_)


def scores_after(X, y, cv, n_iter, rules):
    """Mean and split scores of every grid point after ``n_iter`` iterations from
    scratch (the restart that the halving search must equal), and the points."""
    model = FDLSRCV(**GRID, cv=cv, max_iter=n_iter, decision_rules=rules).fit(X, y)
    results = model.cv_results_
    splits = [results[f"split{i}_test_score"] for i in range(3)]
    return results["mean_test_score"], np.array(splits), results["params"]


@pytest.mark.parametrize("rules", [["nearest_neighbor"], ["knn", "linear"]])
def test_each_round_equals_a_restart(digits, rules):
    """Round i's scores are those of a fresh search with that many iterations, and
    the best ceil(n / factor) of them (first in grid order on ties) continue."""
    X, y = digits
    cv = StratifiedKFold(3)
    model = FDLSRCV(
        **GRID, cv=cv, max_iter=12, search="halving", factor=2, min_resources=2,
        decision_rules=rules,
    ).fit(X, y)  # fmt: skip
    results = model.cv_results_
    assert model.n_resources_ == [2, 4, 12]
    assert model.n_iterations_ == 3
    n_grid = 18 * len(rules)
    assert model.n_candidates_ == [n_grid, -(-n_grid // 2), -(-n_grid // 4)]
    order = scores_after(X, y, cv, 0, rules)[2]  # the grid's points, in its order
    for i, n_iter in enumerate(model.n_resources_):
        rows = np.flatnonzero(results["iter"] == i)
        assert np.all(results["n_resources"][rows] == n_iter)
        index = [order.index(results["params"][r]) for r in rows]
        assert index == sorted(index)  # grid order within a round
        mean, splits, _ = scores_after(X, y, cv, n_iter, rules)
        np.testing.assert_array_equal(results["mean_test_score"][rows], mean[index])
        for f in range(3):
            np.testing.assert_array_equal(
                results[f"split{f}_test_score"][rows], splits[f, index]
            )
        if i + 1 < model.n_iterations_:
            ranked = np.argsort(-mean[index], kind="stable")
            keep = np.sort(ranked[: model.n_candidates_[i + 1]])
            expected = np.zeros(rows.size, bool)
            expected[keep] = True
            np.testing.assert_array_equal(results["continued"][rows], expected)
            after = [results["params"][r] for r in rows[expected]]
            nxt = np.flatnonzero(results["iter"] == i + 1)
            assert [results["params"][r] for r in nxt] == after
    last = np.flatnonzero(results["iter"] == model.n_iterations_ - 1)
    assert model.best_index_ == last[np.argmax(results["mean_test_score"][last])]


def count_products(monkeypatch, ridges):
    """Count the rows multiplied by ``P_beta`` for the ridges in ``ridges``."""
    counted = []
    original = HatOperators.fitted

    def fitted(self, ridge):
        op = original(self, ridge)
        if float(ridge) not in ridges:
            return op

        def counting(T, out=None):
            counted.append(T.shape[0])
            return op(T, out=out)

        return counting

    monkeypatch.setattr(HatOperators, "fitted", fitted)
    return counted


def test_continued_candidates_are_not_recomputed(digits, monkeypatch):
    """Each (alpha, beta, lambda) point costs, per fold, one product per iteration
    it reaches, shared by its decision rules: a restart per round would cost the sum
    of its rounds' iterations."""
    X, y = digits
    counted = count_products(monkeypatch, set(GRID["betas"]))
    model = FDLSRCV(
        **GRID, cv=3, max_iter=12, search="halving", factor=3, min_resources=1,
        decision_rules=["nearest_neighbor", "linear"],
    ).fit(X, y)  # fmt: skip
    results = model.cv_results_
    scored_at = {}  # (alpha, beta, lam) -> the iteration counts it was scored at
    for params, n_iter in zip(results["params"], results["n_resources"], strict=True):
        point = (params["alpha"], params["beta"], params["lam"])
        scored_at.setdefault(point, set()).add(int(n_iter))
    n_classes = np.unique(y).size  # every fold holds every class
    expected = 3 * n_classes * sum(max(counts) for counts in scored_at.values())
    restarts = 3 * n_classes * sum(sum(counts) for counts in scored_at.values())
    assert len(model.n_resources_) == 3 and model.n_resources_ == [1, 3, 12]
    assert sum(counted) == expected
    assert sum(counted) < restarts


@pytest.mark.parametrize("solver", ["primal", "dual"])
def test_continuing_a_run_is_one_longer_run(digits, solver):
    """fit_grid from an earlier (T, fitted) gives, bit for bit, the T and
    T P_beta of one run with all the iterations (threaded too)."""
    X, y = digits[0][:120], digits[1][:120]
    codes = np.unique(y, return_inverse=True)[1]
    codes = np.sort(codes)
    c = codes.max() + 1
    hats = HatOperators(X, solver)
    init = hats.fitted(1e-4)(one_hot(codes, c))
    op = hats.fitted(1e-2)
    alphas, lams = np.array([0.0, 1e-2, 1.0, 0.1]), np.array([1e-1, 0.0, 1.0, 1e-3])
    for run in (fit_grid, fit_grid_threaded):
        kwargs = dict(t_step="paper")
        whole = run(op, init, codes, c, alphas, lams, max_iter=7, **kwargs)
        part = run(op, init, codes, c, alphas, lams, max_iter=3, **kwargs)
        rest = run(op, init, codes, c, alphas, lams, max_iter=4, start=part, **kwargs)
        for a, b in zip(rest, whole, strict=True):
            np.testing.assert_array_equal(a, b)


def continuous_score(estimator, X, y):
    """Mean decision score of the true class: a scorer without ties, so that two
    halving searches must keep the same candidates."""
    scores = estimator.decision_function(X)
    return float(np.mean(scores[np.arange(y.size), np.searchsorted(estimator.classes_, y)]))  # fmt: skip


def test_same_rounds_as_halvinggridsearchcv(digits):
    """Where scikit-learn's last round reaches max_iter, HalvingGridSearchCV(FDLSR(),
    resource="max_iter") scores the same candidates with the same scores in every
    round and chooses the same point."""
    X, y = digits
    cv = StratifiedKFold(3)
    fixed = dict(decision_rule="linear")
    model = FDLSRCV(
        **GRID, cv=cv, max_iter=9, search="halving", factor=3, min_resources=1,
        decision_rules=["linear"], scoring=continuous_score,
    ).fit(X, y)  # fmt: skip
    peer = HalvingGridSearchCV(
        FDLSR(**fixed), PARAM_GRID, resource="max_iter", max_resources=9, factor=3,
        min_resources=1, cv=cv, scoring=continuous_score,
    ).fit(X, y)  # fmt: skip
    assert model.n_resources_ == peer.n_resources_ == [1, 3, 9]
    assert model.n_candidates_ == peer.n_candidates_
    ours, theirs = model.cv_results_, peer.cv_results_
    for i in range(model.n_iterations_):
        mine = {
            tuple(p[k] for k in PARAM_GRID): ours["mean_test_score"][r]
            for r, p in enumerate(ours["params"])
            if ours["iter"][r] == i
        }
        peers = {
            tuple(p[k] for k in PARAM_GRID): theirs["mean_test_score"][r]
            for r, p in enumerate(theirs["params"])
            if theirs["iter"][r] == i
        }
        assert mine.keys() == peers.keys()
        for point, score in mine.items():
            assert score == pytest.approx(peers[point], rel=1e-9)
    best = {k: v for k, v in peer.best_params_.items() if k != "max_iter"}
    assert {k: model.best_params_[k] for k in PARAM_GRID} == best


@pytest.mark.parametrize("search", ["grid", "halving"])
def test_refit_false_leaves_no_fitted_model(digits, search):
    """refit=False chooses what refit=True chooses and fits no model; a model left
    by an earlier fit is removed."""
    X, y = digits
    kwargs = dict(GRID, cv=3, max_iter=5, search=search, min_resources=1)
    refitted = FDLSRCV(**kwargs).fit(X, y)
    model = FDLSRCV(**kwargs, refit=False).fit(X, y)
    assert model.best_params_ == refitted.best_params_
    assert model.best_score_ == refitted.best_score_
    assert model.decision_rule_ == refitted.decision_rule_
    for name in ("coef_", "centroids_", "neighbors_", "n_iter_", "objective_"):
        assert not hasattr(model, name)
    for method in ("predict", "transform", "decision_function"):
        with pytest.raises(NotFittedError, match="refit=False"):
            getattr(model, method)(X)
    if search == "halving":
        assert model.n_resources_ == refitted.n_resources_ == [1, 5]
        np.testing.assert_array_equal(
            model.cv_results_["continued"], refitted.cv_results_["continued"]
        )
    refitted.set_params(refit=False).fit(X, y)
    assert not hasattr(refitted, "coef_") and not hasattr(refitted, "neighbors_")


def test_halving_refits_its_choice(digits):
    X, y = digits
    model = FDLSRCV(**GRID, cv=3, max_iter=6, search="halving", min_resources=2)
    model.fit(X, y)
    assert model.n_resources_ == [2, 6]
    params = dict(model.best_params_)
    single = FDLSR(**params, max_iter=6).fit(X, y)
    np.testing.assert_allclose(model.coef_, single.coef_, rtol=1e-10)
    np.testing.assert_array_equal(model.predict(X), single.predict(X))
    # the grid search sets no halving attributes, also after a halving fit
    model.set_params(search="grid").fit(X, y)
    assert not hasattr(model, "n_resources_") and "iter" not in model.cv_results_


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(factor=1), "'factor' parameter of FDLSRCV must be"),
        (dict(search="random"), "'search' parameter of FDLSRCV must be"),
        (dict(min_resources=0), "'min_resources' parameter of FDLSRCV must be"),
    ],
)
def test_bad_halving_parameters_are_named(digits, params, message):
    with pytest.raises(ValueError, match=message):
        FDLSRCV(**GRID, **{"search": "halving", **params}).fit(*digits)


def test_halving_in_another_namespace(digits):
    """The warm-started rounds of the array-API path (array-api-strict here) give
    NumPy's rounds and scores."""
    xp = pytest.importorskip("array_api_strict")
    X, y = digits
    grid = dict(alphas=[1e-3, 1.0], betas=[1e-3, 1e-1], lams=[1e-5, 1.0])
    kwargs = dict(grid, cv=2, max_iter=6, search="halving", factor=2, min_resources=1)
    reference = FDLSRCV(**kwargs).fit(X, y)
    with sklearn.config_context(array_api_dispatch=True):
        model = FDLSRCV(**kwargs).fit(xp.asarray(X), xp.asarray(y))
    assert model.n_resources_ == reference.n_resources_
    assert model.cv_results_["params"] == reference.cv_results_["params"]
    np.testing.assert_allclose(
        model.cv_results_["mean_test_score"], reference.cv_results_["mean_test_score"]
    )
    assert model.best_params_ == reference.best_params_


def test_stacked_pairs_are_continued_by_subset(monkeypatch, digits):
    """A round advances only the (alpha, lambda) pairs that continue, stacked per
    beta: the stacks shrink round by round."""
    X, y = digits
    sizes = []
    original = grid_module.fit_grid_threaded

    def spy(fitted_op, init_fitted, y, n_classes, alphas, lams, **kwargs):
        sizes.append((len(alphas), kwargs["max_iter"], kwargs.get("start") is None))
        return original(fitted_op, init_fitted, y, n_classes, alphas, lams, **kwargs)

    monkeypatch.setattr(grid_module, "fit_grid_threaded", spy)
    FDLSRCV(
        **GRID, cv=2, max_iter=9, search="halving", factor=3, min_resources=1,
        decision_rules=["nearest_neighbor"],
    ).fit(X, y)  # fmt: skip
    first = [s for s in sizes if s[2]]
    assert [s[:2] for s in first] == [(9, 1)] * 4  # 2 folds x 2 betas, from scratch
    later = [s for s in sizes if not s[2]]
    assert {s[1] for s in later} == {2, 6}
    assert sum(s[0] for s in later if s[1] == 2) == 2 * 6  # 18 points / 3, 2 folds
    assert sum(s[0] for s in later if s[1] == 6) == 2 * 2


def test_default_halving_on_the_papers_grid(digits):
    """The default halving search on the paper's 216 points and 30 iterations is
    the documented one: every point runs 10 iterations, the best 72 continue to 30,
    3,600 point-iterations per fold against the grid's 6,480."""
    X, y = digits
    model = FDLSRCV(search="halving", cv=2, decision_rules=["nearest_neighbor"])
    model.fit(X, y)
    assert model.n_resources_ == [10, 30] and model.min_resources_ == 10
    assert model.n_candidates_ == [216, 72] and model.n_iterations_ == 2
    results = model.cv_results_
    assert results["continued"].sum() == 72 and len(results["params"]) == 216 + 72
    assert np.all(results["n_resources"] == np.repeat([10, 30], [216, 72]))
    steps = np.diff([0] + model.n_resources_)
    assert int(np.dot(model.n_candidates_, steps)) == 3600  # point-iterations


# What HalvingGridSearchCV has that FDLSRCV does not: times, training scores, the
# resource as a parameter (FDLSRCV's docstring, Notes); and what FDLSRCV adds.
PEER_ONLY = {
    "mean_fit_time", "std_fit_time", "mean_score_time", "std_score_time",
    "mean_train_score", "std_train_score", "param_max_iter",
}  # fmt: skip
OURS_ONLY = {"continued"}


def rows_by_round(results, names):
    """``{round: {point: row}}`` of a halving search's ``cv_results_``, a point
    being its values of ``names``."""
    out = {}
    for row, params in enumerate(results["params"]):
        point = tuple(params[name] for name in names)
        out.setdefault(int(results["iter"][row]), {})[point] = row
    return out


@pytest.mark.parametrize(
    "max_iter, factor, min_resources",
    [(9, 3, 1), (30, 3, "exhaust"), (10, 2, "smallest"), (8, 3, 2), (12, 2.5, 1),
     (7, 4, "exhaust")],
)  # fmt: skip
def test_every_attribute_is_halvinggridsearchcvs(
    digits, max_iter, factor, min_resources
):
    """Each attribute that the docstring says is as in HalvingGridSearchCV is, on the
    same grid, folds and schedule; the differences are exactly those it lists."""
    X, y = digits
    cv = StratifiedKFold(3)
    model = FDLSRCV(
        **GRID, cv=cv, max_iter=max_iter, search="halving", factor=factor,
        min_resources=min_resources, decision_rules=["linear"],
        scoring=continuous_score,
    ).fit(X, y)  # fmt: skip
    grid = {**PARAM_GRID, "decision_rule": ["linear"]}
    peer = HalvingGridSearchCV(
        FDLSR(), grid, resource="max_iter", max_resources=max_iter, factor=factor,
        min_resources=min_resources, cv=cv, scoring=continuous_score,
    ).fit(X, y)  # fmt: skip
    for name in (
        "n_candidates_", "n_iterations_", "n_remaining_candidates_",
        "min_resources_", "max_resources_", "n_required_iterations_",
        "n_possible_iterations_", "n_splits_",
    ):  # fmt: skip
        assert getattr(model, name) == getattr(peer, name), name
    # the last round runs max_iter iterations; the others are scikit-learn's
    assert model.n_resources_[:-1] == peer.n_resources_[:-1]
    assert model.n_resources_[-1] == max_iter >= peer.n_resources_[-1]
    same_last = model.n_resources_ == peer.n_resources_

    ours, theirs = model.cv_results_, peer.cv_results_
    assert set(ours) == (set(theirs) - PEER_ONLY - {
        f"split{i}_train_score" for i in range(3)
    }) | OURS_ONLY  # fmt: skip
    names = list(grid)
    mine, peers = rows_by_round(ours, names), rows_by_round(theirs, names)
    assert mine.keys() == peers.keys() == set(range(model.n_iterations_))
    for i in mine:
        assert mine[i].keys() == peers[i].keys(), i  # the same points in each round
        resources_match = model.n_resources_[i] == peer.n_resources_[i]
        for point, row in mine[i].items():
            other = peers[i][point]
            assert ours["iter"][row] == theirs["iter"][other] == i
            assert ours["n_resources"][row] == model.n_resources_[i]
            assert theirs["n_resources"][other] == peer.n_resources_[i]
            if not resources_match:
                continue
            for key in ["mean_test_score", "std_test_score"] + [
                f"split{f}_test_score" for f in range(3)
            ]:
                assert ours[key][row] == pytest.approx(theirs[key][other], rel=1e-9)
            for key in ("param_alpha", "param_beta", "param_lam"):
                assert ours[key][row] == theirs[key][other]
            if same_last:  # ranks are over every row, the last round's included
                assert ours["rank_test_score"][row] == theirs["rank_test_score"][other]
            # a point continued if it is scored in the next round
            continued = i + 1 in peers and point in peers[i + 1]
            assert bool(ours["continued"][row]) == continued
    assert ours["params"][model.best_index_] == model.best_params_
    assert theirs["params"][peer.best_index_] == peer.best_params_
    assert model.best_score_ == ours["mean_test_score"][model.best_index_]
    if same_last:
        expected = {k: v for k, v in peer.best_params_.items() if k != "max_iter"}
        assert model.best_params_ == expected
        assert model.best_score_ == pytest.approx(peer.best_score_, rel=1e-9)
