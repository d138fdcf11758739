"""A path that is not a regular file, given as data or as a model: one line, no wait.

A named pipe (FIFO) blocks ``open`` until a writer comes and then a read until it
writes; a character device such as ``/dev/zero`` never ends. Every reader of a data
file (CSV, ``.npz``, ``.npy``, MATLAB, an image of a folder, a registry file) and of a
model file opens its input through ``fdlsr._common.files.open_input``, which refuses
them before reading a byte. Each call below runs in a thread: if it waited, the test
frees it (by opening the pipe's other end) and fails instead of hanging.
"""

import os
import threading
from pathlib import Path

import numpy as np
import pytest
import scipy.io

import fdlsr
from fdlsr._testing import cli
from fdlsr.datasets import load_dataset
from fdlsr.datasets._numpy import npy_samples
from fdlsr.errors import DatasetError, FdlsrError, ModelFileError

WAIT = 30  # seconds: far more than a refusal takes


def outcome_without_waiting(call, pipe=None):
    """What ``call()`` raised or returned, failing the test if it waits ``WAIT`` s
    (then the pipe ``pipe`` is given a writer, so that the thread ends)."""
    result = {}

    def target():
        try:
            result["value"] = call()
        except BaseException as error:  # noqa: BLE001 (handed to the test)
            result["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(WAIT)
    if thread.is_alive():
        if pipe is not None:  # wake the reader: open the other end, close it
            os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail(f"still waiting after {WAIT} s")
    return result


@pytest.fixture()
def data(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    y = np.repeat(np.arange(3), 10)
    return X, y


@pytest.mark.parametrize("name", ["p.csv", "p.npz", "p.mat", "p.npy", "p", "p.txt"])
def test_a_named_pipe_as_data_is_refused_at_once(tmp_path, name):
    pipe = tmp_path / name
    os.mkfifo(pipe)
    read = npy_samples if name.endswith(".npy") else load_dataset
    result = outcome_without_waiting(lambda: read(pipe), pipe)
    error = result.get("error")
    assert isinstance(error, DatasetError), result
    assert "named pipe" in str(error) and "\n" not in str(error)


def test_a_named_pipe_among_the_images_of_a_folder_is_refused(tmp_path):
    from PIL import Image

    for label in ("a", "b"):
        (tmp_path / label).mkdir()
        for i in range(3):
            pixels = np.full((6, 8), 40 * i + (label == "b") * 100, dtype=np.uint8)
            Image.fromarray(pixels).save(tmp_path / label / f"{i}.png")
    pipe = tmp_path / "a" / "9.png"
    os.mkfifo(pipe)
    result = outcome_without_waiting(lambda: load_dataset(tmp_path), pipe)
    error = result.get("error")
    assert isinstance(error, DatasetError) and "named pipe" in str(error), result


def test_a_named_pipe_as_a_registry_file_is_refused(tmp_path):
    """(The registry looks for a regular file: a pipe is not one it finds.)"""
    (tmp_path / "orl").mkdir()
    pipe = tmp_path / "orl" / "ORL_32x32.mat"
    os.mkfifo(pipe)
    result = outcome_without_waiting(
        lambda: load_dataset("orl", data_dir=tmp_path), pipe
    )
    assert isinstance(result.get("error"), DatasetError), result


@pytest.mark.parametrize("device", ["pipe", "/dev/zero", "link to /dev/zero"])
def test_a_model_path_that_is_not_a_file_is_refused_at_once(tmp_path, data, device):
    if device == "pipe":
        path = tmp_path / "p.fdlsr"
        os.mkfifo(path)
    elif device == "/dev/zero":
        path = Path("/dev/zero")
    else:
        path = tmp_path / "z.fdlsr"
        path.symlink_to("/dev/zero")
    result = outcome_without_waiting(lambda: fdlsr.load(path), path)
    error = result.get("error")
    assert isinstance(error, ModelFileError), result
    assert "not a regular model file" in str(error)


def test_the_commands_refuse_a_pipe_as_data_or_model_in_one_line(tmp_path, data):
    X, y = data
    np.savez(tmp_path / "d.npz", X=X, y=y)
    model = tmp_path / "m.fdlsr"
    assert cli(["fit", "--dataset", str(tmp_path / "d.npz"), "--method", "LSR",
                "-o", str(model)])[0] == 0  # fmt: skip
    pipe = tmp_path / "p.csv"
    os.mkfifo(pipe)
    calls = [
        ["predict", str(model), str(pipe)],
        ["predict", str(pipe), str(tmp_path / "d.npz")],
        ["run", "--dataset", str(pipe), "--methods", "LSR", "-k", "2",
         "--out", str(tmp_path / "o")],
    ]  # fmt: skip
    for argv in calls:
        result = outcome_without_waiting(lambda argv=argv: cli(argv), pipe)
        status, _, err = result["value"]
        lines = err.strip().splitlines()
        assert status == 2 and len(lines) == 1, (argv, err)
        assert "named pipe" in lines[0], lines
    assert not (tmp_path / "o").exists()


def test_open_input_refuses_all_but_regular_files(tmp_path):
    from fdlsr._common.files import open_input

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    for path, words in (
        (tmp_path, "a folder"),
        (pipe, "a named pipe"),
        (Path("/dev/null"), "a character device"),
    ):
        with pytest.raises(FdlsrError, match=words):
            open_input(path, error=FdlsrError)
    text = tmp_path / "a\nb.csv"
    text.write_text("1,2\r\n")
    with open_input(text, "r", error=FdlsrError, encoding="utf-8", newline="") as f:
        assert f.read() == "1,2\r\n" and f.name == str(text)
    with open_input(text, error=FdlsrError) as f:
        assert f.read() == b"1,2\r\n" and f.name == str(text)
    with pytest.raises(FileNotFoundError):
        open_input(tmp_path / "missing", error=FdlsrError)


def test_a_regular_mat_file_still_reads_through_the_open_file(tmp_path, data):
    """scipy reads the checked file object, not the path again."""
    X, y = data
    scipy.io.savemat(tmp_path / "d.mat", {"fea": X, "gnd": y[:, None] + 1})
    dataset = load_dataset(tmp_path / "d.mat")
    np.testing.assert_array_equal(dataset.X, X)


def test_a_named_pipe_as_a_config_is_refused(tmp_path):
    from fdlsr._experiments.config import load_config
    from fdlsr.errors import ConfigError

    pipe = tmp_path / "c.toml"
    os.mkfifo(pipe)
    result = outcome_without_waiting(lambda: load_config(str(pipe)), pipe)
    error = result.get("error")
    assert isinstance(error, ConfigError) and "named pipe" in str(error), result
