"""fdlsr report --format html: one self-contained page, everything from the store
escaped, the same numbers as the other formats."""

import hashlib
import json
import re
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fdlsr._testing import cli, cli_error
from result_stores import stores, write_store

REPO = Path(__file__).resolve().parents[1]
STORE = REPO / "docs" / "results"
# What the page is made of: nothing that runs, nothing that loads.
TAGS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "code",
    "nav", "ul", "li", "a", "section", "table", "thead", "tbody", "tr", "th", "td",
    "strong", "figure", "img", "figcaption", "dl", "dt", "dd", "div",
}  # fmt: skip


class Page(HTMLParser):
    """Every tag and attribute of a page, and its text."""

    def __init__(self, text):
        super().__init__()
        self.tags, self.attributes, self.text = [], [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes += [(tag, name, value) for name, value in attrs]

    def handle_data(self, data):
        self.text.append(data)


def check_page(text):
    """Only the page's own markup: known tags, no event handler, no address but
    the page's own anchors and images inside it."""
    page = Page(text)
    assert set(page.tags) <= TAGS, set(page.tags) - TAGS
    for tag, name, value in page.attributes:
        assert not name.startswith("on"), (tag, name)
        if name == "src":
            assert tag == "img" and value.startswith("data:image/png;base64,")
        if name == "href":
            assert value.startswith("#"), value
    return page


@pytest.fixture(scope="module")
def orl_page(tmp_path_factory):
    out = tmp_path_factory.mktemp("html") / "orl.html"
    status, _, err = cli(
        ["report", str(STORE / "orl"), "--format", "html", "-o", str(out)]
    )
    assert status == 0, err
    return out.read_text()


def test_the_page_holds_table_notes_choices_figures_environment_commands(orl_page):
    page = check_page(orl_page)
    text = " ".join(page.text)
    status, md, _ = cli(["report", str(STORE / "orl")])
    for line in md.splitlines():  # every cell of the Markdown table
        if line.startswith("| ") and not line.startswith(("| Method", "| *")):
            for cell in line.split(" | ")[1:-3]:
                assert cell.strip("*") in text, cell
    assert "FDLSR parameters: alpha=0.1, beta=0.01, lam=0.1." in text
    assert "Parameters chosen by cross-validation" in text
    assert "lam=0.01 (7/10)" in text  # CRC at k=2
    # the two comparison figures and the paired statistics' critical-difference diagram
    assert orl_page.count('<img src="data:image/png;base64,') == 3
    assert "Paired statistics" in text and "Average ranks over" in text
    assert "BLAS and OpenMP threads" in text and "openblas" in text
    assert "fdlsr run --config orl --data-dir DATA_DIR --out docs/results/orl" in text
    assert "http://" not in orl_page and "https://" not in orl_page
    assert "default-src 'none'" in orl_page  # nothing may be loaded


HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>"


def test_a_hostile_store_cannot_inject_markup(tmp_path):
    """A method name, a title, an error, a note, a command and an environment entry
    holding markup: all printed as text."""
    rows = [
        {
            "dataset": "d", "method": HOSTILE, "family": "x</td><td>", "k": 2,
            "split": i, "seed": 0, "setting": '{"params": {"a<b>": "</code>"}}',
            "accuracy": 0.5, "fit_time": 0.1, "predict_time": 0.1, "session": 0,
            "warnings": [f"UnreliableResultWarning: {HOSTILE}"],
        }
        for i in range(2)
    ]  # fmt: skip
    rows.append({**rows[0], "method": "F", "accuracy": None, "error": HOSTILE})
    store = write_store(tmp_path / "store", rows)
    (store / "experiment.json").write_text(
        json.dumps(
            {
                "tables": {
                    "d": {
                        "title": HOSTILE,
                        "note": HOSTILE,
                        "commands": [f"fdlsr run {HOSTILE}"],
                        "methods": [HOSTILE, "<b>missing</b>"],
                    }
                },
                "commands": [HOSTILE],
            }
        )
    )
    (store / "environment.json").write_text(
        json.dumps(
            {"sessions": [{"session": 0, "cpu": HOSTILE, "command": [HOSTILE],
                           "packages": {HOSTILE: HOSTILE}, "threadpools": [{"internal_api": HOSTILE}]}]}
        )
    )  # fmt: skip
    out = tmp_path / "r.html"
    status, _, err = cli(["report", str(store), "--format", "html", "-o", str(out)])
    assert status == 0, err
    text = out.read_text()
    page = check_page(text)
    assert "<script" not in text and "<img src=x" not in text
    words = " ".join(page.text)
    assert words.count("<script>alert(1)</script>") >= 6  # shown, as text


def test_a_page_of_several_stores_says_how_many_tables_and_whose(tmp_path):
    """Two folders holding one data set: two sections, each naming its folder, and a
    heading that counts tables, data sets and folders as they are."""
    out = tmp_path / "two.html"
    argv = ["report", str(STORE / "orl"), str(STORE / "orl"), str(STORE / "yale")]
    status, _, err = cli([*argv, "--format", "html", "-o", str(out)])
    assert status == 0, err
    page = out.read_text()
    assert "<h1>Results: 3 tables of 2 data sets, from 2 results folders</h1>" in page
    headings = re.findall(r"<h2>([^<]*)</h2>", page)
    assert headings.pop() == "Paired statistics"  # of all the tables, after them
    assert len(headings) == 3
    assert headings[0].endswith(f"({STORE / 'orl'})") and headings[0] == headings[1]
    assert headings[2].endswith(f"({STORE / 'yale'})")
    assert '<meta name="generator" content="fdlsr ' in page


def test_the_output_guard_keeps_the_store(tmp_path, capsys):
    store = tmp_path / "store"
    shutil.copytree(STORE / "orl", store)
    line = cli_error(
        capsys, ["report", str(store), "--format", "html", "-o", str(store / "r.html")]
    )
    assert "inside the results store" in line and not (store / "r.html").exists()
    line = cli_error(
        capsys,
        ["report", str(store), "--format", "html", "-o", str(store / "results.jsonl")],
    )
    assert "is the input" in line or "inside the results store" in line


def digest(folder):
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in Path(folder).iterdir()
    }


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
SESSION = st.fixed_dictionaries(
    {"session": st.sampled_from([0, 1, None, "x"])},
    optional={
        "cpu": JSON, "cpu_count": JSON, "date": JSON, "load_average": JSON,
        "packages": JSON, "threadpools": JSON, "command": JSON, "python": JSON,
        "blas_threads_per_run": JSON, "thread_variables": JSON,
    },
)  # fmt: skip
ENVIRONMENT = st.one_of(
    st.none(),
    st.binary(max_size=20),
    st.builds(
        lambda s: json.dumps({"sessions": s}).encode(),
        st.lists(SESSION | JSON, max_size=3),
    ),
    st.builds(lambda v: json.dumps(v).encode(), JSON),
)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(rows=stores(), environment=ENVIRONMENT, info=JSON, paper=st.booleans())
def test_any_store_gives_a_safe_page_or_one_line(rows, environment, info, paper):
    with tempfile.TemporaryDirectory() as folder:
        store = write_store(Path(folder) / "store", [{**r, "session": 0} for r in rows])
        if environment is not None:
            (store / "environment.json").write_bytes(environment)
        (store / "experiment.json").write_text(json.dumps(info))
        before = digest(store)
        out = Path(folder) / "report.html"
        argv = ["report", str(store), "--format", "html", "-o", str(out)]
        status, _, err = cli(argv + (["--paper", "III"] if paper else []))
        assert "Traceback" not in err
        assert digest(store) == before
        if status == 0:
            check_page(out.read_text())
        else:
            assert status == 2 and len(err.strip().splitlines()) == 1, err


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="no headless Chromium here")
def test_chromium_renders_the_page_offline(orl_page, tmp_path):
    """The page as a browser builds it, with no network: its table and figures."""
    page = tmp_path / "orl.html"
    page.write_text(orl_page)
    flags = [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync",
        f"--user-data-dir={tempfile.mkdtemp()}",
    ]  # fmt: skip
    done = subprocess.run(
        [CHROMIUM, *flags, "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    dom = done.stdout
    assert "<table>" in dom and "FDLSR" in dom
    assert (
        len(re.findall(r'<img src="data:image/png;base64,', dom)) == 3
    )  # + the critical-difference diagram


def test_sessions_are_numbered_as_a_reader_counts_them(tmp_path):
    """The page numbers the sessions of environment.json (0, 1 in the shipped FERET
    store) as a reader counts them: 1, 2."""
    out = tmp_path / "feret.html"
    status, _, err = cli(
        ["report", str(STORE / "feret"), "--format", "html", "-o", str(out)]
    )
    assert status == 0, err
    environment = out.read_text().split("<h3>Environment</h3>")[1].split("<h3>")[0]
    head = re.search(r"<thead><tr>(.*?)</tr></thead>", environment)[1]
    assert re.findall(r"<th>(.*?)</th>", head)[0] == "Session"
    rows = re.findall(r"<tr><td class=\"text\">(.*?)</td>", environment)
    assert rows == ["1", "2"]
