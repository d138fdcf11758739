"""``fdlsr run --jobs N`` killed from outside: its worker processes die with it, nothing
of the run stays in /dev/shm, and the same command resumes to the table of a run that
was never interrupted. Real processes and real signals, no mocks."""

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fdlsr._experiments.parser import _whole
from fdlsr._experiments.store_folder import read_rows
from fdlsr._experiments.workers import max_processes
from fdlsr._testing import cli_error, rows_by_key, save_noisy_classes

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="reads processes from /proc (Linux)"
)

TOTAL = 2 * 6  # methods x splits


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """20 classes x 20 samples x 500 features: 1.6 MB, big enough that joblib used to
    memory-map it into /dev/shm."""
    return save_noisy_classes(tmp_path_factory.mktemp("data") / "noisy.npz")


def command(data, out):
    return [
        sys.executable,
        "-m",
        "fdlsr",
        "run",
        "--dataset",
        str(data),
        "--methods",
        "LC-KSVD2",
        "RidgeClassifier",
        "-k",
        "5",
        "--splits",
        "6",
        "--jobs",
        "2",
        "--no-table",
        "--out",
        str(out),
    ]


def start(data, out, log):
    """The run in the background, its output in the file ``log`` (a pipe would stay
    open as long as any worker lives, and reading it would wait for them)."""
    with open(log, "w") as handle:
        return subprocess.Popen(
            command(data, out),
            stdout=handle,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )


def ended(process, log, timeout=60):
    """The output of ``process`` once it has ended."""
    process.wait(timeout=timeout)
    return Path(log).read_text()


@pytest.fixture(scope="module")
def uninterrupted(data, tmp_path_factory):
    out = tmp_path_factory.mktemp("uninterrupted")
    done = subprocess.run(command(data, out), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return rows_by_key(out)


def stat(pid):
    """``(state, start time)`` of a process, or None when there is none."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], fields[19]


def descendants(pid):
    """The processes below ``pid``, as ``{pid: start time}``."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                text = (entry / "stat").read_text()
            except OSError:
                continue
            parents.setdefault(int(text[text.rindex(")") + 2 :].split()[1]), []).append(
                int(entry.name)
            )
    found, todo = {}, [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if (state := stat(child)) is not None:
                found[child] = state[1]
                todo.append(child)
    return found


def cmdline(pid):
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")


def alive(processes):
    """Those of ``{pid: start time}`` still running (a zombie has ended)."""
    now = {pid: stat(pid) for pid in processes}
    return [
        pid
        for pid, started in processes.items()
        if now[pid] is not None and now[pid][1] == started and now[pid][0] != "Z"
    ]


def shared_memory(pids):
    """Paths under /dev/shm that the processes ``pids`` have mapped or open."""
    found = set()
    for pid in pids:
        try:
            maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        found.update(line.split()[-1] for line in maps if "/dev/shm/" in line)
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("/dev/shm/"):
                found.add(target)
    return {path.removesuffix(" (deleted)") for path in found}


def mid_run(process, results, log, timeout=180):
    """Wait until the run has stored a row and both workers are busy; its workers."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the run ended too early: {Path(log).read_text()}")
        workers = descendants(process.pid)
        rows = results.read_bytes().count(b"\n") if results.exists() else 0
        if rows >= 1 and len(workers) >= 2:
            return workers
        time.sleep(0.05)
    pytest.fail(f"no row and two workers after {timeout} s")


@pytest.fixture
def reaper():
    """Ends, after the test, the processes it was given (left over when it fails):
    workers first, so that a resource tracker among them can still clean up."""
    seen = {}
    yield seen.update
    trackers = [pid for pid in alive(seen) if "tracker" in cmdline(pid)]
    for pid in alive(seen):
        if pid not in trackers:
            os.kill(pid, signal.SIGKILL)
    wait_until_gone({pid: seen[pid] for pid in trackers})
    for pid in alive(seen):
        os.kill(pid, signal.SIGKILL)


def wait_until_gone(processes, timeout=10):
    deadline = time.monotonic() + timeout
    while alive(processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive(processes)


def resume(data, out, before):
    done = subprocess.run(command(data, out), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"{TOTAL - before} runs computed, {before} already" in done.stderr
    return rows_by_key(out)


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_run_leaves_no_worker_and_nothing_in_shm(
    tmp_path, data, uninterrupted, reaper, how
):
    out, log = tmp_path / "res", tmp_path / "log"
    process = start(data, out, log)
    workers = mid_run(process, out / "results.jsonl", log)
    reaper(workers)
    shm = shared_memory([process.pid, *workers])
    process.send_signal(how)
    err = ended(process, log)
    if how == signal.SIGTERM:  # as Ctrl-C: one line, exit 130, resumable
        assert process.returncode == 130, err
        assert err.strip().splitlines()[-1].startswith("fdlsr: interrupted"), err
        assert "Traceback" not in err, err
    else:
        assert process.returncode == -signal.SIGKILL
    assert wait_until_gone(workers) == [], "worker processes outlived the run"
    left = [path for path in shm if os.path.exists(path)]
    left += [name for name in os.listdir("/dev/shm") if str(process.pid) in name]
    assert left == [], left
    before = len(read_rows(out))
    assert 1 <= before < TOTAL
    assert resume(data, out, before) == uninterrupted


def test_a_worker_that_dies_ends_the_run_in_one_line(
    tmp_path, data, uninterrupted, reaper
):
    out, log = tmp_path / "res", tmp_path / "log"
    process = start(data, out, log)
    workers = mid_run(process, out / "results.jsonl", log)
    reaper(workers)
    victim = min(pid for pid in workers if "tracker" not in cmdline(pid))
    os.kill(victim, signal.SIGKILL)
    err = ended(process, log)
    assert process.returncode == 2, err
    last = err.strip().splitlines()[-1]
    assert last == (
        "fdlsr: error: a worker process died (killed by SIGKILL); finished rows are "
        "kept; rerun the same command to resume"
    ), err
    assert "Traceback" not in err, err
    assert wait_until_gone(workers) == []
    assert resume(data, out, len(read_rows(out))) == uninterrupted


def test_without_the_kernel_a_thread_ends_an_orphaned_worker(reaper):
    # The watchdog used where prctl does not exist, forced here on Linux: a middle
    # process starts a worker-like grandchild and is killed with SIGKILL.
    grandchild = (
        "import os, time; from fdlsr._experiments import workers; "
        "workers._ask_kernel = lambda: False; "
        "workers.die_with_parent(os.getppid()); print('ready', flush=True); "
        "time.sleep(300)"
    )
    middle = (
        "import subprocess, sys, time; "
        f"subprocess.Popen([sys.executable, '-c', {grandchild!r}]); time.sleep(300)"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", middle], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout.readline().strip() == "ready"
    below = descendants(process.pid)
    reaper(below)
    assert len(below) == 1
    process.kill()
    process.wait()
    assert wait_until_gone(below) == []


def _fail_on(task, shared):
    if task == shared:
        os._exit(3)
    return task


def test_workers_report_one_that_exits():
    from fdlsr._experiments.workers import Workers
    from fdlsr.errors import WorkerError

    with (
        pytest.raises(WorkerError, match=r"died \(exit status 3\); finished rows"),
        Workers(2, _fail_on, 5) as workers,
    ):
        list(workers.results(range(10)))


def test_workers_compute_every_task_and_stop():
    from fdlsr._experiments.workers import Workers

    before = descendants(os.getpid())
    with Workers(3, divmod, 7) as workers:
        ours = {p: s for p, s in descendants(os.getpid()).items() if p not in before}
        assert len(ours) == 3
        results = sorted(workers.results(range(20)))
    assert results == [(t, divmod(t, 7)) for t in range(20)]
    assert alive(ours) == []


# -- --jobs N: a whole number in the digits 0-9, at most 4 per usable core ----------


@pytest.mark.parametrize(
    "jobs", ["٣", "１", " 2", "+2", "2_0", "0x2", "0", "-1", str(max_processes() + 1)]
)
def test_jobs_is_a_whole_number_in_digits_up_to_four_per_core(tmp_path, capsys, jobs):
    out = tmp_path / "res"
    line = cli_error(
        capsys,
        ["run", "--dataset", "digits", "--methods", "FDLSR", "-k", "2", "--splits",
         "1", "--no-table", "--out", str(out), "--jobs", jobs],
    )  # fmt: skip
    assert "--jobs" in line
    assert not out.exists()


@settings(max_examples=300, deadline=None)
@given(text=st.text() | st.from_regex(r"[+ ]?[0-9_]{0,5} ?", fullmatch=True))
def test_whole_number_options_read_the_digits_0_to_9_only(text):
    parse = _whole(1, "a number of jobs")
    try:
        value = parse(text)
    except argparse.ArgumentTypeError as error:
        assert "\n" not in str(error)
        assert not (text.isascii() and text.isdigit() and int(text) >= 1), text
        return
    assert text.isascii() and text.isdigit() and value == int(text) >= 1, text
