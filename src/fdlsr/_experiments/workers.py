"""Local worker processes (``fdlsr run --jobs N``) that never outlive the command.

Each worker is a fresh Python interpreter started by the command, connected to it by
a socket pair: it receives the shared data once, then one task at a time, and sends
back each result. Nothing is put in ``/dev/shm`` (no named semaphores, no
memory-mapped copy of the data): the data travel through the socket and each worker
keeps its own copy in private memory, which the kernel frees however the worker ends.

A worker dies with the command. On Linux the kernel kills it (``SIGKILL``) the moment
its parent ends, however the parent ends, ``kill -9`` included
(``prctl(PR_SET_PDEATHSIG)``): nothing in the worker has to run for it, so it holds
while the worker is deep in a BLAS call. Where that call does not exist (macOS, BSD) a
thread of the worker checks every :data:`WATCH_SECONDS` that its parent is still
there and ends the process when it is not.

A worker that ends before its work is done (killed, out of memory) makes
:meth:`Workers.results` raise :class:`~fdlsr.errors.WorkerError`; leaving the
``with`` block for any reason (an error, Ctrl-C) kills the workers still running.
"""

import ctypes
import ctypes.util
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection, wait
from pathlib import Path

from .._common.linalg import blas_threads
from ..errors import WorkerError

WATCH_SECONDS = 0.5
PROCESSES_PER_CORE = 4

# The worker's first statements: Ctrl-C on a terminal, or the terminal closed
# (SIGHUP), reaches every process of the foreground group, and the command alone
# decides what happens to the workers then.
_BOOT = (
    "import signal; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "hasattr(signal, 'SIGHUP') and signal.signal(signal.SIGHUP, signal.SIG_IGN); "
    "import sys; from fdlsr._experiments.workers import serve; "
    "serve(int(sys.argv[1]), int(sys.argv[2]))"
)

DIED = "a worker process died{how}; finished rows are kept; rerun the same command to resume"


# What BLAS and OpenMP libraries read, at their start, for their number of threads.
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
)


class Workers:
    """``n`` worker processes, each computing ``function(task, shared)`` for its tasks.

    ``function`` must be importable by name (a module-level function) and ``shared``
    picklable; ``shared`` is sent to each worker once. ``threads``: the BLAS and
    OpenMP threads of each worker, set in its environment before it starts (idle
    threads of a library started with one per core would compete for the cores).

    Examples
    --------
    >>> with Workers(2, divmod, 3) as workers:
    ...     sorted(workers.results([7, 8]))
    [(7, (2, 1)), (8, (2, 2))]
    """

    def __init__(self, n, function, shared, *, threads=None):
        self._workers = []
        try:
            # all started before any is sent the data: they start up side by side
            for _ in range(n):
                self._workers.append(_start(threads))
            for process, connection in self._workers:
                # sys.path first (plain strings): the worker can then unpickle what
                # this process can import (``function`` from outside the package)
                _send(process, connection, sys.path)
                _send(process, connection, (function, shared))
        except BaseException:
            self.kill()
            raise

    def results(self, tasks):
        """``(task, result)`` of each task, in the order they finish.

        Raises :class:`~fdlsr.errors.WorkerError` when a worker ends before sending
        the result of its task.
        """
        tasks = iter(tasks)
        busy = {}  # connection -> (process, task)
        idle = list(self._workers)
        while True:
            while idle:
                task = next(tasks, _END)
                if task is _END:
                    break
                process, connection = idle.pop()
                _send(process, connection, task)
                busy[connection] = process, task
            if not busy:
                return
            for connection in wait(list(busy)):
                process, task = busy.pop(connection)
                yield task, _receive(process, connection)
                idle.append((process, connection))

    def kill(self):
        """End every worker now and reap it."""
        for process, connection in self._workers:
            connection.close()
            if process.poll() is None:
                process.kill()
            process.wait()
        self._workers = []

    def close(self, timeout=5.0):
        """Ask every worker to stop, give them ``timeout`` seconds, then kill."""
        deadline = time.monotonic() + timeout
        for _, connection in self._workers:
            try:
                connection.send(None)
            except OSError:  # already gone
                pass
        for process, _ in self._workers:
            try:
                process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        self.kill()

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if kind is None:
            self.close()
        else:
            self.kill()


_END = object()


def blas_threads_per_run(n_jobs):
    """The BLAS threads each run computes with: the process's own with one job, else
    the usable cores shared out among the ``n_jobs`` workers."""
    if n_jobs == 1:
        return blas_threads()
    return max(1, usable_cores() // n_jobs)


def max_processes():
    """The most worker processes a command may start here (``--jobs N``,
    ``--scheduler local:N``): :data:`PROCESSES_PER_CORE` for each usable core. More
    only share the same cores, each with a copy of the data."""
    return PROCESSES_PER_CORE * usable_cores()


def usable_cores():
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _start(threads):
    """A fresh interpreter running :func:`serve`, and the command's end of its socket."""
    ours, theirs = socket.socketpair()
    package_root = str(Path(__file__).resolve().parents[2])  # the one importing us
    path = os.environ.get("PYTHONPATH")
    env = {
        **os.environ,
        "PYTHONPATH": package_root + (os.pathsep + path if path else ""),
    }
    if threads is not None:
        env.update({name: str(threads) for name in THREAD_VARIABLES})
    try:
        process = subprocess.Popen(
            [sys.executable, "-c", _BOOT, str(theirs.fileno()), str(os.getpid())],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            env=env,
        )
    finally:
        theirs.close()
    return process, Connection(ours.detach())


def _send(process, connection, message):
    try:
        connection.send(message)
    except OSError:
        raise WorkerError(_died(process)) from None


def _receive(process, connection):
    try:
        return connection.recv()
    except (EOFError, OSError):
        raise WorkerError(_died(process)) from None


def _died(process):
    try:
        code = process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        return DIED.format(how="")
    if code < 0:
        try:
            return DIED.format(how=f" (killed by {signal.Signals(-code).name})")
        except ValueError:
            pass
    return DIED.format(how=f" (exit status {code})")


# -- in the worker ------------------------------------------------------------------


def serve(fd, parent):
    """The worker's loop: tasks in, results out, until told to stop or orphaned."""
    die_with_parent(parent)
    connection = Connection(fd)
    sys.path[:] = connection.recv()
    function, shared = connection.recv()
    while True:
        try:
            task = connection.recv()
        except EOFError:  # the command closed its end
            return
        if task is None:
            return
        connection.send(function(task, shared))


def die_with_parent(parent):
    """End this process when process ``parent`` ends (see the module's docstring)."""
    if not _ask_kernel():
        threading.Thread(target=_watch, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # it ended before we were set up
        os._exit(1)


def _ask_kernel():
    """Ask Linux to send SIGKILL here when the parent ends; False where it cannot."""
    if not sys.platform.startswith("linux"):
        return False
    PR_SET_PDEATHSIG = 1
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent):
    while os.getppid() == parent:
        time.sleep(WATCH_SECONDS)
    os._exit(1)
