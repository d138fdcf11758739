"""The handlers of the ``fdlsr`` sub-commands: arguments in, library calls, text out.

Part of the command-line layer (``fdlsr.cli`` builds the parser): each handler turns
parsed arguments into calls to the protocol, report, figure and dataset modules.
"""

import os
import shlex
import sys
import time
from pathlib import Path

from ..errors import ConfigError
from ..methods import get_method
from .config import Config, all_methods, load_config, shipped_configs
from .identity import stored_runs
from .protocol import (
    FIXED,
    POOLED,
    Experiment,
    data_warnings,
    experiment_runs,
    run_experiment,
)
from .report import chosen_rules, paper_results, render, summarise
from .results import (
    ResultStore,
    by_data,
    read_info,
    read_store,
    row_key,
    write_atomic,
    write_info,
)


def _split_params(pairs, methods):
    """``[(key, value)]`` from ``--params`` as ``{method: {name: value}}``."""
    out = {}
    for key, value in pairs:
        if "." in key:
            method, name = key.rsplit(".", 1)
        elif len(methods) == 1:
            method, name = methods[0], key
        else:
            raise ConfigError(
                f"--params {key}=...: write METHOD.{key}=VALUE (e.g. FDLSR.{key}) when "
                "several methods are selected"
            )
        out.setdefault(method, {})[name] = value
    return out


def config_from_args(args):
    """The experiment asked for: a config (shipped or file) overridden by the flags."""
    if args.config:
        config = load_config(args.config)
        if args.dataset:
            config.experiment.dataset = args.dataset
    elif args.dataset and args.dataset in shipped_configs():
        config = load_config(args.dataset)
    elif args.dataset:
        config = Config(Experiment(dataset=args.dataset, ks=[], methods=all_methods()))
    else:
        raise ConfigError(
            "say what to run: --dataset NAME (see `fdlsr datasets`) or --config NAME "
            f"(shipped: {', '.join(shipped_configs())})"
        )
    ex = config.experiment
    if getattr(args, "methods", None):
        every = [m.lower() for m in args.methods] == ["all"]
        ex.methods = all_methods() if every else list(args.methods)
        selected = {m.lower() for m in ex.methods}
        ex.params = {m: p for m, p in ex.params.items() if m.lower() in selected}
        ex.cv = [m for m in ex.cv if m.lower() in selected]
    if args.data_dir:
        ex.data_dir = args.data_dir
    if getattr(args, "k", None):
        ex.ks = [args.k] if isinstance(args.k, int) else list(args.k)
    for name in ("splits", "seed", "cv_folds"):
        if getattr(args, name, None) is not None:
            setattr(ex, name, getattr(args, name))
    overridden = _split_params(args.params, ex.methods)
    for method, values in overridden.items():
        ex.params.setdefault(method, {}).update(values)
    # values changed on the command line are no longer the paper's
    changed = {method.lower() for method in overridden}
    ex.paper_params = [m for m in ex.paper_params if m.lower() not in changed]
    if getattr(args, "cv", None) is not None:
        ex.cv = list(args.cv) if args.cv else list(ex.methods)
    if getattr(args, "raw", False):
        ex.normalise = False
    return config


def load(args, experiment):
    """The dataset of the experiment, with the file-layout overrides of the flags."""
    from .datasets import load_dataset

    overrides = {
        name: value
        for name, value in (
            ("x", args.x_var),
            ("y", args.y_var),
            ("samples", args.samples),
        )
        if value is not None
    }
    return load_dataset(experiment.dataset, data_dir=experiment.data_dir, **overrides)


class Progress:
    """A progress bar on a terminal (tqdm); elsewhere (a log file, a pipe) one line on
    stderr when the runs start and one per method and k finished."""

    def __init__(self, label, stream=None):
        self.label = label
        self.bar = None
        self.stream = sys.stderr if stream is None else stream
        self.enabled = self.stream.isatty()
        self.started = time.perf_counter()

    def __call__(self, done, total, what, finished=None):
        if not self.enabled:
            self._log(done, total, what, finished)
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(
                total=total, initial=done, desc=self.label, unit="run", leave=False
            )
        else:
            self.bar.update(done - self.bar.n)
        self.bar.set_postfix_str(what, refresh=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()

    def _log(self, done, total, what, finished):
        if not what:  # the call before the first run
            if done < total:
                print(
                    f"fdlsr: {self.label}: {total - done} runs to compute"
                    + (f" ({done} already stored)" if done else "")
                    + "; a line follows each method finished at each k",
                    file=self.stream,
                    flush=True,
                )
            return
        if finished is None:
            return
        method, k, accuracies = finished
        scores = [100 * a for a in accuracies if a is not None]
        result = (
            f"{sum(scores) / len(scores):.2f}% mean accuracy over {len(scores)} "
            f"split{'s' if len(scores) != 1 else ''}"
            if scores
            else "failed"
        )
        if scores and len(scores) < len(accuracies):
            result += f" ({len(accuracies) - len(scores)} failed)"
        elapsed = time.perf_counter() - self.started
        print(
            f"fdlsr: {self.label}: {method} k={k}: {result} [{done}/{total} runs, "
            f"{elapsed:.0f} s]",
            file=self.stream,
            flush=True,
        )


def run(args):
    config = config_from_args(args)
    ex = config.experiment
    dataset = load(args, ex)
    out = Path(args.out or Path("fdlsr-results") / Path(ex.dataset).stem)
    runs = experiment_runs(ex, dataset)  # checks methods, parameters and k first
    paper = _paper(
        args.paper, {"paper_table": config.paper_table, "dataset": dataset.name}
    )
    _warn(data_warnings(dataset, ex.ks), dataset)
    with ResultStore(out) as store:
        # refuses other data under this name before anything is written
        stored_runs(ex, dataset, runs, store)
        command = _command_line(args) or "fdlsr"
        store.start_session(command)
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
        }
        write_info(out, info)
        progress = Progress(dataset.name)
        try:
            computed = run_experiment(ex, dataset, store, progress, n_jobs=args.jobs)
        finally:
            progress.close()
        keys = {run[0] for run in runs}
        rows = [r for r in store.rows if row_key(r) in keys]
    print(
        f"{computed} runs computed, {len(runs) - computed} already in {out}/results.jsonl "
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


def _paper(option, info):
    if option is None:
        return None
    table = info.get("paper_table") if option == "auto" else option
    if not table:
        raise ConfigError(
            f"the paper has no table for {info.get('dataset')!r}; name one with --paper I "
            "(AR), II (PIE), III (FERET), IV (LFW) or V (COIL-100)"
        )
    return paper_results(table)


def _warn(messages, dataset):
    for message in messages:
        print(f"fdlsr: warning: {dataset.name}: {message}", file=sys.stderr)


def _reason(error):
    """An ``OSError`` in words, e.g. 'Is a directory'."""
    return error.strerror or str(error)


def _command_line(args):
    """The ``fdlsr ...`` command being run (``None`` for bare ``fdlsr``)."""
    argv = getattr(args, "argv", sys.argv[1:])
    return "fdlsr " + shlex.join(argv) if argv else None


def _commands(old, command):
    """Every distinct ``fdlsr run`` command that wrote to a store whose info was
    ``old``, oldest first (a table may combine runs of different methods, k or
    splits)."""
    commands = old.get("commands") or ([old["command"]] if "command" in old else [])
    return commands + ([command] if command not in commands else [])


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
        command = _command_line(args)
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
    text = "\n".join(outputs)
    if args.output:
        try:
            write_atomic(args.output, text)
        except OSError as error:
            raise ConfigError(
                f"cannot write the report to {args.output}: {_reason(error)}; give "
                "the path of a file in an existing folder with -o FILE"
            ) from None
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        print(text, end="")
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
    _warn(data_warnings(dataset, []), dataset)  # the figures have no fixed-split mode
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(
            f"cannot create the figures folder {out}: {_reason(error)}; choose "
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
