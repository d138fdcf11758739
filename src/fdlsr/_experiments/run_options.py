"""When each option of ``fdlsr run`` applies; an option given where it does not is
refused.

An option that does not apply to the run it is given with (``--cv-folds`` without
``--cv``, ``--splits`` with ``-k fixed`` alone) would be ignored, and the user would
believe it had been applied. Every option of ``fdlsr run`` is therefore declared here
once, in :data:`RUN_OPTIONS`, with what it does and when it applies (the data options
as the loader declares them, :mod:`fdlsr.datasets._options`), and
:func:`refuse_inapplicable` refuses, in one line naming the option, when it applies
and the fix, the first option given whose condition the request does not meet,
before anything is read or run.
"""

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import ConfigError
from .splits import FIXED


@dataclass(frozen=True)
class RunContext:
    """What an option's condition looks at: the resolved ``experiment``
    (:class:`.planning.Experiment`), the worker processes ``jobs``, the dask
    ``scheduler`` address (or None) and whether the ``table`` is printed."""

    experiment: object
    jobs: int
    scheduler: str | None
    table: bool


@dataclass(frozen=True)
class RunOption:
    """An option of ``fdlsr run``: its ``flag``, what it ``does`` (completes "it
    ..."), and when it applies: ``applies`` (None: always) and the same in words,
    ``when``, with the ``fix`` for a request that does not meet it."""

    flag: str
    does: str
    applies: Callable[[RunContext], bool] | None = None
    when: str = ""
    fix: str = ""


def _random_splits(context):
    ks = context.experiment.ks
    return not ks or any(k != FIXED for k in ks)  # none: the data decide (fixed or -k)


def _tuned(context):
    """Whether cross-validation chooses a parameter of a method: one named by --cv
    (or a config's cv) with a parameter of its grid that --params leaves free."""
    return any(chosen.tuned for chosen in context.experiment.resolved())


def _several_at_once(context):
    return context.jobs > 1 or context.scheduler is not None


_TUNED = (
    "when cross-validation chooses a parameter (--cv, or a config's cv list, names a "
    "method with a parameter of its grid left free)"
)

# The data options apply to the inputs that the loader declares
# (fdlsr.datasets._options.DATA_OPTIONS); it refuses them elsewhere.
_LOADER = "is handed to the data loader, which refuses it where it does not apply"

RUN_OPTIONS = {
    dest: option
    for dest, option in (
        ("dataset", RunOption("--dataset", "names the data set")),
        ("config", RunOption("--config", "names the experiment's config")),
        ("data_dir", RunOption("--data-dir", _LOADER)),
        ("x_var", RunOption("--x", _LOADER)),
        ("y_var", RunOption("--y", _LOADER)),
        ("samples", RunOption("--samples", _LOADER)),
        ("resize", RunOption("--resize", _LOADER)),
        ("methods", RunOption("--methods", "chooses the methods")),
        ("k", RunOption("-k", "gives the training samples per class")),
        ("splits", RunOption(
            "--splits", "sets the random splits drawn for each -k that is a number",
            _random_splits, "with a -k that is a number of samples per class",
            "-k fixed runs the data set's own split once: leave --splits out",
        )),
        ("seed", RunOption("--seed", "seeds the splits and the methods")),
        ("params", RunOption("--params", "fixes parameters of the methods")),
        ("cv", RunOption(
            "--cv", "chooses parameters by cross-validation", _tuned, _TUNED,
            "name a method with a grid that --params does not fix whole (see `fdlsr "
            "methods`), or leave --cv out",
        )),
        ("cv_rules", RunOption(
            "--cv-rules", "lets cross-validation choose the decision rule too",
            _tuned, _TUNED, "add --cv METHOD, or leave --cv-rules out",
        )),
        ("cv_folds", RunOption(
            "--cv-folds", "sets the inner folds of the cross-validation of --cv",
            _tuned, _TUNED, "add --cv METHOD, or leave --cv-folds out",
        )),
        ("raw", RunOption("--raw", "leaves the samples as they are")),
        ("standardize", RunOption("--standardize", "standardises the columns")),
        ("jobs", RunOption("--jobs", "sets the worker processes")),
        ("scheduler", RunOption("--scheduler", "computes on a dask cluster")),
        ("order", RunOption(
            "--order", "orders the start of runs computed at once",
            _several_at_once,
            "when several runs are computed at once (--jobs N above 1, or --scheduler)",
            "one at a time they run in the plan's order: add --jobs N, or leave --order "
            "out",
        )),
        ("out", RunOption("--out", "names the results folder")),
        ("paper", RunOption(
            "--paper", "puts the paper's numbers beside ours in the table",
            lambda context: context.table, "when the table is printed",
            "leave --paper or --no-table out",
        )),
        ("no_table", RunOption("--no-table", "leaves the table out")),
    )
}  # fmt: skip


def refuse_inapplicable(given, context):
    """Refuse the first option of ``given`` (``{dest: value}`` of the options on
    the command line, as the parser names them) that does not apply in ``context``
    (a :class:`RunContext`).

    Raises
    ------
    fdlsr.errors.ConfigError
        Naming the option with its value, when it applies, what it does and the fix.
    """
    for dest, value in given.items():
        option = RUN_OPTIONS[dest]
        if option.applies is None or option.applies(context):
            continue
        shown = _shown(value)
        raise ConfigError(
            f"{option.flag}{f' {shown}' if shown else ''} applies {option.when}: it {option.does}; "
            f"{option.fix}"
        )


def _shown(value):
    """An option's value as the command line gave it ("" for a flag)."""
    if value is True:
        return ""
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value))
    return str(value)
