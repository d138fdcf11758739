"""How error messages quote a user's text and name a user's settings.

Shared by every layer that raises :mod:`fdlsr.errors`: a value from a file is quoted
cut short (:func:`quote`), a library's message is put on one line (:func:`one_line`),
a file name is made printable (:func:`printable`), and a setting is named as the user
gives it (:func:`setting`): ``--data-dir`` under the ``fdlsr`` command, ``data_dir=``
in Python.
"""

import contextlib
import contextvars
import difflib
import unicodedata

# How the command line spells the settings that messages name (Python keyword: option).
OPTIONS = {
    "data_dir": "--data-dir",
    "resize": "--resize H W",
    "x": "--x NAME",
    "y": "--y NAME|INDEX",
    "samples": "--samples rows|columns",
}
_COMMAND_LINE = contextvars.ContextVar("fdlsr_command_line", default=False)


@contextlib.contextmanager
def on_command_line():
    """Within this block messages name settings by their ``fdlsr`` options."""
    token = _COMMAND_LINE.set(True)
    try:
        yield
    finally:
        _COMMAND_LINE.reset(token)


def setting(name, python):
    """Setting ``name`` as the user gives it: its command-line option (from
    :data:`OPTIONS`) inside :func:`on_command_line`, else (or for a setting the
    command line does not offer) ``python`` (e.g. ``"resize=(h, w)"``)."""
    on_line = _COMMAND_LINE.get() and name in OPTIONS  # else Python's only
    return OPTIONS[name] if on_line else python


# A message quotes at most this many characters of a user's text (a label, a line of a
# file, a library's message about it), so that an error stays one readable line.
QUOTE_LIMIT = 60


def cut(text, limit=QUOTE_LIMIT):
    """``text`` cut to ``limit`` characters, with an ellipsis when something was cut."""
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "…"


def quote(value, limit=QUOTE_LIMIT):
    """A value from a user's file as an error message quotes it: ``'cat'``, ``77``,
    cut to ``limit`` characters (``'aaaa…'``)."""
    value = (
        value.item() if hasattr(value, "item") and not isinstance(value, str) else value
    )
    if isinstance(value, str):
        return repr(cut(value, limit))
    return cut(repr(value), limit)


def one_line(text, limit=4 * QUOTE_LIMIT):
    """A (library's) message on one line, for a user-facing error: white space
    collapsed, and cut to ``limit`` characters since it may quote a file's text."""
    return cut(" ".join(str(text).split()), limit)


def printable(text):
    """``text`` with every character that could move the cursor, end a line or
    reorder the text around it shown as its Python escape: control characters
    (a newline as ``\\n``, ESC as ``\\x1b``, CSI as ``\\x9b``), line and paragraph
    separators (``\\u2028``) and bidirectional controls (``\\u202e``). Any other
    character, of any script, is kept. A message quoting a file name or a method
    name then stays one line and cannot drive the terminal (a file may be named
    ``a\\nb.png``); every output channel applies the same rule
    (:mod:`fdlsr._experiments.escape`)."""
    return "".join(
        repr(c)[1:-1]
        if c in _BIDI_CONTROLS or unicodedata.category(c) in _UNPRINTABLE
        else c
        for c in str(text)
    )


# Control characters, line and paragraph separators.
_UNPRINTABLE = {"Cc", "Zl", "Zp"}
# The explicit bidirectional formatting characters (marks, embeddings, overrides,
# isolates): each can reorder the rest of a line as it is displayed.
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def did_you_mean(name, choices):
    """`` Did you mean 'X'?`` for a misspelled ``name`` (case aside) among ``choices``,
    or ``""`` when none is close, to end a message that lists the choices."""
    by_lower = {str(choice).lower(): str(choice) for choice in choices}
    close = difflib.get_close_matches(
        str(name).lower(), list(by_lower), n=1, cutoff=0.6
    )
    return f" Did you mean {by_lower[close[0]]!r}?" if close else ""
