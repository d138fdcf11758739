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


class Bar:
    """A progress line on stderr: redrawn in place on a terminal, else a line per 10%."""

    def __init__(self, label, stream=None):
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self.tty = self.stream.isatty()
        self.started = time.perf_counter()
        self.shown = -1

    def __call__(self, done, total):
        tenth = 10 * done // max(total, 1)
        if not self.tty and tenth == self.shown:
            return
        self.shown = tenth
        elapsed = time.perf_counter() - self.started
        filled = 30 * done // max(total, 1)
        line = (
            f"fdlsr: {self.label} [{'#' * filled}{'.' * (30 - filled)}] "
            f"{done}/{total} images, {elapsed:.0f} s"
        )
        print(("\r" + line) if self.tty else line, end="" if self.tty else "\n",
              file=self.stream, flush=True)  # fmt: skip

    def close(self):
        if self.tty and self.shown >= 0:
            print(file=self.stream, flush=True)


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
    _emit("\n".join(outputs), args.output, "the report")
    return 0


def _emit(text, output, what):
    """Write ``text`` to the file ``output`` (``-o``), or print it when there is none."""
    if not output:
        print(text, end="")
        return
    try:
        write_atomic(output, text)
    except OSError as error:
        raise ConfigError(
            f"cannot write {what} to {output}: {_reason(error)}; give the path of a "
            "file in an existing folder with -o FILE"
        ) from None
    print(f"wrote {output}", file=sys.stderr)


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


def fit(args):
    """``fdlsr fit``: one method trained on every sample of a dataset, then saved."""
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import Normalizer

    from .persistence import save
    from .protocol import run_random_state, seeded

    args.methods = [args.method]
    ex = config_from_args(args).experiment
    ((method, params, tuned),) = ex.resolved()  # name and parameters, checked first
    out = _model_path(args.out)
    dataset = load(args, ex)
    _warn(data_warnings(dataset, []), dataset)
    if tuned:
        print(
            f"fdlsr: note: fit does not cross-validate; {method.name} is fitted with "
            "its fixed settings (choose others with --params)",
            file=sys.stderr,
        )
    estimator = method.build(**seeded(method, params, run_random_state(ex.seed, 0)))
    # The protocol's unit normalisation goes into the model, so that it takes raw
    # samples (scikit-learn's Normalizer: the same up to rounding as protocol.unit_rows).
    model = (
        Pipeline([("normalizer", Normalizer()), ("classifier", estimator)])
        if ex.normalise
        else estimator
    )
    started = time.perf_counter()
    model.fit(dataset.X, dataset.y)
    elapsed = time.perf_counter() - started
    save(model, out)
    settings = estimator.get_params(deep=False)
    shown = ", ".join(f"{k}={settings[k]}" for k in {**method.params, **params})
    print(
        f"wrote {out}: {method.name}"
        + (f" ({shown})" if shown else "")
        + f" fitted in {elapsed:.1f} s on all {len(dataset.y)} samples of "
        f"{dataset.name} ({len(set(dataset.y.tolist()))} classes, "
        f"{dataset.X.shape[1]} features"
        + (", unit-normalised by the model)" if ex.normalise else ", raw)"),
        file=sys.stderr,
    )
    return 0


def _model_path(path):
    """``-o MODEL`` of ``fdlsr fit``, refused before any work if it cannot be written."""
    out = Path(path)
    if out.is_dir():
        raise ConfigError(
            f"-o {out} is a folder; give the path of the model file to write, e.g. "
            f"{out / 'model.fdlsr'}"
        )
    if out.exists() and not out.is_file():
        raise ConfigError(
            f"-o {out} exists and is not a regular file; give the path of a model file"
        )
    if not out.parent.is_dir():
        raise ConfigError(
            f"cannot write the model to {out}: the folder {out.parent} does not exist; "
            "create it or choose another -o"
        )
    return out


def predict(args):
    """``fdlsr predict``: a saved model's labels for the samples of a dataset."""
    import csv
    import io

    import numpy as np

    from .persistence import load as load_model

    model = load_model(args.model)
    X, y, name = _prediction_data(args)
    expected = getattr(model, "n_features_in_", None)
    if expected is not None and X.shape[1] != expected:
        raise ConfigError(
            f"{args.model} was fitted on samples of {expected} features; {name} has "
            f"{X.shape[1]}: give data of the same kind (or --samples columns if its "
            "samples are columns)"
        )
    predicted = model.predict(X)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["index", "prediction"] + (["label"] if y is not None else []))
    for i, label in enumerate(predicted.tolist()):
        writer.writerow([i, label] + ([y[i].item()] if y is not None else []))
    _emit(text.getvalue(), args.output, "the predictions")
    if y is not None:
        right = int(np.sum(predicted == y))
        print(
            f"accuracy {100 * right / len(y):.2f}% ({right} of {len(y)} samples of "
            f"{name})",
            file=sys.stderr,
        )
    return 0


def _prediction_data(args):
    """``(X, y or None, name)`` of ``fdlsr predict DATA``: a ``.npy`` file holds
    samples only; anything else is loaded as ``fdlsr run --dataset`` loads it."""
    import numpy as np

    from ..errors import DatasetError
    from .datasets import load_dataset

    path = Path(args.data)
    if path.suffix.lower() != ".npy":
        overrides = {"x": args.x_var, "y": args.y_var, "samples": args.samples}
        dataset = load_dataset(
            args.data,
            data_dir=args.data_dir,
            **{k: v for k, v in overrides.items() if v is not None},
        )
        return dataset.X, dataset.y, dataset.name
    try:
        X = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise DatasetError(f"file not found: {path}; check the path") from None
    except (ValueError, OSError, EOFError) as error:
        raise DatasetError(
            f"cannot read {path} as a .npy array of samples ({_reason(error)}); save "
            "the samples with numpy.save, one per row"
        ) from None
    if X.ndim not in (1, 2) or X.dtype.kind not in "biuf":
        raise DatasetError(
            f"{path} holds a {X.ndim}-dimensional {X.dtype} array; give numbers, one "
            "sample per row"
        )
    X = np.atleast_2d(X).astype(np.float64)
    return (X.T if args.samples == "columns" else X), None, path.name
