"""A folder is a results store only if fdlsr's mark says so.

A user's own folder that holds files named like a store's (``experiment.json``,
``results.jsonl``, ``.lock``, ...) is refused by every command that reads or writes a
store, in one line, and nothing in it is changed or created; an empty or missing
folder becomes a new store; the store's own files are files, not links or pipes.
"""

import json
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fdlsr._experiments.store_folder import (
    MARK,
    MARK_TEXT,
    STORE_FILES,
    check_store,
    read_rows,
)
from fdlsr._testing import cli

RUN = ["run", "--methods", "LSR", "-k", "3", "--splits", "1", "--no-table"]
SHIPPED = sorted((Path(__file__).parents[1] / "docs" / "results").iterdir())


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    path = tmp_path_factory.mktemp("data") / "faces.npz"
    rng = np.random.default_rng(0)
    np.savez(path, X=rng.random((24, 10)), y=np.repeat(np.arange(4), 6))
    return path


def run_into(data, out):
    return cli([*RUN, "--dataset", str(data), "--out", str(out)])


def state(folder):
    """Everything about ``folder`` a command could change: each entry's kind, bytes
    (a link: its target), inode and modification time."""
    out = {}
    for path in sorted(Path(folder).rglob("*")):
        stat = path.lstat()
        if path.is_symlink():
            content = ("link", os.readlink(path))
        elif path.is_file():
            content = path.read_bytes()
        else:
            content = "folder"
        out[str(path.relative_to(folder))] = (content, stat.st_ino, stat.st_mtime_ns)
    return out


def refused(result, *phrases):
    """The one line of a refusal (status 2, nothing on stdout) holding ``phrases``."""
    status, out, err = result
    assert status == 2 and out == "", (status, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fdlsr: error: "), err
    for phrase in phrases:
        assert phrase in lines[0], lines[0]
    return lines[0]


# -- a folder of the user's own -------------------------------------------------------

USERS_FILES = {
    "experiment.json": b'{"learning_rate": 0.1, "notes": "my own experiment"}\n',
    "results.jsonl": b'{"epoch": 1, "loss": 0.5}\n',
    "environment.json": b'{"conda": "env"}\n',
    ".lock": b"my lock\n",
    "environment.json.unreadable": b"mine\n",
    "notes.txt": b"my notes\n",
}


@pytest.mark.parametrize("name", sorted(USERS_FILES))
def test_a_folder_of_the_users_own_is_refused_and_left_as_it_was(data, tmp_path, name):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / name).write_bytes(USERS_FILES[name])
    before = state(mine)
    refused(run_into(data, mine), "mine is not a results store", name, "--out")
    refused(cli(["report", str(mine)]), "mine is not a results store", name)
    if name == "results.jsonl":
        refused(cli(["report", str(mine / name)]), "mine is not a results store")
    assert state(mine) == before  # nothing changed, renamed or created (no .lock)


def test_a_run_refuses_before_loading_the_data(tmp_path):
    (tmp_path / "experiment.json").write_text("{}")
    # the data does not exist: the folder is refused first
    result = cli([*RUN, "--dataset", "no_such.npz", "--out", str(tmp_path)])
    refused(result, "is not a results store")


def test_an_empty_or_missing_folder_becomes_a_store(data, tmp_path):
    (tmp_path / "empty").mkdir()
    for out in (tmp_path / "empty", tmp_path / "missing" / "deeper"):
        status, _, err = run_into(data, out)
        assert status == 0, err
        assert (out / MARK).read_text() == MARK_TEXT
        assert len(read_rows(out)) == 1
        status, _, err = run_into(data, out)  # and is a store from then on
        assert status == 0 and "0 runs computed, 1 already" in err, err


def test_a_store_whose_making_was_cut_short_is_made_again(data, tmp_path):
    # a kill between creating the mark and writing its one line
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / MARK).write_bytes(b"")
    status, _, err = run_into(data, tmp_path / "store")
    assert status == 0, err
    assert (tmp_path / "store" / MARK).read_text() == MARK_TEXT


def test_report_on_what_is_not_a_store_refuses_rather_than_print_a_table(tmp_path):
    (tmp_path / "empty").mkdir()
    refused(cli(["report", str(tmp_path / "empty")]), "no results in")
    refused(cli(["report", str(tmp_path / "none")]), "no results in")
    assert not (tmp_path / "none").exists()
    (tmp_path / "file.txt").write_text("text\n")
    refused(cli(["report", str(tmp_path / "file.txt")]), "not a results store")


# -- marks that are not fdlsr's, and the store's files that are not files ---------------

MARKS = {
    "another program's JSON": (b'{"format": "csv", "version": 1}', "is not fdlsr's"),
    "not JSON": (b"fdlsr results store\n", "is not fdlsr's"),
    "a list": (b"[1]", "is not fdlsr's"),
    "version as text": (
        b'{"format": "fdlsr results store", "version": "1"}',
        "is not fdlsr's",
    ),
    "version true": (
        b'{"format": "fdlsr results store", "version": true}',
        "is not fdlsr's",
    ),
    "a newer version": (
        b'{"format": "fdlsr results store", "version": 2}',
        "newer format (version 2",
    ),
    "empty beside other files": (b"", "is empty"),
}


@pytest.mark.parametrize("case", sorted(MARKS))
def test_a_mark_that_is_not_fdlsrs_is_refused(data, tmp_path, case):
    content, phrase = MARKS[case]
    store = tmp_path / "store"
    store.mkdir()
    (store / MARK).write_bytes(content)
    (store / "experiment.json").write_bytes(USERS_FILES["experiment.json"])
    before = state(store)
    refused(run_into(data, store), phrase)
    refused(cli(["report", str(store)]), phrase)
    assert state(store) == before


@pytest.fixture
def store(data, tmp_path):
    """A store of one row, written by fdlsr run."""
    out = tmp_path / "store"
    assert run_into(data, out)[0] == 0
    return out


@pytest.mark.parametrize("name", ["results.jsonl", "experiment.json", ".lock", MARK])
def test_a_store_file_that_is_a_link_is_refused_and_its_target_kept(
    data, tmp_path, store, name
):
    target = tmp_path / "precious.txt"
    target.write_bytes(b"the user's file\n")
    if (store / name).exists():
        (store / name).unlink()
    os.symlink(target, store / name)
    before = state(tmp_path)
    refused(run_into(data, store), name, "symbolic link")
    refused(cli(["report", str(store)]), name)
    assert state(tmp_path) == before  # the target neither truncated nor appended to


@pytest.mark.parametrize(
    "name", ["results.jsonl", "experiment.json", "environment.json"]
)
def test_a_store_file_that_is_a_pipe_or_a_folder_is_refused_without_waiting(
    data, store, name
):
    (store / name).unlink()
    os.mkfifo(store / name)  # reading it would wait for a writer for ever
    refused(run_into(data, store), name, "not a file")
    refused(cli(["report", str(store)]), name, "not a file")
    (store / name).unlink()
    (store / name).mkdir()
    refused(run_into(data, store), name, "not a file")


def test_every_command_goes_through_the_one_check(store, tmp_path):
    # run, report and rows read by library code: one function decides
    assert check_store(store) == (store, False)
    assert check_store(store / "results.jsonl") == (store, False)
    assert check_store(tmp_path / "new", writing=True) == (tmp_path / "new", True)
    assert not (tmp_path / "new").exists()  # a check creates nothing


@pytest.mark.parametrize("folder", SHIPPED, ids=lambda path: path.name)
def test_the_shipped_stores_are_stores(folder):
    assert check_store(folder) == (folder, False)
    assert (folder / MARK).read_text() == MARK_TEXT
    assert read_rows(folder)


# -- any folder of files -----------------------------------------------------------------

NAMES = st.sampled_from([*STORE_FILES, "notes.txt", "data.npz", ".hidden"]) | st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="/\0"),
    min_size=1,
    max_size=8,
).filter(lambda name: name not in (".", ".."))
JSON_OBJECT = st.dictionaries(st.text(max_size=6), st.integers() | st.text(max_size=6))
CONTENT = (
    st.binary(max_size=40)
    | JSON_OBJECT.map(lambda value: json.dumps(value).encode())
    | st.just(MARK_TEXT.encode())
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    files=st.dictionaries(NAMES.filter(lambda name: name != MARK), CONTENT, max_size=4),
    mark=st.none() | st.just(MARK_TEXT.encode()) | CONTENT,
)
def test_any_folder_is_a_store_only_if_its_mark_says_so(data, files, mark):
    if mark is not None:
        files = {**files, MARK: mark}
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root) / "out"
        folder.mkdir()
        for name, content in files.items():
            (folder / name).write_bytes(content)
        before = state(folder)
        status, _, err = run_into(data, folder)
        assert "Traceback" not in err
        new = set(files.items()) <= {(MARK, b"")}  # an empty mark: a store's making cut
        if new or files.get(MARK) == MARK_TEXT.encode():  # a new store, or fdlsr's own
            assert status == 0 or len(err.strip().splitlines()) == 1, err
            if status == 0:
                assert len(read_rows(folder)) >= 1
            after = state(folder)
            for name in before:  # what is not a file of the store is left alone
                if name not in STORE_FILES:
                    assert after[name] == before[name], name
        else:
            refused((status, "", err), "is not a results store")
            assert state(folder) == before
        status, out, err = cli(["report", str(folder)])
        if status != 0:
            assert status == 2 and len(err.strip().splitlines()) == 1, err


def test_a_run_removes_what_a_kill_left_of_a_side_file_being_replaced(data, store):
    left = [".experiment.ab12cd_9.tmp.json", ".environment.x0x0x0x0.tmp.json"]
    others = [".experiment.mine.tmp.json", "experiment.json.tmp", "notes.tmp.json"]
    for name in left + others:
        (store / name).write_text("{")
    assert run_into(data, store)[0] == 0
    assert not [name for name in left if (store / name).exists()]
    assert all((store / name).read_text() == "{" for name in others)
