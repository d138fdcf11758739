"""What the ``fdlsr`` sub-command handlers share: the experiment and the data that
the parsed arguments ask for, the paper's rows for a table, and the few ways a handler
speaks (a data warning, an ``OSError`` in words, the command line being run, output to
``-o FILE`` or stdout).
"""

import shlex
import sys
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ...errors import ConfigError, FdlsrError, one_line
from ..config import Config, all_methods, load_config, shipped_configs
from ..datasets import check_classes, dataset_info, load_dataset
from ..outputs import write_atomic
from ..planning import Experiment
from ..report import PAPER_TABLES, paper_results


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
    changed = {method.lower() for method in overridden}
    if getattr(args, "cv", None) is not None:
        ex.cv = list(args.cv) if args.cv else list(ex.methods)
        # A method the command line tunes is searched over its whole grid: the
        # config's fixed values of it no longer apply (only --params fixes a
        # parameter during the search), so that --cv FDLSR is the paper's search.
        tuned = {name.lower() for name in ex.cv}
        ex.params = {m: p for m, p in ex.params.items() if m.lower() not in tuned}
        changed |= tuned
    for method, values in overridden.items():
        ex.params.setdefault(method, {}).update(values)
    # values changed on the command line are no longer the paper's
    ex.paper_params = [m for m in ex.paper_params if m.lower() not in changed]
    if getattr(args, "cv_rules", False):
        ex.cv_rules = True
    if getattr(args, "raw", False):
        ex.normalize = False
    if getattr(args, "standardize", False):
        ex.standardize = True
    return config


def config_file(args):
    """The config file a command reads (``--config PATH``), or None (a shipped one)."""
    config = getattr(args, "config", None)
    return None if not config or config in shipped_configs() else Path(config)


def dataset_file(name, data_dir=None):
    """The file or folder that a dataset name or path reads, or None when there is
    none (yet): a name the registry does not know, a missing file, scikit-learn's."""
    path = Path(name).expanduser()
    if path.exists():
        return path
    try:
        found = dataset_info(name, data_dir).get("path")
    except FdlsrError:
        return None
    return Path(found) if found else None


def config_speaks_of(args, dataset):
    """Whether the config's title, note and paper table describe ``dataset``: not
    when ``--dataset`` replaced the config's own data set by other data (a file
    named after it, such as ``feret.mat`` for ``feret``, is taken to be it)."""
    if not (args.config and args.dataset):
        return True
    own = load_config(args.config).experiment.dataset
    if Path(own).stem == Path(dataset.name).stem:
        return True
    theirs = dataset_file(own, args.data_dir)
    if theirs is None or dataset.path is None:
        return False
    return theirs.resolve() == Path(dataset.path).resolve()


# The data options a command may offer: the parsed argument's name and the loader's
# keyword (datasets/_options.py declares the inputs each applies to).
DATA_ARGUMENTS = {
    "x_var": "x",
    "y_var": "y",
    "samples": "samples",
    "resize": "resize",
    "data_dir": "data_dir",
}


def data_options(args):
    """The data options given to a command, as the loader's keywords (those the
    command does not offer or that were not given left out): every command hands
    them all to the loader, which refuses those that do not apply to the data."""
    return {
        keyword: getattr(args, name)
        for name, keyword in DATA_ARGUMENTS.items()
        if getattr(args, name, None) is not None
    }


def load(args, experiment):
    """The dataset of the experiment, with the data options of the flags (the data
    folder may come from the config); data of fewer than two classes is refused."""
    options = dict(data_options(args), data_dir=experiment.data_dir)
    dataset = load_dataset(experiment.dataset, **options)
    check_classes(dataset.y, dataset.name)  # every command that loads data trains
    return dataset


def warn(messages, dataset):
    for message in messages:
        print(f"fdlsr: warning: {dataset.name}: {message}", file=sys.stderr)


def reason(error):
    """An ``OSError`` in words, e.g. 'Is a directory'."""
    return error.strerror or str(error)


def command_line(args):
    """The ``fdlsr ...`` command being run (``None`` for bare ``fdlsr``)."""
    argv = getattr(args, "argv", sys.argv[1:])
    return "fdlsr " + shlex.join(argv) if argv else None


def emit(text, output, what):
    """Write ``text`` to the file ``output`` (``-o``), or print it when there is none."""
    if not output:
        print(text, end="")
        return
    try:
        write_atomic(output, text)
    except OSError as error:
        raise ConfigError(
            f"cannot write {what} to {output}: {reason(error)}; give the path of a "
            "file in an existing folder with -o FILE"
        ) from None
    print(f"wrote {output}", file=sys.stderr)


@contextmanager
def method_refusals(what):
    """Turn a method's own refusal of the data (scikit-learn's ``ValueError``, a
    singular matrix) inside the block into one line naming ``what`` was being done."""
    try:
        yield
    except FdlsrError:
        raise
    except (ValueError, np.linalg.LinAlgError) as error:
        raise ConfigError(
            f"{what}: {one_line(error).rstrip('.')}; choose other --params, another "
            "method or more data"
        ) from None


def paper_rows(option, info):
    """The paper's rows of ``--paper [TABLE]`` (``"auto"``: the table ``info`` names),
    or None without the option; ``info`` holds ``paper_table`` and ``dataset``."""
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


def tables_papers(option, tables):
    """The paper's rows for each :class:`~fdlsr.experiments.result_tables.ResultTable`
    of ``--paper [TABLE]``, and a note when they are forced on it: ``[(rows or None,
    note or None), ...]``.

    ``--paper`` alone gives each data set the paper's table that its config names
    (an error if none does); ``--paper TABLE`` puts that table under every one, with
    a note where it is not the data set's own.
    """
    if option is None:
        return [(None, None)] * len(tables)
    out = []
    for table in tables:
        dataset, own = table.dataset, table.info.get("paper_table")
        name = own if option == "auto" else option
        if not name:
            out.append((None, None))
            continue
        rows = paper_rows(name, {"dataset": dataset})
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
        paper_rows(option, {"dataset": tables[0].dataset})  # raises: no table anywhere
    return out
