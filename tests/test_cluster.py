"""``fdlsr run --scheduler``: the units on a real dask.distributed ``LocalCluster`` of
worker processes on loopback give the rows of ``--jobs 1``; a worker killed in the
middle, Ctrl-C and resume, a missing package, an address dask does not read and a
scheduler that does not answer.

Real sockets and real processes: listeners that accept and never answer or answer
other bytes, a real dask scheduler that stops answering, signals at random moments
of a ``local:2`` run, ``$TMPDIR`` and the working folder checked empty after it,
and no process left when the command is killed."""

import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from fdlsr._experiments.cli import main
from fdlsr._experiments.executor import local_workers, max_processes
from fdlsr._experiments.store_folder import read_rows
from fdlsr._testing import cli_error, rows_by_key, save_noisy_classes
from fdlsr.errors import ConfigError

ON_LINUX = Path("/proc/self/stat").exists()

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
    # its units (running or queued there) went elsewhere; each is stored once
    assert f"{TOTAL} runs computed, 0 already" in err
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


def test_an_unreachable_scheduler_one_line(tmp_path, capsys):
    pytest.importorskip("distributed")
    import dask

    out = tmp_path / "res"
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        line = cli_error(
            capsys, [*SMALL, "--out", str(out), "--scheduler", "tcp://127.0.0.1:9"]
        )
    assert "no dask scheduler answers at --scheduler 'tcp://127.0.0.1:9'" in line
    assert not out.exists()


LIMIT = max_processes()
BAD_LOCAL = ["local:１", "local:٣", "local: 2", "local:2 ", "local:+2", "local:2_0",
             "local:0x2", "local:0", "local:-1", "local:", "local:2.0",
             f"local:{LIMIT + 1}", "local:99999999999"]  # fmt: skip
# what dask's own reading of an address refuses (no port, a scheme it does not know)
BAD_REMOTE = ["tcp://127.0.0.1", "127.0.0.1", "tcp://127.0.0.1:", "local",
              "http://127.0.0.1:8786", "tcp://[::1]"]  # fmt: skip


@pytest.mark.parametrize(
    "options, message",
    [
        *[(["--scheduler", bad], "N of local:N is the number") for bad in BAD_LOCAL],
        *[
            (["--scheduler", bad], "is not a dask scheduler's address")
            for bad in BAD_REMOTE
        ],
        (["--scheduler", ""], "--scheduler must be a dask scheduler's address"),
        (["--scheduler", " "], "--scheduler must be a dask scheduler's address"),
        (["--scheduler", "local:2", "--jobs", "2"], "not both"),
    ],
)
def test_bad_scheduler_options_one_line(tmp_path, capsys, options, message):
    """Refused when read, before any connection is tried or anything written."""
    pytest.importorskip("distributed")
    out = tmp_path / "res"
    line = cli_error(capsys, [*SMALL, "--out", str(out), *options])
    assert message in line
    assert len(line) < 400
    assert not out.exists()


@pytest.mark.parametrize("n", ["1", "2", str(LIMIT)])
def test_local_n_is_read_as_a_number_of_processes(n):
    assert local_workers(f"local:{n}") == int(n)
    pytest.importorskip("distributed")
    assert local_workers("tcp://10.0.0.5:8786") is None


# -- real sockets: what answers (or not) at the address ------------------------------


class Listener:
    """A TCP server on loopback that accepts every connection and then ``says``
    nothing (None) or sends the given bytes, holding the connection open."""

    def __init__(self, says):
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.says = says
        self.held = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:  # closed
                return
            self.held.append(connection)
            if self.says is not None:
                with contextlib.suppress(OSError):
                    connection.sendall(self.says)

    def close(self):
        self.socket.close()
        for connection in self.held:
            connection.close()


DEADLINE = 3  # seconds: distributed.comm.timeouts.connect in these tests
# a length of frames that asks for exbibytes, then bytes that are not dask's
GARBAGE = (2**62).to_bytes(8, "little") * 4 + b"HTTP/1.1 200 OK\r\n\r\nhello" * 50


def cluster_env(**extra):
    return {
        **os.environ,
        "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": f"{DEADLINE}s",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


def small_command(out, *extra):
    return [sys.executable, "-m", "fdlsr", *SMALL, "--splits", "1", "--out", str(out),
            *extra]  # fmt: skip


@pytest.mark.parametrize(
    "says, address, message",
    [
        (
            None,
            "tcp://127.0.0.1:PORT",
            "no dask scheduler answers at --scheduler 'tcp://127.0.0.1:PORT' (no reply "
            f"within {DEADLINE} s",
        ),
        (
            GARBAGE,
            "tcp://127.0.0.1:PORT",
            "--scheduler 'tcp://127.0.0.1:PORT': what answers there is not a dask "
            "scheduler",
        ),
        (
            None,
            "tcp://127.0.0.1:FREE",
            "no dask scheduler answers at --scheduler 'tcp://127.0.0.1:FREE' (no reply "
            f"within {DEADLINE} s",
        ),
    ],  # fmt: skip
    ids=["never-answers", "answers-other-bytes", "nothing-listens"],
)
def test_what_answers_at_the_address_one_line_within_the_deadline(
    tmp_path, says, address, message
):
    """One line, exit 2, nothing after it (no finalizer's traceback at exit), within
    the deadline the message states: beyond the time the same command takes to be
    refused at once (start-up and imports, whatever the machine's load), at most a
    few deadlines (the connection's and the handshake's)."""
    pytest.importorskip("distributed")
    start = time.monotonic()
    refused_at_once = subprocess.run(
        small_command(tmp_path / "at-once", "--scheduler", "tcp://127.0.0.1"),
        capture_output=True,
        env=cluster_env(),
        timeout=90,
    )
    at_once = time.monotonic() - start
    assert refused_at_once.returncode == 2
    listener = Listener(says)
    address = address.replace("PORT", str(listener.port))
    message = message.replace("PORT", str(listener.port))
    port = str(free_port())
    address, message = address.replace("FREE", port), message.replace("FREE", port)
    out = tmp_path / "res"
    try:
        start = time.monotonic()
        done = subprocess.run(
            small_command(out, "--scheduler", address),
            capture_output=True,
            text=True,
            env=cluster_env(),
            timeout=90,
        )
        took = time.monotonic() - start
    finally:
        listener.close()
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1, done.stderr
    assert message in lines[0], lines[0]
    assert not out.exists()
    print(f"{address} {says!r:.20}: {took:.1f} s from start to exit ({at_once:.1f} s)")
    assert took - at_once < 4 * DEADLINE, (took, at_once)


# -- start-up and shutdown of local:N: signals, files, processes -------------------


def session_processes(sid):
    """The processes of session ``sid`` that have not ended."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def gone(sid, timeout=15):
    """True once no process of session ``sid`` is left (waiting ``timeout`` s);
    kills what is left otherwise."""
    deadline = time.monotonic() + timeout
    while session_processes(sid) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = session_processes(sid)
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return not left


def _default_signals():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


class Run:
    """``fdlsr run --scheduler local:2`` in a session of its own (Ctrl-C on a terminal
    reaches its whole process group), with a fresh ``$TMPDIR`` and working folder."""

    def __init__(self, tmp_path, data, out, runner=("--scheduler", "local:2")):
        self.tmp = tmp_path / "tmp"
        self.cwd = tmp_path / "cwd"
        self.tmp.mkdir(parents=True)
        self.cwd.mkdir()
        self.log = tmp_path / "log"
        self.out = out
        with open(self.log, "w") as handle:
            self.process = subprocess.Popen(
                command(data, out, *runner),
                stdout=handle,
                stderr=subprocess.STDOUT,
                cwd=self.cwd,
                env={**os.environ, "PYTHONUNBUFFERED": "1", "TMPDIR": str(self.tmp)},
                start_new_session=True,
                # pytest-xdist workers may ignore SIGINT, and an ignored signal is
                # inherited across exec: the run would then never see the Ctrl-C
                # (and SIGHUP when the suite runs under nohup: fdlsr keeps an ignored
                # SIGHUP ignored, as nohup asks)
                preexec_fn=_default_signals,
            )

    def wait_for_a_worker(self, timeout=120):
        """Until the first worker process exists (the cluster is starting)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.process.poll() is None:
            if dask_workers(self.process.pid):
                return
            time.sleep(0.01)
        pytest.fail(f"no worker process after {timeout} s: {self.log.read_text()}")

    def lines(self):
        return self.log.read_text().strip().splitlines()

    def left_behind(self):
        """Files and folders left in $TMPDIR and in the working folder."""
        return sorted(str(p) for p in [*self.tmp.rglob("*"), *self.cwd.rglob("*")])


@pytest.mark.skipif(not ON_LINUX, reason="reads /proc")
def test_a_clean_run_leaves_nothing_in_tmpdir_or_the_working_folder(
    tmp_path, data, uninterrupted
):
    pytest.importorskip("distributed")
    run = Run(tmp_path, data, tmp_path / "res")
    assert run.process.wait(timeout=300) == 0, run.log.read_text()
    assert gone(run.process.pid)
    assert run.left_behind() == []
    assert all(line.startswith("fdlsr: ") or " runs computed, " in line
               for line in run.lines()), run.lines()  # fmt: skip
    assert rows_by_key(run.out) == uninterrupted


def interrupted_cleanly(run, how, *, may_have_ended=False):
    """Asserts what a signal to ``run`` must leave: exit 130, its own lines only,
    the last one the interruption, no process, no file. Exit 0 passes only where
    the signal may have come after the run ended (``may_have_ended``), and then
    only for a run that finished (its last line out)."""
    code = run.process.wait(timeout=120)
    lines = run.lines()
    assert code == 130 or (may_have_ended and code == 0), (how, code, lines)
    if code == 0:
        assert any(" runs computed, " in line for line in lines), (how, lines)
    assert all(line.startswith("fdlsr: ") or " runs computed, " in line
               for line in lines), (how, lines)  # fmt: skip
    if code == 130:
        assert lines[-1].startswith("fdlsr: interrupted; finished runs are saved"), (
            how, lines)  # fmt: skip
    assert gone(run.process.pid), (how, "processes left")
    assert run.left_behind() == [], (how, run.left_behind())
    return code


# Signals at random moments of a local:2 run (from its first worker process to the
# end: start-up, runs, shutdown); FDLSR_SIGNAL_SWEEP sets how many (docs/cluster.md
# reports a longer sweep run by hand).
SWEEP = int(os.environ.get("FDLSR_SIGNAL_SWEEP", "4"))


@pytest.mark.skipif(not ON_LINUX, reason="reads /proc")
def test_signals_at_any_moment_one_line_exit_130_nothing_left(
    tmp_path, data, uninterrupted
):
    pytest.importorskip("distributed")
    rng = random.Random()
    seed = rng.randrange(10**6)
    rng.seed(seed)
    out = tmp_path / "res"  # one store: each run resumes the last
    ways = [("Ctrl-C", lambda p: os.killpg(p.pid, signal.SIGINT)),
            ("SIGTERM", lambda p: p.send_signal(signal.SIGTERM)),
            ("SIGINT", lambda p: p.send_signal(signal.SIGINT))]  # fmt: skip
    codes = []
    for attempt in range(SWEEP):
        name, send = ways[attempt % len(ways)]
        # the first at once when the first worker starts; the others later
        delay = 0.0 if attempt == 0 else rng.uniform(0.0, 4.0)
        how = f"{name} {delay:.2f} s after the first worker (seed {seed})"
        run = Run(tmp_path / str(attempt), data, out)
        run.wait_for_a_worker()
        time.sleep(delay)
        if run.process.poll() is None:
            send(run.process)
        codes.append(interrupted_cleanly(run, how, may_have_ended=True))
        if (out / "results.jsonl").exists():
            rows_by_key(out)  # no run stored twice
    # the last run resumes to the end; Ctrl-C the moment its last line is out, while
    # the cluster closes and Python exits, changes nothing
    run = Run(tmp_path / "last", data, out)
    deadline = time.monotonic() + 300
    while " runs computed, " not in run.log.read_text():
        assert run.process.poll() is None, run.lines()
        assert time.monotonic() < deadline, run.lines()
        time.sleep(0.005)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(run.process.pid, signal.SIGINT)
    interrupted_cleanly(run, "Ctrl-C at the last line", may_have_ended=True)
    assert rows_by_key(out) == uninterrupted
    # the first signal comes as the first worker starts: that run cannot have ended
    assert codes[0] == 130, codes


@pytest.mark.skipif(not ON_LINUX, reason="reads /proc")
@pytest.mark.parametrize("delay", [0.7, 1.4])
def test_ctrl_c_while_python_imports_the_command_is_one_line(tmp_path, data, delay):
    """The first second or two of a command go to Python's imports (numpy, scipy,
    scikit-learn, the estimators): Ctrl-C then is the same one line and exit 130."""
    run = Run(tmp_path, data, tmp_path / "res")
    time.sleep(delay)
    os.killpg(run.process.pid, signal.SIGINT)
    interrupted_cleanly(run, f"Ctrl-C {delay} s after the start")


@pytest.mark.skipif(not ON_LINUX, reason="reads /proc")
@pytest.mark.parametrize("moment", ["start-up", "mid-run"])
def test_a_killed_run_leaves_no_process(tmp_path, data, moment):
    pytest.importorskip("distributed")
    run = Run(tmp_path, data, tmp_path / "res")
    if moment == "start-up":
        run.wait_for_a_worker()
    else:
        mid_run(run.process, run.out / "results.jsonl", run.log)
    run.process.kill()
    run.process.wait()
    assert gone(run.process.pid), "processes outlived the killed run"


# -- a real dask scheduler elsewhere: no worker yet, then one, then it stops ---------


def background(argv, log, **env):
    with open(log, "w") as handle:
        return subprocess.Popen(
            argv, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True,
            env=cluster_env(**env),
        )  # fmt: skip


def wait_for(condition, what, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    pytest.fail(f"no {what} after {timeout} s")


@pytest.mark.skipif(not ON_LINUX, reason="reads /proc")
def test_a_scheduler_that_stops_answering_ends_the_run_in_one_line(tmp_path, data):
    """A scheduler without workers is waited for (with a note), a worker that joins
    computes, and a scheduler that stops answering (SIGSTOP) ends the command in
    one line, exit 2, within the deadlines; the rows stored are kept."""
    pytest.importorskip("distributed")
    found = tmp_path / "scheduler.json"
    scheduler = background(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
         "--port", "0", "--no-dashboard", "--scheduler-file", str(found)],
        tmp_path / "scheduler.log",
    )  # fmt: skip
    worker = run = None
    try:
        wait_for(lambda: found.exists() and found.stat().st_size, "scheduler file")
        address = json.loads(found.read_text())["address"]
        out, log = tmp_path / "res", tmp_path / "log"
        run = background(command(data, out, "--scheduler", address), log)
        wait_for(lambda: "has no worker yet" in log.read_text(), "note")
        worker = background(
            [sys.executable, "-m", "distributed.cli.dask_worker", address,
             "--nthreads", "1", "--no-dashboard"],
            tmp_path / "worker.log",
        )  # fmt: skip
        results = out / "results.jsonl"
        wait_for(lambda: results.exists() and results.read_bytes().count(b"\n"), "row")
        scheduler.send_signal(signal.SIGSTOP)
        code = run.wait(timeout=120)
        lines = log.read_text().strip().splitlines()
        assert code == 2, lines
        assert all(line.startswith("fdlsr: ") for line in lines), lines
        # Which deadline fires first depends on the machine's load: the wait for a
        # reply, or (a reply came just before the stop) the wait for a result.
        stopped = (
            f"fdlsr: error: the dask scheduler at {address} stopped answering (no "
            f"reply within {DEADLINE} s); finished rows are kept"
        )
        lost = (
            f"fdlsr: error: lost the dask scheduler at {address} (a result did not "
            "come in time); finished rows are kept"
        )
        assert lines[-1].startswith((stopped, lost)), lines
        assert 1 <= len(read_rows(out)) < TOTAL
    finally:
        for process in (run, worker, scheduler):
            if process is not None:
                with contextlib.suppress(OSError):
                    os.killpg(process.pid, signal.SIGKILL)
                    os.killpg(process.pid, signal.SIGCONT)
                process.wait()


# -- what answers at the address, told at once -------------------------------------


def free_port():
    with socket.create_server(("127.0.0.1", 0)) as taken:
        return taken.getsockname()[1]


@pytest.mark.parametrize("deadline", ["0s", "-5s", "abc"])
def test_a_deadline_not_positive_says_so(deadline):
    pytest.importorskip("distributed")
    import dask

    from fdlsr._experiments.executor import _connect_timeout

    with dask.config.set({"distributed.comm.timeouts.connect": deadline}):
        with pytest.raises(ConfigError, match="must be a positive time, e.g. 30s"):
            _connect_timeout()


def test_a_unit_on_a_worker_with_another_fdlsr_says_which():
    """What each unit runs on a dask worker checks the worker's fdlsr first (a
    worker that joins after the check of the workers there): another version is
    named, not computed with."""
    pytest.importorskip("distributed")
    from distributed.protocol.pickle import dumps

    from fdlsr import __version__
    from fdlsr._experiments.executor import _on_a_worker

    payload = dumps((divmod, 7))
    assert _on_a_worker(__version__)(payload, 3) == (True, (2, 1))
    worked, (worker, found) = _on_a_worker("0.0.0-other")(payload, 3)
    assert not worked and found == __version__


# -- a real dask scheduler and workers with the wrong (or a slow) fdlsr -------------


def fake_fdlsr(folder, source):
    """A folder to put first on PYTHONPATH, whose package ``fdlsr`` is ``source``."""
    (folder / "fdlsr").mkdir(parents=True)
    (folder / "fdlsr" / "__init__.py").write_text(source)
    return folder


def dask_scheduler(tmp_path, **env):
    found = tmp_path / "scheduler.json"
    scheduler = background(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
         "--port", "0", "--no-dashboard", "--scheduler-file", str(found)],
        tmp_path / "scheduler.log", **env,
    )  # fmt: skip
    wait_for(lambda: found.exists() and found.stat().st_size, "scheduler file")
    return scheduler, json.loads(found.read_text())["address"]


def dask_worker(tmp_path, address, **env):
    return background(
        [sys.executable, "-m", "distributed.cli.dask_worker", address,
         "--nthreads", "1", "--no-dashboard"],
        tmp_path / "worker.log", **env,
    )  # fmt: skip


def stopped(*processes):
    for process in processes:
        if process is not None:
            with contextlib.suppress(OSError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def python_path(*first):
    return os.pathsep.join([*map(str, first), os.environ.get("PYTHONPATH", "")])


@pytest.mark.skipif(not ON_LINUX, reason="process groups")
def test_a_worker_with_another_fdlsr_is_refused_in_one_line(tmp_path):
    """A worker whose fdlsr is another version (here a package with only
    ``__version__``) is named, with the fix, before any unit is sent to it."""
    pytest.importorskip("distributed")
    stub = fake_fdlsr(tmp_path / "stub", '__version__ = "0.0.1-stub"\n')
    scheduler, address = dask_scheduler(tmp_path)
    worker = dask_worker(tmp_path, address, PYTHONPATH=python_path(stub))
    try:
        done = subprocess.run(
            small_command(tmp_path / "res", "--scheduler", address),
            capture_output=True, text=True, env=cluster_env(), timeout=240,
        )  # fmt: skip
    finally:
        stopped(worker, scheduler)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert all(line.startswith("fdlsr: ") for line in lines), done.stderr
    assert "has fdlsr 0.0.1-stub, not " in lines[-1], lines
    assert "install the same fdlsr on every worker" in lines[-1], lines
    assert "the dask worker tcp://127.0.0.1:" in lines[-1], lines


@pytest.mark.skipif(not ON_LINUX, reason="process groups")
def test_the_scheduler_needs_no_fdlsr_and_is_never_busy_importing_it(tmp_path):
    """The scheduler unpickles the tasks it is sent, in its event loop: were a task
    to name fdlsr's code, it would import fdlsr there, and answer nothing for the
    seconds that takes (a run then ended as 'stopped answering' on a live
    scheduler). Its fdlsr here sleeps 4 deadlines, then fails: the run completes."""
    pytest.importorskip("distributed")
    slow = fake_fdlsr(
        tmp_path / "slow",
        f"import time\ntime.sleep({4 * DEADLINE})\n"
        "raise ImportError('no fdlsr on the scheduler')\n",
    )
    scheduler, address = dask_scheduler(tmp_path, PYTHONPATH=python_path(slow))
    worker = dask_worker(tmp_path, address)
    out = tmp_path / "res"
    try:
        done = subprocess.run(
            small_command(out, "--scheduler", address),
            capture_output=True, text=True, env=cluster_env(), timeout=240,
        )  # fmt: skip
    finally:
        stopped(worker, scheduler)
    assert done.returncode == 0, done.stderr
    assert len(read_rows(out)) == 6


@pytest.mark.skipif(not ON_LINUX, reason="reads /proc")
@pytest.mark.parametrize("runner", [["--scheduler", "local:1"], ["--jobs", "2"]])
def test_a_closed_terminal_sighup_is_ctrl_c(tmp_path, data, runner):
    """SIGHUP to the process group (the terminal or ssh session closed) mid-run:
    the one line, exit 130, no process and no file left, the rows whole."""
    run = Run(tmp_path, data, tmp_path / "res", runner)
    results = run.out / "results.jsonl"
    wait_for(
        lambda: (
            run.process.poll() is not None
            or (results.exists() and results.read_bytes().count(b"\n"))
        ),
        "row",
    )
    if run.process.poll() is None:
        os.killpg(run.process.pid, signal.SIGHUP)
    assert interrupted_cleanly(run, "SIGHUP") == 130, run.lines()
    rows_by_key(run.out)  # each run stored once
