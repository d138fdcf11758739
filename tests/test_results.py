"""The results store: durable rows, torn lines, locking, resume, environment."""

import json

import numpy as np
import pytest
from sklearn.datasets import load_digits

from fdlsr.errors import ConfigError
from fdlsr.experiments.planning import Experiment
from fdlsr.experiments.scheduler import run_experiment
from fdlsr.experiments.store import (
    ResultStore,
    environment,
    read_rows,
    row_key,
    write_atomic,
)


class Data:
    def __init__(self, n_per_class=12):
        X, y = load_digits(return_X_y=True)
        keep = np.concatenate([np.flatnonzero(y == c)[:n_per_class] for c in range(4)])
        self.X, self.y, self.name = X[keep], y[keep], "mini"


def row(i, **extra):
    return {
        "dataset": "d",
        "method": "m",
        "family": "f",
        "k": 1,
        "split": i,
        "seed": 0,
        "setting": '{"params": {}}',
        "accuracy": 0.5,
        "fit_time": 0.1,
        "predict_time": 0.1,
        **extra,
    }


def test_rows_survive_reopening_and_a_torn_last_line_is_dropped(tmp_path):
    with ResultStore(tmp_path) as store:
        store.append(row(0))
        store.append(row(1))
    with open(tmp_path / "results.jsonl", "a") as handle:
        handle.write('{"dataset": "d", "method": "m", "k"')  # a write cut by kill -9
    assert [r["split"] for r in read_rows(tmp_path)] == [0, 1]
    with ResultStore(tmp_path) as store:
        assert {row_key(r) for r in store.rows} == {row_key(row(0)), row_key(row(1))}
        store.append(row(2))
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert [json.loads(line)["split"] for line in lines] == [0, 1, 2]


def test_a_second_writer_is_refused(tmp_path):
    with ResultStore(tmp_path):
        with pytest.raises(ConfigError, match="another fdlsr run"):
            ResultStore(tmp_path)
    ResultStore(tmp_path).close()  # free again once the first is closed


def test_missing_results_say_what_to_do(tmp_path):
    with pytest.raises(ConfigError, match="run an experiment first"):
        read_rows(tmp_path)


def test_environment_is_stored_beside_the_rows(tmp_path):
    with ResultStore(tmp_path) as store:
        store.start_session("fdlsr run --test")
        store.append(row(0))
        store.start_session("fdlsr run --again")
        store.append(row(1))
    sessions = json.loads((tmp_path / "environment.json").read_text())["sessions"]
    assert [s["command"] for s in sessions] == ["fdlsr run --test", "fdlsr run --again"]
    assert [r["session"] for r in read_rows(tmp_path)] == [0, 1]
    env = environment()
    assert env["packages"]["numpy"] == np.__version__
    assert {"cpu", "python", "platform", "date", "threadpools", "cpu_count"} <= set(env)


def test_resume_computes_only_what_is_missing(tmp_path):
    data = Data()
    small = Experiment("mini", [2], ["RidgeClassifier", "1-NN"], splits=2)
    with ResultStore(tmp_path) as store:
        assert run_experiment(small, data, store) == 4
    bigger = Experiment("mini", [2, 3], ["RidgeClassifier", "1-NN"], splits=3)
    with ResultStore(tmp_path) as store:
        assert run_experiment(bigger, data, store) == 2 * 2 * 3 - 4
        assert run_experiment(bigger, data, store) == 0
    rows = read_rows(tmp_path)
    assert len(rows) == 12 and len({row_key(r) for r in rows}) == 12


def test_same_splits_for_every_method(tmp_path):
    data = Data()
    ex = Experiment("mini", [3], ["RidgeClassifier", "1-NN", "FDLSR"], splits=2)
    with ResultStore(tmp_path) as store:
        run_experiment(ex, data, store)
    rows = read_rows(tmp_path)
    assert {(r["n_train"], r["n_test"]) for r in rows} == {(12, 36)}
    assert {r["method"] for r in rows} == {"RidgeClassifier", "1-NN", "FDLSR"}
    for r in rows:
        assert 0 <= r["accuracy"] <= 1 and r["fit_time"] > 0 and r["predict_time"] > 0


def test_side_files_are_replaced_whole_or_not_at_all(tmp_path, monkeypatch):
    import os

    from fdlsr.experiments.store import write_atomic

    path = tmp_path / "experiment.json"
    write_atomic(path, '{"title": "old"}\n')

    def fail(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        write_atomic(path, '{"title": "new"}\n')
    assert path.read_text() == '{"title": "old"}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["experiment.json"]


def test_atomic_writes_leave_a_pipe_a_pipe(tmp_path):
    # Renaming a temporary file over a pipe or device (as root: /dev/null) would
    # replace it; such a path is written in place.
    import os
    import stat
    import threading

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    received = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_text()))
    reader.start()
    write_atomic(pipe, "a table\n")
    reader.join(timeout=10)
    assert received == ["a table\n"]
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]
