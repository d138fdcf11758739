"""Runs in parallel (``run(RunRequest(..., jobs=N))``, ``fdlsr run --jobs``) and the
cheap warm-up: the same rows as one process, times apart."""

import numpy as np
import pytest
from sklearn.datasets import load_digits

from fdlsr._experiments.config import Config
from fdlsr._experiments.evaluation import warm_up
from fdlsr._experiments.planning import Experiment
from fdlsr._experiments.registry import get_method
from fdlsr._experiments.run import RunRequest, run
from fdlsr._experiments.store_folder import read_rows
from fdlsr._testing import rows_by_key
from fdlsr.datasets import Dataset
from fdlsr.errors import ConfigError


def Data(n_per_class=10, n_classes=5):
    X, y = load_digits(return_X_y=True)
    keep = np.concatenate(
        [np.flatnonzero(y == c)[:n_per_class] for c in range(n_classes)]
    )
    return Dataset(X[keep], y[keep], "mini")


def computed(out, experiment, n_jobs=1, progress=None):
    """The runs of ``experiment`` computed into the store ``out``."""
    request = RunRequest(Config(experiment), jobs=n_jobs, out=out, table=False)
    return run(request, dataset=Data(), progress=progress).computed


def rows_of(tmp_path, experiment, n_jobs, progress=None):
    assert computed(tmp_path, experiment, n_jobs, progress) > 0
    return rows_by_key(tmp_path)


def test_two_jobs_give_the_rows_of_one(tmp_path):
    # A seeded random method (LC-KSVD2), a tuned one and plain ones, k = 1 and 2.
    ex = Experiment(
        "mini",
        [1, 2],
        ["RidgeClassifier", "1-NN", "LinearSVC", "LC-KSVD2"],
        splits=2,
        cv=["LinearSVC"],
    )
    events = []
    one = rows_of(tmp_path / "one", ex, 1)
    two = rows_of(tmp_path / "two", ex, 2, events.append)
    assert len(one) == 2 * 2 * 4
    assert one == two
    # one line per method and k, with the accuracies of its splits
    finished = [event.finished for event in events if event.finished]
    assert sorted((f.method, f.k) for f in finished) == sorted(
        (m, k) for m in ex.methods for k in ex.ks
    )
    assert all(len(f.accuracies) == 2 for f in finished)
    assert (events[-1].done, events[-1].total) == (16, 16)


def test_jobs_resume_what_is_missing(tmp_path):
    ex = Experiment("mini", [2], ["RidgeClassifier", "1-NN"], splits=2)
    assert computed(tmp_path, ex, n_jobs=2) == 4
    assert computed(tmp_path, ex, n_jobs=2) == 0
    assert len(read_rows(tmp_path)) == 4


@pytest.mark.parametrize("n_jobs", [0, -1, 1.5, True])
def test_bad_jobs_are_refused(tmp_path, n_jobs):
    ex = Experiment("mini", [2], ["1-NN"], splits=1)
    with pytest.raises(ConfigError, match="--jobs"):
        computed(tmp_path, ex, n_jobs=n_jobs)
    assert not tmp_path.joinpath("results.jsonl").exists()


def test_warm_up_fits_a_few_classes_and_never_fails():
    data = Data()
    X, y = data.X / np.linalg.norm(data.X, axis=1, keepdims=True), data.y
    train = np.concatenate([np.flatnonzero(y == c)[:1] for c in range(5)])
    test = np.setdiff1d(np.arange(y.size), train)
    seen = []

    class Spy:
        name, params = "spy", {}

        def build(self, **params):
            return self

        def fit(self, X, y):
            seen.append((X.shape, np.unique(y).size))
            return self

        def predict(self, X):
            seen.append(X.shape)
            raise ValueError("cannot predict")

    warm_up(Spy(), X, y, train, test, {})
    assert seen == [((4, 64), 4), (8, 64)]
    # LDA cannot fit one sample per class: the warm-up says nothing
    warm_up(get_method("LDA"), X, y, train, test, {})


def test_cli_jobs(tmp_path, capsys):
    from fdlsr._experiments.cli import main
    from fdlsr._testing import cli_error

    small = ["--dataset", "digits", "--methods", "1-NN", "RidgeClassifier", "-k", "2"]
    out = str(tmp_path / "res")
    argv = ["run", *small, "--splits", "2", "--out", out, "--no-table", "--jobs", "2"]
    assert main(argv) == 0
    assert "4 runs computed, 0 already" in capsys.readouterr().err
    assert len(read_rows(out)) == 4
    # the environment says how many BLAS threads each run had: the cores shared out
    import json

    from fdlsr._experiments.executor import usable_cores

    (session,) = json.loads((tmp_path / "res" / "environment.json").read_text())[
        "sessions"
    ]
    assert session["blas_threads_per_run"] == max(1, usable_cores() // 2)
    assert "--jobs" in cli_error(capsys, ["run", *small, "--jobs", "0"])
