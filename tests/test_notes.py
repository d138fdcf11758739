"""Every sentence under a table is true of the rows of that table.

Real runs on small data (the embedded faces, scikit-learn's digits) into stores that
hold several data sets, settings, normalisations and seeds, as the issue found them.
"""

import contextlib
import io
import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fdlsr._experiments.cli import main
from fdlsr._experiments.store_folder import make_store
from fdlsr._testing import cli

SMALL = ["--methods", "FDLSR", "1-NN", "-k", "2", "--splits", "2", "--no-table"]
NOTE = "Exactly the paper's data and setting."


def run(*argv):
    with contextlib.redirect_stderr(io.StringIO()):
        assert main(["run", *argv]) == 0


def report(capsys, *argv):
    capsys.readouterr()
    assert main(["report", *argv]) == 0
    return capsys.readouterr().out


def tables(text):
    """``{title: table text}`` of a Markdown report."""
    parts = text.split("### ")[1:]
    return {part.splitlines()[0]: part for part in parts}


def notes_of(table):
    return [line[2:] for line in table.splitlines() if line.startswith("> ")]


def row(table, label):
    return next(line for line in table.splitlines() if line.startswith(f"| {label} |"))


@pytest.fixture()
def faces_config(tmp_path):
    """A config of the faces with a title, a note and a paper table, like feret's."""
    path = tmp_path / "faces_paper.toml"
    path.write_text(
        'title = "Faces as in the paper"\ndataset = "faces"\nk = [2]\nsplits = 2\n'
        f'methods = ["FDLSR", "1-NN"]\npaper_table = "III"\nnote = "{NOTE}"\n'
        'paper_params = ["FDLSR"]\n'
        "[params.FDLSR]\nalpha = 0.01\nbeta = 0.001\nlam = 0.1\n"
    )
    return path


def test_each_data_set_has_its_own_title_note_parameters_and_paper(
    tmp_path, faces_config, capsys
):
    store = str(tmp_path / "store")
    run("--dataset", "digits", *SMALL, "--params", "FDLSR.alpha=0.5", "--out", store)
    run("--config", str(faces_config), *SMALL, "--out", store)
    found = tables(report(capsys, store, "--paper"))
    faces = found.pop("Faces as in the paper")
    ((title, digits),) = found.items()
    assert title.startswith("scikit-learn digits")  # its shipped config's title
    assert NOTE in notes_of(faces) and "(paper)" in faces
    assert "FDLSR parameters: alpha=0.01, beta=0.001, lam=0.1." in notes_of(faces)
    assert "digits" not in "".join(notes_of(faces))  # its commands are its own
    for text in (NOTE, "(paper)", "alpha=0.01,", "faces_paper"):
        assert text not in digits, text
    assert "FDLSR parameters: alpha=0.5, beta=0.001, lam=0.1." in notes_of(digits)


def test_raw_and_normalised_rows_are_told_apart_and_not_compared(tmp_path, capsys):
    store = str(tmp_path / "store")
    run("--dataset", "faces", *SMALL, "--out", store)
    run("--dataset", "faces", *SMALL[:2], *SMALL[3:], "--raw", "--out", store)
    table = report(capsys, store)
    notes = " ".join(notes_of(table))
    assert "unit-normalised samples, raw ones (--raw) in the rows marked raw" in notes
    assert "raw samples (--raw);" not in notes  # not said of every row
    for label in ("FDLSR", "FDLSR (raw)", "1-NN"):
        row(table, label)
    assert "**" not in row(table, "FDLSR (raw)")  # never bold beside normalised cells
    assert "not compared: FDLSR (raw) at k=2 (raw samples)" in notes
    normalised = [row(table, "FDLSR"), row(table, "1-NN")]
    assert sum("**" in line for line in normalised) == 1


def test_rows_over_other_splits_are_labelled_and_not_compared(tmp_path, capsys):
    store = str(tmp_path / "store")
    run("--dataset", "faces", *SMALL, "--out", store)
    run(
        "--dataset",
        "faces",
        "--methods",
        "LSR",
        *SMALL[3:],
        "--seed",
        "7",
        "--out",
        store,
    )
    table = report(capsys, store)
    notes = " ".join(notes_of(table))
    assert "seed 0 unless the row says another" in notes
    assert "**" not in row(table, "LSR (seed 7)")
    assert "LSR (seed 7) at k=2 (other random splits (seed 7))" in notes


def test_the_config_note_is_said_only_of_the_rows_run_as_it_sets_them(
    tmp_path, faces_config, capsys
):
    store = str(tmp_path / "store")
    run(
        "--config", str(faces_config), *SMALL, "--params", "FDLSR.lam=1", "--out", store
    )
    notes = notes_of(report(capsys, store))
    (said,) = [note for note in notes if NOTE in note]
    assert said.startswith("Of the rows run as config file") and "(not FDLSR," in said
    # with only changed rows in the table, the note is left out
    alone = str(tmp_path / "alone")
    run("--config", str(faces_config), "--methods", "FDLSR", *SMALL[3:],
        "--params", "FDLSR.lam=1", "--out", alone)  # fmt: skip
    assert NOTE not in report(capsys, alone)


def test_a_config_given_other_data_lends_them_nothing(tmp_path, faces_config, capsys):
    store = str(tmp_path / "store")
    run("--config", str(faces_config), "--dataset", "digits", *SMALL, "--out", store)
    text = report(capsys, store, "--paper", "III")
    assert "### digits" in text and "Faces as in the paper" not in text
    assert NOTE not in text
    assert "asked for with --paper III; the store records no table of the paper" in text
    info = json.loads((tmp_path / "store" / "experiment.json").read_text())
    assert "note" not in info["tables"]["digits"]


SHIPPED = ["ar_nonoccluded", "coil20", "extended_yaleb", "feret", "orl", "pie_subset",
           "usps", "yale"]  # fmt: skip


@pytest.mark.parametrize("name", SHIPPED)
def test_the_shipped_tables_render_as_shipped(name, tmp_path, monkeypatch, capsys):
    """docs/tables/NAME.{md,tex,csv} are what `fdlsr report` renders from
    docs/results/NAME today (with the command line of benchmarks/reproduce.sh)."""
    REPO = Path(__file__).resolve().parents[1]
    from fdlsr._experiments.cli import build_parser
    from fdlsr._experiments.commands import report

    monkeypatch.chdir(REPO)
    paper = ["--paper"] if name == "feret" else []
    for fmt, ext in (("md", "md"), ("latex", "tex"), ("csv", "csv")):
        shipped = f"docs/tables/{name}.{ext}"
        argv = [
            "report",
            f"docs/results/{name}",
            *paper,
            "--format",
            fmt,
            "-o",
            shipped,
        ]
        args = build_parser().parse_args([*argv[:-1], str(tmp_path / f"t.{ext}")])
        args.argv = argv  # the command the table names
        assert report.main(args) == 0
        assert (tmp_path / f"t.{ext}").read_text() == (REPO / shipped).read_text()


# -- experiment.json's part per data set: any content --------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
FIELDS = ["title", "paper_table", "note", "source", "commands", "methods", "configured"]
TABLE = st.dictionaries(
    st.sampled_from([*FIELDS, "other"]),
    JSON | st.sampled_from(["III", "IX", "t|i$t_le"]) | st.just({"LSR": ["x"]}),
    max_size=5,
)
INFO = st.fixed_dictionaries(
    {},
    optional={
        "tables": st.dictionaries(st.sampled_from(["d.npz", "e", ""]), TABLE | JSON)
        | JSON,
        "commands": JSON,
        "dataset": st.sampled_from(["d.npz", "e"]) | JSON,
        "note": JSON,
        "paper_table": st.sampled_from(["III", "IX"]) | JSON,
    },
)


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    root = tmp_path_factory.mktemp("small")
    rng = np.random.default_rng(0)
    np.savez(root / "d.npz", X=rng.random((24, 10)), y=np.repeat(np.arange(4), 6))
    argv = ["--dataset", str(root / "d.npz"), "--methods", "LSR", "-k", "3"]
    run(*argv, "--splits", "1", "--no-table", "--out", str(root / "store"))
    return root / "d.npz", (root / "store" / "results.jsonl").read_bytes(), argv


def one_line_or_table(status, out, err):
    assert "Traceback" not in err
    if status == 0:
        assert out.strip()
    else:
        assert status == 2 and len(err.strip().splitlines()) == 1, err


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(info=INFO, paper=st.sampled_from([[], ["--paper"], ["--paper", "III"]]))
def test_any_experiment_json_gives_true_notes_or_one_line(small_store, info, paper):
    data, rows, argv = small_store
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "store"
        make_store(store)
        (store / "results.jsonl").write_bytes(rows)
        (store / "experiment.json").write_text(json.dumps(info))
        one_line_or_table(*cli(["report", str(store), *paper]))
        status, _, err = cli(["run", *argv, "--splits", "1", "--out", str(store)])
        assert status == 0 and "Traceback" not in err, err
        written = json.loads((store / "experiment.json").read_text())
        table = written["tables"]["d.npz"]
        assert any("--methods LSR" in command for command in table["commands"])
        assert "LSR" in table["methods"] and "LSR" in table["configured"]
        status, out, err = cli(["report", str(store), *paper])
        one_line_or_table(status, out, err)
        assert "ignored" not in err  # rewritten whole and readable


def test_quoted_commands_are_those_that_ran(tmp_path, monkeypatch):
    """The data folder becomes DATA_DIR (the note says what it is); every other path
    is kept as the command gave it, absolute or relative."""
    from fdlsr._experiments.notes import neutral_command

    monkeypatch.chdir(tmp_path)
    command = (
        f"fdlsr run --config orl --data-dir /srv/shared/data --out {tmp_path}/res/orl "
        "--dataset /tmp/x/faces.npz --jobs 2"
    )
    assert neutral_command(command) == (
        f"fdlsr run --config orl --data-dir DATA_DIR --out {tmp_path}/res/orl "
        "--dataset /tmp/x/faces.npz --jobs 2"
    )
    assert neutral_command("fdlsr run --data-dir=../../data -k 2") == (
        "fdlsr run --data-dir DATA_DIR -k 2"
    )


def test_a_report_quotes_the_commands_that_ran(tmp_path, capsys):
    store = tmp_path / "store"
    argv = ["run", "--dataset", "faces", "--methods", "1-NN", "-k", "2", "--splits"]
    argv += ["1", "--data-dir", str(tmp_path), "--out", str(store), "--no-table"]
    assert main(argv) == 0
    assert main(["report", str(store)]) == 0
    text = capsys.readouterr().out
    assert (
        f"Rendered by `fdlsr report {store}` from results written by `fdlsr run "
        "--dataset faces --methods 1-NN -k 2 --splits 1 --data-dir DATA_DIR --out "
        f"{store} --no-table` (`DATA_DIR`: the folder" in text
    )


def test_the_end_table_of_a_run_misses_only_its_own_methods(tmp_path, capsys):
    """A store holding other methods' rows: `fdlsr run --methods FDLSR` prints its
    own table, which claims no method "not computed yet"."""
    store = str(tmp_path / "store")
    argv = ["run", "--dataset", "faces", "-k", "2", "--splits", "1", "--out", store]
    assert main([*argv, "--methods", "LSR", "1-NN", "--no-table"]) == 0
    capsys.readouterr()
    assert main([*argv, "--methods", "FDLSR"]) == 0
    table = capsys.readouterr().out
    assert "| FDLSR |" in table and "Not computed yet" not in table
    assert main(["report", store]) == 0  # the store's table has every method
    assert "Not computed yet" not in capsys.readouterr().out


def test_a_config_using_another_data_sets_values_names_it():
    from fdlsr._experiments.config import load_config

    assert "the paper's parameters for FERET" in load_config("digits").note
