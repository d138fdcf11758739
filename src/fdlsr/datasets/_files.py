"""Readers for CSV tables and folders of images."""

import csv
import io
import re
import warnings
from itertools import islice
from pathlib import Path

import numpy as np

from .._common.files import open_input
from .._common.messages import cut, quote, setting
from ..errors import DatasetError
from ._dataset import as_samples, one_line
from ._images import image_size, read_image
from ._labels import class_labels
from ._memory import IMAGE_WORK_BYTES, LINE_BYTES, MemoryBudget, text_column_bytes

IMAGE_SUFFIXES = {
    ".png", ".jpg", ".jpeg", ".bmp", ".pgm", ".ppm", ".pbm", ".tif", ".tiff",
    ".gif", ".webp",
}  # fmt: skip


ENCODING = "utf-8-sig"  # UTF-8, without the byte-order mark some editors put first
LABEL_NAMES = ("label", "labels", "class", "target", "y")
LABEL_WORDS = LABEL_NAMES[:-1]  # "y" may as well be a class (letter data sets)
INDEX_NAMES = ("", "Unnamed: 0")  # pandas's to_csv: the row index
ASK = "pass --y NAME or --y INDEX (label_column= in Python)"


def read_csv(path, *, label_column=None, budget=None, n_features=None):
    """Samples, labels and how they were found in a CSV table, one sample per line.

    A table has a label column when ``label_column`` names it, when its header names
    one, or when it is wider than ``n_features`` (the features a model takes, given
    by ``fdlsr predict``); a table of exactly ``n_features`` columns (besides a row
    index) whose header names no label column holds samples only, and its labels
    are None. The label column is, in this order: ``label_column`` (a header name,
    else an index; negative counts from the end); the one header column named label,
    labels, class, target or y (any case); else the first or the last column, when
    exactly one of the two can hold labels (text, or whole numbers with at least two
    samples per value on average) -- anything less clear-cut is refused with the fix,
    never guessed. Every other column is a feature, except an unnamed first header
    column with one value per line (a row index, as ``pandas.DataFrame.to_csv``
    writes it), which is dropped; a headerless first column that numbers the lines
    is refused. A first line is a header when it has text in two columns, or names a
    label column (see ``_is_header``). The delimiter (comma, semicolon, tab or
    spaces) is detected. The table is read by ``numpy.loadtxt`` over all its
    columns, which refuses a line with another number of fields than the first and a
    feature that is not a number; the refusal names the line of the file
    (:func:`_refusal`). The memory the samples and the text columns will take is
    charged to ``budget`` (a ``MemoryBudget``) before they are read. Returns
    ``X, y, how, feature_names`` (the header's names of the feature columns, or None
    without a header).
    """
    budget = MemoryBudget(path) if budget is None else budget
    sample, longest, n_lines = _scan(path)
    budget.charge((longest,), LINE_BYTES, "its longest line split into fields")
    if not sample.strip():
        raise DatasetError(f"{path} is empty; it needs one sample per line")
    delimiter = _delimiter(sample, path)
    with _open_text(path, ENCODING) as f:
        head = list(islice(_records(f, delimiter), 2))
    if not head:
        raise DatasetError(f"{path} is empty; it needs one sample per line")
    (first_line, first_end, first), *rest = head
    second = rest[0][2] if rest else []
    n_columns = len(first)
    if n_columns < 2:
        raise DatasetError(
            f"{path} has a single column; it needs features and a label on each line "
            "(comma, semicolon, tab or space separated)"
        )
    if rest and len(second) != n_columns:  # numpy would skip the header unchecked
        raise _ragged(path, rest[0][0], second, first_line, first, delimiter)
    by_name = _is_name(label_column)
    header = first if by_name or _is_header(path, first, second) else None
    if header is not None and not rest:
        raise DatasetError(
            f"{path} holds a header and no samples; it needs one sample per line "
            "after the header"
        )
    names = [h.strip() for h in header] if header is not None else None
    # at most this many samples: the lines after the header (blank ones too)
    n_samples = max(n_lines - (first_end if header is not None else 0), 1)
    skip = first_end if header is not None else 0  # lines, blank ones too
    options = dict(delimiter=delimiter, skiprows=skip)
    # "#" is text like any other (a comment would cut labels such as "a#1" short)
    options.update(quotechar='"', comments=None, encoding=ENCODING)

    def refusal(exc):
        return _refusal(path, exc, delimiter, names)

    read = {}

    def column(index):
        if index not in read:
            budget.charge(
                (n_samples,), text_column_bytes(longest), f"column {index} as text"
            )
            try:
                read[index] = _loadtxt(
                    path, usecols=[index], dtype=str, ndmin=1, **options
                )
            except ValueError as exc:
                raise refusal(exc) from None
        return read[index]

    index_column = None
    if label_column is not None:
        label = _given_label(path, label_column, names, n_columns)
    if (
        names is not None
        and names[0] in INDEX_NAMES
        and (label_column is None or label)
    ):
        values = column(0)
        if np.unique(values).size != values.size:
            raise DatasetError(
                f"column 0 of {path} has no name in the header and is not a row "
                f"index (its values repeat); name it in the header, or {ASK}"
            )
        index_column = 0
    named = names is not None and any(h.lower() in LABEL_NAMES for h in names)
    width = n_columns - (index_column is not None)
    if label_column is None and width == n_features and not named:
        label = None  # as wide as the model's features: samples only
    elif label_column is None:
        label = _label_index(path, names, n_columns, column, index_column)
    if index_column is None and names is None and label != 0:
        _refuse_row_numbers(path, column(0))
    features = [i for i in range(n_columns) if i not in (label, index_column)]
    # every column is read, so that numpy checks each line's number of fields; the
    # label and index columns (read as text above) become zeros, then are dropped.
    # numpy's parser grows its array by a quarter at a time.
    budget.charge((n_samples + n_samples // 4 + 1, n_columns), 8, "the table as read")
    budget.charge((n_samples, len(features)), 8, "the samples as read")
    text = {i: _zero for i in range(n_columns) if i not in features}
    try:
        table = _loadtxt(path, dtype=np.float64, converters=text, ndmin=2, **options)
    except ValueError as exc:
        raise refusal(exc) from None
    X = table[:, features]
    del table
    y = None if label is None else column(label)
    if label is None:
        how = "no label column (as many columns as the model's features)"
    else:
        how = f"label column {label}" + (f" ({quote(names[label])})" if names else "")
    if index_column is not None:
        how += ", unnamed column 0 dropped as a row index"
    feature_names = None if names is None else [names[i] for i in features]
    X = as_samples(X, str(path), budget)
    if y is not None:
        y = class_labels(y, f"{path} column {label}", budget=budget)
    return X, y, how, feature_names


def _zero(text):
    """The value of a text column in the numeric read of the table (dropped)."""
    return 0.0


def _scan(path):
    """``(sample, longest, n_lines)`` of the text table ``path``: its first 64 kB,
    its longest line in characters and its number of lines (one more where a CR LF
    falls across two blocks read), refusing a file that is not text."""
    longest = run = n_lines = 0
    try:
        with _open_text(path, ENCODING) as f:
            part = f.read(1 << 16)
            sample = part
            while part:  # the whole file is text, without NUL (numpy drops them)
                if "\0" in part:
                    raise DatasetError(
                        f"{path} holds NUL characters, which a text table does not; "
                        "save it as UTF-8 CSV"
                    )
                *ended, run_on = re.split("\r\n|\r|\n", part)
                if ended:
                    longest = max(longest, run + len(ended[0]), *map(len, ended))
                    run = 0
                    n_lines += len(ended)
                run += len(run_on)
                part = f.read(1 << 16)  # a bigger block costs memory, not time
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(
            f"cannot read {path} as a text table ({one_line(exc)}); "
            "save it as UTF-8 CSV"
        ) from None
    return sample, max(longest, run), n_lines + (run > 0)


def _loadtxt(path, *, encoding, **options):
    """``numpy.loadtxt`` over :func:`_lines`, without its notes on blank lines (which
    it skips).

    The file is opened without newline translation, so that a carriage return
    inside a quoted label is kept (else CR and LF labels would merge); numpy itself
    still ends lines at CR, LF or CR LF.
    """
    with _open_text(path, encoding) as f, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return np.loadtxt(_lines(f), encoding=encoding, **options)


def _lines(f):
    """The lines of the open text file ``f``, a line of only white space given as an
    empty line (its line end kept): the one meaning of a blank line, which numpy and
    ``csv`` both skip, while lines keep their numbers in the file."""
    for line in f:
        body = line.rstrip("\r\n")
        yield line[len(body) :] if body.isspace() else line


def _open_text(path, encoding):
    """The table ``path`` opened as text without newline translation (a regular file
    only: a pipe or a device is refused, ``open_input``)."""
    return open_input(
        path, "r", error=DatasetError, what="data file", encoding=encoding, newline=""
    )


def _records(f, delimiter):
    """``(first line, last line, fields)`` of each record of the open text file
    ``f`` (opened with ``newline=""``), lines counted from 1, blank lines (empty or
    of white space, :func:`_lines`) skipped.

    Python's ``csv`` module splits as numpy does for one-character delimiters
    (``quotechar='"'``, ``""`` inside quotes). With white space (``delimiter``
    None) a line is split at runs of white space, or, holding a quote, by ``csv``
    at spaces; a quoted field over several lines is not followed there, which only
    makes :func:`_refusal` fall back on numpy's own words.
    """
    if delimiter is None:
        for number, text in enumerate(f, start=1):
            if '"' in text:
                line = text.replace("\t", " ").strip()
                (fields,) = csv.reader([line], delimiter=" ", skipinitialspace=True)
            else:
                fields = text.split()
            if fields:
                yield number, number, fields
        return
    reader = csv.reader(_lines(f), delimiter=delimiter, quotechar='"', strict=False)
    start = 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:  # a field longer than the csv module takes
            raise DatasetError(
                f"{f.name}:{reader.line_num}: cannot split the line into fields "
                f"({exc}); a field that long is not a number or a label: fix the line"
            ) from None
        if fields:  # [] is a blank line, which numpy skips
            yield start, reader.line_num, fields
        start = reader.line_num + 1


def _refusal(path, exc, delimiter, names):
    """numpy's refusal of the table as a one-line error naming the line of the file.

    numpy counts records, not lines (blank lines and line breaks inside quotes make
    the two differ), and after the header it skipped: the record it names is found
    again with :func:`_records` to name its line, its fields and what to do (for a
    line of another width, the first line up to it whose width is not the first
    line's, the header's included). Where the records found do not agree with what
    numpy said, numpy's own words are given.
    """
    found = re.search(
        r"changed from \d+ to \d+ at row (\d+)"
        r"|invalid column index \d+ at row (\d+) with \d+ columns"
        r"|at row (\d+), column (\d+)",
        str(exc),
    )
    if found is None:
        return _bad_rows(path, exc)
    header = names is not None
    ragged = found[3] is None  # else a value that is not a number
    # numpy counts the rows after the header, from 1 (widths) or from 0 (values)
    index = int(found[1] or found[2]) - 1 + header if ragged else int(found[3]) + header
    with _open_text(path, ENCODING) as f:
        records = enumerate(islice(_records(f, delimiter), index + 1))
        _, (line, _, fields) = next(records, (0, (0, 0, [])))
        first_line, first = line, fields
        for number, (line, _, fields) in records if ragged or index else ():
            if ragged and len(fields) != len(first):
                return _ragged(path, line, fields, first_line, first, delimiter)
            if number == index and not ragged:
                break
        else:
            if ragged or index:  # not where numpy said: its own words
                return _bad_rows(path, exc)
    column = int(found[4]) - 1
    if column >= len(fields) or _is_number(fields[column]):
        return _bad_rows(path, exc)
    name = f" ({quote(names[column])})" if names is not None else ""
    return DatasetError(
        f"{path}:{line}: column {column}{name} holds {quote(fields[column])}, which is "
        "not a number; every feature column needs a number on every line: fix the "
        "line or remove it"
    )


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


def _bad_rows(path, exc):
    return DatasetError(
        f"cannot read {path} as a CSV of numbers ({one_line(exc)}); every "
        "line needs the same columns, with numbers in every feature column"
    )


def _is_name(label_column):
    """A header name (not an index written as text)."""
    return isinstance(label_column, str) and not _is_integer(label_column)


def _is_integer(text):
    try:
        int(text)
    except ValueError:
        return False
    return True


def _is_header(path, first, second):
    """Whether the first line names the columns.

    A sample has numbers in every column but the label's, so a first line with text
    in two columns is a header, and one with text in none is a sample. Text in one
    column is a header when it is a label column's name beside the names 0, 1, 2,
    ... that pandas gives unnamed columns (or 1, 2, ...), or a word such as ``label``
    above a number; it is a sample when the next line has text there too; otherwise
    (e.g. ``y``, also a class of letter data sets) it could be a column's name or a
    sample's label, and the file is refused rather than lose a sample or read a name
    as one.
    """
    text = [i for i, v in enumerate(first) if not _is_number(v)]
    if len(text) != 1:
        return len(text) > 1
    (i,) = text
    label = first[i].strip().lower() in LABEL_NAMES
    others = [v.strip() for j, v in enumerate(first) if j != i]
    numbered = [[str(j + start) for j in range(len(others))] for start in (0, 1)]
    if label and others in numbered:
        return True  # a label column's name beside pandas's (or R's) column numbers
    if i >= len(second) or not _is_number(second[i]):
        return False  # text in this column on both lines: a text label
    if first[i].strip().lower() in LABEL_WORDS:
        return True  # a word no class is named: the label column's name
    # "y" above a number: a column's name, or a sample of class Y (letter data)?
    raise DatasetError(
        f"cannot tell whether the first line of {path} is a header or a sample: "
        f"column {i} holds {quote(first[i])} there and the number "
        f"{quote(second[i])} on the next line; start the file with a line that "
        "names every column (e.g. label,f1,f2,...)"
    )


def _label_index(path, names, n_columns, column, index_column):
    """The label column the file itself names or allows, else a refusal."""
    if names is not None:
        named = [i for i, h in enumerate(names) if h.lower() in LABEL_NAMES]
        if len(named) == 1:
            return named[0]
        if named:
            listed = " and ".join(f"{quote(names[i])} (column {i})" for i in named)
            raise DatasetError(
                f"{path} has several columns named like labels, {listed}; "
                f"choose one: {ASK}"
            )
    ends = list(dict.fromkeys((0 if index_column is None else 1, n_columns - 1)))
    kinds = {i: _label_kind(column(i)) for i in ends}
    text = [i for i in ends if kinds[i] == "text"]
    fits = text or [i for i in ends if kinds[i] == "classes"]
    if len(fits) == 1:
        return fits[0]
    if fits:
        why = (
            "both the first and the last column hold text"
            if text
            else "both the first and the last column hold whole numbers that could "
            "be classes"
        )
    else:
        why = "neither the first nor the last column looks like class labels"
    raise DatasetError(
        f"cannot tell which column of {path} holds the labels: {why}; say which with "
        f"--y {ends[0]} or --y -1 (first or last column; label_column= in Python)"
        + (", or name it label in a header line" if names is None else "")
    )


def _label_kind(values):
    """``"text"``, ``"classes"`` (whole numbers, repeated) or ``None``."""
    try:
        numbers = values.astype(np.float64)
    except ValueError:
        return "text"
    if not np.all(np.isfinite(numbers)) or np.any(numbers != np.round(numbers)):
        return None
    distinct = np.unique(numbers).size
    return "classes" if 2 <= distinct <= numbers.size / 2 else None


def _refuse_row_numbers(path, values):
    """A headerless first column 0, 1, 2, ... (or 1, 2, 3, ...) is a saved row index."""
    try:
        numbers = np.sort(values.astype(np.float64))
    except ValueError:
        return
    n = numbers.size
    for start in (0, 1):
        if n > 2 and np.array_equal(numbers, np.arange(start, start + n)):
            raise DatasetError(
                f"column 0 of {path} numbers the lines {start}, {start + 1}, "
                f"{start + 2}, ... (a saved row index, e.g. pandas's); save the "
                "table without it (DataFrame.to_csv(index=False)) or with a header"
            )


def _given_label(path, label_column, names, n_columns):
    text = label_column.strip() if isinstance(label_column, str) else None
    if text is not None and names is not None and text in names and _is_integer(text):
        named, index = names.index(text), int(text)
        if -n_columns <= index < n_columns and index % n_columns != named:
            raise DatasetError(
                f"label column {quote(text)} of {path} is both the name of column {named} "
                f"and the index of column {index % n_columns}; give the other "
                "column's name or a negative index instead"
            )
        return named
    if _is_name(label_column):
        name = text
        if names is None or name not in names:
            raise DatasetError(
                f"{path} has no column named {quote(name)} "
                f"(columns: {cut(', '.join(names)) if names else 'no header line'}); "
                "give a column name from the header or an index (0 is the first, "
                "-1 the last)"
            )
        return names.index(name)
    index = int(label_column)
    if not -n_columns <= index < n_columns:
        raise DatasetError(
            f"label column {index} is out of range for {path}, which has "
            f"{n_columns} columns; give an index from 0 to {n_columns - 1} (or -1)"
        )
    return index % n_columns


def _delimiter(sample, path):
    """The delimiter of the table that starts with the text ``sample``, else None
    (runs of white space).

    Of comma, semicolon and tab, the one that splits the first records alike into
    more than one field, as numpy will split them (the most records, then the most
    fields); without one, the one that splits the first record into the most. A
    delimiter inside a quoted field does not split (a header's ``"width,
    cm";"height, cm"`` is semicolon-separated), a quoted label may run over line
    ends, and a quote that opens a field under a wrong delimiter runs on over the
    records that follow.
    """
    counts = {}
    for delimiter in (",", ";", "\t"):
        text = io.StringIO(sample, newline="")
        text.name = path
        found = _records(text, delimiter)
        counts[delimiter] = [len(fields) for _, _, fields in islice(found, 8)]
        if len(counts[delimiter]) > 1 and not sample.endswith(("\n", "\r")):
            counts[delimiter].pop()  # cut short where the sample ends

    def splits(delimiter):
        found = counts[delimiter] or [0]
        alike = len(set(found)) == 1 and found[0] > 1
        return alike, len(found) if alike else 0, found[0]

    best = max(counts, key=splits)  # the first of the best, on a tie
    return best if splits(best)[2] > 1 else None


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_image_folder(path, *, grey=True, resize=None, budget=None):
    """Images as rows (C order), labelled by their sub-folder's name (as any text
    label: ``class_labels``).

    ``grey`` converts to one channel (Pillow's ``"L"``); ``resize=(h, w)`` resizes
    every image (Pillow's default resampling). Pixels are on the 0..255 scale of
    8-bit images; a 16-bit image keeps its finer levels (``_images.read_image``).
    Every image's size is read from its header first: images of several sizes (and
    no ``resize``) are refused, and the float64 matrix of all of them, at the size
    they will have, is charged to ``budget`` (a ``MemoryBudget``) before any is
    decoded. Returns ``X, y, image_shape``.
    """
    try:
        from PIL import Image
    except ImportError:
        raise DatasetError(
            f"reading the image folder {path} needs Pillow: pip install pillow (or "
            'pip install ".[data]" in the fdlsr source folder)'
        ) from None
    path = Path(path)
    budget = MemoryBudget(path) if budget is None else budget
    classes = sorted(
        p for p in path.iterdir() if p.is_dir() and not p.name.startswith(".")
    )
    files = [
        (c.name, f)
        for c in classes
        for f in sorted(c.iterdir())
        if f.suffix.lower() in IMAGE_SUFFIXES and not f.name.startswith(".")
    ]
    if not files:
        loose = any(f.suffix.lower() in IMAGE_SUFFIXES for f in path.iterdir())
        hint = (
            "the images lie directly in it: move them into one sub-folder per class"
            if loose
            else "put the images of each class in a sub-folder named after the class"
        )
        raise DatasetError(f"no images found in class sub-folders of {path}; {hint}")
    limit = Image.MAX_IMAGE_PIXELS
    if resize is not None and limit and resize[0] * resize[1] > limit:
        raise DatasetError(
            f"{setting('resize', 'resize=(h, w)')} of {resize[0]}x{resize[1]} asks "
            f"for {resize[0] * resize[1]} pixels per image, more than the {limit} "
            "Pillow allows in one image (a decompression bomb's size); give a "
            "smaller size"
        )
    sizes, deep = {}, False
    for _, file in files:  # headers only: nothing is decoded yet
        height, width, more_bits = image_size(file)
        sizes.setdefault((height, width), file)
        deep = deep or more_bits
    if resize is None and len(sizes) > 1:
        (s1, f1), (s2, f2) = list(sizes.items())[:2]
        raise DatasetError(
            f"the images in {path} differ in size ({f1.name} is {s1[1]}x{s1[0]}, "
            f"{f2.name} is {s2[1]}x{s2[0]} pixels, width x height); "
            f"pass {setting('resize', 'resize=(h, w)')} to bring them to one size"
        )
    shape = tuple(resize) if resize is not None else next(iter(sizes))
    shape = shape if grey else (*shape, 3)
    pixels = int(np.prod(shape))
    fix = (
        f"give a smaller {setting('resize', 'resize=(h, w)')}, or load the images on "
        "a machine with more memory"
    )
    size = "x".join(map(str, shape[:2]))
    what = f"{len(files)} images of {size} pixels as read"
    budget.charge((len(files), pixels), 8, what, fix)
    largest = max(h * w for h, w in sizes)
    work = IMAGE_WORK_BYTES if deep else 4  # 8-bit: one copy, up to 3 channels
    budget.charge((largest + pixels,), work, "one image being decoded", fix)
    X = np.empty((len(files), pixels))
    for row, (_, file) in enumerate(files):
        image = read_image(file, grey=grey, resize=resize)
        if image.shape != shape:  # the header said otherwise: a damaged file
            raise DatasetError(
                f"the image {file} decodes to {image.shape[1]}x{image.shape[0]} "
                "pixels where its header says otherwise; replace or remove the file"
            )
        X[row] = image.reshape(-1)
    y = class_labels(
        [label for label, _ in files], f"the sub-folder names of {path}", budget=budget
    )
    return as_samples(X, str(path), budget), y, shape
