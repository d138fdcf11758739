"""The handlers of the ``fdlsr`` sub-commands: arguments in, library calls, text out.

Part of the command-line layer (:mod:`.cli` builds the parser and calls the handler
of the same name here): each handler turns parsed arguments into calls to the
protocol, report, figure and dataset modules. ``fit`` and ``predict`` live in
:mod:`.model_commands`, what the handlers share in :mod:`.command_support`.
"""

import contextlib
import os
import sys
from pathlib import Path

from ..errors import ConfigError
from ..methods import get_method
from . import progress as progress_module
from .cluster import Cluster
from .command_support import (
    command_line,
    config_file,
    config_from_args,
    config_speaks_of,
    emit,
    load,
    method_refusals,
    reason,
    warn,
)
from .identity import stored_runs
from .model_commands import fit, predict
from .notes import table_notes
from .outputs import check_output
from .progress import Bar, Progress
from .protocol import data_warnings, experiment_runs, scale_warnings
from .report import PAPER_TABLES, paper_results, render, summarise
from .results import (
    STORE_FILES,
    ResultStore,
    by_data,
    read_info,
    read_store,
    record_run,
    row_key,
    table_info,
    write_info,
)
from .scheduler import blas_threads_per_run, run_experiment

__all__ = [
    "config_from_args",
    "datasets",
    "features",
    "fit",
    "methods",
    "plot",
    "predict",
    "report",
    "run",
]


def run(args):
    config = config_from_args(args)
    ex = config.experiment
    dataset = load(args, ex)
    out = Path(args.out or Path("fdlsr-results") / Path(ex.dataset).stem)
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
    paper = _paper(args.paper, {"paper_table": paper_table, "dataset": dataset.name})
    scales = [] if ex.standardize else scale_warnings(dataset)
    warn(data_warnings(dataset, ex.ks) + scales, dataset)
    # the cluster is reached (or refused, in one line) before anything is written
    with _cluster(args) as cluster, ResultStore(out) as store:
        # refuses other data under this name before anything is written
        stored_runs(ex, dataset, units, store)
        command = command_line(args) or "fdlsr"
        threads = cluster.threads if cluster else blas_threads_per_run(args.jobs)
        store.start_session(command, blas_threads=threads)
        stored, problem = read_info(out)
        for notice in [*store.notices, *([problem] if problem else [])]:
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
        write_info(out, info)
        progress = Progress(dataset.name)
        try:
            computed = run_experiment(
                ex,
                dataset,
                store,
                progress,
                n_jobs=args.jobs,
                scheduler=cluster,
                order=args.order,
                units=units,
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
    --raw, --cv-folds, --cv naming them, or --params of theirs)."""
    if args.raw or args.cv_folds or args.cv == []:
        return []
    changed = {name.lower() for name in args.cv or []}
    for key, _ in args.params:
        method = key.rpartition(".")[0]
        changed |= {method.lower()} if method else {m.lower() for m in methods}
    return [m for m in methods if m.lower() not in changed]


def features(args):
    """``fdlsr features``: extract, with a one-line progress bar on stderr."""
    from .features import extract_features

    bar = Bar(f"features {Path(args.source).name}")
    record = extract_features(
        args.source,
        args.output,
        layout=args.layout,
        model=args.model,
        layer=args.layer,
        weights=args.weights,
        batch_size=args.batch_size,
        chunk_size=args.chunk_size,
        device=args.device,
        workers=args.workers,
        seed=args.seed,
        progress=bar,
        notice=lambda message: print(f"fdlsr: {message}", file=sys.stderr),
        force=args.force,
    )
    bar.close()
    rate = record["images_per_second"]
    speed = f", {rate:.1f} images/s" if rate else " (all chunks were already there)"
    print(
        f"{record['n_images']} images -> {record['n_features']} features of "
        f"{record['model']} {record['layer']} on {record['device']}{speed}; "
        f"wrote {args.output} (classify: fdlsr run --dataset {args.output})",
        file=sys.stderr,
    )
    return 0


def _paper(option, info):
    if option is None:
        return None
    table = info.get("paper_table") if option == "auto" else option
    if not table:
        raise ConfigError(
            f"the paper has no table for {info.get('dataset')!r}; name one with --paper I "
            "(AR), II (PIE), III (FERET), IV (LFW), V (COIL-100) or VI (deep features "
            "of Stanford-40, CUB-200-2011, Oxford 102 Flowers)"
        )
    return paper_results(table, info.get("dataset"))


def _cluster(args):
    """The dask cluster of ``--scheduler``, or nothing (a context either way)."""
    if not args.scheduler:
        return contextlib.nullcontext()
    if args.jobs != 1:
        raise ConfigError(
            "give --jobs N or --scheduler, not both: with --scheduler the cluster's "
            "workers compute the runs"
        )
    return Cluster(args.scheduler)


def report(args):
    if args.output:  # never over a store's files nor into a store
        check_output(args.output, inputs=args.results)
    outputs, notices, tables = [], [], []
    for folder in args.results:
        store = read_store(folder)
        if not store.rows:
            skipped = store.skipped_text()
            raise ConfigError(
                f"{store.path} has no result rows"
                + (f": {skipped}" if skipped else "")
                + "; run an experiment into it with fdlsr run --out "
                + str(store.path.parent)
            )
        info, problem = read_info(store.path.parent)
        groups = by_data(store.rows)
        names = [name for name, _ in groups]
        notices += [*store.notices(), *([problem] if problem else [])]
        notices += [
            f"{store.path}: {names.count(name)} different data sets are named "
            f"{name!r}: each in its own table"
            for name in sorted(set(names))
            if names.count(name) > 1
        ]
        for (dataset, data), subset in sorted(
            groups.items(), key=lambda item: (item[0][0], item[0][1] or "")
        ):
            table = table_info(info, dataset)
            title = table.get("title") or dataset
            if names.count(dataset) > 1:
                title = f"{title} (data sha256 " + (
                    f"{data[:12]}...)" if data else "not recorded)"
                )
            tables.append((dataset, title, table, subset))
    command = command_line(args)
    papers = _papers(args.paper, tables)
    for (dataset, title, table, subset), (paper, forced) in zip(
        tables, papers, strict=True
    ):
        notes = table_notes(subset, table, command)
        if forced:
            notes.append(forced)
        elif args.paper and paper is None:
            notices.append(
                f"--paper: the store records no table of the paper for {dataset}; "
                "name one with --paper TABLE to show it"
            )
        outputs.append(
            render(
                summarise(subset), args.format, paper=paper, title=title, notes=notes
            )
        )
    for notice in notices:  # after every check: an error stays one line
        print(f"fdlsr: {notice}", file=sys.stderr)
    emit("\n".join(outputs), args.output, "the report")
    return 0


def _papers(option, tables):
    """The paper's rows for each table, and a note when they are forced on it:
    ``[(rows or None, note or None), ...]``.

    ``--paper`` alone gives each data set the paper's table that its config names
    (an error if none does); ``--paper TABLE`` puts that table under every one, with
    a note where it is not the data set's own.
    """
    if option is None:
        return [(None, None)] * len(tables)
    out = []
    for dataset, _, table, _ in tables:
        own = table.get("paper_table")
        name = own if option == "auto" else option
        if not name:
            out.append((None, None))
            continue
        rows = _paper(name, {"dataset": dataset})
        forced = None
        if name != own:
            recorded = f"Table {own}" if own else "no table of the paper"
            forced = (
                f"Rows marked (paper): the paper's Table {name} ({PAPER_TABLES[name]}), "
                f"asked for with --paper {name}; the store records {recorded} for "
                "these data."
            )
        out.append((rows, forced))
    if tables and not any(rows for rows, _ in out):
        _paper(option, {"dataset": tables[0][0]})  # raises: no table anywhere
    return out


def plot(args):
    from . import figures

    cli_params = _fdlsr_params(args.params)
    args.params = []
    config = config_from_args(args)
    ex = config.experiment
    params = {**ex.params.get("FDLSR", {}), **cli_params}
    get_method("FDLSR").check(params)  # before loading or drawing anything
    dataset = load(args, ex)
    k = args.k or config.figures.get("k") or (max(ex.ks) if ex.ks else None)
    if k is None:
        raise ConfigError("give the training size of the figures with -k K")
    warn(data_warnings(dataset, []), dataset)  # the figures have no fixed-split mode
    out = Path(args.out)
    kinds = (
        ["convergence", "tsne", "sensitivity", "lambda"]
        if args.kind == "all"
        else [args.kind]
    )
    for kind in kinds:
        for path in figures.paths(kind, dataset.name, out):
            check_output(path, inputs=[dataset.path, config_file(args)], option="--out")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(
            f"cannot create the figures folder {out}: {reason(error)}; choose "
            "another with --out DIR"
        ) from None
    for kind in kinds:
        bar = Bar(
            f"{kind} figure of {dataset.name}",
            unit="steps",
            delay=progress_module.QUIET_SECONDS,
        )
        with method_refusals(f"the {kind} figure of {dataset.name}"):
            paths = figures.make(
                kind,
                dataset,
                k=k,
                params=params,
                seed=args.seed,
                out=out,
                n_classes=args.classes,
                methods=args.methods,
                normalise=ex.normalise,
                sensitivity_beta=cli_params.get("beta", 1e-2),
                lambda_splits=args.splits,
                progress=bar,
            )
        bar.close()
        for path in paths:
            print(f"wrote {path}", file=sys.stderr)
    return 0


def _fdlsr_params(pairs):
    """``plot --params``: FDLSR's parameters, as ``name=value`` or ``FDLSR.name=value``."""
    params = {}
    for key, value in pairs:
        method, _, name = key.rpartition(".")
        if method and method.lower() != "fdlsr":
            raise ConfigError(
                f"--params {key}=...: the figures are FDLSR's; write {name}=VALUE or "
                f"FDLSR.{name}=VALUE"
            )
        params[name] = value
    return params


def datasets(args):
    from .datasets import dataset_info, list_datasets

    if args.data_dir and not Path(args.data_dir).is_dir():
        raise ConfigError(
            f"--data-dir {args.data_dir} is not a folder; give the folder that holds "
            "the dataset files (e.g. ../shared/data)"
        )
    if args.action == "info":
        if not args.name:
            raise ConfigError(
                "name the dataset: fdlsr datasets info NAME (or the path of a file)"
            )
        info = dataset_info(args.name, args.data_dir, resize=args.resize)
        for key, value in info.items():
            print(f"{key}: {value}")
        return 0
    print(f"{'name':<18} {'status':<10} description")
    missing = downloads = 0
    for entry in list_datasets():
        if entry.get("loader") == "sklearn" and entry["name"] == "digits":
            status = "embedded"  # ships with scikit-learn
        elif entry.get("loader") == "sklearn":  # fetched by scikit-learn on first use
            cached = dataset_info(entry["name"], args.data_dir).get("present")
            status = "cached" if cached else "download"
            downloads += not cached
        elif entry.get("loader") == "embedded":
            status = "embedded"
        else:
            info = dataset_info(entry["name"], args.data_dir)
            status = "present" if info.get("present") else "missing"
            missing += status == "missing"
        print(f"{entry['name']:<18} {status:<10} {entry.get('description', '')}")
    if args.data_dir:
        where = args.data_dir
    elif os.environ.get("FDLSR_DATA_DIR"):
        where = f"{os.environ['FDLSR_DATA_DIR']} (from FDLSR_DATA_DIR)"
    else:
        where = "./data (the default: neither --data-dir nor FDLSR_DATA_DIR is set)"
    print(
        f"\nfiles are looked for in {where}; `fdlsr datasets info NAME` says what a "
        "file should contain and where to get it"
    )
    if downloads:
        print(
            "download: scikit-learn downloads it into its cache on first use "
            "(needs network access); cached: it is there already"
        )
    if missing and not args.data_dir:
        print(
            "to use files kept elsewhere, point at the folder that holds them: "
            "--data-dir DIR, or export FDLSR_DATA_DIR=DIR (e.g. ../shared/data)"
        )
    return 0


def methods(args):
    from ..methods import METHODS

    for m in METHODS.values():
        print(f"{m.name} ({m.family}): {m.summary}")
        if m.rule:
            print(f"    decides:  {m.rule}")
        if m.params:
            print("    settings: " + ", ".join(f"{k}={v}" for k, v in m.params.items()))
        if m.grid:
            print(
                "    cv grid:  " + "; ".join(f"{k} in {v}" for k, v in m.grid.items())
            )
    return 0
