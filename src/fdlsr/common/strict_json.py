"""JSON read strictly: an object that names a key twice is refused.

Python's :func:`json.loads` keeps the last value of a repeated key without a word,
so a file edited by hand (two rows merged, a field pasted twice) would say one thing
and be read as another. Every JSON file the package reads (model files, results
rows, a store's side files and mark, feature records) goes through :func:`loads`.
"""

import json

from ..errors import quote


class RepeatedKeyError(ValueError):
    """A JSON object names a key twice: which value counts would be a guess."""


def loads(text):
    """The JSON value of ``text``, refusing an object that names a key twice.

    Parameters
    ----------
    text : str or bytes
        The JSON text.

    Returns
    -------
    object
        The decoded value, as :func:`json.loads` gives it.

    Raises
    ------
    RepeatedKeyError
        For an object, at any depth, that names a key twice.
    ValueError
        For text that is not JSON (:class:`json.JSONDecodeError`, or
        :class:`UnicodeDecodeError` for bytes that are not UTF-8); both
        :class:`RepeatedKeyError` and these are ``ValueError``.
    """
    return json.loads(text, object_pairs_hook=_unique_keys)


def _unique_keys(pairs):
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise RepeatedKeyError(f"a JSON object names the key {quote(twice)} twice")
    return out
