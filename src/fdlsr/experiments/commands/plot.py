"""``fdlsr plot``: the paper's figures 1-4 for a data set, or the comparison of the
methods of results folders (``fdlsr plot results STORE ...``)."""

import sys
from pathlib import Path

from ...errors import ConfigError
from ...methods import get_method
from .. import progress
from ..outputs import check_output
from ..samples import data_warnings
from .shared import (
    config_file,
    config_from_args,
    load,
    method_refusals,
    reason,
    tables_papers,
    warn,
)

# What only the paper's figures take (a data set to compute on), not `plot results`.
_DATA_OPTIONS = {
    "dataset": "--dataset",
    "config": "--config",
    "data_dir": "--data-dir",
    "x_var": "--x",
    "y_var": "--y",
    "samples": "--samples",
    "resize": "--resize",
    "k": "-k",
    "methods": "--methods",
}


def main(args):
    """``fdlsr plot``: draw the figures asked for into ``--out``."""
    if args.kind == "results":
        return _results(args)
    if args.stores:
        raise ConfigError(
            f"fdlsr plot {args.kind} computes its figure from a data set (--config or "
            f"--dataset), not from results folders ({args.stores[0]}); to compare "
            "the methods of results folders, write fdlsr plot results STORE"
        )
    if args.paper is not None:
        raise ConfigError(
            "--paper adds the paper's numbers to fdlsr plot results; the paper's "
            "figures 1-4 have none to add"
        )
    from .. import figures  # matplotlib: only when drawing

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
        bar = progress.Bar(
            f"{kind} figure of {dataset.name}",
            unit="steps",
            delay=progress.QUIET_SECONDS,  # read here: a test sets it
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
                normalize=ex.normalize,
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


def _results(args):
    """``fdlsr plot results STORE ...``: per data set of the pooled stores, the
    accuracy against k and against training time (:mod:`..result_plots`)."""
    if not args.stores:
        raise ConfigError(
            "fdlsr plot results needs the results folders to draw from: fdlsr plot "
            "results STORE [STORE ...] --out DIR"
        )
    given = [flag for name, flag in _DATA_OPTIONS.items() if getattr(args, name, None)]
    if given or args.params:
        raise ConfigError(
            f"{(given or ['--params'])[0]} is for the paper's figures 1-4; fdlsr plot "
            "results draws only what the results folders hold"
        )
    from .. import result_plots  # matplotlib: only when drawing
    from ..result_tables import pooled_tables

    tables, notices = pooled_tables(args.stores)
    papers = tables_papers(args.paper, tables)
    out = Path(args.out)
    for path in result_plots.paths(tables, out):
        check_output(path, inputs=args.stores, option="--out")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(
            f"cannot create the figures folder {out}: {reason(error)}; choose "
            "another with --out DIR"
        ) from None
    for notice in notices:
        print(f"fdlsr: {notice}", file=sys.stderr)
    written = result_plots.write(tables, [rows for rows, _ in papers], out)
    for path in written:
        print(f"wrote {path}", file=sys.stderr)
    return 0
