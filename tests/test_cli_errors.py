"""Every sub-command given bad arguments: exit status 2 and one line, no traceback.

Missing, of the wrong type, out of range, an output that cannot be written, a path of
the wrong kind. ``FILE`` is an existing file, ``DIR`` an empty folder and ``RESULTS``
a results folder; the expected text is part of the one line.
"""

import importlib
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fdlsr._experiments.cli import main
from fdlsr._testing import cli
from fdlsr.errors import ConfigError

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
    ([*RUN, "--methods", "all", "LSR"], "--methods all stands alone"),
    ([*RUN, "-k", "2", "3", "2"], "name k=2 twice; name each k once"),
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


# A character that would end or redraw a line: control characters, DEL, the C1
# controls, Unicode's line and paragraph separators.
BREAKS = st.sampled_from(["\n", "\r", "\x1b[2J", "\t", "\x7f", "\x85", "\u2028"])


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    before=st.text(alphabet="ab", max_size=3),
    breaks=st.lists(BREAKS, min_size=1, max_size=3),
)
def test_a_name_with_control_characters_is_quoted_on_one_line(before, breaks):
    """A user folder, and an image, whose names hold a line break: the refusal
    escapes it (as Python writes it) and stays one line."""
    name = before + "".join(breaks) + "x"
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root) / name
        folder.mkdir()
        (folder / "mine.txt").write_text("the user's")
        status, _, err = cli([*RUN, "--out", str(folder), "--no-table"])
        lines = err.strip().splitlines()
        assert status == 2 and len(lines) == 1, err
        assert repr(name)[1:-1] in lines[0] and "is not a results store" in lines[0]
        assert sorted(p.name for p in folder.iterdir()) == ["mine.txt"]

        images = Path(root) / "images"
        for label in ("a", "b"):
            (images / label).mkdir(parents=True)
            (images / label / "0.png").write_bytes(b"not an image")
        (images / "a" / "0.png").rename(images / "a" / f"{name}.png")
        status, _, err = cli(["run", "--dataset", str(images), "-k", "1"])
        lines = err.strip().splitlines()
        assert status == 2 and len(lines) == 1, err
        assert f"{repr(name)[1:-1]}.png" in lines[0]


def test_an_argument_the_parser_refuses_is_quoted_on_one_line(capsys):
    with pytest.raises(SystemExit):
        main(["run", "a\nb"])
    err = capsys.readouterr().err
    assert err == "fdlsr: error: unrecognized arguments: a\\nb (see `fdlsr --help`)\n"


def test_printable_escapes_only_what_breaks_a_line():
    from fdlsr._common.messages import printable

    assert printable("a\nb\x1b\u2028é\\ c") == "a\\nb\\x1b\\u2028é\\ c"


EMPTY = [
    [*RUN, "--out", ""],
    ["run", "--dataset", "", "-k", "2"],
    [*RUN, "--data-dir", ""],
    [*RUN, "--config", ""],
    ["report", ""],
    ["report", "RESULTS", "-o", ""],
    [*PLOT, "--out", ""],
    ["datasets", "info", ""],
    ["fit", "--dataset", "digits", "--method", "1-NN", "-o", ""],
    ["predict", "", "digits"],
    ["predict", "FILE", ""],
    ["predict", "FILE", "digits", "-o", ""],
    ["features", "", "-o", "f.npz"],
    ["features", "DIR", "-o", ""],
]


@pytest.mark.parametrize("argv", EMPTY, ids=[" ".join(a) for a in EMPTY])
def test_an_empty_path_is_refused_not_taken_for_a_default(
    argv, paths, tmp_path, monkeypatch, capsys
):
    """``--out "$OUT"`` with OUT unset: one line, nothing written here."""
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        main([fill(arg, paths) for arg in argv])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert exit_info.value.code == 2 and len(lines) == 1, err
    assert "the path is empty" in lines[0], lines
    assert list(tmp_path.iterdir()) == []


def test_a_run_request_refuses_an_empty_out(tmp_path, monkeypatch):
    from fdlsr._experiments.config import load_config
    from fdlsr._experiments.run import RunRequest

    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match="--out is empty"):
        RunRequest(load_config("digits"), out="")


def test_running_out_of_memory_is_one_line(monkeypatch, capsys):
    """What no budget foresaw: a MemoryError anywhere in a command."""
    from fdlsr._experiments.commands import methods

    def exhausted(args):
        raise MemoryError

    monkeypatch.setattr(methods, "main", exhausted)
    with pytest.raises(SystemExit) as exit_info:
        main(["methods"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and len(err.strip().splitlines()) == 1, err
    assert err.startswith("fdlsr: error: fdlsr methods ran out of memory")


@pytest.mark.parametrize(
    "command, argv, said",
    [
        (
            "run",
            RUN,
            "fdlsr: interrupted; finished runs are saved: run the same command "
            "again to resume",
        ),
        (
            "fit",
            ["fit", "--dataset", "digits", "--method", "1-NN", "-o", "m"],
            "fdlsr: interrupted",
        ),
        ("predict", ["predict", "m.fdlsr", "digits"], "fdlsr: interrupted"),
        ("report", ["report", "r"], "fdlsr: interrupted"),
    ],
)
def test_an_interrupted_command_says_what_it_kept(
    command, argv, said, monkeypatch, capsys
):
    """Ctrl-C or SIGTERM: one line, the promise of resuming only where it holds."""
    module = importlib.import_module(f"fdlsr._experiments.commands.{command}")

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(module, "main", interrupted)
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 130
    assert capsys.readouterr().err == said + "\n"
