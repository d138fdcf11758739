"""JSON read strictly: what could be read two ways is refused.

Python's :func:`json.loads` keeps the last value of a key an object names twice,
without a word, so a file edited by hand (two rows merged, a field pasted twice)
would say one thing and be read as another. It also reads ``NaN``, ``Infinity`` and
numbers too large for a float (``1e999``, read as infinity), which JSON does not
have. Every JSON text the package reads (model files, results rows, a store's mark
and side files, feature records, the data registry) goes through :func:`loads`;
only the readers of files whose writer may itself write a non-finite number (a
parameter of infinity in a row or a model) pass ``allow_nan=True``.
"""

import json
import math

from ..errors import FdlsrError
from .messages import one_line, quote


class JSONError(FdlsrError):
    """A JSON text that cannot be read unambiguously; the message says why, in a
    few words, for the caller to put after the file's name."""


class JSONSyntaxError(JSONError):
    """A text that is not JSON at all: not UTF-8, not JSON's grammar, or nested
    deeper than the decoder can follow (e.g. a line cut short by a kill)."""


class RepeatedKeyError(JSONError):
    """A JSON object names a key twice: which value counts would be a guess."""


def loads(text, *, allow_nan=False):
    """The JSON value of ``text``, refusing what could be read two ways.

    Parameters
    ----------
    text : str or bytes
        The JSON text; bytes must be UTF-8 (no other encoding is guessed).
    allow_nan : bool, default=False
        Whether ``NaN``, ``Infinity``, ``-Infinity`` and numbers beyond a float's
        range (read as infinities) are read; refused when False.

    Returns
    -------
    object
        The decoded value, as :func:`json.loads` gives it.

    Raises
    ------
    JSONSyntaxError
        For text that is not UTF-8, not JSON, or nested deeper than Python's
        recursion limit.
    RepeatedKeyError
        For an object, at any depth, that names a key twice.
    JSONError
        The base of both; also for whole JSON that holds a number it may not
        (above, or an integer of more digits than Python reads). Each is a
        :class:`~fdlsr.errors.FdlsrError`, hence a ``ValueError``.
    """
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as error:
            raise JSONSyntaxError(f"not UTF-8 text (byte {error.start})") from None
    try:
        return json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_constant=_constant(allow_nan),
            parse_float=_float(allow_nan),
        )
    except json.JSONDecodeError as error:
        raise JSONSyntaxError(
            f"not valid JSON ({error.msg} at line {error.lineno} column {error.colno})"
        ) from None
    except RecursionError:  # the decoder recurses once per level of nesting
        raise JSONSyntaxError("not JSON fdlsr reads (nested too deep)") from None
    except JSONError:
        raise
    except ValueError as error:  # e.g. an integer of more digits than Python reads
        raise JSONError(f"not JSON fdlsr reads ({one_line(error)})") from None


def _unique_keys(pairs):
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise RepeatedKeyError(f"a JSON object names the key {quote(twice)} twice")
    return out


def _constant(allow_nan):
    def parse(name):  # name: "NaN", "Infinity" or "-Infinity"
        if not allow_nan:
            raise JSONError(f"holds {name}, which is not a JSON number")
        return float(name)

    return parse


def _float(allow_nan):
    def parse(digits):
        value = float(digits)
        if not allow_nan and not math.isfinite(value):
            raise JSONError(f"holds the number {quote(digits)}, beyond a float's range")
        return value

    return parse
