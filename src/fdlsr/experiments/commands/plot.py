"""``fdlsr plot``: the paper's figures 1-4 for a data set."""

import sys
from pathlib import Path

from ...errors import ConfigError
from ...methods import get_method
from .. import progress
from ..outputs import check_output
from ..samples import data_warnings
from .shared import config_file, config_from_args, load, method_refusals, reason, warn


def main(args):
    """``fdlsr plot``: draw the figures asked for into ``--out``."""
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
