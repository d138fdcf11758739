"""``fdlsr run``: the parsed arguments as one :class:`~..run.RunRequest`, run by
:func:`~..run.run` (the function a Python program calls)."""

from ..config import load_config, resolve_config
from ..run import RunRequest, run
from ..run_options import RUN_OPTIONS, RunContext, refuse_inapplicable
from .shared import command_line, data_options


def main(args):
    """``fdlsr run``: plan, compute what the store lacks, print the table."""
    run(run_request(args))
    return 0


def run_request(args):
    """The :class:`~..run.RunRequest` of the parsed arguments of ``fdlsr run``."""
    config = resolve_config(
        args.config,
        args.dataset,
        data_dir=args.data_dir,
        methods=args.methods,
        ks=args.k,
        splits=args.splits,
        seed=args.seed,
        cv_folds=args.cv_folds,
        params=args.params,
        cv=args.cv,
        cv_rules=args.cv_rules,
        raw=args.raw,
        standardize=args.standardize,
    )
    # an option given where it does not apply is refused, never ignored
    given = {
        dest: getattr(args, dest)
        for dest in RUN_OPTIONS
        if getattr(args, dest) is not None and getattr(args, dest) is not False
    }
    context = RunContext(
        config.experiment, args.jobs, args.scheduler, table=not args.no_table
    )
    refuse_inapplicable(given, context)
    replaced = args.config and args.dataset
    return RunRequest(
        config,
        data=data_options(args),
        jobs=args.jobs,
        scheduler=args.scheduler,
        order=args.order,
        out=args.out,
        paper=args.paper,
        table=not args.no_table,
        command=command_line(args),
        config_name=args.config,
        config_dataset=load_config(args.config).experiment.dataset
        if replaced
        else None,
        overridden=_overridden(args),
        overrides_all=_overrides_all(args),
    )


def _overridden(args):
    """The methods (lower case) whose settings ``--cv NAME`` or ``--params
    NAME.KEY=VALUE`` change from the config's."""
    named = {key.rpartition(".")[0] for key, _ in args.params}
    return frozenset(name.lower() for name in [*(args.cv or []), *named] if name)


def _overrides_all(args):
    """Whether the command line changes every method's settings from the config's:
    ``--raw``, ``--cv-folds``, ``--cv-rules``, ``--cv`` alone or ``--params
    KEY=VALUE``."""
    every = any(not key.rpartition(".")[0] for key, _ in args.params)
    return bool(args.raw or args.cv_folds or args.cv_rules or args.cv == [] or every)
