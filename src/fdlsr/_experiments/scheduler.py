"""The scheduler of ``fdlsr run``: which unit runs when and where; each row stored as it
arrives.

The units of an experiment (:class:`.planning.Unit`: a method at one ``k`` on one
split) run in this process one after the other (``--jobs 1``), in N joblib worker
processes (``--jobs N``) or on a ``dask.distributed`` cluster (``--scheduler``,
:class:`.executor.Cluster`): :func:`.executor.computed`. Whatever computes them, this
process appends each finished row to the results store as it arrives, so the store,
the fingerprints, resuming and the tables are the same.

*Longest work first.* When several units run at once they start in order of expected
cost, longest first (:func:`longest_first`), so that a long unit does not start last
while the other workers wait. A unit's expected cost is the mean time of the rows
already stored for its method and ``k`` on the same data; without such rows, the
time of the method in the FERET table (its registry entry's ``seconds``) scaled to the
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

from .evaluation import compute_unit, shared_data
from .executor import computed as _executed
from .rows import result_row
from .samples import zero_samples, zero_warning
from .splits import POOLED, pools_fixed_split

ORDERS = ("longest", "plan")


def expected_costs(units, data, rows=()):
    """The expected seconds of each of ``units``.

    The mean time (fit, predict and search) of the ``rows`` (stored rows of the same
    data) of the unit's method and ``k``; without any, the model: the method's time
    in the FERET table scaled to the unit's size
    (:meth:`.registry.Method.expected_seconds`).
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
        costs.append(unit.method.expected_seconds(n_train, n_features))
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
    seconds the workers spent computing units.
    """

    workers: int
    wall: float
    busy: float

    @property
    def idle(self):
        """Worker-seconds without a unit (start-up, waiting for the last units)."""
        return max(0.0, self.workers * self.wall - self.busy)

    def __str__(self):
        share = self.busy / (self.workers * self.wall) if self.wall > 0 else 1.0
        return (
            f"{self.workers} workers for {self.wall:.0f} s: busy {100 * share:.0f}%, "
            f"idle {self.idle:.0f} worker-seconds"
        )


@dataclass(frozen=True)
class Finished:
    """A method finished at one ``k``: the ``accuracies`` of its splits computed in
    this command (None for a run that failed)."""

    method: str
    k: int | str
    accuracies: tuple


@dataclass(frozen=True)
class ProgressEvent:
    """Where the runs of an experiment stand, told once before the first run, after
    each row stored and, with several workers, once at the end.

    ``done`` of ``total`` runs are stored; ``run`` names the run just stored
    (``"FDLSR k=2 split 1"``; ``""`` before the first and at the end); ``eta``: the
    seconds expected to be left; ``finished``: set when that run completed its
    method at its ``k``; ``usage``: how the workers were used (the end).
    """

    done: int
    total: int
    run: str = ""
    eta: float | None = None
    finished: Finished | None = None
    usage: Usage | None = None


def run_units(
    experiment,
    dataset,
    store,
    units,
    stored,
    progress=None,
    *,
    n_jobs=1,
    threads=None,
    cluster=None,
    order="longest",
):
    """Run the ``units`` of ``experiment`` not yet in ``store``; the number computed.

    ``units`` is the plan (:func:`.planning.experiment_runs`) and ``stored`` what
    ``store`` holds of it (:class:`.fingerprints.StoredRuns`), both made once by the
    caller (:func:`.run.run`, which checks the options). Rows are appended to
    ``store`` one by one as they finish, so an interrupted run resumes where it
    stopped. ``progress`` is called with a :class:`ProgressEvent` once at the start,
    after each row and, with several workers, once at the end.

    ``n_jobs > 1`` computes that many units at once in joblib worker processes
    (:func:`.executor.computed`, whose workers end with this call and with this
    process), each with its BLAS limited to ``threads`` threads
    (:func:`.executor.blas_threads_per_run`). A worker that dies raises
    :class:`~fdlsr.errors.WorkerError`. ``cluster`` (a :class:`.executor.Cluster`)
    computes them on a ``dask.distributed`` cluster instead, with ``threads``
    threads each (its own).

    ``order``: ``"longest"`` starts the units with several at once longest first
    (:func:`longest_first`), ``"plan"`` in the plan's order; one at a time they run
    in the plan's order.

    Splits and random states depend only on the seed and the split, so the rows are
    those of ``n_jobs = 1`` but for their times (those of a process sharing the
    cores) and for rounding: a BLAS product on another number of threads may round
    differently, which can flip a greedy or near-tied choice (LC-KSVD2's atom
    selection, a cross-validated parameter); docs/reproduction.md measures it.
    """
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
    if order == "longest" and (n_jobs > 1 or cluster is not None):
        todo = longest_first(todo, estimates)
    n_done, total = len(units) - len(todo), len(units)
    if progress:
        progress(ProgressEvent(n_done, total))
    if not todo:
        return 0
    zero = zero_samples(data.X)
    n_classes = int(np.unique(data.y).size)
    left = Counter((unit.method.name, unit.k) for unit in todo)
    accuracies = defaultdict(list)
    took = defaultdict(list)  # seconds of the units of each method and k done here
    cost_done = 0.0
    # a scheduler elsewhere may have no worker yet (they join as they start)
    workers = max(1, cluster.workers) if cluster is not None else min(n_jobs, len(todo))
    start = time.perf_counter()
    busy = 0.0
    # closed on the way out, however it is left: no worker outlives this call
    computed = _computed(todo, data, n_jobs, threads, cluster)
    with contextlib.closing(computed):
        for unit, outcome, seconds in computed:
            busy += seconds
            train, test = data.splits[unit.k, unit.split]
            row = result_row(
                unit.key,
                family=unit.method.family,
                tuning=unit.tuning,
                outcome=outcome,
                n_classes=n_classes,
                n_features=int(data.X.shape[1]),
                data_sha256=stored.data_sha256,
                fingerprint=stored.fingerprints[unit.key],
                data_warning=zero_warning(zero, train, test) if zero.size else None,
                data_note=POOLED if pools_fixed_split(dataset, unit.k) else None,
            )
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
            finished = None
            if not left[group]:
                finished = Finished(unit.method.name, unit.k, tuple(accuracies[group]))
            label = f"{unit.method.name} k={unit.k} split {unit.split + 1}"
            progress(ProgressEvent(n_done, total, label, eta, finished))
        wall = time.perf_counter() - start
    if progress and workers > 1:
        usage = Usage(workers, wall, busy)
        progress(ProgressEvent(n_done, total, usage=usage))
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


def _computed(units, data, n_jobs, threads, cluster):
    """``(unit, outcome, seconds)`` of each unit as it finishes: on ``cluster``, in
    ``n_jobs`` worker processes, or here (one job: with the process's own threads)."""
    if cluster is None and (n_jobs == 1 or len(units) == 1):
        threads = threads if n_jobs > 1 else None  # one unit of --jobs N: a worker's
    results = _executed(
        _in_worker,
        units,
        (data, threads),
        n_jobs=n_jobs,
        threads=threads,
        cluster=cluster,
    )
    # closed on the way out, however it is left: the workers stop with it
    with contextlib.closing(results):
        for unit, (outcome, seconds) in results:
            yield unit, outcome, seconds


# The methods warmed up in this process (each worker process has its own).
_WARMED = set()


def _in_worker(unit, shared):
    """What ``unit`` gave (:func:`.evaluation.compute_unit`) and the seconds it
    took, computed with ``threads`` BLAS threads (None: as the process is set)."""
    data, threads = shared
    start = time.perf_counter()
    limits = (
        threadpool_limits(limits=threads)
        if threads is not None
        else contextlib.nullcontext()
    )
    with limits:
        outcome = compute_unit(unit, data, _WARMED)
    return outcome, time.perf_counter() - start
