"""Exceptions for mistakes a user can fix: bad files, names, settings.

The command line prints their message on one line and exits non-zero, without a
traceback; library callers can catch them as ``ValueError``. A message names a
setting as the user gives it (:func:`setting`): ``--data-dir`` under the ``fdlsr``
command, ``data_dir=`` in Python.
"""

import contextlib
import contextvars
import difflib
import unicodedata


class FdlsrError(ValueError):
    """A problem with the user's input, with a message that names the fix."""


class DatasetError(FdlsrError):
    """A dataset could not be found, read or understood."""


class ConfigError(FdlsrError):
    """An experiment setting (method, parameter, split) is invalid."""


class ModelFileError(FdlsrError):
    """A model file could not be written or read (not one, damaged, unknown format)."""


class WorkerError(FdlsrError):
    """A worker process ended before its work was done (killed, out of memory)."""


class DataScaleError(FdlsrError):
    """Samples of a scale at which a method's float64 arithmetic over- or underflows."""


class DataScaleWarning(UserWarning):
    """Samples far from the unit norm that a method's parameters are chosen for.

    Raised once by ``fit`` of a method whose model depends on the samples' scale
    (:func:`fdlsr._common.validation.check_sample_scale` states the rule); the fix
    is to unit-normalise the samples, as the papers and ``fdlsr run`` do.
    """


class UnreliableResultWarning(UserWarning):
    """A method ran faithfully in a setting where its result is known to be unreliable.

    Experiment rows record it, and ``fdlsr report`` marks the cells it touched with a
    dagger and a note, so that such a number never stands in a table unexplained.
    """


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
    """``text`` with its control characters and line separators escaped as Python
    writes them (a newline as ``\\n``, ESC as ``\\x1b``, U+2028 as ``\\u2028``), so
    that a message quoting a file name stays one line and cannot move the cursor
    (a file may be named ``a\\nb.png``)."""
    return "".join(
        repr(c)[1:-1] if unicodedata.category(c) in _UNPRINTABLE else c for c in text
    )


# Control characters, line and paragraph separators.
_UNPRINTABLE = {"Cc", "Zl", "Zp"}


def did_you_mean(name, choices):
    """`` Did you mean 'X'?`` for a misspelled ``name`` (case aside) among ``choices``,
    or ``""`` when none is close, to end a message that lists the choices."""
    by_lower = {str(choice).lower(): str(choice) for choice in choices}
    close = difflib.get_close_matches(
        str(name).lower(), list(by_lower), n=1, cutoff=0.6
    )
    return f" Did you mean {by_lower[close[0]]!r}?" if close else ""
