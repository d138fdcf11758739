"""Every sub-command given bad arguments: exit status 2 and one line, no traceback.

Missing, of the wrong type, out of range, an output that cannot be written, a path of
the wrong kind. ``FILE`` is an existing file, ``DIR`` an empty folder and ``RESULTS``
a results folder; the expected text is part of the one line.
"""

import subprocess
import sys

import pytest

from fdlsr.experiments.cli import main

RUN = ["run", "--dataset", "digits", "--methods", "1-NN", "-k", "2", "--splits", "1"]
PLOT = ["plot", "convergence", "--dataset", "digits", "-k", "2"]

CASES = [
    # run
    (["run"], "say what to run"),
    (["run", "--dataset"], "expected one argument"),
    (["run", "--bogus"], "unrecognized arguments: --bogus"),
    ([*RUN, "--seed", "abc"], "'abc' is not a seed"),
    ([*RUN, "--seed", "-1"], "'-1' is not a seed"),
    ([*RUN, "--seed", "1.5"], "'1.5' is not a seed"),
    ([*RUN, "--splits", "0"], "'0' is not a number of splits"),
    ([*RUN, "--cv-folds", "1"], "'1' is not a number of folds"),
    ([*RUN, "-k", "0"], "'0' is not a number of samples per class"),
    ([*RUN, "-k", "two"], "'two' is not a number of samples per class"),
    ([*RUN, "-k", "500"], "k=500"),
    ([*RUN, "--methods", "Nope"], "unknown method 'Nope'"),
    ([*RUN, "--out", "FILE"], "is not a results store: it is a file"),
    ([*RUN, "--out", "FILE/sub"], "Not a directory"),
    (["run", "--dataset", "DIR", "-k", "1"], "no images found"),
    (["run", "--dataset", "DIR/missing.mat", "-k", "1"], "file not found"),
    # report
    (["report"], "required: results"),
    (["report", "DIR/nothing"], "no results in DIR/nothing:"),
    (["report", "DIR"], "no results in DIR:"),
    (["report", "FILE"], "is not a results store"),
    (["report", "RESULTS", "-o", "DIR"], "Is a directory"),
    (["report", "RESULTS", "-o", "DIR/no/such.md"], "No such file or directory"),
    (["report", "RESULTS", "--format", "doc"], "invalid choice: 'doc'"),
    (["report", "RESULTS", "--paper", "IX"], "unknown paper table 'IX'"),
    # plot
    (["plot"], "required: kind"),
    (["plot", "bogus"], "invalid choice: 'bogus'"),
    (["plot", "convergence"], "say what to run"),
    ([*PLOT, "-k", "0"], "'0' is not a number of samples per class"),
    ([*PLOT, "-k", "abc"], "'abc' is not a number of samples per class"),
    ([*PLOT, "--seed", "-3"], "'-3' is not a seed"),
    ([*PLOT, "--classes", "0"], "'0' is not a number of classes"),
    ([*PLOT, "--splits", "x"], "'x' is not a number of splits"),
    ([*PLOT, "--out", "FILE"], "cannot create the figures folder"),
    ([*PLOT, "--out", "FILE/x"], "Not a directory"),
    # datasets
    (["datasets", "info"], "name the dataset"),
    (["datasets", "bogus"], "invalid choice: 'bogus'"),
    (["datasets", "info", "no_such"], "unknown data set 'no_such'"),
    (["datasets", "info", "DIR/missing.mat"], "file not found"),
    (["datasets", "info", "FILE"], "single column"),
    (["datasets", "--data-dir", "FILE"], "is not a folder"),
    # methods, and the command itself
    (["methods", "extra"], "unrecognized arguments: extra"),
    (["bogus"], "invalid choice: 'bogus'"),
    (["--bogus"], "unrecognized arguments: --bogus"),
]


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    (root / "file.txt").write_text("x")
    (root / "empty").mkdir()
    results = root / "results"
    assert main([*RUN, "--out", str(results), "--no-table"]) == 0
    return {"FILE": root / "file.txt", "DIR": root / "empty", "RESULTS": results}


def fill(text, paths):
    for name, path in paths.items():
        text = text.replace(name, str(path))
    return text


@pytest.mark.parametrize(
    "argv, expected", CASES, ids=[" ".join(argv) for argv, _ in CASES]
)
def test_bad_arguments_exit_2_with_one_line(argv, expected, paths, capsys):
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        main([fill(arg, paths) for arg in argv])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fdlsr: error: "), err
    assert fill(expected, paths) in lines[0]
    assert "Traceback" not in err and "np." not in err


def test_the_installed_command_prints_one_line(paths, tmp_path):
    argv = ["report", str(paths["RESULTS"]), "-o", str(paths["DIR"])]
    result = subprocess.run(
        [sys.executable, "-m", "fdlsr", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fdlsr: error: "), result.stderr
