"""``fdlsr plot``: the paper's figures 1-4 for a data set, or the comparison of the
methods of results folders (``fdlsr plot results STORE ...``)."""

import sys
from dataclasses import dataclass
from pathlib import Path

from ...errors import ConfigError
from .. import progress
from ..config import Config, resolve_config
from ..outputs import check_output
from ..planning import DataOptions, load_data
from ..registry import get_method
from ..report import tables_papers
from ..samples import data_warnings, warn
from .shared import data_options, method_refusals, reason

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
FIGURES = ("convergence", "tsne", "sensitivity", "lambda")


@dataclass(frozen=True)
class FigureRequest:
    """What ``fdlsr plot KIND`` (the paper's figures 1-4) is asked for.

    ``kinds``: the figures to draw; ``config``: the data set (and its figures'
    ``k``); ``params``: FDLSR's parameters (the config's, then ``--params``,
    checked); ``sensitivity_beta``: the beta of the sensitivity figure (``--params
    beta=...``, else 1e-2); ``k``: ``-k`` (default: the config's figures ``k``,
    else its largest ``k``); ``methods``: t-SNE's besides FDLSR.
    """

    kinds: tuple
    config: Config
    data: DataOptions
    params: dict
    sensitivity_beta: float
    k: int | None
    seed: int
    splits: int
    classes: int
    methods: list | None
    out: Path
    force: bool = False


@dataclass(frozen=True)
class ResultsPlotRequest:
    """What ``fdlsr plot results`` is asked for: the ``stores`` to pool, the paper's
    table (``--paper [TABLE]``), the folder to write to and whether files of the
    figures' names that fdlsr did not write may be replaced (``--force``)."""

    stores: tuple
    paper: str | None
    out: Path
    force: bool = False


def main(args):
    """``fdlsr plot``: draw the figures asked for into ``--out``."""
    if args.kind == "results":
        plot_results(_results_request(args))
    else:
        plot_figures(_figure_request(args))
    return 0


def _figure_request(args):
    """The :class:`FigureRequest` of ``fdlsr plot KIND``'s arguments; refuses the
    options of ``fdlsr plot results`` and parameters that are not FDLSR's."""
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
    given = _fdlsr_params(args.params)
    # --methods here names t-SNE's other methods: the config's methods stay
    config = resolve_config(args.config, args.dataset, data_dir=args.data_dir)
    params = {**config.experiment.params.get("FDLSR", {}), **given}
    get_method("FDLSR").check(params)  # before loading or drawing anything
    return FigureRequest(
        kinds=FIGURES if args.kind == "all" else (args.kind,),
        config=config,
        data=data_options(args),
        params=params,
        sensitivity_beta=given.get("beta", 1e-2),
        k=args.k,
        seed=args.seed,
        splits=args.splits,
        classes=args.classes,
        methods=args.methods,
        out=Path(args.out),
        force=args.force,
    )


def plot_figures(request):
    """Draw the paper's figures of ``request`` into its folder."""
    from .. import figures  # matplotlib: only when drawing

    config = request.config
    ex = config.experiment
    dataset = load_data(ex, request.data)
    k = request.k or config.figures.get("k") or (max(ex.ks) if ex.ks else None)
    if k is None:
        raise ConfigError("give the training size of the figures with -k K")
    warn(data_warnings(dataset, []), dataset)  # the figures have no fixed-split mode
    out = request.out
    for kind in request.kinds:
        for path in figures.paths(kind, dataset.name, out):
            check_output(
                path,
                inputs=[dataset.path, config.path],
                option="--out",
                force=request.force,
            )
    _make_folder(out)
    for kind in request.kinds:
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
                params=request.params,
                seed=request.seed,
                out=out,
                n_classes=request.classes,
                methods=request.methods,
                normalize=ex.normalize,
                sensitivity_beta=request.sensitivity_beta,
                lambda_splits=request.splits,
                progress=bar,
            )
        bar.close()
        for path in paths:
            print(f"wrote {path}", file=sys.stderr)


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


def _results_request(args):
    """The :class:`ResultsPlotRequest` of ``fdlsr plot results``'s arguments; refuses
    what only the paper's figures take."""
    if not args.stores:
        raise ConfigError(
            "fdlsr plot results needs the results folders to draw from: fdlsr plot "
            "results STORE [STORE ...] --out DIR"
        )
    given = [flag for name, flag in _DATA_OPTIONS.items() if vars(args)[name]]
    if given or args.params:
        raise ConfigError(
            f"{(given or ['--params'])[0]} is for the paper's figures 1-4; fdlsr plot "
            "results draws only what the results folders hold"
        )
    return ResultsPlotRequest(
        stores=tuple(args.stores),
        paper=args.paper,
        out=Path(args.out),
        force=args.force,
    )


def plot_results(request):
    """Per data set of the pooled stores of ``request``, the accuracy against k and
    against training time (:mod:`..result_plots`)."""
    from .. import result_plots  # matplotlib: only when drawing
    from ..result_tables import pooled_tables

    tables, notices = pooled_tables(request.stores)
    papers = tables_papers(request.paper, tables)
    for path in result_plots.paths(tables, request.out):
        check_output(
            path,
            inputs=request.stores,
            option="--out",
            force=request.force,
        )
    _make_folder(request.out)
    for notice in notices:
        print(f"fdlsr: {notice}", file=sys.stderr)
    written = result_plots.write(tables, [rows for rows, _ in papers], request.out)
    for path in written:
        print(f"wrote {path}", file=sys.stderr)


def _make_folder(out):
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(
            f"cannot create the figures folder {out}: {reason(error)}; choose "
            "another with --out DIR"
        ) from None
