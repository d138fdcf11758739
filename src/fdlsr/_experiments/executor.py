"""Where the units of ``fdlsr run`` compute: in this process, in joblib's worker
processes (``--jobs N``, the loky backend) or on a ``dask.distributed`` cluster
(``--scheduler ADDRESS|local:N``).

:func:`computed` yields ``(task, function(task, shared))`` as each task finishes, in
any of the three; the caller (:func:`.scheduler.run_units`) stores each row as it
arrives, in this process, so a run killed at any moment keeps every row it stored
and writes none twice. Tasks start in the order given (the caller's longest first).

*Local workers.* joblib's loky backend pickles with cloudpickle: a classifier defined
in a script's ``__main__`` or a notebook runs in the workers. Each worker starts
(:func:`_worker_setup`) ignoring SIGINT (Ctrl-C reaches the whole foreground group:
the command alone decides, and stops the workers) and watching its parent: loky's
workers outlive a parent killed with ``kill -9`` (they wait for work up to their
idle timeout), so each ends itself within :data:`WATCH_SECONDS` of the command's end
(on Windows, whose ``os.getppid`` does not change when the parent ends, by waiting on
the parent's process handle).

*dask.* ``--scheduler tcp://HOST:PORT`` connects a ``distributed.Client`` (dask's own
connect timeout, ``distributed.comm.timeouts.connect``, bounds the wait);
``local:N`` starts a ``LocalCluster`` of N worker processes, closed with the command
(dask's worker processes watch a pipe from it and exit when it ends). docs/cluster.md
says what is left behind after each kind of end.
"""

import atexit
import contextlib
import logging
import os
import queue
import re
import signal
import sys
import tempfile
import threading
import time
import warnings

from joblib import Parallel, delayed, parallel_config

from .._common.linalg import blas_threads
from .._common.messages import one_line, quote
from .._version import __version__
from ..errors import ConfigError, FdlsrError, WorkerError

WATCH_SECONDS = 0.5
PROCESSES_PER_CORE = 4
LOCAL = "local:"

# What BLAS and OpenMP libraries read, at their start, for their number of threads.
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
)

RESUME = "finished rows are kept; rerun the same command to resume"


def usable_cores():
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def max_processes():
    """The most worker processes a command may start here (``--jobs N``,
    ``--scheduler local:N``): :data:`PROCESSES_PER_CORE` for each usable core. More
    only share the same cores, each with a copy of the data."""
    return PROCESSES_PER_CORE * usable_cores()


def blas_threads_per_run(n_jobs):
    """The BLAS threads each run computes with: the process's own with one job, else
    the usable cores shared out among the ``n_jobs`` workers."""
    if n_jobs == 1:
        return blas_threads()
    return max(1, usable_cores() // n_jobs)


def computed(function, tasks, shared, *, n_jobs=1, threads=None, cluster=None):
    """``(task, function(task, shared))`` of each of ``tasks`` as it finishes.

    On ``cluster`` (a :class:`Cluster`), in ``n_jobs`` joblib worker processes with
    ``threads`` BLAS threads each, or here, one after the other (``n_jobs`` 1).
    ``function`` and ``shared`` may be anything cloudpickle pickles. A worker that
    ends before its task is done raises :class:`~fdlsr.errors.WorkerError`; closing
    the generator (an error, Ctrl-C) stops the workers.
    """
    tasks = list(tasks)
    if cluster is not None:
        yield from cluster.results(function, tasks, shared)
    elif n_jobs > 1 and len(tasks) > 1:
        yield from _loky(function, tasks, shared, min(n_jobs, len(tasks)), threads)
    else:
        for task in tasks:
            yield task, function(task, shared)


def _loky(function, tasks, shared, n_jobs, threads):
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    with parallel_config(
        backend="loky",
        inner_max_num_threads=threads,
        initializer=_worker_setup,
        initargs=(os.getpid(),),
    ):
        # one task a batch, dispatched in the order given; no memory-mapping of the
        # data (each task carries them: the workers never share writable arrays)
        parallel = Parallel(
            n_jobs=n_jobs,
            batch_size=1,
            pre_dispatch="n_jobs",
            max_nbytes=None,
            return_as="generator_unordered",
        )
        with _group_signals_blocked(), _tracker_notes_off():  # workers, trackers start
            results = parallel(
                delayed(_indexed)(i, function, task, shared)
                for i, task in enumerate(tasks)
            )
        with warnings.catch_warnings():
            # joblib's note, when the loop is left early (a Ctrl-C), that tasks were
            # cancelled or done but unused; it may come while the loop runs or at
            # close(): the command says so itself, in one line
            warnings.filterwarnings("ignore", message=".*adjusting the input task")
            try:
                for index, result in results:
                    yield tasks[index], result
            except TerminatedWorkerError as error:
                codes = re.search(
                    r"exit codes of the workers are \{(.*?)\}", str(error)
                )
                how = f" (exit codes: {codes.group(1)})" if codes else ""
                raise WorkerError(f"a worker process died{how}; {RESUME}") from None
            finally:
                results.close()  # on the way out early: joblib stops the workers


# loky's resource tracker, a child process, notes the semaphores of workers stopped
# by a Ctrl-C before it removes them itself; a command interrupted says one line.
_TRACKER_NOTE = "ignore:resource_tracker:UserWarning"  # no ":" inside a field


@contextlib.contextmanager
def _tracker_notes_off():
    """The processes started in the block (loky's workers and resource tracker)
    ignore the resource tracker's note about leaked semaphores; this process's
    environment is as it was after the block."""
    before = os.environ.get("PYTHONWARNINGS")
    os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [before, _TRACKER_NOTE]))
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PYTHONWARNINGS", None)
        else:
            os.environ["PYTHONWARNINGS"] = before


@contextlib.contextmanager
def _group_signals_blocked():
    """SIGINT and SIGHUP blocked in this thread within the block: the threads and
    processes started in it keep them blocked (a signal mask survives fork and exec)
    and never see a Ctrl-C or a closed terminal, which reach the whole foreground
    group; the command alone decides, and stops them. Python's resource tracker is
    started here first for the same reason. A signal to this process meanwhile takes
    effect when the block ends."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no process groups
        yield
        return
    from multiprocessing import resource_tracker

    blocked = {signal.SIGINT, signal.SIGHUP}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
    try:
        resource_tracker.ensure_running()
        # which unblocks SIGINT and SIGTERM in this thread when it starts one
        signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _indexed(index, function, task, shared):
    return index, function(task, shared)


def _worker_setup(parent):
    """Run first in each loky worker: ignore Ctrl-C (and a closed terminal), and end
    this process when the command ``parent`` ends, however it ends."""
    for name in ("SIGINT", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)

    def watch():
        if os.name == "nt":  # getppid does not change there: wait on the process
            import _winapi

            handle = _winapi.OpenProcess(_winapi.SYNCHRONIZE, False, parent)
            _winapi.WaitForSingleObject(handle, _winapi.INFINITE)
        else:
            while os.getppid() == parent:
                time.sleep(WATCH_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


# -- dask.distributed ------------------------------------------------------------------


class Cluster:
    """A ``distributed.Client`` of the scheduler at ``address``, or of a
    ``LocalCluster`` of N processes for ``local:N``; closed by ``with`` or
    :meth:`close`.

    Raises :class:`~fdlsr.errors.ConfigError` (one line) when ``distributed`` is not
    installed, ``address`` is none (dask's own parsing decides) or no scheduler
    answers there within dask's connect timeout.
    """

    def __init__(self, address):
        distributed = _distributed()
        import dask

        n = local_workers(address)
        self.address = address
        self.timeout = _connect_timeout()
        self.client = self._local = None
        # dask's log lines off while the cluster lives: its failures reach the
        # command as exceptions, each said in one line
        self._quiet = contextlib.ExitStack()
        self._quiet.enter_context(_dask_logs_silenced())
        try:
            if n is not None:
                self.threads = max(1, usable_cores() // n)
                # dask's scratch space and lock files: a folder removed at the end
                folder = self._quiet.enter_context(
                    tempfile.TemporaryDirectory(prefix="fdlsr-dask-")
                )
                self._quiet.enter_context(
                    dask.config.set({"temporary-directory": folder})
                )
                with _group_signals_blocked():  # its loop, processes, trackers
                    self._local = distributed.LocalCluster(
                        n_workers=n,
                        threads_per_worker=1,
                        processes=True,
                        host="127.0.0.1",
                        dashboard_address=None,
                        # the scheduler's HTTP routes start anyway: on a free port,
                        # not 8787, which another cluster may hold (dask warns then)
                        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                        local_directory=folder,
                        silence_logs=logging.CRITICAL,
                        env={name: str(self.threads) for name in THREAD_VARIABLES},
                    )
                self.client = distributed.Client(self._local, set_as_default=False)
            else:
                self.threads = None  # the workers' own setting
                _check_scheduler(address, self.timeout)
                self.client = distributed.Client(
                    address, timeout=self.timeout, set_as_default=False
                )
        except BaseException as error:
            self.close()
            if isinstance(error, FdlsrError) or not isinstance(error, Exception):
                raise
            raise ConfigError(_not_reached(address, error)) from None

    @property
    def workers(self):
        """How many units the cluster computes at once (its worker threads)."""
        return sum(self._ask(self.client.scheduler.ncores).values())

    def results(self, function, tasks, shared):
        """``(task, function(task, shared))`` of each task as it finishes.

        ``shared`` is sent to every worker once; the first tasks have the highest
        priority. While no result comes, the scheduler is asked every
        :attr:`timeout` seconds whether it still answers.
        """
        # Client.submit rather than joblib's dask backend: the unit and task go as
        # bytes to a function sent by value, so the scheduler unpickles nothing of
        # fdlsr, and priorities keep the order given (longest first)
        from distributed.protocol.pickle import dumps

        said = False
        while not self.workers:
            if not said:
                print(
                    f"fdlsr: note: the dask scheduler at {self.address} has no worker "
                    f"yet; waiting for one (dask worker {self.address})",
                    file=sys.stderr,
                )
                said = True
            time.sleep(1.0)
        futures = {}
        finished = queue.SimpleQueue()  # each future as it finishes
        try:
            # the workers there now (one that joins later: its units check it)
            for worker, version in sorted(self.client.run(_fdlsr_version()).items()):
                if version != __version__:
                    raise WorkerError(_other_fdlsr(worker, version))
            data = self.client.scatter(shared, broadcast=True, hash=False)
            futures[data] = None
            unit = _on_a_worker(__version__)
            for index, task in enumerate(tasks):
                future = self.client.submit(
                    unit,
                    dumps((function, task)),
                    data,
                    priority=len(tasks) - index,
                    pure=False,
                )
                future.add_done_callback(finished.put)
                futures[future] = task
            for _ in tasks:
                while True:
                    try:
                        future = finished.get(timeout=self.timeout)
                        break
                    except queue.Empty:  # a unit may compute for hours
                        self._ask(self.client.scheduler.identity)  # still there?
                yield futures[future], self._result(future)
        except (OSError, TimeoutError) as error:
            raise WorkerError(self._lost(_reason(error))) from None
        finally:
            if futures and self.client.status == "running":
                with contextlib.suppress(Exception):
                    self.client.cancel(list(futures), force=True)

    def _ask(self, request):
        """``request()`` of the scheduler, which must answer within :attr:`timeout`."""
        try:
            return self.client.sync(request, callback_timeout=self.timeout)
        except (OSError, TimeoutError):
            raise WorkerError(
                f"the dask scheduler at {self.address} stopped answering (no reply "
                f"within {self.timeout:g} s); {RESUME}"
            ) from None

    def _result(self, future):
        import distributed

        try:
            worked, value = future.result()
        except distributed.KilledWorker:
            raise WorkerError(
                "a unit was lost with a dask worker more times than the scheduler "
                f"allows (distributed.scheduler.allowed-failures); {RESUME}"
            ) from None
        except distributed.client.FutureCancelledError as error:
            raise WorkerError(self._lost(error.reason)) from None
        except FdlsrError:
            raise
        except Exception as error:  # noqa: BLE001 - a method's own failure is a row
            raise WorkerError(
                f"a dask worker could not run a unit ({_reason(error)}); every worker "
                f"needs fdlsr {__version__}; {RESUME}"
            ) from None
        if not worked:
            raise WorkerError(_other_fdlsr(*value))
        return value

    def _lost(self, reason):
        return f"lost the dask scheduler at {self.address} ({reason}); {RESUME}"

    def close(self):
        """Close the client and the local cluster (dask's own timeouts)."""
        for part in (self.client, self._local):
            if part is not None:
                with contextlib.suppress(Exception):
                    part.close()
        self.client = self._local = None
        self._quiet.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def local_workers(address):
    """N of ``local:N`` (a whole number from 1 to :func:`max_processes`), or None
    for another address; raises :class:`~fdlsr.errors.ConfigError` for a bad N or an
    empty address (which dask would take as "start a local cluster")."""
    if not isinstance(address, str) or not address.strip():
        raise ConfigError(
            f"--scheduler must be a dask scheduler's address (tcp://HOST:PORT) or "
            f"local:N, got {quote(address)}"
        )
    if not address.startswith(LOCAL):
        from distributed.comm import get_address_host_port

        try:  # dask's own reading of an address, before any connection is tried
            get_address_host_port(address)
        except ValueError as error:
            raise ConfigError(
                f"--scheduler {quote(address)} is not a dask scheduler's address "
                f"({one_line(error, limit=120)}); give tcp://HOST:PORT or local:N"
            ) from None
        return None
    n = address[len(LOCAL) :]
    limit = max_processes()
    if not (n.isascii() and n.isdigit() and 1 <= int(n) <= limit):
        raise ConfigError(
            f"--scheduler {quote(address)}: N of local:N is the number of worker "
            f"processes, a whole number from 1 to {limit} ({PROCESSES_PER_CORE} for each "
            f"of the {usable_cores()} cores this process may use), e.g. local:2"
        )
    return int(n)


def _not_reached(address, error):
    if isinstance(error, (OSError, TimeoutError)):
        return (
            f"no dask scheduler answers at --scheduler {quote(address)} "
            f"({_reason(error)}); check the address, or start one there "
            "(dask scheduler) and its workers"
        )
    n = local_workers(address)
    if n is None:
        return f"no dask scheduler at --scheduler {quote(address)} ({_reason(error)})"
    return (
        f"--scheduler {address}: the local cluster did not start ({_reason(error)}); "
        f"try --jobs {n}"
    )


def _check_scheduler(address, timeout):
    """Ask what answers at ``address`` for its identity, through dask's own comm,
    within ``timeout``: ``distributed.Client`` waits for ever on a server that accepts
    and never answers, and a client made half-way prints tracebacks at exit."""
    import asyncio

    from distributed.comm import connect

    async def identity():
        comm = await connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    try:
        answer = asyncio.run(asyncio.wait_for(identity(), timeout))
    except (OSError, TimeoutError) as error:
        raise ConfigError(
            f"no dask scheduler answers at --scheduler {quote(address)} (no reply within "
            f"{timeout:g} s: {_reason(error)}); check the address, or start one there "
            "(dask scheduler) and its workers"
        ) from None
    except Exception as error:  # noqa: BLE001 - any bytes may come back
        answer = error
    if not (isinstance(answer, dict) and answer.get("type") == "Scheduler"):
        raise ConfigError(
            f"--scheduler {quote(address)}: what answers there is not a dask scheduler "
            f"({_reason(answer) if isinstance(answer, Exception) else 'no identity'}); "
            "give the address of a dask scheduler (tcp://HOST:8786)"
        )


def _other_fdlsr(worker, version):
    return (
        f"the dask worker {worker} has fdlsr {version}, not {__version__} (the version "
        "of this command, which fingerprints the rows); install the same fdlsr on "
        f"every worker (pip install 'fdlsr[cluster]=={__version__}'), restart them "
        "and rerun the same command"
    )


def _fdlsr_version():
    """A function, made here and so sent by value, that gives the fdlsr version where
    it runs (or why fdlsr does not import there)."""

    def version():
        try:
            import fdlsr

            return str(getattr(fdlsr, "__version__", "of no version"))
        except Exception as error:  # noqa: BLE001 - reported, whatever it is
            return f"that fails to import ({type(error).__name__}: {error})"

    return version


def _on_a_worker(version):
    """The function each unit runs on a dask worker: ``(True, function(task,
    shared))`` of the pickled ``(function, task)``, or ``(False, (worker, its fdlsr
    version))`` where the worker's fdlsr is not ``version``.

    Made here and sent by value (cloudpickle), with only the standard library in it:
    the scheduler unpickles the tasks it is sent and need not have fdlsr.
    """

    fdlsr_version = _fdlsr_version()

    def unit(payload, shared):
        import pickle

        found = fdlsr_version()
        if found != version:
            try:
                from distributed import get_worker

                worker = get_worker().address
            except Exception:  # noqa: BLE001 - outside a worker: no address
                worker = "(unknown address)"
            return False, (worker, found)
        function, task = pickle.loads(payload)
        return True, function(task, shared)

    return unit


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ConfigError(
            "--scheduler needs dask.distributed, which is not installed: "
            "pip install 'fdlsr[cluster]' (or 'dask[distributed]')"
        ) from None
    from distributed.deploy.spec import close_clusters

    # dask closes at exit the clusters left open; one that a Ctrl-C stopped while it
    # started fails there (an AssertionError on a worker still starting) and Python
    # prints it after the command's one line: its exit hook runs quietly instead
    atexit.unregister(close_clusters)
    atexit.register(_quietly, close_clusters)
    return distributed


def _quietly(function):
    """``function()``, whatever it raises left unsaid (dask's exit hook)."""
    with contextlib.suppress(BaseException):
        function()


def _connect_timeout():
    """dask's ``distributed.comm.timeouts.connect``, in seconds: the deadline of
    every wait on a scheduler."""
    import dask
    from dask.utils import parse_timedelta

    value = dask.config.get("distributed.comm.timeouts.connect")
    try:
        seconds = parse_timedelta(value, default="seconds")
    except (TypeError, ValueError, KeyError):  # KeyError: an unknown unit
        seconds = None
    if not seconds or seconds <= 0:
        raise ConfigError(
            f"distributed.comm.timeouts.connect is {quote(value)}: it must be a "
            "positive time, e.g. 30s (DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=30s)"
        )
    return float(seconds)


@contextlib.contextmanager
def _dask_logs_silenced():
    """dask's log lines off (failures reach the command as exceptions), then back."""
    names = ("distributed", "tornado", "asyncio")
    loggers = [logging.getLogger(name) for name in names] + [
        logging.getLogger(name)
        for name in list(logging.root.manager.loggerDict)
        if name.startswith(tuple(f"{name}." for name in names))
    ]
    levels = [(logger, logger.level) for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in levels:
            logger.setLevel(level)


def _reason(error):
    text = one_line(error, limit=120)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
