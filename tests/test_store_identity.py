"""A stored run is identified by what was computed, not by the dataset's name.

Two files with one base name, another variable of a file, a file edited in place, or
another normalisation must never be taken for runs already in the store.
"""

import json

import numpy as np

from fdlsr._experiments.cli import main
from fdlsr._experiments.store_folder import make_store
from fdlsr._testing import cli_error

RUN = ["run", "--methods", "LSR", "-k", "3", "--splits", "2", "--no-table"]


def faces(path, seed=0, **arrays):
    """A small dataset file: 4 classes x 6 samples x 10 features (and more arrays)."""
    rng = np.random.default_rng(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    y = np.repeat(np.arange(4), 6)
    np.savez(path, X=rng.random((24, 10)), y=y, **arrays)
    return str(path)


def run(capsys, *argv):
    """Run the CLI expecting success: its stderr."""
    assert main([*RUN, *argv]) == 0
    return capsys.readouterr().err


def refusal(capsys, *argv):
    """Run the CLI expecting a user error: its one line."""
    return cli_error(capsys, [*RUN, *argv])


def stored(folder):
    return (folder / "results.jsonl").read_text().splitlines()


def test_same_base_name_other_data_is_refused_in_one_line(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    a = faces(tmp_path / "a" / "faces.npz", seed=0)
    b = faces(tmp_path / "b" / "faces.npz", seed=1)
    assert "2 runs computed, 0 already" in run(capsys, "--dataset", a)
    store = tmp_path / "fdlsr-results" / "faces"
    before = stored(store), (store / "experiment.json").read_text()
    error = refusal(capsys, "--dataset", b)
    assert "other data" in error and "--out" in error
    # nothing was written: a's rows and notes stay as they were
    assert (stored(store), (store / "experiment.json").read_text()) == before
    # b gets its own rows in its own folder
    assert "2 runs computed" in run(capsys, "--dataset", b, "--out", "b-results")


def test_identical_content_under_another_path_is_already_done(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    a = faces(tmp_path / "a" / "faces.npz")
    copy = faces(tmp_path / "c" / "faces.npz")
    run(capsys, "--dataset", a)
    assert "0 runs computed, 2 already" in run(capsys, "--dataset", copy)


def test_another_variable_of_the_file_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(5)
    path = faces(
        tmp_path / "faces.npz",
        Z=rng.random((24, 10)),
        labels=rng.permutation(np.repeat(np.arange(4), 6)),
    )
    run(capsys, "--dataset", path, "--x", "X", "--y", "y")
    assert "other data" in refusal(capsys, "--dataset", path, "--x", "Z", "--y", "y")
    assert "other data" in refusal(
        capsys, "--dataset", path, "--x", "X", "--y", "labels"
    )
    assert "0 runs computed, 2 already" in run(
        capsys, "--dataset", path, "--x", "X", "--y", "y"
    )


def test_a_file_edited_in_place_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    path = faces(tmp_path / "faces.npz", seed=0)
    run(capsys, "--dataset", path)
    faces(tmp_path / "faces.npz", seed=3)  # same name, same shape, new values
    assert "other data" in refusal(capsys, "--dataset", path)


def test_another_normalisation_gets_its_own_rows(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    path = faces(tmp_path / "faces.npz")
    run(capsys, "--dataset", path)
    assert "2 runs computed, 0 already" in run(capsys, "--dataset", path, "--raw")
    rows = [json.loads(line) for line in stored(tmp_path / "fdlsr-results" / "faces")]
    assert len({r["fingerprint"] for r in rows}) == 4


def test_rows_carry_the_data_hash_and_a_fingerprint(tmp_path, capsys):
    path = faces(tmp_path / "faces.npz")
    run(capsys, "--dataset", path, "--out", str(tmp_path / "r"))
    rows = [json.loads(line) for line in stored(tmp_path / "r")]
    assert len({r["data_sha256"] for r in rows}) == 1
    assert len({r["fingerprint"] for r in rows}) == 2  # one per split
    assert all(len(r["data_sha256"]) == 64 for r in rows)


def test_a_row_computed_differently_under_the_same_name_is_refused(tmp_path, capsys):
    out = tmp_path / "r"
    path = faces(tmp_path / "faces.npz")
    run(capsys, "--dataset", path, "--out", str(out))
    rows = [json.loads(line) for line in stored(out)]
    rows[0]["fingerprint"] = "0" * 64  # e.g. an estimator default changed since
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert "computed differently" in refusal(
        capsys, "--dataset", path, "--out", str(out)
    )


def legacy(folder):
    """Strip the identity fields, as in a store written before they existed."""
    rows = [json.loads(line) for line in stored(folder)]
    for r in rows:
        del r["data_sha256"], r["fingerprint"]
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_legacy_rows_count_as_done_unless_something_shows_they_differ(tmp_path, capsys):
    out = tmp_path / "r"
    path = faces(tmp_path / "faces.npz")
    run(capsys, "--dataset", path, "--out", str(out))
    legacy(out)
    err = run(capsys, "--dataset", path, "--out", str(out))
    assert "0 runs computed, 2 already" in err
    assert "2 rows without a fingerprint" in err
    assert main(["report", str(out)]) == 0
    captured = capsys.readouterr()
    assert "| LSR |" in captured.out
    assert "2 rows without a fingerprint" in captured.err
    # other data of another shape under the same name: the stored rows show it
    wider = tmp_path / "wide" / "faces.npz"
    wider.parent.mkdir()
    np.savez(wider, X=np.random.default_rng(0).random((24, 12)), y=np.arange(24) % 4)
    assert "other data" in refusal(capsys, "--dataset", str(wider), "--out", str(out))


def test_a_store_merged_by_hand_reports_each_data_apart(tmp_path, capsys):
    """Rows of two data under one name (two stores concatenated): two tables."""
    a = faces(tmp_path / "a" / "faces.npz", seed=0)
    b = faces(tmp_path / "b" / "faces.npz", seed=1)
    run(capsys, "--dataset", a, "--out", str(tmp_path / "ra"))
    run(capsys, "--dataset", b, "--out", str(tmp_path / "rb"), "--splits", "3")
    merged = tmp_path / "merged"
    make_store(merged)
    (merged / "results.jsonl").write_text(
        (tmp_path / "ra" / "results.jsonl").read_text()
        + (tmp_path / "rb" / "results.jsonl").read_text()
    )
    assert main(["report", str(merged)]) == 0
    captured = capsys.readouterr()
    assert captured.out.count("### faces.npz (data sha256 ") == 2
    assert "2 different data sets are named 'faces.npz'" in captured.err
    assert "(n=" not in captured.out  # each table has all of its own splits
    assert "skipped" not in captured.err  # b's splits 0 and 1 are not a's
