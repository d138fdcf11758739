"""A damaged results store still resumes and renders, and says what it skipped.

Every row is read through one schema; what fails it is skipped and counted on one line;
side files that cannot be read are reported on one line and replaced atomically.
"""

import contextlib
import io
import json
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fdlsr._experiments.cli import main
from fdlsr._experiments.rows import validate_row
from fdlsr._experiments.store_folder import MARK, MARK_TEXT, read_rows
from fdlsr._testing import cli

RUN = ["run", "--methods", "LSR", "-k", "3", "--splits", "2", "--no-table"]
MARKED = {MARK: MARK_TEXT.encode()}  # what makes a folder a store


@pytest.fixture(scope="module")
def healthy(tmp_path_factory):
    """A store of 2 rows (LSR, k=3, splits 0 and 1) and its dataset file."""
    root = tmp_path_factory.mktemp("healthy")
    rng = np.random.default_rng(0)
    data = root / "faces.npz"
    np.savez(data, X=rng.random((24, 10)), y=np.repeat(np.arange(4), 6))
    out = root / "store"
    with contextlib.redirect_stderr(io.StringIO()):
        assert main([*RUN, "--dataset", str(data), "--out", str(out)]) == 0
    files = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    return data, files


def make_store(folder, files, **replace):
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in {**files, **replace}.items():
        if content is not None:
            (folder / name).write_bytes(content)
        elif (folder / name).exists():
            (folder / name).unlink()
    return folder


def store_of(folder, results, experiment, environment):
    """A store in ``folder`` of these three files' contents (None: no such file)."""
    return make_store(
        folder,
        MARKED,
        **{
            "results.jsonl": results,
            "experiment.json": experiment,
            "environment.json": environment,
        },
    )


def lines_of(files):
    return [json.loads(line) for line in files["results.jsonl"].splitlines()]


def jsonl(*rows):
    return b"".join(
        (r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n" for r in rows
    )


def lsr_cell(text):
    """The k=3 accuracy of LSR in a Markdown table."""
    line = next(line for line in text.splitlines() if line.startswith("| LSR |"))
    return line.split(" | ")[1]


def skipped_line(err):
    found = [line for line in err.splitlines() if re.search(r"skipped \d+ of", line)]
    assert len(found) == 1, err
    return found[0]


def corrupt_cases(files):
    r0, r1 = lines_of(files)
    return {
        "null": (jsonl(b"null", r0, r1), "not a JSON object", 0),
        "list": (jsonl(b"[]", r0, r1), "not a JSON object", 0),
        "empty object": (jsonl(b"{}", r0, r1), "'dataset' missing", 0),
        "invalid UTF-8": (jsonl(b'{"dataset": "\xff\xfe"}', r0, r1), "not UTF-8", 0),
        "not JSON": (jsonl(b"{'dataset': 1}", r0, r1), "not JSON", 0),
        "accuracy 50.0": (
            jsonl({**r0, "accuracy": 50.0}, r1),
            "'accuracy' outside [0, 1]",
            1,
        ),
        "NaN accuracy": (jsonl({**r0, "accuracy": float("nan")}, r1), "'accuracy'", 1),
        "k as text": (jsonl({**r0, "k": "3"}, r1), "'k' of the wrong type", 1),
        "split 1.5": (jsonl({**r0, "split": 1.5}, r1), "'split' of the wrong type", 1),
        "negative time": (jsonl({**r0, "fit_time": -1.0}, r1), "'fit_time'", 1),
        "setting not JSON": (jsonl({**r0, "setting": "s"}, r1), "'setting'", 1),
        "five copies": (jsonl(r0, r0, r0, r0, r0, r1), "4 repeat a run", 0),
    }


CASES = [
    "null",
    "list",
    "empty object",
    "invalid UTF-8",
    "not JSON",
    "accuracy 50.0",
    "NaN accuracy",
    "k as text",
    "split 1.5",
    "negative time",
    "setting not JSON",
    "five copies",
]


@pytest.mark.parametrize("case", CASES)
def test_corrupt_lines_are_skipped_counted_and_recomputed(healthy, tmp_path, case):
    data, files = healthy
    status, clean, _ = cli(["report", str(make_store(tmp_path / "clean", files))])
    assert status == 0
    content, reason, missing = corrupt_cases(files)[case]
    store = make_store(tmp_path / "store", files, **{"results.jsonl": content})

    status, out, err = cli(["report", str(store)])
    assert status == 0, err
    assert reason in skipped_line(err) and "Traceback" not in err
    if not missing:  # every run is still there once: the same numbers
        assert lsr_cell(out) == lsr_cell(clean)
    assert "2550" not in out

    status, _, err = cli([*RUN, "--dataset", str(data), "--out", str(store)])
    assert status == 0, err
    assert f"{missing} runs computed, {2 - missing} already" in err
    assert reason in skipped_line(err)
    status, out, err = cli(["report", str(store)])
    assert status == 0 and lsr_cell(out) == lsr_cell(clean)


@pytest.mark.parametrize("name", ["experiment.json", "environment.json"])
@pytest.mark.parametrize(
    "content", [b"", b"{", b"null", b"[]", b'{"tables": [], "sessions": 3}', b"\xff"]
)
def test_unreadable_side_files_are_reported_and_replaced(
    healthy, tmp_path, name, content
):
    data, files = healthy
    store = make_store(tmp_path / "store", files, **{name: content})
    status, out, err = cli(["report", str(store)])
    assert status == 0 and "| LSR |" in out, err
    assert "Traceback" not in err and len(err.strip().splitlines()) <= 1

    status, _, err = cli([*RUN, "--dataset", str(data), "--out", str(store)])
    assert status == 0, err
    assert "0 runs computed, 2 already" in err
    assert [line for line in err.splitlines() if name in line], err
    # rewritten whole: readable again, and no temporary file left behind
    info = json.loads((store / name).read_text())
    assert isinstance(info, dict)
    assert not [p for p in store.iterdir() if p.name.endswith(".tmp")]
    status, out, err = cli(["report", str(store)])
    assert status == 0 and "| LSR |" in out and name not in err


def test_environment_sessions_keep_counting_after_a_corrupt_file(healthy, tmp_path):
    data, files = healthy
    store = make_store(tmp_path / "store", files, **{"environment.json": b"{"})
    cli([*RUN, "--dataset", str(data), "--out", str(store), "-k", "2"])
    sessions = json.loads((store / "environment.json").read_text())["sessions"]
    rows = read_rows(store)
    assert sessions[-1]["session"] > max(r["session"] for r in rows[:2])
    assert rows[-1]["session"] == sessions[-1]["session"]
    assert (store / "environment.json.unreadable").read_bytes() == b"{"


def one_line_error(argv):
    status, out, err = cli(argv)
    assert status == 2 and out == "", (status, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fdlsr: error: "), err
    return lines[0]


def test_report_on_what_is_not_a_store_is_a_one_line_error(healthy, tmp_path):
    _, files = healthy
    readme = tmp_path / "README.md"
    readme.write_text("# not results\n")
    assert "not a results store" in one_line_error(["report", str(readme)])
    assert "not a results store" in one_line_error(["report", str(tmp_path)])
    (tmp_path / "new").mkdir()
    assert "run an experiment first" in one_line_error(
        ["report", str(tmp_path / "new")]
    )
    empty = make_store(tmp_path / "empty", {**MARKED, "results.jsonl": b""})
    assert "no result rows" in one_line_error(["report", str(empty)])
    garbage = make_store(
        tmp_path / "garbage", {**MARKED, "results.jsonl": b"null\n[]\n"}
    )
    error = one_line_error(["report", str(garbage)])
    assert "no result rows" in error and "2 not a JSON object" in error


def test_the_schema_names_what_is_wrong():
    good = {
        "dataset": "d",
        "method": "LSR",
        "family": "relaxed",
        "k": 2,
        "split": 0,
        "seed": 0,
        "setting": '{"params": {}}',
        "accuracy": 0.5,
        "fit_time": 0.1,
        "predict_time": 0.1,
    }
    assert validate_row(good) is None
    assert validate_row({**good, "k": "fixed"}) is None
    assert validate_row({**good, "accuracy": None, "error": "E"}) is None
    assert validate_row({**good, "k": True}) == "'k' of the wrong type"
    assert validate_row({**good, "accuracy": 1.5}) == "'accuracy' outside [0, 1]"
    assert validate_row({**good, "session": "0"}) == "'session' of the wrong type"
    assert validate_row(5) == "not a JSON object"


# -- property: whatever the files hold, a rendered report or one line with exit 2 --

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=True)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
ROW = {
    "dataset": "faces.npz",
    "method": "LSR",
    "family": "relaxed",
    "k": 3,
    "split": 0,
    "seed": 0,
    "setting": '{"params": {"lam": 0.1}}',
    "accuracy": 0.5,
    "fit_time": 0.1,
    "predict_time": 0.1,
    "session": 0,
}


@st.composite
def row_like(draw):
    """A valid row with some fields replaced by arbitrary JSON, or removed."""
    row = dict(
        ROW, split=draw(st.integers(0, 3)), method=draw(st.sampled_from(["LSR", "X"]))
    )
    for key in draw(st.lists(st.sampled_from(sorted(ROW)), max_size=3)):
        if draw(st.booleans()):
            row[key] = draw(JSON)
        else:
            row.pop(key, None)
    return json.dumps(row).encode()


LINE = (
    st.binary(max_size=40).map(lambda b: b.replace(b"\n", b""))
    | JSON.map(lambda v: json.dumps(v).encode())
    | row_like()
)
SIDE = st.none() | st.binary(max_size=30) | JSON.map(lambda v: json.dumps(v).encode())


def assert_report_or_one_line_error(status, out, err):
    assert "Traceback" not in err
    if status == 0:
        assert out.strip()
    else:
        assert status == 2 and out == "", (status, out, err)
        assert len(err.strip().splitlines()) == 1 and err.startswith("fdlsr: error: ")


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    lines=st.lists(LINE, max_size=6),
    torn=st.booleans(),
    experiment=SIDE,
    environment=SIDE,
)
def test_any_store_content_gives_a_report_or_one_line(
    healthy, lines, torn, experiment, environment
):
    data, files = healthy
    content = b"".join(line + b"\n" for line in lines) + (b'{"data' if torn else b"")
    with tempfile.TemporaryDirectory() as tmp:
        store = store_of(Path(tmp) / "store", content, experiment, environment)
        assert_report_or_one_line_error(*cli(["report", str(store)]))
        for fmt in ("latex", "csv"):
            assert_report_or_one_line_error(
                *cli(["report", str(store), "--format", fmt])
            )


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(lines=st.lists(LINE, max_size=4), experiment=SIDE, environment=SIDE)
def test_any_store_content_resumes_or_refuses_in_one_line(
    healthy, lines, experiment, environment
):
    data, files = healthy
    content = files["results.jsonl"] + b"".join(line + b"\n" for line in lines)
    with tempfile.TemporaryDirectory() as tmp:
        store = store_of(Path(tmp) / "store", content, experiment, environment)
        status, out, err = cli([*RUN, "--dataset", str(data), "--out", str(store)])
        assert "Traceback" not in err
        if status == 0:
            assert re.search(r"\d+ runs computed", err)
        else:
            assert status == 2 and len(err.strip().splitlines()) == 1, err
        assert_report_or_one_line_error(*cli(["report", str(store)]))
