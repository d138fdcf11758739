"""Every option of ``fdlsr run`` is declared with when it applies; one given where it
does not is refused in one line (exit 2) before anything is read or run."""

import argparse

import pytest

from fdlsr._experiments.cli import main
from fdlsr._experiments.parser import build_parser
from fdlsr._experiments.run_options import RUN_OPTIONS
from fdlsr._testing import cli_error

RUN = ["run", "--dataset", "digits", "--methods", "LSR", "--no-table"]


def run_parser():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["run"]


def test_every_option_of_run_is_declared():
    """A new option of ``fdlsr run`` cannot skip the declaration."""
    dests = {
        action.dest
        for action in run_parser()._actions
        if not isinstance(action, argparse._HelpAction)
    }
    assert dests == set(RUN_OPTIONS)
    for dest, option in RUN_OPTIONS.items():
        flags = next(a for a in run_parser()._actions if a.dest == dest).option_strings
        assert option.flag in flags
        assert option.applies is None or (option.when and option.fix)


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["-k", "2", "--cv-folds", "2"], "--cv-folds 2 applies when cross-valid"),
        (["-k", "2", "--cv-rules"], "--cv-rules chooses the decision rule"),
        (["-k", "fixed", "--splits", "3"], "--splits 3 applies with a -k that is a"),
        (["-k", "2", "--order", "plan"], "--order plan applies when several runs"),
        (["-k", "2", "--paper"], "--paper auto applies when the table is printed"),
        (
            ["-k", "2", "--cv", "LSR", "--params", "LSR.lam=0.1", "--cv-folds", "2"],
            "--cv LSR applies when cross-validation chooses a parameter",
        ),
        (["-k", "2", "--methods", "1-NN", "--cv"], "--cv applies when cross-valid"),
    ],
)
def test_an_option_that_does_not_apply_is_refused(capsys, tmp_path, argv, expected):
    out = tmp_path / "out"
    line = cli_error(capsys, [*RUN, *argv, "--out", str(out)])
    assert expected in line and ("leave" in line or "add --cv" in line)
    assert not out.exists()


def test_the_options_are_taken_where_they_apply(tmp_path, capsys):
    argv = ["-k", "2", "--splits", "1", "--cv", "LSR", "--cv-folds", "2"]
    assert main([*RUN, *argv, "--out", str(tmp_path / "out")]) == 0
    assert "1 runs computed" in capsys.readouterr().err
