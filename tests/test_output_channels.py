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
    st.sampled_from(list("=+-@\t\r\n\x1b\x9b\x08\x07\x00\x7f\u2028\u2029\u202e\u2066"
                         "\u200f|<>&$\\`*_[]{}%#~^'\"aZ9 ")),
    max_size=40,
)
TEXT = st.one_of(ANY_TEXT, HOSTILE)

BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def raw_invisible(out):
    """The characters of ``out`` a terminal or a reader would not see as written."""
    return [c for c in out
            if c in BIDI or unicodedata.category(c) in {"Cc", "Zl", "Zp"}]


CHANNELS = [escape.terminal, escape.markdown, escape.latex, escape.csv_cell,
            escape.figure_label]


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
        "A\\x1b[2JB\\x9b1m\\x08C\\u202eD")
    assert escape.csv_cell("=1+1") == "'=1+1"
    assert escape.csv_cell("-2") == "'-2"
    assert escape.csv_cell("LSR") == "LSR"
    assert "\u202e" not in escape.html("x\u202ey")
    assert len(escape.figure_label("m" * 1_000_000)) == escape.LABEL_LIMIT
