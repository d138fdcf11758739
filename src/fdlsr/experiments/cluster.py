"""Units on a ``dask.distributed`` cluster (``fdlsr run --scheduler``).

``--scheduler tcp://host:8786`` connects to a running scheduler (``dask scheduler``,
``dask-jobqueue``; docs/cluster.md); ``--scheduler local:N`` starts a ``LocalCluster``
of N worker processes on this machine, on loopback, and closes it with the command.

The data are scattered to every worker once (``broadcast=True``), then each unit is a
task that reads them there. A worker that dies takes its running units with it; the
dask scheduler runs them again on another worker (up to its ``allowed-failures``,
3 by default) and :attr:`Cluster.retried` counts them; each row still reaches the
store once, from the command. Leaving :meth:`Cluster.results` early (Ctrl-C, an
error) cancels the units not yet done.

BLAS threads: with ``local:N`` each worker computes one unit at a time with
``cores // N`` BLAS threads, as ``--jobs N`` does. On a cluster started elsewhere the
workers keep their own setting: dask's nanny starts each worker with
``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` and ``MKL_NUM_THREADS`` at 1
(``distributed.nanny.pre-spawn-environ``); give a worker several BLAS threads with
``--nthreads 1`` and those variables set (docs/cluster.md).
"""

import logging
import signal
import threading
import uuid

from ..errors import ConfigError, WorkerError
from .workers import THREAD_VARIABLES, usable_cores

CONNECT_SECONDS = 10
LOCAL = "local:"


class Cluster:
    """A client of a ``dask.distributed`` scheduler, or of a local cluster it starts.

    Parameters
    ----------
    address : str
        A scheduler's address (``tcp://host:8786``) or ``local:N`` for N worker
        processes on this machine.

    Raises :class:`~fdlsr.errors.ConfigError` (one line) when ``distributed`` is not
    installed, the address is not one, or no scheduler answers there.
    """

    def __init__(self, address, *, timeout=None):
        self._distributed = distributed = _distributed()
        self.address = address
        self.retried = 0
        self._local = None
        if address.startswith(LOCAL):
            n = _local_workers(address)
            self.threads = max(1, usable_cores() // n)
            self._local = distributed.LocalCluster(
                n_workers=n,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                # a worker's own complaints (a heartbeat lost as the cluster
                # closes) are not the user's business; failures reach the command
                silence_logs=logging.CRITICAL,
                # BLAS starts with the threads the units will use
                env={name: str(self.threads) for name in THREAD_VARIABLES},
            )
            self.client = distributed.Client(self._local, set_as_default=False)
            # Ctrl-C on a terminal reaches every process of the foreground group:
            # this command alone decides what happens to its workers then
            self.client.register_plugin(_ignore_interrupts(distributed))
            return
        self.threads = None  # the workers' own setting
        try:
            self.client = distributed.Client(
                address, timeout=timeout or CONNECT_SECONDS, set_as_default=False
            )
        except (OSError, TimeoutError, ValueError, TypeError) as error:
            raise ConfigError(
                f"no dask scheduler answers at --scheduler {address} "
                f"({_reason(error)}); start one (dask scheduler) and give its "
                "address, e.g. tcp://HOST:8786, or use --scheduler local:N"
            ) from None

    @property
    def workers(self):
        """How many units the cluster computes at once (its worker threads)."""
        info = self.client.scheduler_info()
        return sum(w.get("nthreads", 1) for w in info.get("workers", {}).values())

    def results(self, function, tasks, shared):
        """``(task, function(task, shared))`` of each task as it finishes.

        ``shared`` is sent to every worker once. Tasks are given priorities in the
        order of ``tasks`` (the first starts first).
        """
        tasks = list(tasks)
        data = self.client.scatter(shared, broadcast=True, hash=False)
        run = uuid.uuid4().hex[:8]
        futures = {}
        for index, task in enumerate(tasks):
            future = self.client.submit(
                function,
                task,
                data,
                key=f"fdlsr-{run}-{index}",
                priority=len(tasks) - index,
                pure=False,
            )
            futures[future] = task
        try:
            completed = self._distributed.as_completed(futures, loop=self.client.loop)
            for future in completed:
                try:
                    result = future.result()
                except self._distributed.KilledWorker:
                    raise WorkerError(
                        "a unit was lost with a dask worker more times than the "
                        "scheduler allows (distributed.scheduler.allowed-failures); "
                        "finished rows are kept; rerun the same command to resume"
                    ) from None
                yield futures[future], result
            self.retried = self._count_retried([future.key for future in futures])
        finally:
            self.client.cancel(list(futures), force=True)
            self.client.cancel([data], force=True)

    def _count_retried(self, keys):
        """How many of the tasks ``keys`` were running on a worker that died."""

        # defined here, so that it is sent by value: the scheduler's machine need
        # not have fdlsr installed
        def suspicious(dask_scheduler, keys):
            tasks = dask_scheduler.tasks
            return sum(1 for key in keys if key in tasks and tasks[key].suspicious)

        return self.client.run_on_scheduler(suspicious, keys=keys)

    def close(self):
        self.client.close()
        if self._local is not None:
            self._local.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ConfigError(
            "--scheduler needs dask.distributed, which is not installed: "
            "pip install 'fdlsr[cluster]' (or 'dask[distributed]')"
        ) from None
    return distributed


def _ignore_interrupts(distributed):
    """A worker plugin that makes each worker, restarted ones too, ignore SIGINT."""

    class IgnoreInterrupts(distributed.WorkerPlugin):
        def setup(self, worker):
            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGINT, signal.SIG_IGN)

    return IgnoreInterrupts()


def _local_workers(address):
    text = address[len(LOCAL) :]
    if not text.isdigit() or int(text) < 1:
        raise ConfigError(
            f"--scheduler {address}: give the number of local worker processes, "
            "e.g. --scheduler local:4"
        )
    return int(text)


def _reason(error):
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__)[:120]
