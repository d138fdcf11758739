"""The scheduler of ``fdlsr run``: which unit runs when and where; each row stored as it
arrives.

The units of an experiment (:class:`.planning.Unit`: a method at one ``k`` on one
split) run in this process one after the other (``--jobs 1``), in N local worker
processes (``--jobs N``, :class:`.workers.Workers`) or on a ``dask.distributed``
cluster (``--scheduler``, :class:`.cluster.Cluster`). Whatever computes them, this
process appends each finished row to the results store as it arrives, so the store,
the fingerprints, resuming and the tables are the same.

*Longest work first.* When several units run at once they start in order of expected
cost, longest first (:func:`longest_first`), so that a long unit does not start last
while the other workers wait. A unit's expected cost is the mean time of the rows
already stored for its method and ``k`` on the same data; without such rows, the
time of the method in the FERET table (:data:`REFERENCE_SECONDS`) scaled to the
unit's training set. The order depends only on the plan and the store.

*Idle time.* With several workers the command ends with their use: wall time, busy
share and idle worker-seconds (:class:`Usage`).
"""

import contextlib
import time
from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from ..errors import ConfigError, quote
from .cluster import Cluster
from .evaluation import compute_unit, shared_data
from .fingerprints import stored_runs
from .planning import experiment_runs
from .samples import zero_samples, zero_warning
from .splits import POOLED, pools_fixed_split
from .workers import (
    PROCESSES_PER_CORE,
    Workers,
    blas_threads_per_run,
    max_processes,
    usable_cores,
)

ORDERS = ("longest", "plan")

# Seconds of one unit (fit, predict and any parameter search) of each method in the
# FERET table at k = 5 (1000 training samples of 1600 features), means over its 10
# splits in docs/results/feret/results.jsonl (2-core machine, one BLAS thread each).
REFERENCE_SECONDS = {
    "LRSDL": 34.0,
    "FDDL": 29.0,
    "LinearSVC": 26.0,  # with its search over C, as the FERET config runs it
    "LC-KSVD2": 21.0,
    "LogisticRegression": 15.0,  # with its search over C
    "LCLE": 6.3,
    "LDA": 5.8,
    "LRDLSR": 2.9,
    "ProCRC": 2.5,  # with its search
    "SRC": 1.2,
    "CRC": 1.1,  # with its search
    "GReLSR": 1.1,
    "DRR": 0.80,
    "DRA-DPL": 0.80,
    "DPL": 0.62,
    "ReLSR": 0.47,
    "DLSR": 0.41,
    "FDLSR": 0.41,
    "RLR": 0.38,
    "NRC": 0.21,
    "RidgeClassifier": 0.11,
    "LSR": 0.096,
    "1-NN": 0.039,
}
REFERENCE_N_TRAIN = 1000
REFERENCE_FEATURES = 1600


def expected_costs(units, data, rows=()):
    """The expected seconds of each of ``units``.

    The mean time (fit, predict and search) of the ``rows`` (stored rows of the same
    data) of the unit's method and ``k``; without any, the model: the method's time
    in the FERET table times ``(n_train / 1000)**2 * (n_features / 1600)``, the
    growth of the dense products of the long methods (an unknown method counts as
    FDLSR).
    """
    measured = defaultdict(list)
    for row in rows:
        if row.get("accuracy") is not None:
            seconds = sum(row.get(name, 0.0) for name in _TIMES)
            measured[row["method"], row["k"], row["setting"]].append(seconds)
    n_features = data.X.shape[1]
    costs = []
    for unit in units:
        times = measured.get((unit.method.name, unit.k, unit.setting))
        if times:
            costs.append(float(np.mean(times)))
            continue
        n_train = data.splits[unit.k, unit.split][0].size
        reference = REFERENCE_SECONDS.get(unit.method.name, REFERENCE_SECONDS["FDLSR"])
        costs.append(
            reference
            * (n_train / REFERENCE_N_TRAIN) ** 2
            * (n_features / REFERENCE_FEATURES)
        )
    return costs


_TIMES = ("fit_time", "predict_time", "tune_time")


def longest_first(units, costs):
    """``units`` by expected cost, longest first; equal costs keep the plan's order."""
    order = sorted(range(len(units)), key=lambda i: -costs[i])
    return [units[i] for i in order]


@dataclass(frozen=True)
class Usage:
    """How the workers of one command were used.

    ``wall``: seconds from the first unit sent to the last row stored; ``busy``: the
    seconds the workers spent computing units; ``retried``: units run again after
    their worker was lost (a dask scheduler's retries).
    """

    workers: int
    wall: float
    busy: float
    retried: int = 0

    @property
    def idle(self):
        """Worker-seconds without a unit (start-up, waiting for the last units)."""
        return max(0.0, self.workers * self.wall - self.busy)

    def __str__(self):
        share = self.busy / (self.workers * self.wall) if self.wall > 0 else 1.0
        text = (
            f"{self.workers} workers for {self.wall:.0f} s: busy {100 * share:.0f}%, "
            f"idle {self.idle:.0f} worker-seconds"
        )
        if self.retried:
            text += (
                f"; {self.retried} unit{'s' if self.retried != 1 else ''} sent again "
                "after their worker was lost (each stored once)"
            )
        return text


def run_experiment(
    experiment,
    dataset,
    store,
    progress=None,
    n_jobs=1,
    *,
    scheduler=None,
    order="longest",
):
    """Run every unit of ``experiment`` not yet in ``store``; the number computed.

    Plans the experiment (:func:`.planning.experiment_runs`), finds what ``store``
    holds of it (:func:`.fingerprints.stored_runs`) and runs the rest
    (:func:`run_units`, which describes ``progress``, ``n_jobs``, ``scheduler`` and
    ``order``).
    """
    check_options(n_jobs, order, scheduler)
    units = experiment_runs(experiment, dataset)
    stored = stored_runs(experiment, dataset, units, store)
    return run_units(
        experiment,
        dataset,
        store,
        units,
        stored,
        progress,
        n_jobs,
        scheduler=scheduler,
        order=order,
    )


def check_options(n_jobs, order, scheduler=None):
    """Refuse, in one line, a number of jobs that is not a whole number from 1 to
    :func:`.workers.max_processes`, an unknown order, or a scheduler that is neither
    an address nor a :class:`.cluster.Cluster` (its address is read when the
    cluster is made)."""
    limit = max_processes()
    if (
        not isinstance(n_jobs, (int, np.integer))
        or isinstance(n_jobs, bool)
        or not 1 <= n_jobs <= limit
    ):
        raise ConfigError(
            f"--jobs must be a whole number from 1 to {limit} ({PROCESSES_PER_CORE} for each "
            f"of the {usable_cores()} cores this process may use), got {quote(n_jobs)}"
        )
    if order not in ORDERS:
        raise ConfigError(
            f"--order must be one of {', '.join(ORDERS)}, got {quote(order)}"
        )
    if scheduler is not None and not isinstance(scheduler, (str, Cluster)):
        raise ConfigError(
            "scheduler must be an address (tcp://HOST:8786, local:N) or a Cluster, "
            f"got {quote(scheduler)}"
        )


def run_units(
    experiment,
    dataset,
    store,
    units,
    stored,
    progress=None,
    n_jobs=1,
    *,
    scheduler=None,
    order="longest",
):
    """Run the ``units`` of ``experiment`` not yet in ``store``; the number computed.

    ``units`` is the plan (:func:`.planning.experiment_runs`) and ``stored`` what
    ``store`` holds of it (:class:`.fingerprints.StoredRuns`), both made once by the
    caller. Rows are appended to ``store`` one by one as they finish, so an
    interrupted run resumes where it stopped. ``progress(n_done, n_total, label,
    eta=...)`` is called after each row (and once at the start; ``eta``: expected
    seconds left); after the row that completes a method at one ``k`` (its last
    split computed here) it gets ``finished=(method_name, k, accuracies)`` too, the
    accuracies of that method and ``k`` computed in this call (``None`` for a run
    that failed). With several workers it is called once more at the end with
    ``usage=`` (:class:`Usage`).

    ``n_jobs > 1`` computes that many units at once in worker processes
    (:class:`.workers.Workers`, which end with this call and die with this process),
    each with its BLAS limited to ``cores // n_jobs`` threads (at least one). A
    worker that dies raises :class:`~fdlsr.errors.WorkerError`. ``scheduler``
    computes them on a ``dask.distributed`` cluster instead: a
    :class:`.cluster.Cluster`, or an address for one made for this call
    (``"tcp://host:8786"``, ``"local:N"``).

    ``order``: ``"longest"`` starts the units with several at once longest first
    (:func:`longest_first`), ``"plan"`` in the plan's order; one at a time they run
    in the plan's order.

    Splits and random states depend only on the seed and the split, so the rows are
    those of ``n_jobs = 1`` but for their times (those of a process sharing the
    cores) and for rounding: a BLAS product on another number of threads
    (:func:`blas_threads_per_run`) may round differently, which can flip a greedy or
    near-tied choice (LC-KSVD2's atom selection, a cross-validated parameter);
    docs/reproduction.md measures it.
    """
    check_options(n_jobs, order, scheduler)
    # an address: a cluster made for this call, closed when it ends
    with contextlib.ExitStack() as stack:
        if isinstance(scheduler, str):
            scheduler = stack.enter_context(Cluster(scheduler))
        todo = [unit for unit in units if unit.key not in stored.done]
        data = shared_data(experiment, dataset, todo)
        same_data = [
            row
            for row in store.rows
            if row["dataset"] == dataset.name
            and row.get("data_sha256") == stored.data_sha256
        ]
        estimates = expected_costs(todo, data, same_data)
        costs = dict(zip((unit.key for unit in todo), estimates, strict=True))
        if order == "longest" and (n_jobs > 1 or scheduler is not None):
            todo = longest_first(todo, estimates)
        n_done, total = len(units) - len(todo), len(units)
        if progress:
            progress(n_done, total, "")
        if not todo:
            return 0
        zero = zero_samples(data.X)
        n_classes = int(np.unique(data.y).size)
        left = Counter((unit.method.name, unit.k) for unit in todo)
        accuracies = defaultdict(list)
        took = defaultdict(list)  # seconds of the units of each method and k done here
        cost_done = 0.0
        # a scheduler elsewhere may have no worker yet (they join as they start)
        workers = (
            max(1, scheduler.workers)
            if scheduler is not None
            else min(n_jobs, len(todo))
        )
        start = time.perf_counter()
        busy = 0.0
        # closed on the way out, however it is left: no worker outlives this call
        with contextlib.closing(_computed(todo, data, n_jobs, scheduler)) as computed:
            for unit, row, seconds in computed:
                busy += seconds
                train, test = data.splits[unit.k, unit.split]
                if zero.size:
                    row.setdefault("warnings", []).append(
                        zero_warning(zero, train, test)
                    )
                if pools_fixed_split(dataset, unit.k):
                    row["note"] = "; ".join(filter(None, [row.get("note"), POOLED]))
                row["n_classes"] = n_classes
                row["n_features"] = int(data.X.shape[1])
                row["data_sha256"] = stored.data_sha256
                row["fingerprint"] = stored.fingerprints[unit.key]
                store.append(row)
                n_done += 1
                group = (unit.method.name, unit.k)
                took[group].append(seconds)
                cost_done += costs.pop(unit.key)
                if not progress:
                    continue
                scale = busy / cost_done if cost_done > 0 else 1.0
                eta = _time_left(todo, costs, took, scale, workers)
                accuracies[group].append(row.get("accuracy"))
                left[group] -= 1
                label = f"{unit.method.name} k={unit.k} split {unit.split + 1}"
                if left[group]:
                    progress(n_done, total, label, eta=eta)
                else:
                    method, k = group
                    progress(
                        n_done,
                        total,
                        label,
                        eta=eta,
                        finished=(method, k, accuracies[group]),
                    )
            wall = time.perf_counter() - start
        if progress and workers > 1:
            retried = scheduler.retried if scheduler is not None else 0
            progress(n_done, total, "", usage=Usage(workers, wall, busy, retried))
        return len(todo)


def _time_left(units, costs, took, scale, workers):
    """Expected seconds until the units still in ``costs`` are done on ``workers``.

    A unit is expected to take the mean time of the units of its method and ``k``
    done so far (``took``), else its expected cost times ``scale`` (the time taken
    so far over what was expected of it).
    """
    left = 0.0
    for unit in units:
        if unit.key in costs:
            times = took.get((unit.method.name, unit.k))
            left += sum(times) / len(times) if times else costs[unit.key] * scale
    return left / workers


def _computed(units, data, n_jobs, cluster):
    """``(unit, row, seconds)`` of each unit as it finishes: on ``cluster``, in
    ``n_jobs`` worker processes, or here."""
    if cluster is not None:
        results = cluster.results(_in_worker, units, (data, cluster.threads))
        yield from ((unit, row, seconds) for unit, (row, seconds) in results)
    elif n_jobs > 1 and len(units) > 1:
        threads = blas_threads_per_run(n_jobs)
        n = min(n_jobs, len(units))
        with Workers(n, _in_worker, (data, threads), threads=threads) as workers:
            results = workers.results(units)
            yield from ((unit, row, seconds) for unit, (row, seconds) in results)
    else:  # here; a single unit of --jobs N with a worker's threads
        threads = blas_threads_per_run(n_jobs) if n_jobs > 1 else None
        for unit in units:
            yield (unit, *_in_worker(unit, (data, threads)))


# The methods warmed up in this process (each worker process has its own).
_WARMED = set()


def _in_worker(unit, shared):
    """The row of ``unit`` and the seconds it took, computed with ``threads`` BLAS
    threads (None: as the process is set)."""
    data, threads = shared
    start = time.perf_counter()
    limits = (
        threadpool_limits(limits=threads)
        if threads is not None
        else contextlib.nullcontext()
    )
    with limits:
        row = compute_unit(unit, data, _WARMED)
    return row, time.perf_counter() - start
