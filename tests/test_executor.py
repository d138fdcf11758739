"""The executor (``fdlsr._experiments.executor``) and ``fdlsr run --jobs N`` killed from
outside: its joblib worker processes die with it, what loky puts in /dev/shm is
removed, and the same command resumes to the table of a run that was never
interrupted; a class defined in a script's ``__main__`` runs in the workers. Real
processes and real signals, no mocks."""

import argparse
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fdlsr._experiments.executor import computed, max_processes
from fdlsr._experiments.parser import _whole
from fdlsr._experiments.store_folder import read_rows
from fdlsr._testing import cli_error, rows_by_key, save_noisy_classes
from fdlsr.errors import WorkerError

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
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def is_worker(pid):
    """Whether ``pid`` is a loky worker (not one of the resource trackers)."""
    return "popen_loky" in cmdline(pid)


def alive(processes):
    """Those of ``{pid: start time}`` still running (a zombie has ended)."""
    now = {pid: stat(pid) for pid in processes}
    return [
        pid
        for pid, started in processes.items()
        if now[pid] is not None and now[pid][1] == started and now[pid][0] != "Z"
    ]


def shared_memory(pids):
    """Paths under /dev/shm that the processes ``pids`` have mapped or open (loky's
    semaphores are mapped as ``/dev/shm/sem.loky-PID-...``)."""
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
        below = descendants(process.pid)
        rows = results.read_bytes().count(b"\n") if results.exists() else 0
        if rows >= 1 and len([p for p in below if is_worker(p)]) >= 2:
            return below
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
    below = mid_run(process, out / "results.jsonl", log)
    reaper(below)
    shm = shared_memory([process.pid, *below])
    process.send_signal(how)
    err = ended(process, log)
    if how == signal.SIGTERM:  # as Ctrl-C: one line, exit 130, resumable
        assert process.returncode == 130, err
        assert err.strip().splitlines()[-1].startswith("fdlsr: interrupted"), err
        assert "Traceback" not in err, err
    else:
        assert process.returncode == -signal.SIGKILL
    # the workers end themselves (they watch their parent), then loky's resource
    # tracker, which removes its semaphores and folders from /dev/shm
    workers = {pid: below[pid] for pid in below if is_worker(pid)}
    assert wait_until_gone(workers, timeout=5) == [], "workers outlived the run"
    assert wait_until_gone(below) == [], "processes outlived the run"
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
    below = mid_run(process, out / "results.jsonl", log)
    reaper(below)
    os.kill(min(pid for pid in below if is_worker(pid)), signal.SIGKILL)
    err = ended(process, log)
    assert process.returncode == 2, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("fdlsr: error: a worker process died (exit codes: "), err
    assert "SIGKILL" in last, err
    assert last.endswith("finished rows are kept; rerun the same command to resume")
    assert "Traceback" not in err, err
    assert wait_until_gone(below) == []
    assert resume(data, out, len(read_rows(out))) == uninterrupted


def _fail_on(task, shared):
    if task == shared:
        os._exit(3)
    return task


def test_a_worker_that_exits_is_one_error():
    with pytest.raises(WorkerError, match=r"died \(exit codes: .*3.*\); finished rows"):
        list(computed(_fail_on, range(10), 5, n_jobs=2))


def test_every_task_is_computed_once_in_any_order():
    results = sorted(computed(divmod, range(20), 7, n_jobs=3))
    assert results == [(t, divmod(t, 7)) for t in range(20)]
    assert list(computed(divmod, range(3), 7)) == [(t, divmod(t, 7)) for t in range(3)]


def _sleep(seconds, shared):
    time.sleep(seconds)


def test_leaving_the_results_early_is_silent():
    # the command stops reading (Ctrl-C while it stores a row): joblib's note that
    # tasks were cancelled or left unused must not follow the command's one line
    for wait in (0.0, 0.5):  # tasks in flight; tasks done but not read
        with warnings.catch_warnings(record=True) as shown:
            warnings.simplefilter("always")
            results = computed(_sleep, [0.0, 0.3, 0.3, 0.3], None, n_jobs=2)
            next(results)
            time.sleep(wait)
            results.close()
        assert [str(w.message) for w in shown] == [], wait


def test_tasks_start_in_the_order_given(tmp_path):
    # two workers: the first two tasks start first, the next when one has ended
    started = tmp_path / "started"
    list(computed(_note_start, [3, 1, 2, 0], started, n_jobs=2))
    order = [int(line) for line in started.read_text().split()]
    assert set(order[:2]) == {3, 1} and set(order[2:]) == {2, 0}, order


def _note_start(task, path):
    with open(path, "a") as handle:
        handle.write(f"{task}\n")
    time.sleep(0.5)
    return task


# A script whose classifier exists only in its own __main__: only cloudpickle (by
# value) gets it to the workers; sent by name, a worker cannot import it.
SCRIPT = """
import os
import numpy as np
from fdlsr._experiments.executor import computed


class NearestMean:
    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.means_ = np.array([X[y == c].mean(axis=0) for c in self.classes_])
        return self

    def predict(self, X):
        distances = ((X[:, None, :] - self.means_[None]) ** 2).sum(axis=2)
        return self.classes_[distances.argmin(axis=1)]


def score(seed, data):
    X, y = data
    rng = np.random.default_rng(seed)
    train = rng.permutation(y.size)[: y.size // 2]
    test = np.setdiff1d(np.arange(y.size), train)
    model = NearestMean().fit(X[train], y[train])
    return os.getpid(), float((model.predict(X[test]) == y[test]).mean())


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 20)
    X = rng.standard_normal((3, 5))[y] * 4 + rng.standard_normal((60, 5))
    results = dict(computed(score, range(4), (X, y), n_jobs=2))
    pids = {pid for pid, _ in results.values()}
    assert os.getpid() not in pids, "ran in the script's own process"
    print(sorted(results), min(accuracy for _, accuracy in results.values()))
"""


def test_a_classifier_defined_in_a_script_runs_in_two_workers(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    tasks, accuracy = done.stdout.rsplit("]", 1)
    assert tasks == "[0, 1, 2, 3"
    assert float(accuracy) > 0.9


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


def test_the_tracker_note_is_off_in_children_only_while_they_start(monkeypatch):
    """loky's resource tracker notes leaked semaphores after a Ctrl-C (then removes
    them): its children ignore that note, this process's environment is restored."""
    import os
    import subprocess
    import sys

    from fdlsr._experiments.executor import _tracker_notes_off

    monkeypatch.setenv("PYTHONWARNINGS", "default")
    with _tracker_notes_off():
        child = subprocess.run(
            [sys.executable, "-c", "import warnings; "
             "warnings.warn('resource_tracker: There appear to be 1 leaked'); "
             "warnings.warn('another note')"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert "resource_tracker" not in child.stderr and "another note" in child.stderr
    assert os.environ["PYTHONWARNINGS"] == "default"
