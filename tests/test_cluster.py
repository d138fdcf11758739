"""``fdlsr run --scheduler``: the units on a real dask.distributed ``LocalCluster`` of
worker processes on loopback give the rows of ``--jobs 1``; a worker killed in the
middle, Ctrl-C and resume, a missing package and an unreachable scheduler."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fdlsr._testing import cli_error, rows_by_key, save_noisy_classes
from fdlsr.experiments.cli import main
from fdlsr.experiments.store import read_rows

SMALL = [
    "run",
    "--dataset",
    "digits",
    "--methods",
    "FDLSR",
    "RidgeClassifier",
    "LC-KSVD2",
    "-k",
    "2",
    "3",
    "--splits",
    "3",
    "--no-table",
]


@pytest.fixture(scope="module")
def one_job(tmp_path_factory):
    out = tmp_path_factory.mktemp("one")
    assert main([*SMALL, "--out", str(out)]) == 0
    return rows_by_key(out)


def test_a_local_cluster_gives_the_rows_of_one_job(tmp_path, capsys, one_job):
    pytest.importorskip("distributed")
    out = tmp_path / "cluster"
    assert main([*SMALL, "--out", str(out), "--scheduler", "local:2"]) == 0
    err = capsys.readouterr().err
    assert "18 runs computed, 0 already" in err
    assert "2 workers for" in err  # the workers' use, at the end
    assert rows_by_key(out) == one_job
    (session,) = json.loads((out / "environment.json").read_text())["sessions"]
    assert session["blas_threads_per_run"] >= 1


# -- real processes: the command in the background, its workers found in /proc ------


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """20 classes x 20 noisy samples of 500 features: LC-KSVD2 takes a second a unit."""
    return save_noisy_classes(tmp_path_factory.mktemp("data") / "noisy.npz")


TOTAL = 2 * 6


def command(data, out, *extra):
    return [
        sys.executable, "-m", "fdlsr", "run", "--dataset", str(data),
        "--methods", "LC-KSVD2", "RidgeClassifier", "-k", "5", "--splits", "6",
        "--no-table", "--out", str(out), *extra,
    ]  # fmt: skip


@pytest.fixture(scope="module")
def uninterrupted(data, tmp_path_factory):
    out = tmp_path_factory.mktemp("uninterrupted")
    done = subprocess.run(
        command(data, out, "--jobs", "2"), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return rows_by_key(out)


def start(data, out, log):
    with open(log, "w") as handle:
        return subprocess.Popen(
            command(data, out, "--scheduler", "local:2"),
            stdout=handle,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            # pytest-xdist workers may ignore SIGINT, and an ignored signal is
            # inherited across exec: the run would then never see the Ctrl-C
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )


def dask_workers(pid):
    """The worker processes the command ``pid`` started (multiprocessing spawn)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            line = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        if parent == pid and "spawn_main" in line:
            found.append(int(entry.name))
    return found


def mid_run(process, results, log, timeout=240):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the run ended too early: {Path(log).read_text()}")
        rows = results.read_bytes().count(b"\n") if results.exists() else 0
        workers = dask_workers(process.pid)
        if rows >= 1 and len(workers) == 2:
            return workers
        time.sleep(0.05)
    pytest.fail(f"no row and two workers after {timeout} s: {Path(log).read_text()}")


def started_until_mid_run(tmp_path, data):
    """The cluster run started in the background and caught with a row stored and
    both workers up: ``(process, store, log, worker pids)``."""
    pytest.importorskip("distributed")
    out, log = tmp_path / "res", tmp_path / "log"
    process = start(data, out, log)
    return process, out, log, mid_run(process, out / "results.jsonl", log)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_worker_killed_in_the_middle_its_units_run_elsewhere(
    tmp_path, data, uninterrupted
):
    process, out, log, workers = started_until_mid_run(tmp_path, data)
    os.kill(workers[0], signal.SIGKILL)
    assert process.wait(timeout=300) == 0, log.read_text()
    err = log.read_text()
    assert f"{TOTAL} runs computed, 0 already" in err
    # its units (running or queued there) went elsewhere; each is stored once
    assert "sent again after their worker was lost (each stored once)" in err, err
    assert rows_by_key(out) == uninterrupted


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_ctrl_c_keeps_the_finished_rows_and_the_same_command_resumes(
    tmp_path, data, uninterrupted
):
    process, out, log, _ = started_until_mid_run(tmp_path, data)
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=120) == 130, log.read_text()
    err = log.read_text()
    assert err.strip().splitlines()[-1].startswith("fdlsr: interrupted"), err
    assert "Traceback" not in err, err
    before = len(read_rows(out))
    assert 1 <= before < TOTAL
    done = subprocess.run(
        command(data, out, "--scheduler", "local:2"), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert f"{TOTAL - before} runs computed, {before} already" in done.stderr
    assert rows_by_key(out) == uninterrupted


# -- one line, exit 2, nothing written ----------------------------------------------


def test_without_distributed_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails
    out = tmp_path / "res"
    line = cli_error(capsys, [*SMALL, "--out", str(out), "--scheduler", "local:2"])
    assert "pip install 'fdlsr[cluster]'" in line
    assert not out.exists()


def test_an_unreachable_scheduler_one_line(tmp_path, capsys, monkeypatch):
    pytest.importorskip("distributed")
    from fdlsr.experiments import cluster

    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 1)
    out = tmp_path / "res"
    line = cli_error(
        capsys, [*SMALL, "--out", str(out), "--scheduler", "tcp://127.0.0.1:9"]
    )
    assert "no dask scheduler answers at --scheduler tcp://127.0.0.1:9" in line
    assert not out.exists()


@pytest.mark.parametrize(
    "options, message",
    [
        (["--scheduler", "local:0"], "number of local worker processes"),
        (["--scheduler", "local:two"], "number of local worker processes"),
        (["--scheduler", "local:2", "--jobs", "2"], "not both"),
    ],
)
def test_bad_scheduler_options_one_line(tmp_path, capsys, options, message):
    pytest.importorskip("distributed")
    out = tmp_path / "res"
    assert message in cli_error(capsys, [*SMALL, "--out", str(out), *options])
    assert not out.exists()
