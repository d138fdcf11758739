"""Units on a ``dask.distributed`` cluster (``fdlsr run --scheduler``).

``tcp://HOST:PORT`` connects to a running scheduler; ``local:N`` starts a
``LocalCluster`` of N worker processes on loopback, closed with the command
(:mod:`.addresses`; docs/cluster.md). The data are scattered to every worker once,
each unit is a task; the units of a worker that dies run again elsewhere
(:attr:`Cluster.retried`), and each row reaches the store once, from the command.

*Deadlines.* Every wait on the scheduler has one, :attr:`Cluster.timeout` (dask's
``distributed.comm.timeouts.connect``): connecting (TCP and dask's handshake), each
request, the wait for results (the scheduler asked at that interval whether it still
answers). Data sent to or fetched from workers get :data:`TRANSFER_SECONDS` or more,
a local cluster :data:`LOCAL_START_SECONDS` to start, any cluster
:data:`CLOSE_SECONDS` to close. A missed deadline is a one-line error.

*Start-up and shutdown.* The client and the local cluster live on an event loop of
their own (a thread); the command holds each from the moment it exists and closes
them within their deadlines whatever happens (:meth:`Cluster.close`), then kills a
local worker still there and removes the folder made in ``$TMPDIR`` for dask's
scratch space and lock files. A signal (Ctrl-C, SIGTERM, SIGHUP) while a local
cluster starts or any cluster closes takes effect when that step ends: cut in the middle,
dask's objects stay half made and print tracebacks at exit. dask's log lines are off
while the cluster lives. Local workers start with SIGINT and SIGHUP blocked (Ctrl-C
or a closed terminal reaches the whole foreground group; the command decides) and exit with the
command, however it ends (they watch a pipe from it); each computes one unit at a
time on ``cores // N`` BLAS threads, as ``--jobs N`` (docs/cluster.md).
"""

import asyncio
import contextlib
import logging
import multiprocessing
import pickle
import queue
import shutil
import signal
import sys
import tempfile
import threading
import time
import uuid

from .._common.messages import one_line
from .._version import __version__
from ..errors import ConfigError, FdlsrError, WorkerError
from .addresses import (
    check_answers,
    check_tls,
    no_scheduler,
    not_a_scheduler,
    scheduler_address,
    scheduler_timeout,
)
from .workers import THREAD_VARIABLES, usable_cores

_TIMEOUTS = (TimeoutError, asyncio.TimeoutError)  # one class from Python 3.11 on
# The signals that end the command as Ctrl-C does (the command line's, cli.py), and
# those of them a terminal sends to the whole foreground process group.
_INTERRUPTS = tuple(
    getattr(signal, name)
    for name in ("SIGINT", "SIGTERM", "SIGHUP")
    if hasattr(signal, name)
)
_GROUP_SIGNALS = {number for number in _INTERRUPTS if number != signal.SIGTERM}
# Seconds a local cluster may take to start (N interpreters importing side by side)
# and any cluster to close; the least a transfer to or from the workers may take
# (the first data a worker receives make it import fdlsr), which grows by a second
# per SEND_BYTES_PER_SECOND sent (the slowest network expected).
LOCAL_START_SECONDS = 120
CLOSE_SECONDS = 15
TRANSFER_SECONDS = 60
SEND_BYTES_PER_SECOND = 10e6


class Cluster:
    """A client of a ``dask.distributed`` scheduler, or of a local cluster it starts.

    Parameters
    ----------
    address : str
        A scheduler's address (``tcp://host:8786``) or ``local:N`` for N worker
        processes on this machine (:func:`.addresses.scheduler_address`).
    timeout : float, optional
        Seconds of each wait on the scheduler (default: dask's
        ``distributed.comm.timeouts.connect``, 30 s unless set).

    Raises :class:`~fdlsr.errors.ConfigError` (one line) when ``distributed`` is not
    installed, the address is not one, or no scheduler answers there in time.
    Close it (``with`` or :meth:`close`); whatever was started is closed too when
    the start fails or is interrupted.
    """

    def __init__(self, address, *, timeout=None):
        self._distributed = _distributed()
        where = scheduler_address(address)
        self.address = address
        self.timeout = float(timeout) if timeout is not None else scheduler_timeout()
        self.retried = 0
        self.client = None
        self._local = None
        self._runner = None
        self._folder = None
        self._ours = set()  # the worker processes of a local cluster
        self._quiet = contextlib.ExitStack()
        try:
            self._quiet.enter_context(_dask_logs_silenced())
            if where.local:
                self._start_local(where.workers)
            else:
                self._connect(where.url)
        except BaseException:
            self.close()
            raise

    # -- start-up -------------------------------------------------------------------

    def _start_local(self, n):
        self.threads = max(1, usable_cores() // n)
        before = set(multiprocessing.active_children())
        # cut in the middle, dask's objects stay half made ('Status.init' at exit):
        # the start runs to its end, then a signal received meanwhile closes it all
        with _signals_deferred():
            self._folder = tempfile.mkdtemp(prefix="fdlsr-dask-")
            self._runner = _event_loop(workers_ignore_sigint=True)
            try:
                self._call(self._astart_local, n, seconds=LOCAL_START_SECONDS)
            except _TIMEOUTS:
                raise ConfigError(
                    f"--scheduler local:{n}: the {n} worker processes did not start "
                    f"within {LOCAL_START_SECONDS} s; try fewer, or --jobs {n}"
                ) from None
            except Exception as error:  # noqa: BLE001 - dask's, of any kind
                raise ConfigError(
                    f"--scheduler local:{n}: the local cluster did not start "
                    f"({_reason(error)}); try --jobs {n}"
                ) from None
            finally:
                self._ours = set(multiprocessing.active_children()) - before

    async def _astart_local(self, n):
        import dask

        distributed = self._distributed
        # dask's scratch folders and lock files go into this cluster's own folder
        with dask.config.set({"temporary-directory": self._folder}):
            self._local = distributed.LocalCluster(
                n_workers=n,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                # its HTTP server (health checks) on a free port of loopback: the
                # default, 8787, would be taken by a second command at once
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                local_directory=self._folder,
                # the workers' own log lines (a heartbeat lost as the cluster closes)
                silence_logs=logging.CRITICAL,
                # BLAS starts with the threads the units will use
                env={name: str(self.threads) for name in THREAD_VARIABLES},
                asynchronous=True,
            )
            await self._local
        self.client = distributed.Client(
            self._local, asynchronous=True, set_as_default=False
        )
        await self.client

    def _connect(self, url):
        self.threads = None  # the workers' own setting
        if url.startswith("tls://"):
            check_tls(self.address)
        self._runner = _event_loop()
        if url.startswith("tcp://"):
            # an unknown name, a refused port, other bytes: one line at once, not
            # dask's retries until the deadline (the probe's own waits are bounded)
            self._call(check_answers, self.address, url, self.timeout, seconds=None)
        try:
            self._call(self._aconnect, url, seconds=self.timeout)
        except _TIMEOUTS:
            raise ConfigError(
                self._unanswered(f"no reply within {self.timeout:g} s")
            ) from None
        except OSError as error:  # refused, unreachable, unknown host, closed
            raise ConfigError(self._unanswered(_reason(error))) from None
        except Exception as error:  # noqa: BLE001 - any bytes may come back
            raise ConfigError(not_a_scheduler(self.address, _reason(error))) from None

    async def _aconnect(self, url):
        self.client = self._distributed.Client(
            url, asynchronous=True, timeout=self.timeout, set_as_default=False
        )
        await self.client

    def _unanswered(self, reason):
        return no_scheduler(self.address, reason, self.timeout)

    # -- work -----------------------------------------------------------------------

    @property
    def workers(self):
        """How many units the cluster computes at once (its worker threads)."""
        info = self._answer(self._aidentity)
        return sum(w.get("nthreads", 1) for w in info.get("workers", {}).values())

    def results(self, function, tasks, shared):
        """``(task, function(task, shared))`` of each task as it finishes.

        ``shared`` is sent to every worker once. Tasks are given priorities in the
        order of ``tasks`` (the first starts first). While no result comes, the
        scheduler is asked every :attr:`timeout` seconds whether it still answers.
        """
        tasks = list(tasks)
        self._wait_for_a_worker()
        self._check_versions()
        least = max(self.timeout, TRANSFER_SECONDS)
        seconds = least + _size(shared) * self.workers / SEND_BYTES_PER_SECOND
        try:
            data = self._call(self._ascatter, shared, seconds=seconds)
        except _TIMEOUTS:
            raise WorkerError(
                f"the data did not reach the dask workers within {seconds:.0f} s; "
                "check the workers (dask's logs) and rerun the same command"
            ) from None
        except OSError as error:
            raise WorkerError(self._lost(_reason(error))) from None
        except Exception as error:  # noqa: BLE001 - a worker that cannot read them
            raise WorkerError(
                f"the data could not be sent to the dask workers ({_reason(error)}); "
                f"{_SAME_VERSION}"
            ) from None
        finished = queue.SimpleQueue()
        futures = {}
        try:
            futures = self._call(
                self._asubmit, function, tasks, data, finished.put, seconds=self.timeout
            )
            for _ in range(len(futures)):
                future = self._next(finished)
                yield futures[future], self._result(future)
            self.retried = self._count_retried([future.key for future in futures])
        finally:
            self._release([*futures, data])

    async def _ascatter(self, shared):
        return await self.client.scatter(
            shared, broadcast=True, hash=False, timeout=self.timeout
        )

    async def _asubmit(self, function, tasks, data, done):
        from distributed.protocol.pickle import dumps

        run = uuid.uuid4().hex[:8]
        unit = _on_a_worker(__version__)
        futures = {}
        for index, task in enumerate(tasks):
            future = self.client.submit(
                unit,
                # the scheduler unpickles what it is sent, in its event loop: the
                # unit's own function and task travel as bytes, so that it imports
                # nothing of fdlsr (seconds in which it would answer nothing)
                dumps((function, task)),
                data,
                key=f"fdlsr-{run}-{index}",
                priority=len(tasks) - index,
                pure=False,
            )
            future.add_done_callback(done)
            futures[future] = task
        return futures

    def _wait_for_a_worker(self):
        """Return once the scheduler has a worker; say once what is awaited."""
        said = False
        while not self.workers:
            if not said:
                print(
                    f"fdlsr: note: the dask scheduler at {self.address} has no "
                    f"worker yet; waiting for one (dask worker {self.address})",
                    file=sys.stderr,
                )
                said = True
            time.sleep(min(self.timeout, 1.0))

    def _check_versions(self):
        """Every worker there now imports the fdlsr of this command (a worker that
        joins later is checked by each of its units, :func:`_on_a_worker`)."""

        # defined here, so that it is sent by value: it runs where fdlsr may be
        # missing, broken or another version
        def fdlsr_version():
            try:
                import fdlsr

                return str(getattr(fdlsr, "__version__", "of no version"))
            except Exception as error:  # noqa: BLE001 - reported, whatever it is
                return f"that fails to import ({type(error).__name__}: {error})"

        async def versions():
            return await self.client.run(fdlsr_version)

        seconds = max(self.timeout, TRANSFER_SECONDS)  # the workers import fdlsr
        try:
            found = self._call(versions, seconds=seconds)
        except _TIMEOUTS:
            raise WorkerError(
                f"the dask workers did not say which fdlsr they have within "
                f"{seconds:g} s; check the workers (dask's logs) and rerun the same "
                "command"
            ) from None
        except OSError as error:
            raise WorkerError(self._lost(_reason(error))) from None
        for worker, version in sorted(found.items()):
            if version != __version__:
                raise WorkerError(_other_fdlsr(worker, version))

    def _next(self, finished):
        """The next future to finish. A unit may compute for hours: no deadline on
        that; the scheduler is asked every :attr:`timeout` seconds meanwhile whether
        it still answers (it never runs fdlsr's code, so it answers at once)."""
        while True:
            try:
                return finished.get(timeout=self.timeout)
            except queue.Empty:
                self._answer(self._aidentity)

    def _result(self, future):
        distributed = self._distributed
        try:
            worked, value = future.result(timeout=max(self.timeout, TRANSFER_SECONDS))
        except distributed.KilledWorker:
            raise WorkerError(
                "a unit was lost with a dask worker more times than the "
                "scheduler allows (distributed.scheduler.allowed-failures); "
                "finished rows are kept; rerun the same command to resume"
            ) from None
        except distributed.client.FutureCancelledError as error:
            raise WorkerError(self._lost(error.reason)) from None
        except _TIMEOUTS:
            raise WorkerError(self._lost("a result did not come in time")) from None
        except FdlsrError:
            raise
        except Exception as error:  # noqa: BLE001 - a method's own failure is a row
            raise WorkerError(
                f"a dask worker could not run a unit ({_reason(error)}); "
                f"{_SAME_VERSION}; finished rows are kept"
            ) from None
        if not worked:
            worker, version = value
            raise WorkerError(
                f"{_other_fdlsr(worker, version)}; finished rows are kept"
            )
        return value

    def _count_retried(self, keys):
        """How many of the tasks ``keys`` were running on a worker that died (0
        when the scheduler cannot tell: every row is stored by then)."""

        # defined here, so that it is sent by value: the scheduler's machine need
        # not have fdlsr installed
        def suspicious(dask_scheduler, keys):
            tasks = dask_scheduler.tasks
            return sum(1 for key in keys if key in tasks and tasks[key].suspicious)

        async def count():
            return await self.client.run_on_scheduler(suspicious, keys=keys)

        try:
            return self._call(count, seconds=self.timeout)
        except Exception:  # noqa: BLE001 - a count for the usage line only
            return 0

    def _release(self, futures):
        """Cancel ``futures`` (what is not done yet, and the data), within the
        deadline; the scheduler may be gone by then."""
        if not futures or self.client is None or self.client.status != "running":
            return

        async def cancel():
            await self.client.cancel(futures, force=True)

        with _signals_deferred(), contextlib.suppress(Exception):
            self._call(cancel, seconds=self.timeout)

    async def _aidentity(self):
        return await self.client.scheduler.identity()

    def _answer(self, function):
        """``await function()`` on the loop: the scheduler must answer in time."""
        try:
            return self._call(function, seconds=self.timeout)
        except _TIMEOUTS:
            raise WorkerError(
                f"the dask scheduler at {self.address} stopped answering (no reply "
                f"within {self.timeout:g} s); finished rows are kept; rerun the same "
                "command to resume"
            ) from None
        except OSError as error:
            raise WorkerError(self._lost(_reason(error))) from None

    def _lost(self, reason):
        return (
            f"lost the dask scheduler at {self.address} ({reason}); finished rows "
            "are kept; rerun the same command to resume"
        )

    def _call(self, function, *args, seconds):
        """``await function(*args)`` on the cluster's event loop, from this thread;
        ``TimeoutError`` after ``seconds`` (the coroutine is cancelled then)."""
        from distributed.utils import sync

        return sync(self._runner.loop, function, *args, callback_timeout=seconds)

    # -- shutdown -------------------------------------------------------------------

    def close(self):
        """Close the client and the local cluster, each within :data:`CLOSE_SECONDS`;
        kill the local workers still there and remove the cluster's folder. Ctrl-C or
        SIGTERM meanwhile takes effect when it is done."""
        with _signals_deferred():
            if self._runner is not None:
                with contextlib.suppress(Exception):
                    self._call(self._aclose, seconds=CLOSE_SECONDS)
                # a client or cluster that could not close in time is abandoned:
                # marked closed, so that no finalizer tries again at exit
                for part in (self.client, self._local):
                    if part is not None and str(part.status) not in _CLOSED:
                        part.status = _closed(part)
                with contextlib.suppress(Exception):
                    self._runner.stop(timeout=CLOSE_SECONDS)
                self._runner = None
            for process in self._ours:
                if process.is_alive():
                    process.kill()
                process.join(timeout=CLOSE_SECONDS)
            self._ours = set()
            if self._folder is not None:
                shutil.rmtree(self._folder, ignore_errors=True)
                self._folder = None
            self._quiet.close()

    async def _aclose(self):
        if self.client is not None:
            with contextlib.suppress(Exception):
                await self.client.close(timeout=CLOSE_SECONDS)
        if self._local is not None:
            with contextlib.suppress(Exception):
                await self._local.close(timeout=CLOSE_SECONDS)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_SAME_VERSION = (
    f"every dask worker needs fdlsr {__version__}, the version of this command: "
    f"pip install 'fdlsr[cluster]=={__version__}' there, restart the workers and "
    "rerun the same command"
)


def _other_fdlsr(worker, version):
    return (
        f"the dask worker {worker} has fdlsr {version}, not {__version__} (the "
        f"version of this command, which fingerprints the rows); install the same "
        f"fdlsr on every worker (pip install 'fdlsr[cluster]=={__version__}'), "
        "restart them and rerun the same command"
    )


def _on_a_worker(version):
    """The function each unit runs on a dask worker: ``(True, function(task,
    shared))`` of the pickled ``(function, task)``, or ``(False, (worker, its fdlsr
    version))`` where the worker's fdlsr is not ``version``.

    Made here and sent by value (cloudpickle), with only the standard library in
    it: the scheduler unpickles each task it is sent, and must not need, nor spend
    seconds importing, fdlsr.
    """

    def unit(payload, shared):
        import pickle

        try:
            import fdlsr

            found = str(getattr(fdlsr, "__version__", "of no version"))
        except Exception as error:  # noqa: BLE001 - reported, whatever it is
            found = f"that fails to import ({type(error).__name__}: {error})"
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


_CLOSED = {"closed", "Status.closed"}


def _closed(part):
    """The 'closed' status of a dask client (a string) or cluster (an enum)."""
    return "closed" if isinstance(part.status, str) else type(part.status).closed


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ConfigError(
            "--scheduler needs dask.distributed, which is not installed: "
            "pip install 'fdlsr[cluster]' (or 'dask[distributed]')"
        ) from None
    return distributed


def _event_loop(workers_ignore_sigint=False):
    """A running event loop in a thread of its own (``distributed.utils.LoopRunner``).

    With ``workers_ignore_sigint`` the thread starts with SIGINT and SIGHUP blocked
    (Ctrl-C, a terminal closed: both reach the whole process group), and with it
    every thread it starts and every process those start (the local workers): a
    blocked signal mask survives fork and exec. Python's resource tracker (of the
    workers' semaphores) is started here first if it is not running, with SIGHUP
    blocked too: it ignores SIGINT and SIGTERM itself, and one killed by a closed
    terminal is started again by the next semaphore, and that one prints tracebacks
    for the semaphores it never saw.
    """
    from distributed.utils import LoopRunner

    runner = LoopRunner(asynchronous=False)
    if not (workers_ignore_sigint and hasattr(signal, "pthread_sigmask")):
        _start_loop(runner)
        return runner
    from multiprocessing import resource_tracker

    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _GROUP_SIGNALS)
    try:
        resource_tracker.ensure_running()
        # which unblocks SIGINT and SIGTERM in this thread when it starts one
        signal.pthread_sigmask(signal.SIG_BLOCK, _GROUP_SIGNALS)
        _start_loop(runner)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
    return runner


def _start_loop(runner):
    """``runner.start()``, whose failure is one line: dask asserts that its loop's
    thread ran within 10 s, which a loaded machine can miss (seen once, an
    AssertionError traceback during a Ctrl-C test of ``local:2``)."""
    try:
        runner.start()
    except Exception as error:  # noqa: BLE001 - dask's, of any kind
        reason = _reason(error)
        if isinstance(error, AssertionError):
            reason = "its thread did not start within dask's 10 s"
        raise ConfigError(
            f"--scheduler: dask's event loop did not start ({reason}); run the "
            "command again, or use --jobs N instead of --scheduler"
        ) from None


@contextlib.contextmanager
def _signals_deferred():
    """SIGINT, SIGTERM and SIGHUP received in this block take effect when it ends.

    For steps bounded by a deadline (start-up, shutdown) that must not be cut in the
    middle. Signal handlers can only be set in the main thread; elsewhere the block
    runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = []
    previous = {}
    for number in _INTERRUPTS:
        previous[number] = signal.signal(
            number, lambda number, frame: received.append(number)
        )
    try:
        yield
    finally:
        for number, handler in previous.items():
            # None: set outside Python, cannot be restored; the default then
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
        if received:
            signal.raise_signal(received[0])


@contextlib.contextmanager
def _dask_logs_silenced():
    """dask's, tornado's and asyncio's log lines off (failures reach the command as
    exceptions), then back to their levels."""
    names = ("distributed", "tornado", "asyncio")
    loggers = [logging.getLogger(name) for name in names] + [
        logging.getLogger(name)
        for name in list(logging.root.manager.loggerDict)
        if name.startswith(tuple(f"{name}." for name in names))
    ]
    levels = [(logger, logger.level) for logger in loggers]
    for logger, _ in levels:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in levels:
            logger.setLevel(level)


def _size(value):
    """Bytes of ``value`` pickled (its arrays counted, not copied)."""
    buffers = []
    head = pickle.dumps(value, protocol=5, buffer_callback=buffers.append)
    return len(head) + sum(buffer.raw().nbytes for buffer in buffers)


def _reason(error):
    text = one_line(error, limit=120)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
