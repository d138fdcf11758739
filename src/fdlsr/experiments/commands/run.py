"""``fdlsr run``: an experiment planned, computed into its results store, and its table."""

import contextlib
import sys
from pathlib import Path

from ...errors import ConfigError
from ..cluster import Cluster
from ..fingerprints import stored_runs
from ..notes import table_notes
from ..outputs import check_output
from ..planning import experiment_runs
from ..progress import Progress
from ..report import render, summarise
from ..samples import data_warnings, scale_warnings
from ..scheduler import blas_threads_per_run, check_options, run_units
from ..store import (
    STORE_FILES,
    ResultStore,
    check_store,
    record_run,
    row_key,
    table_info,
    write_info,
)
from .shared import (
    command_line,
    config_file,
    config_from_args,
    config_speaks_of,
    load,
    paper_rows,
    warn,
)


def main(args):
    """``fdlsr run``: plan, compute what the store lacks, print the table."""
    # before anything is read or written
    check_options(args.jobs, args.order, args.scheduler)
    config = config_from_args(args)
    ex = config.experiment
    out = Path(args.out or Path("fdlsr-results") / Path(ex.dataset).stem)
    check_store(out, writing=True)  # before the data are loaded; made when opened
    dataset = load(args, ex)
    for name in STORE_FILES:  # the store's own files, never an input
        check_output(
            out / name,
            inputs=[dataset.path, config_file(args)],
            option="--out",
            store=out,
        )
    units = experiment_runs(ex, dataset)  # checks methods, parameters and k first
    described = config_speaks_of(args, dataset)
    if not described:
        print(
            f"fdlsr: note: --dataset {args.dataset} replaces the data set of "
            f"--config {args.config}: its title, note and paper table are left out",
            file=sys.stderr,
        )
    paper_table = config.paper_table if described else None
    paper = paper_rows(
        args.paper, {"paper_table": paper_table, "dataset": dataset.name}
    )
    scales = [] if ex.standardize else scale_warnings(dataset)
    warn(data_warnings(dataset, ex.ks) + scales, dataset)
    # the cluster is reached (or refused, in one line) before anything is written
    with _cluster(args) as cluster, ResultStore(out) as store:
        # refuses other data under this name before anything is written
        in_store = stored_runs(ex, dataset, units, store)
        command = command_line(args) or "fdlsr"
        threads = cluster.threads if cluster else blas_threads_per_run(args.jobs)
        store.start_session(command, blas_threads=threads)
        stored = store.read_info()
        for notice in store.notices:
            print(f"fdlsr: {notice}", file=sys.stderr)
        settings = {}
        for unit in units:
            settings.setdefault(unit.method.name, []).append(unit.setting)
        info = record_run(
            stored,
            dataset.name,
            command,
            settings=settings,
            # the rows the config's note speaks of: its own settings
            configured=_configured(args, settings) if described else (),
            stored=store.rows,
            title=config.title if described else None,
            paper_table=paper_table,
            note=config.note if described else None,
            source=config.source if described else None,
        )
        write_info(store.directory, info)
        progress = Progress(dataset.name)
        try:
            computed = run_units(
                ex,
                dataset,
                store,
                units,
                in_store,
                progress,
                n_jobs=args.jobs,
                scheduler=cluster,
                order=args.order,
            )
        finally:
            progress.close()
        keys = {unit.key for unit in units}
        rows = [r for r in store.rows if row_key(r) in keys]
    print(
        f"{computed} runs computed, {len(units) - computed} already in {out}/results.jsonl "
        f"({len(dataset.y)} samples, {len(set(dataset.y.tolist()))} classes)",
        file=sys.stderr,
    )
    if not args.no_table:
        table = table_info(info, dataset.name)
        print(
            render(
                summarise(rows),
                "md",
                paper=paper,
                title=table["title"],
                notes=table_notes(rows, table),
            )
        )
    return 0


def _configured(args, methods):
    """The methods whose settings the command leaves as its config gives them (no
    --raw, --cv-folds, --cv-rules, --cv naming them, or --params of theirs)."""
    if args.raw or args.cv_folds or args.cv_rules or args.cv == []:
        return []
    changed = {name.lower() for name in args.cv or []}
    for key, _ in args.params:
        method = key.rpartition(".")[0]
        changed |= {method.lower()} if method else {m.lower() for m in methods}
    return [m for m in methods if m.lower() not in changed]


def _cluster(args):
    """The dask cluster of ``--scheduler``, or nothing (a context either way)."""
    if args.scheduler is None:  # an empty address is refused, not ignored
        return contextlib.nullcontext()
    if args.jobs != 1:
        raise ConfigError(
            "give --jobs N or --scheduler, not both: with --scheduler the cluster's "
            "workers compute the runs"
        )
    return Cluster(args.scheduler)
