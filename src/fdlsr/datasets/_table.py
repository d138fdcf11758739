"""The records of a text table as ``numpy.loadtxt`` splits them, with their lines.

``numpy.loadtxt`` picks the columns it is asked for (``usecols``) and ignores the
others, so a line with one field too many (an unquoted ``1,234.5`` among plain
numbers) would be read shifted by one, its last value dropped. The CSV reader
therefore walks the whole table first, record by record, exactly as numpy's tokenizer
(``quotechar='"'``, no comments) will, and refuses a record whose number of fields
differs from the first's, naming its line (``file:line``).

numpy's rules, which :func:`records` follows: a record ends at an unquoted ``\\n``,
``\\r`` or ``\\r\\n``; a field is quoted only when its first character is ``"``
(after white space, with a white-space delimiter), where ``""`` is one ``"`` and the
delimiter and line ends are text; after the closing quote the field goes on
unquoted. A record of no fields (a blank line) is skipped. With a white-space
delimiter (``None``), runs of white space separate fields and an empty last field is
dropped, unless the record's first field was quoted (numpy's own rule, kept here so
that the count is numpy's).
"""

import csv
from dataclasses import dataclass

from .._common.files import open_input
from ..errors import DatasetError

QUOTE = '"'


@dataclass(frozen=True)
class TableShape:
    """What a table's records say before its values are read.

    ``first`` and ``second`` are the fields of the first two records (``second`` is
    empty for a table of one record); ``first_end`` is the physical line the first
    record ends on (what ``numpy.loadtxt(skiprows=...)`` skips for a header);
    ``n_records`` counts every record, the first included; ``longest`` is the
    longest field, in characters.
    """

    n_columns: int
    first: list
    second: list
    first_end: int
    n_records: int
    longest: int


def table_shape(path, *, delimiter, encoding):
    """The shape of the table in ``path``, every record checked to have as many
    fields as the first.

    Parameters
    ----------
    path : path-like
        The text table.
    delimiter : str or None
        One character, or None for runs of white space.
    encoding : str
        The file's text encoding.

    Returns
    -------
    TableShape

    Raises
    ------
    fdlsr.errors.DatasetError
        A record with another number of fields than the first (its line named), an
        empty table, or a field too long for the CSV reader.
    """
    first = second = None
    first_line = first_end = n_records = longest = 0
    with open_input(
        path, "r", error=DatasetError, what="data file", encoding=encoding, newline=""
    ) as f:
        for line, end, fields in records(f, delimiter, path):
            n_records += 1
            if first is None:
                first, first_line, first_end = fields, line, end
            elif len(fields) != len(first):
                raise _ragged(path, line, fields, first_line, first, delimiter)
            elif second is None:
                second = fields
            longest = max(longest, *map(len, fields))
    if first is None:
        raise DatasetError(f"{path} is empty; it needs one sample per line")
    return TableShape(len(first), first, second or [], first_end, n_records, longest)


def record_at(path, index, *, delimiter, encoding):
    """``(first line, fields)`` of the record ``index`` (0 is the first) of the table
    in ``path``, or None past its end: where a value numpy could not read lies."""
    with open_input(
        path, "r", error=DatasetError, what="data file", encoding=encoding, newline=""
    ) as f:
        for number, (line, _, fields) in enumerate(records(f, delimiter, path)):
            if number == index:
                return line, fields
    return None


def records(f, delimiter, path):
    """``(first line, last line, fields)`` of every record of the open text file
    ``f`` (opened with ``newline=""``), lines counted from 1."""
    if delimiter is None:
        yield from _white_space_records(f)
        return
    reader = csv.reader(f, delimiter=delimiter, quotechar=QUOTE, strict=False)
    start = 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:  # a field longer than the csv module takes
            raise DatasetError(
                f"{path}:{reader.line_num}: cannot split the line into fields "
                f"({exc}); a field that long is not a number or a label: fix the line"
            ) from None
        if fields:  # [] is a blank line, which numpy skips
            yield start, reader.line_num, fields
        start = reader.line_num + 1


def _white_space_records(f):
    """Records split at runs of white space, as numpy splits them (see the module)."""
    number = 0
    lines = iter(f)
    for text in lines:
        number += 1
        start = number
        if QUOTE not in text:
            fields = text.split()
        else:
            fields, number = _quoted_record(text, lines, number)
        if fields:
            yield start, number, fields


def _quoted_record(text, lines, number):
    """The fields of a record holding a quote: numpy's tokenizer, one character at a
    time; a quoted field may go on over the next lines (read from ``lines``)."""
    fields, field = [], []
    first_quoted = False
    state = "start"  # start of a field, "plain", "quoted", "after quote"
    i = 0
    while True:
        if i == len(text):
            if state == "quoted":  # a line end inside quotes is text
                following = next(lines, None)
                if following is not None:
                    text, i, number = following, 0, number + 1
                    continue
            break  # the end of the file ends the record
        c = text[i]
        if state == "start":
            if c.isspace() and c not in "\r\n":
                i += 1
                continue
            if c == QUOTE:
                first_quoted = first_quoted or not fields
                state, i = "quoted", i + 1
                continue
            state = "plain"
        if state == "after quote":
            if c == QUOTE:
                field.append(QUOTE)
                state, i = "quoted", i + 1
                continue
            state = "plain"
        if state == "quoted":
            if c == QUOTE:
                state = "after quote"
            else:
                field.append(c)
            i += 1
            continue
        # plain
        if c in "\r\n":
            break
        if c.isspace():
            fields.append("".join(field))
            field, state = [], "start"
        else:
            field.append(c)
        i += 1
    fields.append("".join(field))
    if fields[-1] == "" and not first_quoted:
        fields.pop()  # numpy drops an empty last field, unless the first was quoted
    return fields, number


def _ragged(path, line, fields, first_line, first, delimiter):
    n, k = len(first), len(fields)
    if any("\n" in f or "\r" in f for f in fields):
        why = 'a field opened by a quote runs on over the line ends; is a " not closed?'
        fix = "close the quote, or quote the whole field"
    elif k < n:
        why, fix = "a value is missing", "fill in what is missing"
    elif delimiter in (",", ";"):
        why = (
            f"a value holding the delimiter {delimiter!r}, such as the number "
            f"1{delimiter}234.5, is split in two"
        )
        # quoted, "1,234.5" is one field but still not a number
        fix = (
            f"write numbers without a thousands separator (1234.5), quote text that "
            f"holds {delimiter!r}, or remove the extra fields"
        )
    else:
        why = "an extra value, or a value holding the delimiter"
        fix = "quote such values or remove the extra fields"
    return DatasetError(
        f"{path}:{line} has {k} fields but line {first_line} has {n} ({why}); every "
        f"line of a table needs the same fields: {fix}"
    )
