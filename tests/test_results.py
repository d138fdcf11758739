"""The results store: durable rows, torn lines, locking, resume, environment."""

import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_digits

from fdlsr._experiments.config import Config
from fdlsr._experiments.environment import environment
from fdlsr._experiments.outputs import write_atomic
from fdlsr._experiments.planning import Experiment
from fdlsr._experiments.rows import row_key, whole_lines
from fdlsr._experiments.run import RunRequest, run
from fdlsr._experiments.store import ResultStore
from fdlsr._experiments.store_folder import make_store, read_rows, read_store
from fdlsr._testing import cli
from fdlsr.datasets import Dataset
from fdlsr.errors import ConfigError


def Data(n_per_class=12):
    X, y = load_digits(return_X_y=True)
    keep = np.concatenate([np.flatnonzero(y == c)[:n_per_class] for c in range(4)])
    return Dataset(X[keep], y[keep], "mini")


def computed(out, experiment, dataset):
    """The runs of ``experiment`` on ``dataset`` computed into the store ``out``."""
    request = RunRequest(Config(experiment), out=out, table=False)
    return run(request, dataset=dataset).computed


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


def test_a_run_key_is_written_once(tmp_path):
    """The writer refuses a key it holds, whatever asked for it: in this session or
    read from the file; nothing is written."""
    with ResultStore(tmp_path) as store:
        store.append(row(0))
        with pytest.raises(ConfigError, match="already holds the run m k=1 split 0"):
            store.append(row(0, accuracy=0.9))
    with ResultStore(tmp_path) as store:
        with pytest.raises(ConfigError, match="a run is stored once"):
            store.append(row(0))
        store.append(row(1))
    assert [r["split"] for r in read_rows(tmp_path)] == [0, 1]
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 2


@pytest.mark.parametrize("methods", [["LSR", "LSR"], ["LSR", "lsr"]])
def test_a_method_named_twice_is_refused_before_anything_runs(tmp_path, methods):
    """``--methods LSR LSR`` asked for every run twice: refused in one line, before
    the store is made."""
    ex = Experiment(dataset="mini", ks=[2], methods=methods, splits=1)
    with pytest.raises(ConfigError, match="name LSR twice.*; name each method once"):
        computed(tmp_path / "out", ex, Data())
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("ks", [[2, 2], [2, 3, 2]])
def test_a_k_named_twice_is_refused_before_anything_runs(tmp_path, ks):
    """``-k 2 2`` asked for every run at k=2 twice: refused in one line naming the
    k, before the store is made."""
    ex = Experiment(dataset="mini", ks=ks, methods=["LSR"], splits=1)
    with pytest.raises(ConfigError, match="name k=2 twice; name each k once"):
        computed(tmp_path / "out", ex, Data())
    assert not (tmp_path / "out").exists()


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
    assert computed(tmp_path, small, data) == 4
    bigger = Experiment("mini", [2, 3], ["RidgeClassifier", "1-NN"], splits=3)
    assert computed(tmp_path, bigger, data) == 2 * 2 * 3 - 4
    assert computed(tmp_path, bigger, data) == 0
    rows = read_rows(tmp_path)
    assert len(rows) == 12 and len({row_key(r) for r in rows}) == 12


def test_same_splits_for_every_method(tmp_path):
    data = Data()
    ex = Experiment("mini", [3], ["RidgeClassifier", "1-NN", "FDLSR"], splits=2)
    computed(tmp_path, ex, data)
    rows = read_rows(tmp_path)
    assert {(r["n_train"], r["n_test"]) for r in rows} == {(12, 36)}
    assert {r["method"] for r in rows} == {"RidgeClassifier", "1-NN", "FDLSR"}
    for r in rows:
        assert 0 <= r["accuracy"] <= 1 and r["fit_time"] > 0 and r["predict_time"] > 0


def test_side_files_are_replaced_whole_or_not_at_all(tmp_path, monkeypatch):
    import os

    from fdlsr._experiments.outputs import write_atomic

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


# -- the last line: a row if it parses, cut short if it does not -----------------------


def test_a_whole_last_row_without_its_newline_is_a_row(tmp_path):
    make_store(tmp_path)
    lines = [json.dumps(row(i)) for i in range(3)]
    (tmp_path / "results.jsonl").write_text("\n".join(lines))  # no final newline
    store = read_store(tmp_path)
    assert [r["split"] for r in store.rows] == [0, 1, 2] and not store.skipped
    with ResultStore(tmp_path) as writer:  # the writer reads it as the reader does
        assert [r["split"] for r in writer.rows] == [0, 1, 2]
        writer.append(row(3))
    text = (tmp_path / "results.jsonl").read_text()
    assert text.startswith("\n".join(lines) + "\n") and text.endswith("\n")
    assert [r["split"] for r in read_rows(tmp_path)] == [0, 1, 2, 3]


def test_a_report_and_a_resume_keep_a_last_row_without_newline(tmp_path):
    rng = np.random.default_rng(0)
    data = tmp_path / "faces.npz"
    np.savez(data, X=rng.random((24, 10)), y=np.repeat(np.arange(4), 6))
    run = ["run", "--dataset", str(data), "--methods", "LSR", "-k", "3", "--no-table"]
    out = tmp_path / "store"
    assert cli([*run, "--splits", "2", "--out", str(out)])[0] == 0
    status, table, _ = cli(["report", str(out)])
    assert status == 0
    results = out / "results.jsonl"
    rows = results.read_bytes().splitlines()
    results.write_bytes(b"\n".join(rows))  # as "\n".join(rows) leaves it
    status, out_text, err = cli(["report", str(out)])
    assert status == 0 and out_text == table and "cut short" not in err, err
    status, _, err = cli([*run, "--splits", "3", "--out", str(out)])
    assert status == 0 and "1 runs computed, 2 already" in err, err
    after = results.read_bytes().splitlines()
    assert after[:2] == rows and len(after) == 3  # both finished rows kept


@pytest.mark.parametrize(
    "tail, counted, skipped",
    [
        (b"", [0], {}),
        (b"\n", [0], {}),
        (b"  ", [0], {}),  # blank: not a line
        (json.dumps(row(1)).encode(), [0, 1], {}),
        (json.dumps(row(1)).encode() + b" \r", [0, 1], {}),
        (json.dumps(row(1)).encode()[:-1], [0], {"cut short by an interruption": 1}),
        (b'{"dataset": "d", "met', [0], {"cut short by an interruption": 1}),
        (b"\xff\xfe", [0], {"cut short by an interruption": 1}),
        (b"{}", [0], {"'dataset' missing": 1}),  # parses: a line, not a row
        (b"null", [0], {"not a JSON object": 1}),
        # a hand merge: which accuracy counts would be a guess; whole, so kept
        (
            json.dumps(row(1)).encode()[:-1] + b', "accuracy": 0.99}',
            [0],
            {"name a field twice": 1},
        ),
    ],
    ids=[
        "none",
        "newline",
        "blank",
        "row",
        "row and whitespace",
        "row without its brace",
        "torn row",
        "not UTF-8",
        "JSON object, not a row",
        "JSON null",
        "a field named twice",
    ],
)
def test_reader_and_writer_share_one_rule_for_the_last_line(
    tmp_path, tail, counted, skipped
):
    make_store(tmp_path)
    first = json.dumps(row(0)).encode() + b"\n"
    (tmp_path / "results.jsonl").write_bytes(first + tail)
    _, torn = whole_lines(first + tail)
    store = read_store(tmp_path)
    assert [r["split"] for r in store.rows] == counted
    assert dict(store.skipped) == skipped
    with ResultStore(tmp_path) as writer:
        assert writer.rows == store.rows
        writer.append(row(9))
    data = (tmp_path / "results.jsonl").read_bytes()
    # a torn line is dropped; anything else is ended and kept
    kept = first + tail[: len(tail) - len(torn)]
    assert data.startswith(kept if kept.endswith(b"\n") else kept + b"\n")
    assert [r["split"] for r in read_rows(tmp_path)] == [*counted, 9]


def test_an_append_that_fails_partway_leaves_whole_lines(tmp_path, monkeypatch):
    import os

    real_write = os.write
    with ResultStore(tmp_path) as store:
        store.append(row(0))
        before = (tmp_path / "results.jsonl").read_bytes()

        def half_then_full_disk(fd, data):
            if len(data) > 10:
                return real_write(fd, data[: len(data) // 2])
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(os, "write", half_then_full_disk)
        with pytest.raises(OSError, match="No space"):
            store.append(row(1))
        monkeypatch.setattr(os, "write", real_write)
        assert (tmp_path / "results.jsonl").read_bytes() == before
        store.append(row(2))  # not glued to half a row
    assert [r["split"] for r in read_rows(tmp_path)] == [0, 2]


def test_an_interrupt_after_a_whole_row_keeps_it(tmp_path, monkeypatch):
    import os

    def interrupted(fd):
        raise KeyboardInterrupt

    with ResultStore(tmp_path) as store:
        store.start_session()
        monkeypatch.setattr(os, "fsync", interrupted)
        with pytest.raises(KeyboardInterrupt):
            store.append(row(0))
    assert [r["split"] for r in read_rows(tmp_path)] == [0]


# -- property: any last line ---------------------------------------------------------

ROWS = st.lists(st.integers(0, 40), unique=True, max_size=5).map(
    lambda splits: [json.dumps(row(split)).encode() for split in splits]
)
TORN = st.tuples(st.integers(0, 3), st.floats(0, 1, exclude_max=True)).map(
    lambda drawn: json.dumps(row(100 + drawn[0])).encode()[
        : int(drawn[1] * len(json.dumps(row(100 + drawn[0]))))
    ]
)  # a row cut anywhere before its last character: never finished


@settings(max_examples=150, deadline=None)
@given(
    rows=ROWS,
    ended=st.booleans(),
    tail=st.just(b"") | TORN | st.binary(max_size=30),
)
def test_a_finished_row_is_never_lost_and_a_torn_one_never_counted(rows, ended, tail):
    content = b"\n".join(rows) + (b"\n" if ended and rows else b"") + tail
    # the rows whose line is whole: the row's JSON, with JSON's own whitespace
    whole = [line for line in content.split(b"\n") if line.strip(b" \t\r") in rows]
    expected = [json.loads(line)["split"] for line in whole]
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        make_store(folder)
        (folder / "results.jsonl").write_bytes(content)
        assert [r["split"] for r in read_rows(folder)] == expected
        with ResultStore(folder) as writer:
            assert [r["split"] for r in writer.rows] == expected
            writer.append(row(200))
        data = (folder / "results.jsonl").read_bytes()
        assert [r["split"] for r in read_rows(folder)] == [*expected, 200]
        # every line before the last is kept byte for byte, every whole row too
        assert data.startswith(content[: content.rfind(b"\n") + 1])
        lines = data.split(b"\n")
        assert [line for line in lines if line.strip(b" \t\r") in rows] == whole
        assert data.endswith(b"\n")
