"""The size of an experiment's plan, computed from the request before anything is
allocated, and the plans refused for it.

A whole number that the command line or a config accepts (``--splits
1000000000000``) is a plan of as many runs, each with its split's indices, its key,
fingerprint and row held in this process. :func:`check_plan_size` computes that
cost from the request and the data's shape alone (:class:`PlanSize`: the number of
runs, the memory of the split indices, of the samples as float64 and of the runs'
bookkeeping, and the expected time from the registry's costs) and refuses, in one
line with those numbers, a plan of more runs than :data:`MAX_RUNS` or of more memory
than this process can still allocate, before the plan is made.
"""

from dataclasses import dataclass

import numpy as np

from .._common.memory import available_memory, size_in_words
from ..errors import ConfigError
from .samples import RUN_COPIES, check_run_memory
from .splits import FIXED

# The most runs one command plans: a million is a hundred thousand times the paper's
# 10 splits per k, and at the fastest method's milliseconds still hours of work.
MAX_RUNS = 10**6
# What this process holds for each run besides its split's indices: the planned unit,
# its key, fingerprint and expected cost (about 1 KB), and the row it stores.
RUN_BYTES = 2_000
# Split indices are int64: a split's training and test indices hold every sample once.
INDEX_BYTES = 8


@dataclass(frozen=True)
class PlanSize:
    """The cost of a plan: ``runs`` (``methods`` x ``draws``: the splits of every
    ``k``), the bytes of its split indices (``split_bytes``), of the copies of the
    samples as float64 that the runs make (``data_bytes``,
    :data:`.samples.RUN_COPIES`) and of the runs' bookkeeping (``run_bytes``), and the expected ``seconds`` of its runs one after
    the other (the registry's costs, :meth:`.registry.Method.expected_seconds`)."""

    runs: int
    methods: int
    draws: int
    split_bytes: int
    data_bytes: int
    run_bytes: int
    seconds: float

    @property
    def memory(self):
        return self.split_bytes + self.data_bytes + self.run_bytes


def plan_size(experiment, dataset, methods):
    """The :class:`PlanSize` of ``experiment`` on ``dataset`` with the resolved
    ``methods`` (:meth:`.planning.Experiment.resolved`), from the data's shape and
    the request alone: nothing of the plan is made."""
    n_samples, n_features = np.shape(dataset.X)
    fixed = getattr(dataset, "fixed_split", None)
    ks = experiment.ks or ([FIXED] if fixed is not None else [])
    n_classes = np.unique(np.asarray(dataset.y)).size
    draws = random = 0
    seconds = 0.0
    for k in ks:
        if k == FIXED:
            count, n_train = 1, 0 if fixed is None else len(fixed[0])
        else:
            count, n_train = experiment.splits, min(k * n_classes, n_samples)
            random += count
        draws += count
        seconds += count * sum(
            chosen.method.expected_seconds(n_train, n_features) for chosen in methods
        )
    runs = draws * len(methods)
    # what the runs will allocate: the loaded data are counted in the memory left
    copies = RUN_COPIES + bool(experiment.standardize)
    return PlanSize(
        runs=runs,
        methods=len(methods),
        draws=draws,
        split_bytes=random * n_samples * INDEX_BYTES,
        data_bytes=copies * n_samples * n_features * 8,
        run_bytes=runs * RUN_BYTES,
        seconds=seconds,
    )


def check_plan_size(experiment, dataset, methods, available=None):
    """Refuse a plan beyond the machine or the stated bound, before it is made.

    A plan is refused when it holds more than :data:`MAX_RUNS` runs, or when its
    memory (:attr:`PlanSize.memory`) exceeds what this process can still allocate
    (``available``, default :func:`~fdlsr._common.memory.available_memory`; not
    compared where unknown). The one line gives the numbers and the fix. Samples
    whose own copies do not fit are refused first, by
    :func:`.samples.check_run_memory`, whose fix is less data.

    Raises
    ------
    fdlsr.errors.ConfigError
    """
    # the samples' own copies first: where they alone do not fit, the fix is less
    # data, not fewer runs
    check_run_memory(dataset, experiment.standardize, available)
    size = plan_size(experiment, dataset, methods)
    available = available_memory() if available is None else available
    over_runs = size.runs > MAX_RUNS
    over_memory = available is not None and size.memory > available
    if not (over_runs or over_memory):
        return size
    limit = (
        f"more than the {MAX_RUNS:,} runs one command plans"
        if over_runs
        else f"more than the {size_in_words(available)} of memory left"
    )
    raise ConfigError(
        f"the plan holds {_count(size.runs, 'run')} ({_count(size.methods, 'method')}"
        f" x {_count(size.draws, 'split')} over the k's), {limit}: their split "
        f"indices take {size_in_words(size.split_bytes)}, the copies of the samples "
        f"as float64 {size_in_words(size.data_bytes)}, the runs' records "
        f"{size_in_words(size.run_bytes)}, and the registry's costs put them at "
        f"{_duration(size.seconds)} one after the other; give fewer --splits, -k "
        "or --methods (splits, k, methods in a config)"
    )


def _count(n, what):
    """``n`` things in words: ``1 method``, ``1,000 runs`` below a billion, ``2e12
    runs`` above."""
    shown = f"{n:,}" if n < 10**9 else f"{n:.3g}".replace("e+", "e")
    return f"{shown} {what}{'' if n == 1 else 's'}"


def _duration(seconds):
    """Seconds in words: ``40 s``, ``3.2 hours``, ``5.1 years``, ``10^9 years``."""
    years = seconds / (365.25 * 86400)
    if years >= 10**6:
        return f"10^{len(str(int(years))) - 1} years"
    for unit, scale in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600)):
        if seconds >= 2 * scale:
            return f"{seconds / scale:.1f} {unit}"
    return f"{seconds:.0f} s"
