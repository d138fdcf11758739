"""fdlsr.results.read_results: results folders as a DataFrame, derived from the
store, its groups the cells of the tables."""

import csv
import io
import json
import re
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fdlsr._experiments.report import summarise, table_rows
from fdlsr._experiments.results_frame import frame_of
from fdlsr._experiments.store_folder import MARK, make_store, read_store
from fdlsr._testing import cli
from fdlsr.errors import ConfigError
from fdlsr.results import read_results
from result_stores import stores, write_store

REPO = Path(__file__).resolve().parents[1]
FERET = REPO / "docs" / "results" / "feret"


@pytest.fixture(scope="module")
def feret():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the store's legacy rows: said, then used
        return read_results(FERET)


def shipped_cells(name):
    """``{(label, k): mean}`` of our rows in the shipped docs/tables/NAME.md."""
    lines = (REPO / "docs" / "tables" / f"{name}.md").read_text().splitlines()
    head = next(line for line in lines if line.startswith("| Method"))
    ks = [int(c.strip()[2:]) for c in head.split("|") if c.strip().startswith("k=")]
    cells = {}
    for line in lines:
        parts = [c.strip() for c in line.split("|")[1:-1]]
        if len(parts) < len(ks) + 4 or parts[0].startswith(("*", "Method", "---")):
            continue
        for k, text in zip(ks, parts[1:], strict=False):
            number = text.strip("*").split(" ")[0]
            if number not in ("failed", "—"):
                cells[parts[0], k] = float(number)
    return cells


def test_the_feret_frame_has_a_row_per_valid_row_and_the_tables_cells(feret):
    lines = (FERET / "results.jsonl").read_text().splitlines()
    rows = read_store(FERET).rows
    assert len(feret) == len(rows) == len(lines)
    # in %, then the mean, as the table does
    percent = feret.assign(percent=feret.accuracy * 100)
    means = percent.groupby(["label", "k"], observed=True)["percent"].mean()
    _, table = table_rows(
        summarise(frame_of(rows))
    )  # the table, through the report's code
    computed = {
        (row["label"], k): cell[0]
        for row in table
        for k, cell in row["cells"].items()
        if cell[0] is not None
    }
    shipped = shipped_cells("feret")
    assert set(computed) == set(shipped) and len(shipped) == 24 * 5 - 1  # LDA, k=1
    for (label, k), mean in computed.items():
        assert means[label, k] == pytest.approx(mean, abs=1e-9)
        assert abs(means[label, k] - shipped[label, k]) <= 0.005 + 1e-9
    failed = feret[(feret.method == "LDA") & (feret.k == 1)]
    assert len(failed) == 10 and failed.accuracy.isna().all()


def test_columns_have_dtypes_to_group_on(feret):
    for name in ("dataset", "method", "family", "label", "setting", "tuning", "store"):
        assert isinstance(feret[name].dtype, pd.CategoricalDtype), name
    assert feret.k.cat.ordered and list(feret.k.cat.categories) == [1, 2, 3, 4, 5]
    for name in ("split", "seed", "n_train", "session"):
        assert feret[name].dtype == "Int64", name
    assert feret.accuracy.dtype == "float64" and feret.fit_time.dtype == "float64"
    assert feret.finished.dt.tz is not None
    assert set(feret.tuning.cat.categories) == {"paper", "fixed", "cv"}


def test_every_split_choice_of_a_tuned_method_is_a_column(feret):
    rows = [
        r
        for r in read_store(FERET).rows
        if r["method"] == "CRC" and r["tuning"] == "cv"
    ]
    crc = feret[(feret.method == "CRC") & (feret.tuning == "cv")]
    assert len(crc) == len(rows) == 50
    assert set(crc.searched) == {"lam"}
    by_key = {(r["k"], r["split"]): r["params"]["lam"] for r in rows}
    for k, split, lam in crc[["k", "split", "param_lam"]].itertuples(index=False):
        assert lam == by_key[k, split]


def test_several_stores_and_their_own_labels(tmp_path):
    frame = read_results([REPO / "docs/results/orl", REPO / "docs/results/yale"])
    assert set(frame.dataset) == {"orl", "yale"}
    assert len(frame) == sum(
        len(read_store(REPO / f"docs/results/{n}").rows) for n in ("orl", "yale")
    )
    assert set(frame.store.cat.categories) == {
        str(REPO / "docs/results/orl"), str(REPO / "docs/results/yale"),
    }  # fmt: skip


def test_stores_are_pooled_as_the_figures_pool_them(tmp_path):
    """A run found in two stores is one row (the first store's), with the notice of
    `fdlsr plot results`; one setting gets one label whichever store holds it."""
    from result_stores import row, write_store

    lam = '{"params": {"lam": 0.1}}'
    other = '{"params": {"lam": 1.0}}'
    first = [
        row("d", "LSR", 2, split, setting=lam, fingerprint="f") for split in (0, 1)
    ]
    again = [{**r, "accuracy": 0.9} for r in first]
    more = [row("d", "LSR", 2, split, setting=lam, fingerprint="f") for split in (2, 3)]
    more += [
        row("d", "LSR", 2, split, setting=other, fingerprint="f") for split in (0, 1)
    ]
    a = write_store(tmp_path / "a", first)
    b = write_store(tmp_path / "b", again + more)
    with pytest.warns(UserWarning, match="2 rows repeat runs of a store named before"):
        frame = read_results([a, b])
    assert len(frame) == 6 and frame.attrs["notices"]
    assert list(frame.accuracy[:2]) == [0.5, 0.5]  # the first store's
    by_setting = frame.groupby("setting", observed=True).label.unique()
    assert {s: list(labels) for s, labels in by_setting.items()} == {
        lam: ["LSR (lam=0.1)"],
        other: ["LSR (lam=1)"],
    }
    assert list(frame.store[:2]) == [str(a)] * 2 and str(b) in list(frame.store)


def test_a_folder_that_is_not_a_store_is_one_line(tmp_path):
    with pytest.raises(ConfigError, match="no results in"):
        read_results(tmp_path)


GARBAGE = st.sampled_from(
    [b"not json", b"{}", b'{"dataset": 1}', b"\xff\xfe", b"[1, 2]", b'"x"', b"null"]
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=stores(), garbage=st.lists(GARBAGE, max_size=4), cut=st.booleans())
def test_any_store_gives_its_valid_rows_or_one_line(rows, garbage, cut):
    """A foreign or hand-edited store: the frame holds exactly its valid rows (with
    their accuracy), the rest is said in a warning; nothing is written."""
    lines = [json.dumps(r).encode() for r in rows] + list(garbage)
    data = b"\n".join(lines) + (b"" if cut else b"\n")
    with tempfile.TemporaryDirectory() as folder:
        make_store(folder)
        path = Path(folder) / "results.jsonl"
        path.write_bytes(data)
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            frame = read_results(folder)
        valid = read_store(folder).rows
        assert path.read_bytes() == data and sorted(
            p.name for p in Path(folder).iterdir()
        ) == sorted(["results.jsonl", MARK])
    assert len(frame) == len(valid)
    expected = [np.nan if r["accuracy"] is None else r["accuracy"] for r in valid]
    np.testing.assert_array_equal(frame.accuracy.to_numpy(), np.array(expected, float))
    assert list(frame.method) == [r["method"] for r in valid]


# -- every view from the frame -------------------------------------------------------


def _cells(frame):
    """``{(label, k): numbers}`` of one table computed here from its frame with pandas
    (the expected values of every view)."""
    ran = frame[frame.accuracy.notna()]
    grouped = ran.groupby(["label", "k"], observed=True)
    out = {}
    for (label, k), runs in grouped:
        percent = runs.accuracy * 100
        out[label, k] = {
            "mean": percent.mean(),
            "std": percent.std(ddof=1) if len(runs) > 1 else None,
            "n": len(runs),
            "train": runs.train_time.mean(),
            "fit": runs.fit_time.mean(),
            "tune": runs.tune_time.mean(),
            "predict": runs.predict_time.mean(),
        }
    return out


def _times_k(cells):
    ks = {k for _, k in cells}
    numbers = [k for k in ks if not isinstance(k, str)]
    return max(numbers) if numbers else (max(ks) if ks else None)


def _row_times(cells, at, label):
    """A row's cell at the table's times' ``k`` (``at``), else at its own largest,
    and the ``k`` its times name (None: the table's)."""
    own = (
        at
        if (label, at) in cells
        else _times_k({key: v for key, v in cells.items() if key[0] == label})
    )
    return cells[label, own], (None if own == at else own)


def _split_md(line):
    return [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=stores())
def test_every_number_of_every_view_is_the_frames(rows):
    """Random stores (methods, k, seeds, splits with gaps, tuned and fixed rows,
    failed runs): each cell's mean, std and splits, and each row's training (tuning
    plus fit), tuning and test time, in the Markdown, LaTeX, CSV and HTML tables and
    the figures' numbers, are those computed here from the frame with pandas."""
    from fdlsr._experiments.escape import html, latex, markdown
    from fdlsr._experiments.html_report import _table as html_table
    from fdlsr._experiments.report import csv_rows, render, time_text
    from fdlsr._experiments.result_plots import (
        accuracy_by_k_data,
        accuracy_by_time_data,
    )
    from fdlsr._experiments.result_tables import store_tables

    with tempfile.TemporaryDirectory() as folder:
        write_store(Path(folder), rows)
        tables, _ = store_tables(folder)
        for table in tables:
            frame = table.frame
            cells = _cells(frame)
            at = _times_k(cells)
            summary = summarise(frame)
            page = html_table(summary, *table_rows(summary))  # the HTML page's table
            tuned = (frame.tuning == "cv").any()

            # CSV: every cell, its unit in its column's name
            for r in csv_rows(summary, table=table.title):
                c = cells.get((r["label"], r["k"]))
                if c is None:
                    assert r["accuracy_mean_pct"] is None
                    continue
                assert r["accuracy_mean_pct"] == pytest.approx(c["mean"])
                assert r["n_splits"] == c["n"]
                if c["std"] is None:
                    assert r["accuracy_std_pct"] is None
                else:
                    assert r["accuracy_std_pct"] == pytest.approx(c["std"])
                for name, key in (("train_time_s", "train"), ("fit_time_s", "fit"),
                                  ("tune_time_s", "tune"), ("predict_time_s", "predict")):  # fmt: skip
                    assert r[name] == pytest.approx(c[key])
                assert r["train_time_s"] == pytest.approx(
                    r["fit_time_s"] + r["tune_time_s"]
                )
            # Markdown and LaTeX: mean ± std per cell, the times at the table's k
            md = render(summary, "md")
            tex = render(summary, "latex")
            head = _split_md(
                next(line for line in md.splitlines() if line.startswith("| Method"))
            )
            assert ("Tuning (s)" in head) == bool(tuned)
            labels = set(frame.label[frame.accuracy.notna()])
            for label in labels:
                line = next(
                    line for line in md.splitlines()
                    if line.startswith(f"| {markdown(label)} |")
                )  # fmt: skip
                parts = dict(zip(head, _split_md(line), strict=True))
                tex_line = next(
                    line
                    for line in tex.splitlines()
                    if line.startswith(f"{latex(label)} &")
                )
                html_cells = re.search(
                    rf"<tr><td>{re.escape(html(label))}</td>(.*?)</tr>", page
                )[1]
                for (lab, k), c in cells.items():
                    if lab != label:
                        continue
                    text = f"{c['mean']:.2f}"
                    assert parts[f"k={markdown(k)}"].strip("*").startswith(text)
                    if c["std"] is not None:
                        assert f"{text} ± {c['std']:.2f}" in parts[f"k={markdown(k)}"]
                        assert f"{text}$\\pm${c['std']:.2f}" in tex_line
                        assert f"{text} ± {c['std']:.2f}" in html_cells
                c, suffix = _row_times(cells, at, label)
                assert parts["Training time (s)"] == time_text(c["train"], k=suffix)
                assert parts["Test time (s)"] == time_text(c["predict"], k=suffix)
                assert time_text(c["train"], "latex", suffix) in tex_line
                assert f"<td>{time_text(c['train'], 'html', suffix)}</td>" in html_cells
                if tuned:
                    tuning = frame.tuning[frame.label == label].iloc[0] == "cv"
                    expected = time_text(c["tune"] if tuning else None, k=suffix)
                    assert parts["Tuning (s)"] == expected
            # the figures' numbers
            by_k = accuracy_by_k_data(frame)
            for line in by_k["lines"]:
                for k, mean, n in zip(
                    by_k["ks"], line["accuracy_mean_pct"], line["n"], strict=True
                ):
                    c = cells.get((line["label"], k))
                    assert (mean is None) == (c is None)
                    if c is not None:
                        assert mean == pytest.approx(c["mean"]) and n == c["n"]
            if cells:
                by_time = accuracy_by_time_data(frame)
                assert by_time["k"] == at
                for p in by_time["points"]:
                    c = cells[p["label"], at]
                    assert p["accuracy_mean_pct"] == pytest.approx(c["mean"])
                    assert p["train_time_s"] == pytest.approx(c["train"])
                    assert p["tune_time_s"] == pytest.approx(c["tune"])
                    assert p["fit_time_s"] == pytest.approx(c["fit"])


def test_a_tuned_runs_cost_is_its_tuning_plus_its_fit_in_every_view(tmp_path):
    """One tuned method (tuning 3 s, fit 0.5 s per split) beside a fixed one: the
    frame, the CSV, the tables and the time figure's numbers give 3.5 s for it, and
    the figure places it there."""
    from result_stores import row

    grid = json.dumps({"cv": {"folds": 3, "grid": {"lam": [0.1, 1.0]}}, "params": {}})
    rows = [
        row("d", "LSR", 2, split, setting=grid, tuning="cv", fit_time=0.5,
            tune_time=3.0, params={"lam": 0.1}, fingerprint="f")
        for split in (0, 1)
    ]  # fmt: skip
    rows += [
        row("d", "FDLSR", 2, split, fit_time=1.0, fingerprint="f") for split in (0, 1)
    ]
    store = write_store(tmp_path / "s", rows)
    frame = read_results(store)
    lsr = frame[frame.method == "LSR"]
    assert list(lsr.train_time) == [3.5, 3.5] and list(lsr.tune_time) == [3.0, 3.0]
    status, out, err = cli(["report", str(store), "--format", "csv"])
    assert status == 0, err
    by_label = {r["label"]: r for r in csv.DictReader(io.StringIO(out))}
    assert float(by_label["LSR"]["train_time_s"]) == 3.5
    assert float(by_label["LSR"]["tune_time_s"]) == 3.0
    assert float(by_label["FDLSR"]["train_time_s"]) == 1.0
    for fmt in ("md", "html"):
        status, out, _ = cli(["report", str(store), "--format", fmt])
        assert "3.5000" in out and "3.0000" in out and "Tuning (s)" in out
    status, out, _ = cli(["report", str(store), "--format", "latex"])
    assert "3.5000" in out and "Tuning" in out
    status, _, err = cli(["plot", "results", str(store), "--out", str(tmp_path / "f")])
    assert status == 0, err
    data = json.loads((tmp_path / "f" / "d_accuracy_by_time.json").read_text())
    point = next(p for p in data["points"] if p["label"] == "LSR")
    assert point["train_time_s"] == 3.5 and point["tune_time_s"] == 3.0
    assert "tune_time_s + fit_time_s" in data["train_time"]


@pytest.mark.parametrize(
    "name", sorted(p.name for p in (REPO / "docs" / "results").iterdir())
)
def test_the_shipped_stores_read_without_a_warning(name):
    """Every shipped row was computed by today's searches and has its data
    fingerprint: reading a shipped store says nothing."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = read_results(REPO / "docs" / "results" / name)
    assert len(frame) > 1000
    tuned = frame[frame.method.isin(["LinearSVC", "LogisticRegression"])]
    searches = tuned.setting[tuned.tuning == "cv"]  # scikit-learn's, named
    assert len(searches) and searches.str.contains('"search": "').all()
