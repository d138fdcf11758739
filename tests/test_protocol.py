"""The evaluation protocol: per-class splits, inner cross-validation, one split's run."""

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import normalize

from fdlsr._experiments.evaluation import evaluate_split
from fdlsr._experiments.planning import Experiment, setting_key
from fdlsr._experiments.registry import Method
from fdlsr._experiments.splits import inner_cv
from fdlsr._testing import cli_error
from fdlsr.errors import ConfigError
from fdlsr.model_selection._split import PerClassSplit, per_class_split


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X / 16.0, y


def uneven_labels():
    # string labels, unsorted, classes of 4, 6 and 9 samples
    rng = np.random.default_rng(0)
    return rng.permutation(
        np.array(["cat"] * 4 + ["ant"] * 6 + ["dog"] * 9, dtype=object)
    )


@pytest.mark.parametrize("k", [1, 2, 3])
def test_exactly_k_per_class_disjoint_and_complete(k):
    y = uneven_labels()
    for index in range(5):
        train, test = per_class_split(y, k, seed=7, index=index)
        assert np.intersect1d(train, test).size == 0
        assert np.array_equal(np.sort(np.concatenate([train, test])), np.arange(y.size))
        classes, counts = np.unique(y[train], return_counts=True)
        assert set(classes) == set(y) and np.all(counts == k)
        assert np.all(np.diff(train) > 0) and np.all(np.diff(test) > 0)


def test_reproducible_by_seed_and_different_between_splits():
    y = uneven_labels()
    first = [per_class_split(y, 2, 3, i)[0] for i in range(10)]
    again = [
        train
        for train, _ in PerClassSplit(2, n_splits=10, random_state=3).split(None, y)
    ]
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert len({tuple(t) for t in first}) > 1
    other_seed = [per_class_split(y, 2, 4, i)[0] for i in range(10)]
    assert any(not np.array_equal(a, b) for a, b in zip(first, other_seed, strict=True))


def test_split_does_not_depend_on_how_many_splits_are_asked():
    y = uneven_labels()
    few = list(PerClassSplit(3, n_splits=2).split(None, y))
    many = list(PerClassSplit(3, n_splits=6).split(None, y))
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(few, many[:2], strict=True))


def test_k_too_large_names_the_class_and_its_count():
    y = uneven_labels()
    with pytest.raises(ConfigError, match=r"class 'cat', which has 4 samples.*k <= 3"):
        per_class_split(y, 4, 0, 0)
    with pytest.raises(ConfigError, match="positive"):
        per_class_split(y, 0, 0, 0)


def test_a_class_of_one_sample_is_named_without_an_impossible_k(capsys, tmp_path):
    """No k leaves a test sample to a class of one: the message says so and names
    the class, instead of asking for k <= 0 (which no option accepts)."""
    y = np.r_[np.repeat([0, 1], 10), 2]
    with pytest.raises(ConfigError) as refusal:
        per_class_split(y, 1, 0, 0)
    message = str(refusal.value)
    assert "class 2, which has a single sample" in message
    assert "k must be smaller than the smallest class" in message
    assert "k <= 0" not in message and "remove the class" in message
    np.savez(tmp_path / "one.npz", X=np.random.default_rng(0).normal(size=(21, 3)), y=y)
    line = cli_error(capsys, ["run", "--dataset", str(tmp_path / "one.npz"), "-k",
                              "1", "--methods", "LSR", "--out", str(tmp_path / "o")])  # fmt: skip
    assert "a single sample" in line and "k <= 0" not in line


def test_usable_as_scikit_learn_cv(digits):
    X, y = digits
    cv = PerClassSplit(3, n_splits=4, random_state=1)
    assert cv.get_n_splits() == 4
    scores = cross_val_score(KNeighborsClassifier(1), X, y, cv=cv)
    assert scores.shape == (4,) and np.all(scores > 0.5)
    search = GridSearchCV(KNeighborsClassifier(), {"n_neighbors": [1, 3]}, cv=cv).fit(
        X, y
    )
    assert search.n_splits_ == 4


@pytest.mark.parametrize("k, folds", [(2, 2), (3, 3), (5, 3)])
def test_inner_cv_keeps_every_class_in_every_training_fold(k, folds):
    y = np.repeat(np.arange(6), k)
    cv = inner_cv(k, seed=0)
    assert cv.get_n_splits() == folds
    for train, validation in cv.split(np.zeros((y.size, 1)), y):
        assert set(y[train]) == set(y) and set(y[validation]) == set(y)


def test_inner_cv_impossible_with_one_sample_per_class():
    assert inner_cv(1, seed=0) is None


class Recorder(KNeighborsClassifier):
    """1-NN that records which samples every fit saw."""

    seen = []

    def fit(self, X, y):
        Recorder.seen.append(X.copy())
        return super().fit(X, y)


def recording_method():
    """The recording 1-NN as a registry method, tuned over k in {1, 3}."""
    return Method(
        "rec",
        Recorder,
        "test",
        "",
        params={"n_neighbors": 1},
        grid={"n_neighbors": [1, 3]},
    )


def test_tuning_uses_the_training_split_only(digits):
    X, y = digits
    method = recording_method()
    train, test = per_class_split(y, 4, 0, 0)
    Recorder.seen.clear()
    row = evaluate_split(
        method, X, y, train, test, params={}, tuned=True, seed=0, cv_folds=3
    )
    test_rows = {X[i].tobytes() for i in test}
    assert len(Recorder.seen) == 2 * 3 + 1  # grid x folds, then the final fit
    for seen in Recorder.seen:
        assert not {row.tobytes() for row in seen} & test_rows
    assert row["params"]["n_neighbors"] in (1, 3)
    assert row["n_train"] == 40 and row["n_test"] == y.size - 40
    assert row["fit_time"] > 0 and row["predict_time"] > 0 and row["tune_time"] > 0


def test_tuning_with_one_sample_per_class_falls_back_and_says_so(digits):
    X, y = digits
    method = recording_method()
    train, test = per_class_split(y, 1, 0, 0)
    row = evaluate_split(
        method, X, y, train, test, params={}, tuned=True, seed=0, cv_folds=3
    )
    assert "k=1" in row["note"] and row["params"] == {"n_neighbors": 1}


def test_accuracy_matches_a_direct_fit(digits):
    from fdlsr._experiments.registry import get_method

    X, y = digits
    train, test = per_class_split(y, 5, 0, 2)
    row = evaluate_split(
        get_method("1-NN"),
        X,
        y,
        train,
        test,
        params={},
        tuned=False,
        seed=0,
        cv_folds=3,
    )
    direct = KNeighborsClassifier(1).fit(X[train], y[train]).score(X[test], y[test])
    assert row["accuracy"] == pytest.approx(direct)


def test_experiment_rejects_unknown_methods_and_parameters():
    with pytest.raises(ConfigError, match="unknown method 'Nope'"):
        Experiment("digits", [2], ["Nope"]).resolved()
    with pytest.raises(ConfigError, match="FDLSR has no parameter 'gamma'"):
        Experiment("digits", [2], ["FDLSR"], params={"FDLSR": {"gamma": 1}}).resolved()
    with pytest.raises(ConfigError, match="not among the selected"):
        Experiment("digits", [2], ["FDLSR"], params={"LDA": {"tol": 1}}).resolved()


def test_setting_key_distinguishes_fixed_tuned_and_raw():
    from fdlsr._experiments.registry import get_method

    m = get_method("FDLSR")
    keys = {
        setting_key(m, {}, False, 3, True),
        setting_key(m, {"lam": 0.5}, False, 3, True),
        setting_key(m, {}, True, 3, True),
        setting_key(m, {}, True, 2, True),
        setting_key(m, {}, False, 3, False),
    }
    assert len(keys) == 5


def test_fixed_split_of_a_dataset(tmp_path, digits):
    from fdlsr._experiments.config import Config
    from fdlsr._experiments.run import RunRequest, run
    from fdlsr._experiments.store_folder import read_rows
    from fdlsr.datasets import Dataset

    def computed(experiment, dataset):
        request = RunRequest(Config(experiment), out=tmp_path, table=False)
        return run(request, dataset=dataset).computed

    X, y = digits
    ds = Dataset(
        X, y, "fixed_digits", fixed_split=(np.arange(0, 1000), np.arange(1000, 1797))
    )
    ex = Experiment("fixed_digits", [], ["1-NN"])
    assert computed(ex, ds) == 1
    (row,) = read_rows(tmp_path)
    assert row["k"] == "fixed" and (row["n_train"], row["n_test"]) == (1000, 797)
    Xn = normalize(X)  # the protocol unit-normalises every sample
    direct = KNeighborsClassifier(1).fit(Xn[:1000], y[:1000]).score(Xn[1000:], y[1000:])
    assert row["accuracy"] == pytest.approx(direct)
    with pytest.raises(ConfigError, match="no fixed train/test split"):
        computed(Experiment("d", ["fixed"], ["1-NN"]), Dataset(X, y, "d"))


@pytest.mark.parametrize(
    "fixed, searched_fits",
    [
        ({"beta": 1e-2, "lam": 0.1}, 0),  # FDLSRCV: no FDLSR is fitted per point
        # GridSearchCV: alpha's 6 values x 2 folds (the paper's 1-NN rule only)
        ({"beta": 1e-2, "lam": 0.1, "tol": 1e-6}, 6 * 2),
    ],
    ids=["FDLSRCV", "GridSearchCV fallback"],
)
def test_tuned_fdlsr_is_fitted_once_per_split(
    digits, monkeypatch, fixed, searched_fits
):
    """--cv FDLSR reads the search's choice only: the chosen model is fitted once,
    by the run, not refitted inside the search too."""
    from fdlsr import FDLSR
    from fdlsr._experiments.registry import get_method

    fits = []
    original = FDLSR.fit

    def counted(self, X, y):
        fits.append(self.get_params())
        return original(self, X, y)

    monkeypatch.setattr(FDLSR, "fit", counted)
    X, y = digits
    train, test = per_class_split(y, 2, 0, 0)
    row = evaluate_split(
        get_method("FDLSR"), X, y, train, test, params=fixed, tuned=True, seed=0,
        cv_folds=3,
    )  # fmt: skip
    assert len(fits) == searched_fits + 1
    assert fits[-1]["alpha"] == row["params"]["alpha"]
