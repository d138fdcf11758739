"""One experiment run, from Python or the command line: the request
(:class:`RunRequest`), the run (:func:`run`) and what it gave (:class:`RunResult`).

``fdlsr run`` builds a :class:`RunRequest` from its arguments
(:mod:`.commands.run`) and calls :func:`run`, as a Python program does::

    from fdlsr._experiments.config import load_config
    from fdlsr._experiments.run import RunRequest, run

    result = run(RunRequest(load_config("orl"), jobs=2, out="results/orl"))

:func:`run` checks the store's folder, loads the data, plans every run and checks
it (:func:`.planning.experiment_runs`), finds what the store already holds
(:func:`.fingerprints.stored_runs`), computes the rest (:func:`.scheduler.run_units`)
and prints the table, in that order: every check comes before the first run.
"""

import contextlib
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._common.messages import quote
from ..errors import ConfigError
from .config import Config
from .escape import terminal
from .executor import (
    PROCESSES_PER_CORE,
    Cluster,
    blas_threads_per_run,
    max_processes,
    usable_cores,
)
from .fingerprints import stored_runs
from .notes import table_notes
from .outputs import check_output
from .planning import DataOptions, dataset_file, experiment_runs, load_data
from .progress import Progress
from .report import paper_rows, render, summarise
from .results_frame import frame_of
from .rows import row_key
from .samples import data_warnings, scale_warnings, warn
from .scheduler import ORDERS, run_units
from .store import ResultStore, record_run, table_info, write_info
from .store_folder import STORE_FILES, check_store


@dataclass(frozen=True)
class RunRequest:
    """What ``fdlsr run`` is asked to do, its options checked once, here.

    Parameters
    ----------
    config : Config
        The experiment (:class:`.planning.Experiment`: data set, k, splits,
        methods, parameters) and what its table says (title, note, paper table),
        with the command line's values applied (:func:`.config.resolve_config`).
    data : DataOptions
        How to read the data set's file (``--x``, ``--y``, ``--samples``,
        ``--resize``).
    jobs : int
        Runs computed at once in worker processes, from 1 to
        :func:`.executor.max_processes`.
    scheduler : str, optional
        The address of a dask scheduler (``tcp://HOST:8786``, ``local:N``) whose
        workers compute the runs instead (read when the cluster is reached,
        :class:`.executor.Cluster`); not with ``jobs`` above 1.
    order : {"longest", "plan"}, optional
        With several runs at once (``jobs`` above 1 or a ``scheduler``), start the
        longest expected first (default) or in the plan's order; refused with one
        run at a time, which runs in the plan's order.
    out : str or path-like, optional
        The results store; default ``fdlsr-results/DATASET``.
    paper : str, optional
        ``--paper [TABLE]``: the paper's rows beside ours in the table (``"auto"``:
        the config's paper table).
    table : bool
        Print the table at the end (stdout).
    command : str, optional
        The command line recorded with the results (default ``"fdlsr"``).
    config_name, config_dataset : str, optional
        ``--config`` as given and the config's own data set, when ``--dataset``
        replaced it: the config's title, note and paper table then describe other
        data, unless the data loaded are the config's own.
    overridden : frozenset of str
        The methods (lower case) whose settings the command line changed from the
        config's (``--params METHOD.NAME=..., --cv METHOD``): their rows are not
        those the config's note speaks of...
    overrides_all : bool
        ...nor any row, when the command line changed every method's
        (``--raw``, ``--cv-folds``, ``--cv-rules``, ``--cv`` with no names,
        ``--params NAME=...``).
    """

    config: Config
    data: DataOptions = DataOptions()
    jobs: int = 1
    scheduler: str | None = None
    order: str | None = None
    out: str | Path | None = None
    paper: str | None = None
    table: bool = True
    command: str | None = None
    config_name: str | None = None
    config_dataset: str | None = None
    overridden: frozenset = frozenset()
    overrides_all: bool = False

    def __post_init__(self):
        jobs, limit = self.jobs, max_processes()
        whole = isinstance(jobs, (int, np.integer)) and not isinstance(jobs, bool)
        if not whole or not 1 <= jobs <= limit:
            raise ConfigError(
                f"--jobs must be a whole number from 1 to {limit} ({PROCESSES_PER_CORE} "
                f"for each of the {usable_cores()} cores this process may use), got "
                f"{quote(jobs)}"
            )
        if self.order is not None and self.order not in ORDERS:
            raise ConfigError(
                f"--order must be one of {', '.join(ORDERS)}, got {quote(self.order)}"
            )
        if isinstance(self.out, str) and not self.out:
            raise ConfigError(
                "--out is empty (an unset shell variable?): give the results folder, "
                "or leave --out out for fdlsr-results/DATASET"
            )
        if self.order is not None and jobs == 1 and self.scheduler is None:
            raise ConfigError(
                f"--order {self.order} applies when several runs are computed at once "
                "(--jobs N above 1, or --scheduler); one at a time they run in the "
                "plan's order: drop --order or add --jobs N"
            )
        if self.scheduler is not None and jobs != 1:
            raise ConfigError(
                "give --jobs N or --scheduler, not both: with --scheduler the cluster's "
                "workers compute the runs"
            )
        # method names, parameters and --cv, before any data is looked for: a
        # misspelled method is said as such, not as data missing
        self.config.experiment.resolved()


@dataclass(frozen=True)
class RunResult:
    """What :func:`run` did: ``computed`` runs of the plan's ``total`` (the others
    were in the store), the ``rows`` of the plan in the store at ``out``."""

    computed: int
    total: int
    rows: list
    out: Path


def run(request, *, dataset=None, progress=None):
    """Run the experiment of ``request``: compute what its store lacks, print the
    table (``request.table``); a :class:`RunResult`.

    Parameters
    ----------
    request : RunRequest
        What to run, checked.
    dataset : Dataset, optional
        The data, already in memory (default: loaded as the request says).
    progress : callable, optional
        Called with each :class:`.scheduler.ProgressEvent`; default: the command's
        display on stderr (:class:`.progress.Progress`: a bar on a terminal, else a
        line per method and k finished).
    """
    config = request.config
    ex = config.experiment
    default = Path("fdlsr-results") / Path(ex.dataset).stem
    out = default if request.out is None else Path(request.out)
    check_store(out, writing=True)  # before the data are loaded; made when opened
    if dataset is None:
        dataset = load_data(ex, request.data)
    for name in STORE_FILES:  # the store's own files, never an input
        check_output(
            out / name,
            inputs=[dataset.path, config.path],
            option="--out",
            store=out,
        )
    units = experiment_runs(ex, dataset)  # checks methods, parameters and k first
    described = _describes(request, dataset)
    if not described:
        print(
            f"fdlsr: note: --dataset {ex.dataset} replaces the data set of "
            f"--config {request.config_name}: its title, note and paper table are "
            "left out",
            file=sys.stderr,
        )
    paper_table = config.paper_table if described else None
    paper = paper_rows(request.paper, paper_table=paper_table, dataset=dataset.name)
    scales = [] if ex.standardize else scale_warnings(dataset)
    warn(data_warnings(dataset, ex.ks) + scales, dataset)
    # the cluster is reached (or refused, in one line) before anything is written
    with _cluster(request.scheduler) as cluster, ResultStore(out) as store:
        # refuses other data under this name before anything is written
        in_store = stored_runs(ex, dataset, units, store)
        command = request.command or "fdlsr"
        threads = cluster.threads if cluster else blas_threads_per_run(request.jobs)
        store.start_session(command, blas_threads=threads)
        stored = store.read_info()
        for notice in store.notices:
            print(f"fdlsr: {terminal(notice)}", file=sys.stderr)
        settings = {}
        for unit in units:
            settings.setdefault(unit.method.name, []).append(unit.setting)
        info = record_run(
            stored,
            dataset.name,
            command,
            settings=settings,
            # the rows the config's note speaks of: its own settings
            configured=_configured(request, settings) if described else (),
            title=config.title if described else None,
            paper_table=paper_table,
            note=config.note if described else None,
            source=config.source if described else None,
        )
        write_info(store.directory, info)
        display = Progress(dataset.name) if progress is None else None
        try:
            computed = run_units(
                ex,
                dataset,
                store,
                units,
                in_store,
                progress or display,
                n_jobs=request.jobs,
                threads=threads,
                cluster=cluster,
                order=request.order or "longest",
            )
        finally:
            if display is not None:
                display.close()
        keys = {unit.key for unit in units}
        rows = [r for r in store.rows if row_key(r) in keys]
    print(
        f"{computed} runs computed, {len(units) - computed} already in {out}/results.jsonl "
        f"({len(dataset.y)} samples, {len(set(dataset.y.tolist()))} classes)",
        file=sys.stderr,
    )
    if request.table:
        # the table holds this command's runs: the methods it misses are its own
        table = {**table_info(info, dataset.name), "methods": list(settings)}
        frame = frame_of(rows)
        print(
            render(
                summarise(frame),
                "md",
                paper=paper,
                title=table["title"],
                notes=table_notes(frame, table),
            )
        )
    return RunResult(computed=computed, total=len(units), rows=rows, out=out)


def _describes(request, dataset):
    """Whether the config's title, note and paper table describe ``dataset``: not
    when ``--dataset`` replaced the config's own data set by other data (a file
    named after it, such as ``feret.mat`` for ``feret``, is taken to be it)."""
    own = request.config_dataset
    if own is None:
        return True
    if Path(own).stem == Path(dataset.name).stem:
        return True
    theirs = dataset_file(own, request.config.experiment.data_dir)
    if theirs is None or dataset.path is None:
        return False
    return theirs.resolve() == Path(dataset.path).resolve()


def _configured(request, methods):
    """The ``methods`` whose settings the command leaves as its config gives them."""
    if request.overrides_all:
        return []
    return [m for m in methods if m.lower() not in request.overridden]


def _cluster(scheduler):
    """The dask cluster at the address ``scheduler``, or nothing (a context either
    way)."""
    if scheduler is None:  # an empty address is refused, not ignored
        return contextlib.nullcontext()
    return Cluster(scheduler)
