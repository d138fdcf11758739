"""fdlsr.results.read_results: results folders as a DataFrame, derived from the
store, its groups the cells of the tables."""

import json
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fdlsr._experiments.report import summarise, table_rows
from fdlsr._experiments.store_folder import MARK, make_store, read_store
from fdlsr.errors import ConfigError
from fdlsr.results import read_results
from result_stores import stores

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
    ks = [int(c.strip()[2:]) for c in head.split("|")[2:-4]]
    cells = {}
    for line in lines:
        parts = [c.strip() for c in line.split("|")[1:-1]]
        if len(parts) != len(ks) + 4 or parts[0].startswith(("*", "Method", "---")):
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
    _, table = table_rows(summarise(rows))  # the table, through the report's code
    computed = {
        (row["label"], k): cell[0]
        for row in table
        for k, cell in row["cells"].items()
        if cell[0] is not None
    }
    shipped = shipped_cells("feret")
    assert set(computed) == set(shipped) and len(shipped) == 28 * 5 - 1  # LDA, k=1
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
    assert set(feret.tuning.cat.categories) == {"paper", "fixed", "cv", "unrecorded"}


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
        other: ["LSR (lam=1.0)"],
    }
    assert list(frame.store[:2]) == [str(a)] * 2 and str(b) in list(frame.store)


def test_without_pandas_one_line_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError) as error:
        read_results(FERET)
    assert str(error.value).count("\n") == 0
    assert "pip install 'fdlsr[pandas]'" in str(error.value)


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
