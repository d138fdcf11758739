"""Exceptions for mistakes a user can fix: bad files, names, settings.

The command line prints their message on one line and exits non-zero, without a
traceback; library callers can catch them as ``ValueError``.
"""


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


class UnreliableResultWarning(UserWarning):
    """A method ran faithfully in a setting where its result is known to be unreliable.

    Experiment rows record it, and ``fdlsr report`` marks the cells it touched with a
    dagger and a note, so that such a number never stands in a table unexplained.
    """


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
