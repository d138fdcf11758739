"""The handlers of the ``fdlsr`` sub-commands: arguments in, library calls, text out.

Part of the command-line layer (``fdlsr.cli`` builds the parser and calls the handler
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
from .cluster import Cluster
from .command_support import (
    command_line,
    config_from_args,
    emit,
    load,
    reason,
    warn,
)
from .identity import stored_runs
from .model_commands import fit, predict
from .progress import Bar, Progress
from .protocol import FIXED, POOLED, data_warnings, experiment_runs
from .report import chosen_rules, paper_results, render, summarise
from .results import ResultStore, by_data, read_info, read_store, row_key, write_info
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
    units = experiment_runs(ex, dataset)  # checks methods, parameters and k first
    paper = _paper(
        args.paper, {"paper_table": config.paper_table, "dataset": dataset.name}
    )
    warn(data_warnings(dataset, ex.ks), dataset)
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
        info = {
            "title": config.title or dataset.name,
            "paper_table": config.paper_table,
            "note": config.note,
            "dataset": dataset.name,
            "splits": ex.splits,
            "params": {**stored.get("params", {}), **ex.params},
            "source": config.source,
            "commands": _commands(stored, command),
            "methods": _asked_methods(stored, units),
        }
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
        print(
            render(
                summarise(rows),
                "md",
                paper=paper,
                title=info["title"],
                notes=_notes(info, rows),
            )
        )
    return 0


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


def _commands(old, command):
    """Every distinct ``fdlsr run`` command that wrote to a store whose info was
    ``old``, oldest first (a table may combine runs of different methods, k or
    splits)."""
    commands = old.get("commands") or ([old["command"]] if "command" in old else [])
    return commands + ([command] if command not in commands else [])


def _asked_methods(old, units):
    """Every method a ``fdlsr run`` into this store asked for, in order of asking."""
    asked = list(old.get("methods") or [])
    for unit in units:
        if unit.method.name not in asked:
            asked.append(unit.method.name)
    return asked


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


def _notes(info, rows, command=None):
    drawn = [r for r in rows if r["k"] != FIXED]
    n = max((r["split"] for r in drawn), default=-1) + 1
    params = info.get("params", {}).get("FDLSR")
    how = []
    if drawn:
        how.append(
            f"over {n} random split{'s' if n != 1 else ''} (k training samples per "
            "class, the rest for testing)"
        )
    if len(drawn) < len(rows):
        how.append("on the dataset's own train/test split (column k=fixed, one run)")
    measure = "as mean ± sample std " if n > 1 else ""
    raw = any('"normalise": false' in r.get("setting", "") for r in rows)
    samples = "raw samples (--raw)" if raw else "unit-normalised samples"
    notes = [
        f"Accuracy (%) {measure}{' and '.join(how)}, {samples}; "
        "times in seconds are means at the largest k, measured in the runs themselves "
        "(machine and load in environment.json beside the results)."
    ]
    if any(POOLED in (r.get("note") or "") for r in drawn):
        notes.append(f"Note: {POOLED}.")
    if params:
        notes.append(
            "FDLSR parameters: "
            + ", ".join(f"{k}={v}" for k, v in params.items())
            + "."
        )
    notes += chosen_rules(rows)
    present = {r["method"] for r in rows}
    missing = [m for m in info.get("methods") or [] if m not in present]
    if missing:
        notes.append(
            f"Not computed yet: {', '.join(missing)} (asked for by the commands "
            "below; the same `fdlsr run` command computes what is missing)."
        )
    if info.get("note"):
        notes.append(info["note"])
    written = info.get("commands") or ([info["command"]] if "command" in info else [])
    if command and written:
        notes.append(
            f"Rendered by `{command}` from results written by "
            + "; ".join(f"`{c}`" for c in written)
            + "."
        )
    elif command:
        notes.append(f"Rendered by `{command}`.")
    return notes


def report(args):
    outputs, notices = [], []
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
        command = command_line(args)
        paper = _paper(args.paper, info | {"dataset": info.get("dataset", folder)})
        for (dataset, data), subset in sorted(
            groups.items(), key=lambda item: (item[0][0], item[0][1] or "")
        ):
            title = (
                info.get("title", dataset)
                if info.get("dataset", dataset) == dataset
                else dataset
            )
            if names.count(dataset) > 1:
                title = f"{title or dataset} (data sha256 " + (
                    f"{data[:12]}...)" if data else "not recorded)"
                )
            outputs.append(
                render(
                    summarise(subset),
                    args.format,
                    paper=paper,
                    title=title,
                    notes=_notes(info, subset, command),
                )
            )
    for notice in notices:  # after every check: an error stays one line
        print(f"fdlsr: {notice}", file=sys.stderr)
    emit("\n".join(outputs), args.output, "the report")
    return 0


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
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(
            f"cannot create the figures folder {out}: {reason(error)}; choose "
            "another with --out DIR"
        ) from None
    kinds = (
        ["convergence", "tsne", "sensitivity", "lambda"]
        if args.kind == "all"
        else [args.kind]
    )
    for kind in kinds:
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
        )
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
        info = dataset_info(args.name, args.data_dir)
        for key, value in info.items():
            print(f"{key}: {value}")
        return 0
    print(f"{'name':<18} {'status':<10} description")
    missing = 0
    for entry in list_datasets():
        if entry.get("loader") == "sklearn":
            status = "embedded" if entry["name"] == "digits" else "fetched"
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
