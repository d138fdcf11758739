"""Loading a data set by name or path: the one reader of each input kind, chosen by
the path's kind, and the options that apply to it."""

from pathlib import Path

import numpy as np

from .._common import strict_json
from .._common.files import open_input
from ..errors import DatasetError
from . import _registry
from ._dataset import Dataset
from ._files import read_csv, read_image_folder
from ._layout import resolve
from ._matlab import HDF5_SIGNATURE, read_mat
from ._memory import MemoryBudget
from ._numpy import read_npz
from ._options import DATA_OPTIONS, refuse_inapplicable
from ._sklearn import load_sklearn

MAT, NPZ, CSV = {".mat"}, {".npz"}, {".csv", ".tsv", ".txt"}


def load_dataset(
    name_or_path,
    *,
    data_dir=None,
    x=None,
    y=None,
    samples=None,
    image_shape=None,
    order=None,
    verify=True,
    label_column=None,
    grey=None,
    resize=None,
    download=True,
):
    """Load a data set by registry name or from a file or folder.

    An option that does not apply to the input (``x`` for a CSV table, ``resize``
    for anything but an image folder, ``data_dir`` for a path) is refused, never
    ignored; each option below says what it applies to.

    Parameters
    ----------
    name_or_path : str or path-like
        A registry name (``"feret"``, ``"digits"``, ...; see :func:`list_datasets`)
        or the path of a ``.mat``, ``.npz``, ``.csv`` file or an image folder. A
        registry name wins over a file of the same name: write ``./feret`` for
        the file.
    data_dir : str or path-like, optional
        Registry names only (a path is refused with it): the folder that holds the
        registry's files (``feret/FERET.mat``, ...). Default: the
        ``FDLSR_DATA_DIR`` environment variable, else ``./data``.
    x, y : str, optional
        ``.mat`` and ``.npz`` files only: the variables holding the samples and the
        labels, for files whose layout is not recognised or is ambiguous; a
        struct's field is ``"struct.field"``. For a CSV, ``y`` is the label column
        (as ``label_column``).
    samples : {"rows", "columns"}, optional
        ``.mat`` and ``.npz`` files only: whether samples are the rows or the
        columns of ``x`` (needed only when both have as many entries as there are
        labels).
    image_shape : tuple of int, optional
        ``.mat``, ``.npz`` and CSV files only: ``(h, w)`` of the images the rows
        flatten. A stack of images (a 3-D array) has its own: another is refused.
    order : {"F", "C"}, optional
        ``.mat``, ``.npz`` and CSV files only: how a row was flattened: ``"F"``
        (MATLAB, column-major; the default for ``.mat`` files) or ``"C"``
        (row-major; the default otherwise). A stack of images has its own.
    verify : bool, default=True
        For registry names: check the file's sha256 (when known; cached by size
        and modification time) and its size, class count and label range.
    label_column : int or str, optional
        CSV only: the label column, a header name or an index (``y=`` does the
        same). Default: the header column named label, labels, class, target or y;
        else the first or the last column, when only one of them can hold labels;
        otherwise the file is refused, with the fix (see ``read_csv``).
    grey : bool, optional
        Image folders only: convert to grey levels (True, the default) or keep
        RGB (False; image_shape ``(h, w, 3)``).
    resize : tuple of int, optional
        Image folders only: resize every image to ``(h, w)``.
    download : bool, default=True
        scikit-learn's fetched sets (``olivetti``, ``lfw_people``): download when
        not cached. With False a missing cache is an error.

    Returns
    -------
    Dataset
        ``X`` (n_samples, n_features) float64 raw values, ``y`` labels as stored,
        ``name``, ``image_shape``, ``order``, ``fixed_split``, ``description``,
        ``feature_names`` (a CSV header's names of the feature columns).

    Raises
    ------
    fdlsr.errors.DatasetError
        A missing, unreadable or ambiguous file, labels that do not match the
        samples, a checksum or content mismatch, an unknown name, or an option that
        does not apply to the input.
    """
    _check_options(samples, image_shape, order, resize)
    options = dict(
        x=x, y=y, samples=samples, image_shape=image_shape, order=order,
        label_column=label_column, grey=grey, resize=resize,
    )  # fmt: skip
    entry = _registry.lookup(name_or_path) if isinstance(name_or_path, str) else None
    if entry is None:
        path = Path(name_or_path).expanduser()
        if not path.exists():
            if isinstance(name_or_path, str) and not _looks_like_path(name_or_path):
                _registry.require(name_or_path)  # raises: unknown name
            raise DatasetError(
                f"file not found: {path} (relative to {Path.cwd()}); check the path, "
                f"or give a registry name ({', '.join(_registry.names())})"
            )
        return _load_path(path, path.name, "", data_dir=data_dir, **options)
    _refuse_for_entry(entry, dict(options, data_dir=data_dir))
    if entry["loader"] == "sklearn":
        X, labels, shape = load_sklearn(entry["name"], download=download)
        if verify:
            _registry.verify_contents(entry, X, labels)
        return Dataset(
            X, labels, entry["name"], shape, entry["order"],
            description=entry["description"],
        )  # fmt: skip
    if entry["loader"] == "embedded":  # shipped inside the package, always verified
        path = _registry.embedded_path(entry)
        _registry.verify_checksum(entry, path)
    else:
        path = _registry.locate(entry, data_dir)
    if verify:
        _registry.verify_checksum(entry, path)
    if x is None and y is None:  # the user's variables replace the entry's pair
        options.update(x=entry["x"], y=entry["y"])
    for key in ("samples", "image_shape", "order"):
        options[key] = options[key] or entry[key]
    dataset = _load_path(path, entry["name"], entry["description"], **options)
    if verify:
        _registry.verify_contents(entry, dataset.X, dataset.y)
    return dataset


def list_datasets():
    """The registry: one dict per data set (name, file, description, n_samples,
    n_features, n_classes, image_shape, sha256, paper, obtain, ...).

    Returns
    -------
    entries : list of dict
        The registry's entries, in its order.
    """
    return _registry.entries()


def dataset_info(name, data_dir=None, **options):
    """A registry entry plus ``path``, ``present`` and ``verified`` (True: the
    checksum matches; False: it does not; None: no checksum known or no file) and,
    when something is wrong, ``problem`` (the message loading would raise).

    For the path of a file or folder (a name the registry does not know) what
    :func:`load_dataset` reads from it with ``options`` (an image folder resized to
    ``resize=(h, w)``, say): sizes, classes, layout and any fixed split.

    Parameters
    ----------
    name : str or path-like
        A registry name or the path of a file or folder.
    data_dir : str or path-like, optional
        The folder of the registry's files, as in :func:`load_dataset`.
    **options
        The options of :func:`load_dataset` (``resize``, ``x``, ...); one that does
        not apply to the input is refused, for a registry name too.

    Returns
    -------
    info : dict
        What is known of the data set, as described above.
    """
    unknown = set(options) - set(DATA_OPTIONS)
    if unknown:
        raise TypeError(f"dataset_info() got unexpected keywords {sorted(unknown)}")
    entry = _registry.lookup(name)
    if entry is not None or not (
        Path(name).expanduser().exists() or _looks_like_path(str(name))
    ):
        if entry is not None:
            _check_options(
                *(options.get(k) for k in ("samples", "image_shape", "order", "resize"))
            )
            _refuse_for_entry(entry, dict(options, data_dir=data_dir))
        return _registry.info(name, data_dir)
    ds = load_dataset(name, data_dir=data_dir, **options)
    counts = np.unique(ds.y, return_counts=True)[1]
    info = {
        "path": ds.path,
        "description": ds.description,
        "n_samples": ds.n_samples,
        "n_features": ds.n_features,
        "n_classes": ds.n_classes,
        "per_class_min": int(counts.min()),
        "per_class_max": int(counts.max()),
        "image_shape": ds.image_shape,
        "order": ds.order,
    }
    if ds.fixed_split is not None:
        train, test = ds.fixed_split
        info["fixed_split"] = f"{train.size} training, {test.size} test samples"
    return info


def _load_path(path, name, description, *, data_dir=None, **options):
    try:
        kind = _kind(path)
        refuse_inapplicable(kind, str(path), dict(options, data_dir=data_dir))
        return _read(path, kind, name, description, **options)
    except OSError as exc:  # unreadable: permissions, a folder that vanished, ...
        raise DatasetError(
            f"cannot read {path} ({exc.strerror or exc}); check that the file "
            "exists and that you may read it"
        ) from None


def _read(
    path, kind, name, description, *, x, y, samples, image_shape, order,
    label_column, grey, resize,
):  # fmt: skip
    split, shape, default_order = None, None, "F" if kind == "mat" else "C"
    feature_names = None
    budget = MemoryBudget(path)  # what reading it will hold, charged step by step
    if kind == "csv":
        label_column, y = _label_column(path, y, label_column), None
    if kind in ("mat", "npz"):
        arrays = (read_mat if kind == "mat" else read_npz)(path, budget)
        layout = resolve(arrays, str(path), x=x, y=y, samples=samples, budget=budget)
        X, labels, split = layout.X, layout.y, layout.fixed_split
        shape, default_order = layout.image_shape, layout.order or default_order
        if layout.order is not None:  # a stack of images: its shape and order hold
            _refuse_other_image_layout(path, layout, image_shape, order)
        how = layout.description
        record = feature_record(arrays)
        if record:
            how = (
                f"deep features of {record.get('model')}, layer {record.get('layer')}, "
                f"weights {record.get('weights')}; {how}"
            )
    elif kind == "csv":
        X, labels, how, feature_names = read_csv(
            path, label_column=label_column, budget=budget
        )
        how = f"CSV, {how}"
    else:
        grey = True if grey is None else grey
        X, labels, shape = read_image_folder(
            path, grey=grey, resize=resize, budget=budget
        )
        how = f"images, {'grey' if grey else 'RGB'}, one sub-folder per class"
    if X.shape[0] == 0:
        raise DatasetError(f"{path} holds no samples; check the file")
    if X.shape[1] == 0:
        raise DatasetError(f"the samples in {path} have no features; check the file")
    return Dataset(
        X, labels, name,
        image_shape=tuple(image_shape) if image_shape is not None else shape,
        order=order or default_order,
        fixed_split=split,
        description=description or f"{path.name}: {how}",
        path=str(path),
        feature_names=feature_names,
    )  # fmt: skip


def _label_column(path, y, label_column):
    """A CSV's label column, given as ``y`` (which names the labels: here, a
    column) or as ``label_column``, or None; two that disagree are refused."""
    if y is None:
        return label_column
    if label_column is not None and str(label_column) != str(y):
        raise DatasetError(
            f"label_column={label_column} and y={y} disagree for {path}; "
            "give the label column once"
        )
    return y


def csv_samples(path, n_features, *, y=None, label_column=None, **options):
    """The samples of the CSV table ``path`` for a model of ``n_features`` features
    (``fdlsr predict``), read as :func:`load_dataset` reads a CSV, except that the
    label column is looked for only where the table has one: named (``y``,
    ``label_column``, a header's label column) or one column more than the model's
    features. A table exactly as wide as the model's features holds samples only.

    Returns ``X, labels, feature_names, description``: ``labels`` None for a table
    of samples only, ``feature_names`` a header's names of the feature columns (or
    None). The options of :func:`load_dataset` that do not apply to a CSV table are
    refused.
    """
    path = Path(path)
    refuse_inapplicable("csv", str(path), dict(options, y=y, label_column=label_column))
    label_column = _label_column(path, y, label_column)
    try:
        X, labels, how, names = read_csv(
            path, label_column=label_column, n_features=n_features
        )
    except OSError as exc:
        raise DatasetError(
            f"cannot read {path} ({exc.strerror or exc}); check that the file "
            "exists and that you may read it"
        ) from None
    if X.shape[0] == 0:
        raise DatasetError(f"{path} holds no samples; check the file")
    return X, labels, names, f"{path.name}: CSV, {how}"


def _refuse_other_image_layout(path, layout, image_shape, order):
    """A stack of images fixes how its rows are images: refuse another."""
    given = tuple(int(s) for s in image_shape) if image_shape is not None else None
    if given not in (None, tuple(layout.image_shape)) or order not in (
        None, layout.order
    ):  # fmt: skip
        own = "x".join(map(str, layout.image_shape))
        raise DatasetError(
            f"{path} holds a stack of {own} images (rows flattened in {layout.order} "
            f"order); image_shape= and order= apply to samples stored as flat rows: "
            "leave them out"
        )


def _refuse_for_entry(entry, options):
    """Refuse the options that do not apply to a registry entry's data."""
    if entry["loader"] == "sklearn":
        kind = "sklearn"
    else:
        kind = "mat" if Path(entry["file"]).suffix.lower() in MAT else "npz"
    where = entry["name"] + (
        " (shipped inside the package)" if entry["loader"] == "embedded" else ""
    )
    refuse_inapplicable(kind, where, options, registry=True)


def feature_record(arrays):
    """The record of a file written by ``fdlsr features`` (model, layer, weights,
    preprocessing, versions) from its ``{name: ndarray}``, or None."""
    if "record" not in arrays:
        return None
    try:
        record = strict_json.loads(str(np.asarray(arrays["record"]).ravel()[0]))
    except (ValueError, IndexError):
        return None
    return record if isinstance(record, dict) else None


def _kind(path):
    if path.is_dir():
        return "images"
    suffix = path.suffix.lower()
    if suffix in MAT:
        return "mat"
    if suffix in NPZ:
        return "npz"
    if suffix in CSV:
        return "csv"
    with open_input(path, error=DatasetError, what="data file") as f:
        head = f.read(1032)
    if head.startswith(b"MATLAB") or HDF5_SIGNATURE in head:
        return "mat"
    if head.startswith(b"PK"):
        return "npz"
    raise DatasetError(
        f"cannot tell the format of {path}; give a .mat, .npz, .csv file or a "
        "folder of images with one sub-folder per class"
    )


def _looks_like_path(text):
    return any(sep in text for sep in ("/", "\\")) or bool(Path(text).suffix)


def _check_options(samples, image_shape, order, resize):
    if samples not in (None, "rows", "columns"):
        raise DatasetError(f"samples must be 'rows' or 'columns', got {samples!r}")
    if order not in (None, "F", "C"):
        raise DatasetError(
            f"order must be 'F' (MATLAB, column-major) or 'C' (row-major), "
            f"got {order!r}"
        )
    for label, shape in (("image_shape", image_shape), ("resize", resize)):
        if shape is None:
            continue
        try:
            values = [int(s) for s in shape]
        except (TypeError, ValueError):
            values = []
        if (
            len(values) not in (2, 3)
            or min(values) < 1
            or (label == "resize" and len(values) != 2)
        ):
            raise DatasetError(
                f"{label} must be (height, width) in pixels, got {shape!r}"
            )
