"""The four decision rules of the projection classifiers against brute-force
transcriptions, their agreement with ``decision_function``, what a fitted model keeps
for each, and changing the rule after fitting."""

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import normalize

from fdlsr import FDLSR
from fdlsr.relaxed import DLSR, LRDLSR

RULES = ["nearest_neighbor", "nearest_mean", "knn", "linear"]
PARAMS = dict(alpha=1e-2, beta=1e-3, lam=1e-1, max_iter=10)


@pytest.fixture(scope="module")
def noisy():
    """Overlapping classes, so that the rules disagree on many test samples."""
    X, y = make_classification(
        n_samples=500,
        n_features=40,
        n_informative=12,
        n_classes=5,
        n_clusters_per_class=2,
        flip_y=0.05,
        random_state=0,
    )
    names = np.array(["e", "d", "c", "b", "a"])[y]  # strings, unsorted
    X = normalize(X)
    return X[:350], names[:350], X[350:]


def brute_force(rule, P_train, y_train, P_test, classes, n_neighbors=5, weights=None):
    """The rule written out sample by sample on the projections (no shared code)."""
    if rule == "linear":
        return classes[np.argmax(P_test, axis=1)]
    U = P_train / np.linalg.norm(P_train, axis=1, keepdims=True)
    V = P_test / np.linalg.norm(P_test, axis=1, keepdims=True)
    pred = []
    for v in V:
        if rule == "nearest_mean":
            best, label = -np.inf, None
            for k in classes:  # the first class wins ties
                centre = U[y_train == k].mean(axis=0)
                cosine = v @ centre / np.linalg.norm(centre)
                if cosine > best:
                    best, label = cosine, k
            pred.append(label)
            continue
        distance = np.sqrt(((U - v) ** 2).sum(axis=1))
        if rule == "nearest_neighbor":
            pred.append(y_train[np.argmin(distance)])
            continue
        nearest = np.argsort(distance, kind="stable")[:n_neighbors]
        votes = {k: 0.0 for k in classes}
        for i in nearest:
            votes[y_train[i]] += 1.0 if weights == "uniform" else 1 / distance[i]
        pred.append(max(classes, key=lambda k: votes[k]))  # first on ties
    return np.array(pred)


@pytest.mark.parametrize(
    "rule, knn",
    [
        ("nearest_neighbor", {}),
        ("nearest_mean", {}),
        ("knn", {"n_neighbors": 5, "weights": "uniform"}),
        ("knn", {"n_neighbors": 4, "weights": "distance"}),
        ("knn", {"n_neighbors": 1, "weights": "uniform"}),
        ("linear", {}),
    ],
)
@pytest.mark.parametrize("estimator", [FDLSR(**PARAMS), LRDLSR(), DLSR()], ids=str)
def test_rule_equals_brute_force(noisy, estimator, rule, knn):
    X, y, X_test = noisy
    model = clone(estimator).set_params(decision_rule=rule, **knn).fit(X, y)
    P_train, P_test = model.transform(X), model.transform(X_test)
    expected = brute_force(
        rule,
        P_train,
        y,
        P_test,
        model.classes_,
        knn.get("n_neighbors", 5),
        knn.get("weights", "uniform"),
    )
    np.testing.assert_array_equal(model.predict(X_test), expected)
    scores = model.decision_function(X_test)
    assert scores.shape == (X_test.shape[0], 5)
    np.testing.assert_array_equal(
        model.classes_[np.argmax(scores, axis=1)], model.predict(X_test)
    )


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_knn_is_scikit_learns_on_normalised_projections(noisy, weights):
    X, y, X_test = noisy
    model = FDLSR(**PARAMS, decision_rule="knn", n_neighbors=7, weights=weights)
    model.fit(X, y)
    reference = KNeighborsClassifier(7, weights=weights)
    reference.fit(normalize(model.transform(X)), y)
    Z = normalize(model.transform(X_test))
    np.testing.assert_array_equal(model.predict(X_test), reference.predict(Z))
    # The scores are the neighbours' vote shares: predict_proba.
    np.testing.assert_allclose(
        model.decision_function(X_test), reference.predict_proba(Z), atol=1e-7
    )


def test_the_rules_differ_on_noisy_data(noisy):
    X, y, X_test = noisy
    model = FDLSR(**PARAMS).fit(X, y)
    predictions = {
        rule: model.set_params(decision_rule=rule).predict(X_test) for rule in RULES
    }
    assert len({p.tobytes() for p in predictions.values()}) == 4


@pytest.mark.parametrize("rule", RULES)
def test_two_classes_decision_function_has_the_sign_of_predict(noisy, rule):
    X, y, X_test = noisy
    keep = np.isin(y, ["a", "b"])
    model = FDLSR(**PARAMS, decision_rule=rule).fit(X[keep], y[keep])
    scores = model.decision_function(X_test)
    assert scores.shape == (X_test.shape[0],)
    np.testing.assert_array_equal(np.where(scores > 0, "b", "a"), model.predict(X_test))


def test_ties_go_to_the_first_class_whatever_the_sample_order():
    """A test sample equal to a training sample filed under two classes (as FERET
    files some images twice): every rule that can tie gives the first class."""
    rng = np.random.default_rng(0)
    X = normalize(rng.standard_normal((30, 8)))
    y = np.repeat(["p", "q", "r"], 10)
    X[25] = X[5]  # sample 5 ("p") again, as "r"
    for rule, knn in [
        ("nearest_neighbor", {}),
        ("knn", {"n_neighbors": 1}),
        ("knn", {"n_neighbors": 2, "weights": "distance"}),
    ]:
        for order in [np.arange(30), np.arange(30)[::-1]]:
            model = FDLSR(**PARAMS, decision_rule=rule, **knn).fit(X[order], y[order])
            assert model.predict(X[[5]])[0] == "p", (rule, knn)


@pytest.mark.parametrize("rule", ["nearest_mean", "linear"])
def test_rules_without_neighbours_keep_c_by_c_numbers(noisy, rule):
    X, y, _ = noisy
    model = FDLSR(**PARAMS, decision_rule=rule).fit(X, y)
    assert not hasattr(model, "neighbors_")
    assert model.centroids_.shape == (5, 5)
    np.testing.assert_allclose(np.linalg.norm(model.centroids_, axis=1), 1)
    # Refitting with a neighbour rule keeps them; back again drops them.
    model.set_params(decision_rule="knn").fit(X, y)
    assert model.neighbors_.reference.shape == (X.shape[0], 5)
    model.set_params(decision_rule=rule).fit(X, y)
    assert not hasattr(model, "neighbors_")


def test_set_params_switches_the_rule_without_refit(noisy):
    X, y, X_test = noisy
    model = FDLSR(**PARAMS).fit(X, y)
    coef = model.coef_.copy()
    for rule, knn in [
        ("knn", {"n_neighbors": 3, "weights": "distance"}),
        ("nearest_mean", {}),
        ("linear", {}),
        ("nearest_neighbor", {}),
    ]:
        switched = model.set_params(decision_rule=rule, **knn).predict(X_test)
        fitted = FDLSR(**PARAMS, decision_rule=rule, **knn).fit(X, y)
        np.testing.assert_array_equal(switched, fitted.predict(X_test))
    np.testing.assert_array_equal(model.coef_, coef)


def test_switching_to_a_neighbour_rule_needs_the_projections(noisy):
    X, y, X_test = noisy
    model = FDLSR(**PARAMS, decision_rule="linear").fit(X, y)
    model.set_params(decision_rule="nearest_mean").predict(X_test)  # fine
    model.set_params(decision_rule="knn")
    with pytest.raises(NotFittedError, match="Fit it again with decision_rule='knn'"):
        model.predict(X_test)
    with pytest.raises(NotFittedError, match="keeps no training projections"):
        model.set_params(decision_rule="nearest_neighbor").decision_function(X_test)


def test_n_neighbors_beyond_the_training_set_votes_whole_and_warns():
    X = normalize(np.array([[1.0, 0.1], [1.0, 0.2], [0.1, 1.0]]))
    model = FDLSR(decision_rule="knn", n_neighbors=50).fit(X, ["a", "a", "b"])
    with pytest.warns(UserWarning, match="n_neighbors=50 is more than the 3 training"):
        np.testing.assert_allclose(model.decision_function(X), -np.ones(3) / 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # as many neighbours as samples: silent
        model.set_params(n_neighbors=3).predict(X)


@pytest.mark.parametrize("rule", RULES)
def test_blocked_fit_keeps_the_same_rule_state(noisy, rule):
    X, y, X_test = noisy
    full = FDLSR(**PARAMS, decision_rule=rule).fit(X, y)
    with sklearn.config_context(working_memory=0.001):  # the blocked path
        blocked = FDLSR(**PARAMS, decision_rule=rule).fit(X, y)
    np.testing.assert_allclose(blocked.centroids_, full.centroids_, atol=1e-10)
    assert hasattr(blocked, "neighbors_") == (rule in ("nearest_neighbor", "knn"))
    np.testing.assert_array_equal(blocked.predict(X_test), full.predict(X_test))


@pytest.mark.parametrize(
    "params, message",
    [
        ({"n_neighbors": 0}, "'n_neighbors' parameter of FDLSR must be"),
        ({"weights": "inverse"}, "'weights' parameter of FDLSR must be"),
        ({"decision_rule": "centroid"}, "'decision_rule' parameter of FDLSR must be"),
    ],
)
def test_bad_rule_parameters_are_named(params, message):
    with pytest.raises(ValueError, match=message):
        FDLSR(**params).fit([[0.0, 1.0], [1.0, 0.0]], [0, 1])


@pytest.mark.parametrize("rule", ["nearest_mean", "knn"])
def test_dask_fit_keeps_the_same_rule_state(noisy, rule):
    da = pytest.importorskip("dask.array")
    X, y, X_test = noisy
    full = FDLSR(**PARAMS, decision_rule=rule, solver="primal").fit(X, y)
    model = FDLSR(**PARAMS, decision_rule=rule).fit(da.from_array(X, chunks=100), y)
    np.testing.assert_allclose(model.centroids_, full.centroids_, atol=1e-10)
    assert hasattr(model, "neighbors_") == (rule == "knn")
    predicted = model.predict(da.from_array(X_test, chunks=50)).compute()
    np.testing.assert_array_equal(predicted, full.predict(X_test))
