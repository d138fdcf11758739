"""One guard for every file a command writes: never over an input, never into a
results store, never over a file fdlsr did not write without --force, always whole.

Whose a file is follows one rule (``fdlsr._common.ownership``): fdlsr replaces a file
without --force only if it wrote it and the file is unchanged since (listed with its
SHA-256 in the folder's ``.fdlsr-outputs.json``), or it is empty.

The hypothesis test draws output paths built from the names around the inputs and the
store (links to the data, ``..``, the store's own files) for every command that
writes, and checks that each either writes a file it may write or exits with status 2
and one line, leaving every input as it was.
"""

import contextlib
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fdlsr._common.ownership import MANIFEST, may_replace, record_written
from fdlsr._experiments.cli import main
from fdlsr._experiments.outputs import check_output
from fdlsr._testing import cli, cli_error
from fdlsr.errors import ConfigError

RUN = ["run", "--methods", "LSR", "-k", "3", "--splits", "1", "--no-table"]
FIT = ["fit", "--dataset", "d.npz", "--method", "LSR"]


@contextlib.contextmanager
def inside(folder):
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield Path(folder)
    finally:
        os.chdir(before)


@pytest.fixture(scope="module")
def assets(tmp_path_factory):
    """The bytes of a data file, of a store of its LSR runs and of an LSR model."""
    root = tmp_path_factory.mktemp("assets")
    rng = np.random.default_rng(0)
    with inside(root):
        np.savez("d.npz", X=rng.random((24, 10)), y=np.repeat(np.arange(4), 6))
        assert cli([*RUN, "--dataset", "d.npz", "--out", "store"])[0] == 0
        assert cli([*FIT, "-o", "model.fdlsr"])[0] == 0
    store = {p.name: p.read_bytes() for p in (root / "store").iterdir()}
    files = {
        "d.npz": (root / "d.npz").read_bytes(),
        "model.fdlsr": (root / "model.fdlsr").read_bytes(),
        "notes.txt": b"my notes\n",
    }
    return files, store


def make_tree(root, assets):
    """The data, a symbolic and a hard link to it, the store, a model and a text file."""
    files, store = assets
    for name, content in files.items():
        (root / name).write_bytes(content)
    os.symlink("d.npz", root / "link.npz")
    os.link(root / "d.npz", root / "hard.npz")
    (root / "store").mkdir()
    for name, content in store.items():
        (root / "store" / name).write_bytes(content)
    return root


def snapshot(root):
    """Every file under ``root``: its bytes (a symbolic link: where it points)."""
    out = {}
    for path in sorted(Path(root).rglob("*")):
        if path.is_symlink():
            out[str(path.relative_to(root))] = ("link", os.readlink(path))
        elif path.is_file():
            out[str(path.relative_to(root))] = path.read_bytes()
    return out


def file_stamps(root):
    """Every file under ``root``: its inode and modification time."""
    return {
        str(path.relative_to(root)): (path.lstat().st_ino, path.lstat().st_mtime_ns)
        for path in Path(root).rglob("*")
        if path.is_file() or path.is_symlink()
    }


# -- the guard itself ---------------------------------------------------------------


def test_the_same_file_by_any_name_is_refused(tmp_path, assets):
    from fdlsr._experiments.outputs import check_output

    root = make_tree(tmp_path, assets)
    data = root / "d.npz"
    for name in ("d.npz", "link.npz", "hard.npz", "store/../d.npz", "./d.npz"):
        with pytest.raises(ConfigError, match="is the input"):
            check_output(root / name, inputs=[data])
    (root / "sub").mkdir()
    os.symlink(root, root / "sub" / "up")  # a folder link leading back
    with pytest.raises(ConfigError, match="is the input"):
        check_output(root / "sub" / "up" / "d.npz", inputs=[data])
    assert check_output(root / "new.fdlsr", inputs=[data]) == root / "new.fdlsr"


def test_a_store_and_an_input_folder_are_never_written_into(tmp_path, assets):
    from fdlsr._experiments.outputs import check_output

    root = make_tree(tmp_path, assets)
    for name in ("store/table.md", "store/results.jsonl", "store/experiment.json"):
        with pytest.raises(ConfigError, match="inside the results store"):
            check_output(root / name)
    # the store fdlsr run writes is its own
    check_output(root / "store" / "results.jsonl", store=root / "store")
    (root / "images" / "a").mkdir(parents=True)
    with pytest.raises(ConfigError, match="inside the input folder"):
        check_output(root / "images" / "a" / "f.npz", inputs=[root / "images"])
    check_output(root / "f.npz", inputs=[root / "images"])


def test_only_a_file_fdlsr_wrote_and_left_unchanged_is_replaced(tmp_path, assets):
    root = make_tree(tmp_path, assets)
    model = root / "model.fdlsr"  # a model file copied in: fdlsr did not write it here
    for mine in (root / "notes.txt", model):
        with pytest.raises(ConfigError, match="fdlsr did not write it.*--force"):
            check_output(mine)
        check_output(mine, force=True)
    record_written(model)  # as fdlsr.save records the file it wrote
    assert (root / MANIFEST).is_file()
    check_output(model)  # fdlsr's, unchanged: replaced
    model.write_bytes(model.read_bytes() + b"\n")  # changed since: the user's
    with pytest.raises(ConfigError, match="fdlsr did not write it"):
        check_output(model)
    (root / "empty.md").write_text("")
    check_output(root / "empty.md")  # nothing to lose
    with pytest.raises(ConfigError, match="is the input"):  # never an input
        check_output(root / "d.npz", inputs=[root / "d.npz"], force=True)
    with pytest.raises(ConfigError, match="record of the files it wrote"):
        check_output(root / MANIFEST, force=True)


def test_report_over_notes_with_a_pasted_table_is_refused(tmp_path, assets, capsys):
    """The issue's case: a user's notebook.md holding four lines of an fdlsr table
    (pasted from ``fdlsr report``'s output) was taken for fdlsr's report by its
    header row and replaced (exit 0). It is the user's: refused, unchanged."""
    root = make_tree(tmp_path, assets)
    with inside(root):
        status, table, _ = cli(["report", "store"])
        assert status == 0
        pasted = [line for line in table.splitlines() if line.startswith("|")][:4]
        assert len(pasted) == 4 and "| Method |" in pasted[0]
        notebook = root / "notebook.md"
        text = (
            "# My notes\n\nLSR did well on d:\n\n" + "\n".join(pasted) + "\n\nTo do.\n"
        )
        notebook.write_text(text)
        line = cli_error(capsys, ["report", "store", "-o", "notebook.md"])
        assert "notebook.md exists and fdlsr did not write it" in line
        assert "add --force to replace it" in line
        assert notebook.read_text() == text
        assert main(["report", "store", "-o", "notebook.md", "--force"]) == 0
        assert notebook.read_text() != text


def test_predict_replaces_only_predictions_unless_force(tmp_path, assets, capsys):
    """``fdlsr predict -o notes.csv`` replaced the user's CSV (found by the attack of
    this round): a file that does not open with predict's header is the user's."""
    root = make_tree(tmp_path, assets)
    mine = root / "mine.csv"
    mine.write_text("my,own\n1,2\n")
    with inside(root):
        argv = ["predict", "model.fdlsr", "d.npz", "-o", "mine.csv"]
        assert "fdlsr did not write it" in cli_error(capsys, argv)
        assert mine.read_text() == "my,own\n1,2\n"
        assert cli([*argv, "--force"])[0] == 0  # the user said so
        assert mine.read_text().startswith("index,prediction,label\n")
        assert cli(argv)[0] == 0  # predictions now: replaced without --force
        assert "is the input" in cli_error(
            capsys, [*argv[:3], "-o", "d.npz", "--force"]
        )


def test_an_interrupted_write_leaves_the_old_file(tmp_path, monkeypatch):
    from fdlsr._experiments.outputs import write_atomic

    path = tmp_path / "table.md"
    path.write_text("the good table\n")

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(path, "half of a new table")
    assert path.read_text() == "the good table\n"
    assert [p.name for p in tmp_path.iterdir()] == ["table.md"]  # no temporary left


def test_a_figure_cut_short_leaves_the_old_one(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    from fdlsr._experiments import figures

    old = tmp_path / "x.png"
    old.write_bytes(b"the good figure")
    fig = plt.figure()

    def cut_short(target, **kwargs):
        Path(target).write_bytes(b"\x89PNG half")
        raise KeyboardInterrupt

    monkeypatch.setattr(fig, "savefig", cut_short)
    with pytest.raises(KeyboardInterrupt):
        figures.save_figure(fig, tmp_path, "x", {"a": 1})
    assert old.read_bytes() == b"the good figure"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.png"]


def test_a_symbolic_link_is_written_through(tmp_path):
    from fdlsr._experiments.outputs import replaced_atomically

    target = tmp_path / "real.md"
    target.write_text("old")
    (tmp_path / "link.md").symlink_to(target)
    with replaced_atomically(tmp_path / "link.md") as tmp:
        tmp.write_text("new")
    assert (tmp_path / "link.md").is_symlink() and target.read_text() == "new"


# -- every command that writes ------------------------------------------------------


def test_the_issues_two_cases_are_refused_and_nothing_is_lost(tmp_path, assets, capsys):
    root = make_tree(tmp_path, assets)
    before = snapshot(root)
    with inside(root):
        line = cli_error(capsys, ["report", "store", "-o", "store/results.jsonl"])
        assert "inside the results store" in line or "is the input" in line
        line = cli_error(capsys, [*FIT, "-o", "d.npz"])
        assert "is the input d.npz" in line
        assert "is the input" in cli_error(capsys, [*FIT, "-o", "hard.npz"])
        assert "is the input" in cli_error(capsys, [*FIT, "-o", "link.npz"])
    assert snapshot(root) == before


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["report", "store", "-o", "store/table.md"], "inside the results store"),
        (["report", "store", "-o", "store/../store/experiment.json"], "results store"),
        (["predict", "model.fdlsr", "d.npz", "-o", "d.npz"], "is the input d.npz"),
        (["predict", "model.fdlsr", "d.npz", "-o", "model.fdlsr"], "is the input"),
        (["predict", "model.fdlsr", "d.npz", "-o", "store/p.csv"], "results store"),
        ([*FIT, "-o", "notes.txt"], "fdlsr did not write it"),
        ([*FIT, "-o", "model.fdlsr"], "fdlsr did not write it"),  # copied in
        ([*FIT, "-o", "store/m.fdlsr"], "inside the results store"),
        ([*FIT, "--force", "-o", "hard.npz"], "is the input"),
        ([*FIT, "-o", "missing/../m.fdlsr"], "does not exist"),
        ([*RUN, "--dataset", "d.npz", "--out", "results.jsonl/.."], "does not exist"),
        (
            ["plot", "convergence", "--dataset", "d.npz", "-k", "2", "--out", "store"],
            "inside the results store",
        ),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else value,
)
def test_every_command_refuses_in_one_line(argv, expected, tmp_path, assets, capsys):
    root = make_tree(tmp_path, assets)
    before = snapshot(root)
    with inside(root):
        assert expected in cli_error(capsys, argv)
    assert snapshot(root) == before


def test_fit_replaces_the_model_it_wrote_and_anything_with_force(
    tmp_path, assets, capsys
):
    root = make_tree(tmp_path, assets)
    with inside(root):
        assert main([*FIT, "-o", "mine.fdlsr"]) == 0
        assert main([*FIT, "--method", "1-NN", "-o", "mine.fdlsr"]) == 0  # its own
        assert main([*FIT, "--force", "-o", "notes.txt"]) == 0
        assert main([*FIT, "--method", "1-NN", "-o", "notes.txt"]) == 0  # now fdlsr's
    for name in ("mine.fdlsr", "notes.txt"):
        assert "model.json" in zipfile.ZipFile(root / name).namelist()
    assert (root / "d.npz").read_bytes() == assets[0]["d.npz"]


def test_a_hard_link_to_a_file_of_an_input_folder_is_refused(tmp_path, assets, capsys):
    root = make_tree(tmp_path, assets)
    os.link(root / "store" / "experiment.json", root / "hard.md")
    before = snapshot(root)
    with inside(root):
        line = cli_error(capsys, ["report", "store", "-o", "hard.md"])
    assert "is the input store/experiment.json (a hard link to it)" in line
    assert snapshot(root) == before


def test_report_replaces_only_a_report_it_wrote_unless_force(tmp_path, assets, capsys):
    """-o names an existing file: replaced if fdlsr wrote it (any format) and it is
    unchanged, or it is empty; any other file of the user's is kept, unless --force."""
    root = make_tree(tmp_path, assets)
    with inside(root):
        for fmt in ("md", "latex", "csv", "html"):
            out = f"report.{fmt}"
            assert main(["report", "store", "--format", fmt, "-o", out]) == 0
            for again in ("md", "latex", "csv", "html"):  # its own, in any format
                assert main(["report", "store", "--format", again, "-o", out]) == 0
                assert main(["report", "store", "--format", fmt, "-o", out]) == 0
        (root / "empty.md").write_text("")
        assert main(["report", "store", "-o", "empty.md"]) == 0
        capsys.readouterr()
        before = snapshot(root)
        for mine in ("notes.txt", "d.npz", "model.fdlsr"):
            line = cli_error(capsys, ["report", "store", "-o", mine])
            assert "exists and fdlsr did not write it" in line
            assert "add --force to replace it" in line
        assert snapshot(root) == before
        assert main(["report", "store", "-o", "notes.txt", "--force"]) == 0
        assert (root / "notes.txt").read_text().startswith("### ")
        capsys.readouterr()
        line = cli_error(capsys, ["report", "store", "--force", "-o", "store/x.md"])
        assert "inside the results store" in line  # --force never reaches an input


def test_plot_replaces_only_figures_it_wrote_unless_force(tmp_path, assets, capsys):
    """fdlsr records its figures as it writes them: a file of a figure's name that
    it did not write, or that was changed since, is the user's and is kept."""
    root = make_tree(tmp_path, assets)
    figures = root / "figs"
    with inside(root):
        assert main(["plot", "results", "store", "--out", "figs"]) == 0
        made = sorted(p for p in figures.iterdir() if p.name != MANIFEST)
        assert [p.suffix for p in made] == [".json", ".pdf", ".png"] * 2
        assert all(may_replace(p) for p in made)
        assert main(["plot", "results", "store", "--out", "figs"]) == 0  # its own
        capsys.readouterr()
        for path in made:
            kept = path.read_bytes()
            path.write_bytes(b'{"mine": "user data"}')
            before = snapshot(root)
            line = cli_error(capsys, ["plot", "results", "store", "--out", "figs"])
            assert f"{path.name} exists and fdlsr did not write it" in line
            assert "choose another folder, or add --force" in line
            assert snapshot(root) == before
            path.write_bytes(kept)
        made[0].write_text("mine")
        assert main(["plot", "results", "store", "--out", "figs", "--force"]) == 0
        assert may_replace(made[0])
        capsys.readouterr()
        # the paper's figures: the same guard
        (root / "d_fig1_convergence.json").write_text("mine")
        argv = ["plot", "convergence", "--dataset", "d.npz", "-k", "2", "--out", "."]
        line = cli_error(capsys, argv)
        assert "d_fig1_convergence.json exists and fdlsr did not write it" in line
        assert (root / "d_fig1_convergence.json").read_text() == "mine"


@settings(max_examples=60, deadline=None)
@given(
    data=st.binary(max_size=300)
    | st.sampled_from(
        [
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\x1ftEXtSoftware\x00fdlsr 1",
            b"%PDF-1.4 /Creator (fdlsr ",
            b'{"written_by": "fdlsr x"}',
            b"| Method | k=1 | Training time (s) | Test time (s) | Parameters |",
            b"source,dataset,method,label,family,k,n_splits,mean,std,x",
        ]
    ),
    suffix=st.sampled_from([".png", ".pdf", ".json", ".md", ".csv", ".tex", ".html"]),
    manifest=st.sampled_from(
        [None, b"", b"not json", b'{"files": {"x": 1}}', b'{"files": {"x": "00"}}']
    ),
)
def test_what_a_file_holds_never_makes_it_fdlsrs(data, suffix, manifest):
    """Any bytes, fdlsr's own marks and table lines included, beside no manifest or
    one that lists nothing valid: a file with something in it is refused, kept."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"x{suffix}"
        path.write_bytes(data)
        if manifest is not None:
            (Path(folder) / MANIFEST).write_bytes(
                manifest.replace(b'"x"', b'"' + path.name.encode() + b'"')
            )
        try:
            check_output(path)
        except ConfigError as error:
            assert "\n" not in str(error) and data
        else:
            assert not data
        assert path.read_bytes() == data


def test_run_never_writes_its_store_over_the_data(tmp_path, assets, capsys):
    root = make_tree(tmp_path, assets)
    (root / "faces").mkdir()
    (root / "faces" / "results.jsonl").write_bytes(assets[0]["d.npz"])
    argv = [*RUN, "--dataset", "faces/results.jsonl", "--out", "faces"]
    before = snapshot(root)
    with inside(root):  # data named like a store's file, in the folder asked for
        assert "not a results store" in cli_error(capsys, argv)
        # even in a folder marked as a store
        (root / "faces" / "fdlsr-store.json").write_bytes(assets[1]["fdlsr-store.json"])
        before = snapshot(root)
        assert "is the input" in cli_error(capsys, argv)
    assert snapshot(root) == before


def test_features_refuses_before_loading_any_network(tmp_path, capsys):
    pytest.importorskip("PIL")
    from image_layouts import image_folder

    images = tmp_path / "images"
    images.mkdir()
    image_folder(images, classes=2, per_class=2, size=8)
    (tmp_path / "other.npz").write_bytes(b"not features")
    before = snapshot(tmp_path)
    argv = ["features", str(images), "--weights", "none", "-o"]
    for output, expected in [
        (images / "f.npz", "inside the input folder"),
        (tmp_path / "other.npz", "fdlsr did not write it"),
    ]:
        assert expected in cli_error(capsys, [*argv, str(output)])
    assert snapshot(tmp_path) == before


# -- any output path ----------------------------------------------------------------

NAMES = [
    "d.npz", "link.npz", "hard.npz", "store", "results.jsonl", "experiment.json",
    "environment.json", ".lock", "..", ".", "new.md", "notes.txt", "model.fdlsr",
    "sub",
]  # fmt: skip
COMMANDS = {
    "report": lambda out: ["report", "store", "-o", out],
    "fit": lambda out: [*FIT, "-o", out],
    "fit --force": lambda out: [*FIT, "--force", "-o", out],
    "predict": lambda out: ["predict", "model.fdlsr", "d.npz", "-o", out],
    "run": lambda out: [*RUN, "--dataset", "d.npz", "--out", out],
}
INPUTS = {  # what each command reads: never changed
    "report": [
        "store/results.jsonl",
        "store/experiment.json",
        "store/environment.json",
    ],
    "fit": ["d.npz"],
    "fit --force": ["d.npz"],
    "predict": ["d.npz", "model.fdlsr"],
    "run": ["d.npz"],
}


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    command=st.sampled_from(sorted(COMMANDS)),
    parts=st.lists(st.sampled_from(NAMES), min_size=1, max_size=3).filter(
        lambda parts: parts.count("..") <= 1  # never out of the sandbox
    ),
    absolute=st.booleans(),
)
def test_any_output_path_writes_an_allowed_file_or_is_one_line(
    assets, command, parts, absolute
):
    with tempfile.TemporaryDirectory() as folder:
        sandbox = Path(folder).resolve()
        work = sandbox / "work"
        work.mkdir()
        make_tree(work, assets)
        out = "/".join(parts)
        if absolute:
            out = str(work / out)
        before = snapshot(sandbox)
        stamps = file_stamps(sandbox)
        stores = {p.parent for p in sandbox.rglob("results.jsonl")}
        with inside(work):
            status, _, err = cli(COMMANDS[command](out))
        after = snapshot(sandbox)
        for name in INPUTS[command]:
            assert (work / name).read_bytes() == before[f"work/{name}"], (command, out)
        if status == 2:
            lines = err.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("fdlsr: error: "), err
            assert after == before, (command, out)  # nothing written
            return
        assert status == 0, err
        # a refit writes the same bytes again: a new file (inode, time) counts too
        changed = {n for n in after if after[n] != before.get(n)}
        changed |= {
            n for n, stamp in file_stamps(sandbox).items() if stamps.get(n) != stamp
        }
        written = {sandbox / n for n in changed if Path(n).name != MANIFEST}
        assert written, (command, out)
        target = Path(os.path.realpath(work / out))
        if command == "run":  # the store's files, in the folder asked for
            assert {path.parent for path in written} == {target}, (command, out)
            return
        assert written == {target}, (command, out)
        assert target.parent not in stores, (command, out)
        if command == "report":  # no file of the user's replaced by a report
            assert f"{target.relative_to(sandbox)}" not in before, out
        if command == "predict":  # no file of the user's replaced by predictions
            assert f"{target.relative_to(sandbox)}" not in before, out
        if command == "fit":  # no file of the user's replaced without --force
            assert f"{target.relative_to(sandbox)}" not in before, out
