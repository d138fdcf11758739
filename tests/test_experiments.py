"""fdlsr.experiments: a user's scikit-learn classifiers beside FDLSR and LSR under the
paper's protocol, from Python, the command line and a config, checked against a loop
written here over the same splits (PerClassSplit) with the same normalisation."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from sklearn.preprocessing import normalize

import fdlsr
from fdlsr.datasets import load_dataset
from fdlsr.errors import ConfigError
from fdlsr.experiments import run_experiment
from fdlsr.model_selection import PerClassSplit
from fdlsr.relaxed import LSR

SRC = str(Path(fdlsr.__file__).parents[1])

# A user's module: a kernel ridge classifier (its alpha changes its predictions) and
# one whose fit fails.
MODELS = textwrap.dedent(
    '''
    import numpy as np
    from sklearn.base import BaseEstimator, ClassifierMixin


    class MyClassifier(ClassifierMixin, BaseEstimator):
        """Ridge regression onto one-hot labels (dual form), argmax."""

        def __init__(self, alpha=1.0):
            self.alpha = alpha

        def fit(self, X, y):
            self.classes_, codes = np.unique(y, return_inverse=True)
            Y = np.eye(len(self.classes_))[codes]
            gram = X @ X.T + self.alpha * np.eye(len(X))
            self.coef_ = X.T @ np.linalg.solve(gram, Y)
            return self

        def predict(self, X):
            return self.classes_[np.argmax(X @ self.coef_, axis=1)]


    class Fails(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            raise ValueError("this classifier always fails")

        def predict(self, X):
            raise AssertionError("never fitted")
    '''
)
# A classifier of the script's __main__ (nearest class mean).
CENTROID = textwrap.dedent(
    """
    import numpy as np
    from sklearn.base import BaseEstimator, ClassifierMixin


    class Centroid(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            self.classes_ = np.unique(y)
            self.means_ = np.array([X[y == c].mean(axis=0) for c in self.classes_])
            return self

        def predict(self, X):
            distances = ((X[:, None, :] - self.means_[None]) ** 2).sum(axis=-1)
            return self.classes_[distances.argmin(axis=1)]
    """
)
SCRIPT = CENTROID + textwrap.dedent(
    """
    import sys

    from fdlsr.experiments import run_experiment
    from mypkg.models import Fails, MyClassifier

    if __name__ == "__main__":
        methods = {
            "FDLSR": "FDLSR",
            "LSR": "LSR",
            "Mine": MyClassifier(alpha=1.0),
            "Centroid": Centroid(),
            "Broken": Fails(),
        }
        run_experiment(
            "faces", methods, k=[2, 3], n_splits=3, random_state=0, n_jobs=2,
            out=sys.argv[1], verbose=False,
        )
    """
)


@pytest.fixture
def user_code(tmp_path):
    """A folder holding the package ``mypkg`` (``mypkg.models``)."""
    folder = tmp_path / "user"
    (folder / "mypkg").mkdir(parents=True)
    (folder / "mypkg" / "__init__.py").write_text("")
    (folder / "mypkg" / "models.py").write_text(MODELS)
    return folder


def user_classes(folder):
    """The user's classes, loaded here from their source (not imported)."""
    space = {}
    exec(MODELS, space)  # noqa: S102 (the test's own text)
    exec(CENTROID, space)  # noqa: S102
    return space


def environment(*paths):
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([SRC, *map(str, paths)]),
        "OMP_NUM_THREADS": "1",
        "PYTHONUNBUFFERED": "1",
    }


def stored(out):
    return [
        json.loads(line)
        for line in (out / "results.jsonl").read_text().split("\n")[:-1]
    ]


def hand_accuracies(estimators, ks, n_splits, seed=0):
    """``{(name, k, split): accuracy}`` of the estimators (``{name: factory(k, split)}``)
    on the shipped faces, unit-normalised, over PerClassSplit's splits."""
    faces = load_dataset("faces")
    X, y = normalize(np.asarray(faces.X, dtype=np.float64)), faces.y
    out = {}
    for k in ks:
        splits = PerClassSplit(k, n_splits=n_splits, random_state=seed).split(X, y)
        for split, (train, test) in enumerate(splits):
            for name, make in estimators.items():
                model = make(k, split).fit(X[train], y[train])
                out[name, k, split] = float(np.mean(model.predict(X[test]) == y[test]))
    return out


def test_your_classifiers_beside_fdlsr_and_lsr(tmp_path, user_code, monkeypatch):
    """A user module's classifier and a __main__ one run in 2 worker processes beside
    FDLSR and LSR; every stored accuracy is the hand loop's; a failing classifier
    records its error; another alpha adds rows, the same alpha reuses them."""
    out = tmp_path / "store"
    script = tmp_path / "compare.py"
    script.write_text(SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script), str(out)],
        env=environment(user_code),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = stored(out)
    keys = {(r["method"], r["k"], r["split"]) for r in rows}
    assert len(rows) == len(keys) == 5 * 2 * 3
    by_key = {(r["method"], r["k"], r["split"]): r for r in rows}
    space = user_classes(user_code)
    params = {key: row.get("params") for key, row in by_key.items()}
    expected = hand_accuracies(
        {
            "FDLSR": lambda k, s: fdlsr.FDLSR(**params["FDLSR", k, s]),
            "LSR": lambda k, s: LSR(**params["LSR", k, s]),
            "Mine": lambda k, s: space["MyClassifier"](alpha=1.0),
            "Centroid": lambda k, s: space["Centroid"](),
        },
        ks=[2, 3],
        n_splits=3,
    )
    assert {key: by_key[key]["accuracy"] for key in expected} == expected
    mine = by_key["Mine", 2, 0]
    assert mine["family"] == "yours"
    assert json.loads(mine["setting"]) == {
        "class": "mypkg.models:MyClassifier",
        "params": {"alpha": 1.0},
    }
    assert (
        json.loads(by_key["Centroid", 2, 0]["setting"])["class"] == "__main__:Centroid"
    )
    broken = [r for r in rows if r["method"] == "Broken"]
    assert len(broken) == 6
    assert all(r["accuracy"] is None for r in broken)
    assert all("ValueError: this classifier always fails" in r["error"] for r in broken)

    # another alpha: new rows, the old ones kept; the same alpha: nothing computed
    monkeypatch.syspath_prepend(str(user_code))
    from mypkg.models import MyClassifier

    frame = run_experiment(
        "faces", {"Mine": MyClassifier(alpha=30.0)}, k=2, n_splits=3, out=out,
        verbose=False,
    )  # fmt: skip
    after = stored(out)
    assert after[: len(rows)] == rows and len(after) == len(rows) + 3
    assert len(frame) == len(after)
    new = {r["split"]: r for r in after[len(rows) :]}
    assert all(r["params"] == {"alpha": 30.0} for r in new.values())
    again = hand_accuracies(
        {"Mine": lambda k, s: MyClassifier(alpha=30.0)}, ks=[2], n_splits=3
    )
    assert {("Mine", 2, s): r["accuracy"] for s, r in new.items()} == again
    assert again != {key: expected[key] for key in again}  # alpha matters here
    run_experiment(
        "faces", {"Mine": MyClassifier(alpha=1.0)}, k=[2, 3], n_splits=3, out=out,
        verbose=False,
    )  # fmt: skip
    assert stored(out) == after


CONFIG = """
dataset = "faces"
k = [2, 3]
splits = 3
methods = ["FDLSR", "mypkg.models:MyClassifier"]
cv = ["MyClassifier"]

[grid.MyClassifier]
alpha = [0.5, 30.0]
"""


@pytest.mark.parametrize("how", ["command line", "config"])
def test_killed_run_of_your_classifier_resumes(tmp_path, user_code, how):
    """``--methods FDLSR mypkg.models:MyClassifier`` (or a config naming it, with a
    grid for cv), killed with SIGKILL after a few rows and run again: every row once,
    the finished ones kept byte for byte, the accuracies those of the hand loop."""
    out = tmp_path / "store"
    if how == "config":
        config = tmp_path / "mine.toml"
        config.write_text(CONFIG)
        args = ["--config", str(config)]
    else:
        args = [
            "--dataset", "faces", "--methods", "FDLSR", "mypkg.models:MyClassifier",
            "--params", "MyClassifier.alpha=30", "-k", "2", "3", "--splits", "3",
        ]  # fmt: skip
    command = [sys.executable, "-m", "fdlsr", "run", *args, "--no-table"]
    command += ["--out", str(out)]

    def start():
        return subprocess.Popen(
            command,
            env=environment(user_code),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    process = start()
    results = out / "results.jsonl"
    deadline = time.monotonic() + 120
    while not (results.exists() and results.read_bytes().count(b"\n") >= 2):
        assert process.poll() is None, process.stderr.read()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=60)
    before = results.read_text().split("\n")[:-1]
    assert 2 <= len(before) < 12
    process = start()
    _, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    assert f"{12 - len(before)} runs computed, {len(before)} already" in err
    after = results.read_text().split("\n")[:-1]
    assert after[: len(before)] == before
    rows = [json.loads(line) for line in after]
    assert len({(r["method"], r["k"], r["split"]) for r in rows}) == len(rows) == 12
    mine = {
        (r["method"], r["k"], r["split"]): r for r in rows if r["method"] != "FDLSR"
    }
    assert {r["method"] for r in mine.values()} == {"MyClassifier"}
    space = user_classes(user_code)
    chosen = {key: r["params"]["alpha"] for key, r in mine.items()}
    if how == "config":
        assert {r["tuning"] for r in mine.values()} == {"cv"}
        assert set(chosen.values()) <= {0.5, 30.0}
    else:
        assert set(chosen.values()) == {30.0}
    expected = hand_accuracies(
        {
            "MyClassifier": lambda k, s: space["MyClassifier"](
                alpha=chosen["MyClassifier", k, s]
            )
        },
        ks=[2, 3],
        n_splits=3,
    )
    assert {key: r["accuracy"] for key, r in mine.items()} == expected


def test_store_of_your_classifier_is_read_without_your_code(tmp_path, user_code):
    """``fdlsr report``, ``read_results`` and ``fdlsr plot results`` read a store
    holding a user's method in a process where the user's module cannot be
    imported."""
    out = tmp_path / "store"
    made = subprocess.run(
        [sys.executable, "-m", "fdlsr", "run", "--dataset", "faces", "--methods",
         "FDLSR", "mypkg.models:MyClassifier", "-k", "2", "--splits", "2",
         "--no-table", "--out", str(out)],
        env=environment(user_code), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    alone = environment()  # no user_code on the path
    assert subprocess.run([sys.executable, "-c", "import mypkg"], env=alone).returncode
    report = subprocess.run(
        [sys.executable, "-m", "fdlsr", "report", str(out)],
        env=alone, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert report.returncode == 0, report.stderr
    assert "| MyClassifier |" in report.stdout and "*Yours*" in report.stdout
    # its parameters are the user's, not fdlsr's registered defaults
    row = next(
        line for line in report.stdout.splitlines() if "| MyClassifier |" in line
    )
    assert row.endswith("| yours |") and "yours = your classifier's" in report.stdout
    read = subprocess.run(
        [sys.executable, "-c",
         "import sys; from fdlsr.results import read_results; "
         f"f = read_results({str(out)!r}); "
         "assert 'mypkg' not in sys.modules; "
         "print(sorted(set(f.method)), sorted(set(f.family)))"],
        env=alone, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert read.returncode == 0, read.stderr
    assert (
        read.stdout.split() == "['FDLSR', 'MyClassifier'] ['proposed', 'yours']".split()
    )
    figures = tmp_path / "figures"
    plot = subprocess.run(
        [sys.executable, "-m", "fdlsr", "plot", "results", str(out), "--out",
         str(figures)],
        env=alone, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert plot.returncode == 0, plot.stderr
    assert list(figures.glob("*.png"))


def test_bad_methods_are_refused_in_one_line(tmp_path, user_code, monkeypatch):
    monkeypatch.syspath_prepend(str(user_code))
    from mypkg.models import MyClassifier

    cases = [
        ({"FDLSR": MyClassifier()}, "registered method's name"),
        ({"Mine": MyClassifier}, "not a scikit-learn classifier object"),
        ({"Mine": "FDLSR"}, "names the registered method FDLSR"),
        (["mypkg.nothing:X"], "cannot be imported"),
        (["mypkg.models:Missing"], "cannot be imported"),
        ({"a.b": MyClassifier()}, "without ':' or '.'"),
    ]
    for methods, message in cases:
        with pytest.raises(ConfigError, match=message):
            run_experiment("faces", methods, k=2, n_splits=1, out=tmp_path / "x")
    with pytest.raises(ConfigError, match="has no parameter 'beta'"):
        run_experiment(
            "faces", {"Mine": MyClassifier()}, k=2, params={"Mine": {"beta": 1}},
            out=tmp_path / "x",
        )  # fmt: skip
    assert not (tmp_path / "x").exists()


class WrongShape:
    """Predicts a score per class instead of a label (from a module-level class: the
    test's own)."""

    def __init__(self, weights=None):
        self.weights = weights

    def get_params(self, deep=True):
        return {"weights": self.weights}

    def set_params(self, **params):
        for name, value in params.items():
            setattr(self, name, value)
        return self

    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.ones((len(X), 3))


def test_predictions_of_another_shape_are_an_error_not_an_accuracy(tmp_path):
    """A predict that returns scores (n_test x classes) records an error in its row
    (comparing it with the labels would broadcast); an array parameter is named by
    its SHA-256 in the setting (its repr elides the middle)."""
    weights = np.arange(5000.0)
    frame = run_experiment(
        "faces", {"Scores": WrongShape(weights)}, k=2, n_splits=1,
        out=tmp_path / "s", verbose=False,
    )  # fmt: skip
    (row,) = stored(tmp_path / "s")
    assert row["accuracy"] is None and frame["accuracy"].isna().all()
    assert "predict returned an array of shape (320, 3)" in row["error"]
    other = weights.copy()
    other[2500] = -1.0  # repr(other) == repr(weights)
    assert repr(other) == repr(weights)
    run_experiment(
        "faces", {"Scores": WrongShape(other)}, k=2, n_splits=1, out=tmp_path / "s",
        verbose=False,
    )  # fmt: skip
    settings = [r["setting"] for r in stored(tmp_path / "s")]
    assert len(set(settings)) == 2 and "sha256" in settings[0]


def test_an_import_path_whose_module_fails_is_one_line(tmp_path, monkeypatch):
    (tmp_path / "brokenpkg.py").write_text("raise RuntimeError('no GPU here')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ConfigError, match=r"RuntimeError: no GPU here\); put"):
        run_experiment("faces", ["brokenpkg:Model"], k=2, out=tmp_path / "x")


def test_cv_naming_your_classifier_needs_its_grid(tmp_path, user_code, monkeypatch):
    monkeypatch.syspath_prepend(str(user_code))
    from mypkg.models import MyClassifier

    methods = {"FDLSR": "FDLSR", "Mine": MyClassifier()}
    with pytest.raises(ConfigError, match=r"names Mine, your classifier, with no grid"):
        run_experiment("faces", methods, k=2, cv=["Mine"], out=tmp_path / "x")
    with pytest.raises(ConfigError, match="non-empty lists"):
        run_experiment("faces", methods, k=2, cv={"Mine": {"alpha": 1}})
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            'cv = ["MyClassifier"]\n',
            "names MyClassifier, your classifier, with no grid",
        ),
        (
            'cv = ["MyClassifier"]\n[params."mypkg.models:MyClassifier"]\nalpha = 2.0\n'
            "[grid.MyClassifier]\nalpha = [0.5, 2.0]\n",
            "with no grid to search",
        ),
        ("[grid.MyClassifier]\nalpha = 2.0\n", "non-empty lists"),
        ("[grid.Other]\nalpha = [2.0]\n", "given for 'Other', which is not among"),
        ('cv = ["MyClassifier"]\n[grid.MyClassifier]\nalpha = ["x", 1.0]\n', "string"),
        ('[params.MyClassifier]\nalpha = "abc"\n', "takes a number"),
    ],
)
def test_config_entries_of_your_classifier_are_checked(
    tmp_path, user_code, monkeypatch, extra, message
):
    monkeypatch.syspath_prepend(str(user_code))
    config = tmp_path / "mine.toml"
    config.write_text(
        'dataset = "faces"\nk = 2\nmethods = ["FDLSR", "mypkg.models:MyClassifier"]\n'
        + extra
    )
    with pytest.raises(ConfigError, match=message):
        run_experiment(config=config, out=tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_cv_alone_leaves_your_classifier_without_a_grid_fixed():
    from fdlsr._experiments.config import resolve_config

    methods = ["FDLSR", "mypkg.models:MyClassifier", "mypkg.models:Other"]
    config = resolve_config(dataset="faces", methods=methods, cv=[])
    assert config.experiment.cv == ["FDLSR"]


def test_arrays_run_as_the_named_data_set_does(tmp_path):
    """``dataset=(X, y)``: stored under the name ``data``, with the accuracies of the
    same data by name (the splits depend on the labels and the seed only)."""
    faces = load_dataset("faces")
    by_name = run_experiment(
        "faces", ["LSR"], k=2, n_splits=2, out=tmp_path / "a", verbose=False
    )
    arrays = run_experiment(
        (faces.X, faces.y), ["LSR"], k=2, n_splits=2, out=tmp_path / "b", verbose=False
    )
    assert set(arrays["dataset"]) == {"data"}
    assert list(arrays["accuracy"]) == list(by_name["accuracy"])


def test_a_module_that_exits_at_import_is_one_line(tmp_path, monkeypatch):
    """``sys.exit`` in a user's module is a SystemExit, not an Exception: still the
    one-line refusal, not the end of the command with the module's exit status."""
    from fdlsr._experiments.user_methods import import_method

    (tmp_path / "exits_at_import.py").write_text("import sys\nsys.exit(3)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ConfigError, match="cannot be imported .SystemExit: 3"):
        import_method("exits_at_import:Anything")


@pytest.mark.parametrize("value", [float("inf"), -float("inf"), float("nan")])
def test_a_non_finite_parameter_is_stored_as_strict_json(value):
    """A store is strict JSON (no NaN or Infinity): a non-finite parameter of a
    user's classifier is recorded as its text."""
    import json

    from fdlsr._experiments.user_methods import json_safe

    text = json.dumps(
        json_safe({"alpha": value, "beta": [value, 1.0]}), allow_nan=False
    )
    assert json.loads(text) == {"alpha": repr(value), "beta": [repr(value), 1.0]}


def _scaled(factor):
    return lambda x: x * factor


def test_two_functions_as_parameters_are_two_settings():
    """A function parameter is named by its code and the values it closes over, so
    two lambdas (whose reprs are equal once the address goes) start separate rows,
    and one function is named the same in another process (another hash seed)."""
    from fdlsr._experiments.user_methods import json_safe

    texts = [
        json_safe(f)
        for f in (lambda x: x + 1, lambda x: x - 1, _scaled(2), _scaled(3), len)
    ]
    assert len(set(texts)) == 5, texts
    assert json_safe(_scaled(2)) == texts[2]
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from fdlsr._experiments.user_methods import json_safe;"
        "import test_experiments as t; print(json_safe(t._scaled(2)))"
    )
    for seed in ("1", "2"):
        other = subprocess.run(
            [sys.executable, "-c", code, str(Path(__file__).parent)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        # the module's name depends on how it was imported; the digest does not
        assert other.stdout.split()[-1] == texts[2].split()[-1], other.stderr
