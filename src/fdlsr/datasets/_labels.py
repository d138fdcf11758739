"""Class labels as a file stores them: every reader turns its labels into classes here.

Two stored labels that differ are never one class. Numbers are classes by value
(``1``, ``1.0`` and ``True`` are one class, as ``-0.0`` and ``0``): whole numbers
become int64 when every one fits; otherwise each label becomes text, a whole number
as an integer (``"7"``) and any other as the shortest text that reads back as the
same number (``"1.5"``, ``"1e+300"``). Text is kept as written, except that

- white space around every label is dropped when that leaves all labels distinct
  (``" cat"`` and ``"cat"`` in one file stay two classes);
- text becomes integers only when every label is an integer written the way Python
  writes it (``str(int(s)) == s``): ``"01"``, ``"+1"``, ``"1_12"``, ``"١"`` (an
  Arabic-Indic one) keep the labels text.

A label that is empty, NaN, infinite, or neither text nor a real number is refused.
"""

import re

import numpy as np

from .._common.messages import quote
from ..errors import DatasetError
from ._memory import NUMBER_LABEL_BYTES, NUMBER_TEXT_CHARACTERS, text_label_bytes

INT64 = (-(2**63), 2**63)  # [low, high): the whole numbers int64 holds


def class_labels(values, where, *more, budget=None):
    """Labels as classes: an int64 or a str array, in the order given.

    Parameters
    ----------
    values : array-like
        The labels of one variable, column or list (any shape; flattened in C order).
    where : str
        Where the labels come from, for messages (``"t.csv column 0"``).
    *more : array-like
        Further labels of the same data set (a fixed split's test labels): all are
        converted together, so that one label is one class in every part.
    budget : MemoryBudget, optional
        Charged with the memory the conversion holds, before it is allocated.

    Returns
    -------
    ndarray of int64 or str
        The labels of ``values`` and of ``more``, concatenated.
    """
    parts = [
        _as_int_or_text(np.asarray(v).ravel(), where, budget) for v in (values, *more)
    ]
    if all(p.dtype.kind == "i" for p in parts):
        return np.concatenate(parts)
    if budget is not None:  # whole numbers become text too, up to 20 digits
        budget.charge((sum(p.size for p in parts),), text_label_bytes(20), where)
    text = np.concatenate([p.astype(str) for p in parts])
    return _from_text(text, where)


def check_classes(y, where):
    """Refuse labels of fewer than two classes: nothing can be classified."""
    classes = np.unique(y)
    if classes.size < 2:
        got = f"a single class ({quote(classes[0])})" if classes.size else "no samples"
        raise DatasetError(
            f"{where} holds {got}; classification needs samples of at least two "
            "classes: give data with more classes"
        )


def label_text(y):
    """Each label as the text of its class, to compare the labels of two files, or a
    model's with a file's: numbers by value, as :func:`class_labels` makes them
    classes (``1``, ``1.0`` and ``True`` are all ``"1"``, ``1.5`` is ``"1.5"``),
    anything else as its text (``"7"`` matches the number ``7``).

    Each label's text depends on that label only, so a model's predictions and its
    ``classes_`` are written alike however few of them there are.
    """
    y = np.asarray(y).ravel()
    if y.dtype.kind == "O" and all(_is_number(v) for v in y.tolist()):
        y = np.array(y.tolist())  # numbers kept in an object array: by value too
    if y.dtype.kind in "biuf":
        try:
            return _as_int_or_text(y, "the labels", None).astype(str)
        except DatasetError:  # NaN or infinite: no class a file holds; as written
            pass
    return y.astype(str)


def _is_number(value):
    return isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating))


def _as_int_or_text(y, where, budget):
    """Numbers as int64 or as their text; text as str (bytes decoded as UTF-8)."""
    kind = y.dtype.kind

    def charge(per_label):
        if budget is not None:
            budget.charge(y.shape, per_label, f"the labels of {where}")

    if kind in "biuf":
        charge(NUMBER_LABEL_BYTES)
    if kind in "biu":
        if y.size and (int(y.min()) < INT64[0] or int(y.max()) >= INT64[1]):
            charge(text_label_bytes(NUMBER_TEXT_CHARACTERS))
            return np.array([str(v) for v in y.tolist()])
        return y.astype(np.int64)
    if kind == "f":
        if not np.all(np.isfinite(y)):
            raise DatasetError(
                f"labels in {where} contain NaN or infinite values; every sample "
                "needs a class label: fix or remove those samples"
            )
        low, high = np.float64(INT64[0]), np.float64(INT64[1])  # exact in float64
        whole = (y == np.floor(y)) & (y >= low) & (y < high)
        if np.all(whole):
            return y.astype(np.int64)
        charge(text_label_bytes(NUMBER_TEXT_CHARACTERS))
        # A whole number is written as an integer, as an int label is; numpy's str()
        # of any other is the shortest text that reads back as the same number, in
        # the scalar's own precision (float16 to long double).
        return np.array(
            [str(int(v)) if w else str(v) for v, w in zip(y, whole, strict=True)]
        )
    if kind in "USO":
        longest = y.itemsize // 4 if kind == "U" else y.itemsize
        if kind == "O":
            longest = max(
                (len(v) for v in y.tolist() if hasattr(v, "__len__")), default=0
            )
        charge(text_label_bytes(longest))
        return np.array([_text(v, where) for v in y], dtype=str)
    raise DatasetError(
        f"labels in {where} have an unsupported type ({y.dtype}); "
        "store them as integers or strings"
    )


def _text(value, where):
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            raise DatasetError(
                f"labels in {where} hold bytes that are not UTF-8 text "
                f"({quote(value)}); store the labels as text or integers"
            ) from None
    if not isinstance(value, str):
        raise DatasetError(
            f"labels in {where} mix text with {type(value).__name__} values; "
            "store the labels as text or integers"
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise DatasetError(
            f"labels in {where} hold characters that are not valid text "
            f"({quote(value)}); save the labels as UTF-8 text"
        ) from None
    return value


def _from_text(y, where):
    """Text labels, white space and integers as in the module's docstring."""
    stripped = np.char.strip(y)
    empty = np.flatnonzero(stripped == "")
    if empty.size:
        raise DatasetError(
            f"labels in {where}: {empty.size} samples have an empty label (the "
            f"first is sample {empty[0]}, counting from 0); give every sample a label"
        )
    distinct = np.unique(y)
    if np.unique(np.char.strip(distinct)).size == distinct.size:
        y, distinct = stripped, np.unique(stripped)
    numbers = [_integer(s) for s in distinct.tolist()]
    if all(n is not None for n in numbers):
        codes = np.searchsorted(distinct, y)
        return np.array(numbers, dtype=np.int64)[codes]
    return y


def _integer(text):
    """``int(text)`` when ``text`` is exactly how Python writes that int64, else None."""
    if len(text) > 20 or not re.fullmatch(r"-?[0-9]+", text):
        return None
    number = int(text)
    if str(number) != text or not INT64[0] <= number < INT64[1]:
        return None
    return number
