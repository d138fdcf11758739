"""Readers for NumPy ``.npz`` archives, CSV tables and folders of images."""

import csv
import zipfile
from pathlib import Path

import numpy as np

from ...errors import DatasetError
from ._dataset import as_samples, clean_labels, one_line

IMAGE_SUFFIXES = {
    ".png", ".jpg", ".jpeg", ".bmp", ".pgm", ".ppm", ".pbm", ".tif", ".tiff",
    ".gif", ".webp",
}  # fmt: skip


def read_npz(path):
    """``{name: ndarray}`` of an ``.npz`` archive (no pickled objects)."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except ValueError as exc:
        if "allow_pickle" in str(exc):
            raise DatasetError(
                f"{path} holds Python objects, which are not loaded for safety; "
                "save plain numeric or string arrays with numpy.savez"
            ) from None
        raise DatasetError(
            f"cannot read {path} as an .npz archive ({one_line(exc)}); "
            "re-create it with numpy.savez"
        ) from None
    except (OSError, zipfile.BadZipFile, EOFError) as exc:
        raise DatasetError(
            f"cannot read {path} as an .npz archive ({one_line(exc)}); the file "
            "is damaged or not an .npz: re-create it with numpy.savez"
        ) from None


def read_csv(path, *, label_column=None):
    """Samples and labels of a CSV table, one sample per line.

    The labels are the last column unless ``label_column`` (an index, or a column
    name when the table has a header) says otherwise; every other column is a
    feature. A first line whose feature fields are not all numbers is a header.
    The delimiter (comma, semicolon, tab or spaces) is detected.
    """
    try:
        with open(path, newline="") as f:
            sample = f.read(1 << 16)
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(
            f"cannot read {path} as a text table ({one_line(exc)}); "
            "save it as UTF-8 CSV"
        ) from None
    lines = [line for line in sample.splitlines() if line.strip()]
    if not lines:
        raise DatasetError(f"{path} is empty; it needs one sample per line")
    delimiter = _delimiter(lines[0])
    first = _fields(lines[0], delimiter)
    n_columns = len(first)
    if n_columns < 2:
        raise DatasetError(
            f"{path} has a single column; it needs features and a label on each line "
            "(comma, semicolon, tab or space separated)"
        )
    by_name = isinstance(label_column, str) and not label_column.lstrip("-").isdigit()
    guess = n_columns - 1 if label_column is None or by_name else int(label_column)
    feature_fields = [v for i, v in enumerate(first) if i != guess % n_columns]
    numeric = all(_is_number(v) for v in feature_fields)
    header = None if numeric and not by_name else first
    label = _label_index(path, label_column, header, n_columns)
    features = [i for i in range(n_columns) if i != label]
    skip = 1 if header is not None else 0
    options = dict(delimiter=delimiter, skiprows=skip, quotechar='"', ndmin=1)
    try:
        X = np.loadtxt(path, usecols=features, dtype=np.float64, **options)
        y = np.loadtxt(path, usecols=[label], dtype=str, **options)
    except ValueError as exc:
        raise DatasetError(
            f"cannot read {path} as a CSV of numbers ({one_line(exc)}); every "
            "line needs the same columns, with numbers in every feature column"
        ) from None
    X = X.reshape(len(y), len(features))
    where = f"{path} column {label}"
    return as_samples(X, str(path)), clean_labels(y, where), header


def _delimiter(line):
    counts = {d: line.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=counts.get)
    return best if counts[best] else None  # None: any run of white space


def _fields(line, delimiter):
    if delimiter is None:
        return line.split()
    return next(csv.reader([line], delimiter=delimiter))


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _label_index(path, label_column, header, n_columns):
    if label_column is None:
        return n_columns - 1
    if isinstance(label_column, str) and not label_column.lstrip("-").isdigit():
        names = [h.strip() for h in header] if header is not None else []
        if label_column not in names:
            raise DatasetError(
                f"{path} has no column named {label_column!r} "
                f"(columns: {', '.join(names) if names else 'no header line'}); "
                "pass label_column as a column name from the header or an index"
            )
        return names.index(label_column)
    index = int(label_column)
    if not -n_columns <= index < n_columns:
        raise DatasetError(
            f"label_column={label_column} is out of range for {path}, which has "
            f"{n_columns} columns; pass an index from 0 to {n_columns - 1} (or -1)"
        )
    return index % n_columns


def read_image_folder(path, *, grey=True, resize=None):
    """Images as rows (C order), labelled by their sub-folder's name.

    ``grey`` converts to one channel (Pillow's ``"L"``); ``resize=(h, w)`` resizes
    every image (Pillow's default resampling). Returns ``X, y, image_shape``.
    """
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError:
        raise DatasetError(
            f'reading the image folder {path} needs Pillow: pip install "fdlsr[data]"'
        ) from None
    path = Path(path)
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
    images = []
    for _, file in files:
        try:
            with Image.open(file) as img:
                img = img.convert("L" if grey else "RGB")
                if resize is not None:
                    img = img.resize((resize[1], resize[0]))
                images.append(np.asarray(img))
        except (UnidentifiedImageError, OSError, ValueError) as exc:
            raise DatasetError(
                f"cannot read the image {file} ({one_line(exc)}); "
                "replace or remove the file"
            ) from None
    shapes = {}
    for (_, file), img in zip(files, images, strict=True):
        shapes.setdefault(img.shape, file)
    if len(shapes) > 1:
        (s1, f1), (s2, f2) = list(shapes.items())[:2]
        raise DatasetError(
            f"the images in {path} differ in size ({f1.name} is {s1[1]}x{s1[0]}, "
            f"{f2.name} is {s2[1]}x{s2[0]} pixels, width x height); "
            "pass resize=(h, w) to bring them to one size"
        )
    shape = images[0].shape
    X = np.stack(images).reshape(len(images), -1)
    y = np.array([label for label, _ in files], dtype=str)
    return as_samples(X, str(path)), y, tuple(shape)
