"""Text from a store is data in every output channel (fdlsr._experiments.escape).

Each channel's function is fed arbitrary Unicode, control characters, C1 (CSI),
separators and bidirectional controls included; what it writes holds none of them
raw, and keeps what the channel itself must not read as markup.
"""

import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from fdlsr._experiments import escape

# Any code point but lone surrogates (they cannot be written as UTF-8 at all).
ANY_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=80)
HOSTILE = st.text(
    st.sampled_from(
        list(
            "=+-@\t\r\n\x1b\x9b\x08\x07\x00\x7f\u2028\u2029\u202e\u2066"
            "\u200f|<>&$\\`*_[]{}%#~^'\"aZ9 "
        )
    ),
    max_size=40,
)
TEXT = st.one_of(ANY_TEXT, HOSTILE)

BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def raw_invisible(out):
    """The characters of ``out`` a terminal or a reader would not see as written."""
    return [
        c for c in out if c in BIDI or unicodedata.category(c) in {"Cc", "Zl", "Zp"}
    ]


CHANNELS = [
    escape.terminal,
    escape.markdown,
    escape.latex,
    escape.csv_cell,
    escape.figure_label,
]


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_no_channel_writes_a_control_separator_or_bidi_character(text):
    for channel in CHANNELS:
        assert raw_invisible(channel(text)) == [], channel.__name__
    # HTML keeps a line break (shown as a space by the browser), nothing else.
    assert set(raw_invisible(escape.html(text))) <= {"\n"}


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_visible_text_is_kept_and_hidden_text_is_shown(text):
    shown = escape.visible(text)
    for c in text:
        if c in BIDI or unicodedata.category(c) in {"Cc", "Zl", "Zp"}:
            assert repr(c)[1:-1] in shown
        else:
            assert c in shown


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_a_csv_cell_never_starts_a_formula(text):
    cell = escape.csv_cell(text)
    assert not cell.startswith(("=", "+", "-", "@", "\t", "\r"))
    # Text that starts no formula is written as it is (made one line and visible).
    if not text.startswith(("=", "+", "-", "@", "\t", "\r")):
        assert cell == escape.one_line(text)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_markdown_adds_no_cell_and_no_markup(text):
    out = escape.markdown(text)
    # Every |, <, `, [ ... is preceded by an odd number of backslashes: escaped.
    for match in re.finditer(r"(\\*)([|<>`\[\]*_$])", out):
        assert len(match.group(1)) % 2 == 1, out


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_html_has_no_markup(text):
    out = escape.html(text)
    assert "<" not in out and ">" not in out and '"' not in out


@settings(max_examples=300, deadline=None)
@given(TEXT, st.integers(2, 100))
def test_a_figure_label_has_a_readable_length(text, limit):
    label = escape.figure_label(text, limit)
    assert len(label.replace(r"\$", "$")) <= limit
    assert "$" not in label.replace(r"\$", "")
    if len(escape.one_line(text)) > limit:
        assert label.endswith("…")


def test_the_cases_of_the_attack_round():
    # A clear-screen sequence, CSI, a backspace and a right-to-left override.
    assert escape.terminal("A\x1b[2JB\x9b1m\x08C\u202eD") == (
        "A\\x1b[2JB\\x9b1m\\x08C\\u202eD"
    )
    assert escape.csv_cell("=1+1") == "'=1+1"
    assert escape.csv_cell("-2") == "'-2"
    assert escape.csv_cell("LSR") == "LSR"
    assert "\u202e" not in escape.html("x\u202ey")
    assert len(escape.figure_label("m" * 1_000_000)) == escape.LABEL_LIMIT


# -- every command that shows a store's text, end to end ----------------------------

HOSTILE_NAMES = [
    '=HYPERLINK("http://x")',
    "+1",
    "@SUM(A1)",
    "-2",
    "clear\x1b[2J\x1b[H\x9b31m\x08\x08ok",
    "rev\u202eersed",
    "m" * 100_000,
]


def _hostile_store(tmp_path):
    from result_stores import row, write_store

    rows = [
        row("d\x1b]0;title\x07", name, 2, split, accuracy=0.5 + 0.01 * split)
        for name in [*HOSTILE_NAMES, "LSR"]
        for split in range(2)
    ]
    return write_store(tmp_path / "store", rows)


def _fdlsr(*argv, cwd):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "fdlsr", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def test_a_hostile_store_reaches_no_output_raw(tmp_path):
    """Method names and a data set name holding terminal escapes, CSI, backspaces, a
    right-to-left override, spreadsheet formulas and 100,000 characters: every
    report format, the statistics and the figures show them as data."""
    store = _hostile_store(tmp_path)
    outputs = {}
    for fmt in ("md", "latex", "csv"):
        done = _fdlsr("report", str(store), "--format", fmt, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        outputs[fmt] = done.stdout + done.stderr
    done = _fdlsr("report", str(store), "--stats", "--format", "csv",
                  "--reference", "LSR", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    outputs["stats"] = done.stdout + done.stderr
    page = tmp_path / "page.html"
    done = _fdlsr("report", str(store), "--format", "html", "-o", str(page),
                  cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    outputs["html"] = page.read_text(encoding="utf-8") + done.stderr
    done = _fdlsr("plot", "results", str(store), "--out", str(tmp_path / "figs"),
                  cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    outputs["plot"] = done.stdout + done.stderr
    for fmt, text in outputs.items():
        assert [c for c in text if c in "\x1b\x9b\x08\x07\u202e"] == [], fmt
    import csv
    import io

    for fmt in ("csv", "stats"):
        for record in csv.reader(io.StringIO(outputs[fmt])):
            for cell in record:
                assert not cell.startswith(("=", "+", "@")), (fmt, cell)
                # a negative number stays a number; text starting with "-" is quoted
                if cell.startswith("-"):
                    float(cell)
