"""Readers for NumPy's files: ``.npz`` archives and ``.npy`` arrays.

Each array's header is read before its data, and a file whose arrays would not fit
in the memory available is refused in one line (:class:`MemoryBudget`); pickled
Python objects are never loaded.
"""

import tokenize
import warnings
import zipfile
import zlib

import numpy as np

from .._common.files import open_input
from .._common.messages import quote
from ..errors import DatasetError
from ._dataset import as_samples, one_line
from ._memory import MemoryBudget
from ._options import DATA_OPTIONS, refuse_inapplicable


def read_npz(path, budget=None):
    """``{name: ndarray}`` of an ``.npz`` archive (no pickled objects).

    Every array's header is read first, and the archive refused in one line when its
    arrays would not fit in the memory available (``budget``, a
    :class:`MemoryBudget`, else a new one); members that are not ``.npy`` arrays are
    left out.
    """
    budget = MemoryBudget(path) if budget is None else budget
    arrays = {}
    try:
        with (
            open_input(path, error=DatasetError, what="data file") as f,
            zipfile.ZipFile(f) as archive,
        ):
            for info in archive.infolist():
                name = info.filename.removesuffix(".npy")
                with archive.open(info) as member:
                    header = _npy_header(member, path, quote(name))
                if header is None:
                    continue
                if name in arrays:
                    raise DatasetError(
                        f"{path} holds two arrays named {quote(name)}; re-create it "
                        "with numpy.savez"
                    )
                budget.charge(*header, f"{quote(name)} as read")
                with archive.open(info) as member:
                    arrays[name] = np.lib.format.read_array(member, allow_pickle=False)
    except DatasetError:
        raise
    except (*DAMAGED, zipfile.BadZipFile) as exc:
        raise DatasetError(
            f"cannot read {path} as an .npz archive ({type(exc).__name__}: "
            f"{one_line(exc)}); the file is damaged or not an .npz: re-create it "
            "with numpy.savez"
        ) from None
    return arrays


def read_npy(path, budget=None):
    """The array of a ``.npy`` file (no pickled objects), its size charged to
    ``budget`` (a :class:`MemoryBudget`, else a new one) first."""
    try:
        with open_input(path, error=DatasetError, what="data file") as f:
            header = _npy_header(f, path, "its array")
            if header is None:
                raise DatasetError(
                    f"{path} is not a .npy file (it does not start as one); save the "
                    "samples with numpy.save"
                )
            budget = MemoryBudget(path) if budget is None else budget
            budget.charge(*header, "its array as read")
            f.seek(0)
            return np.lib.format.read_array(f, allow_pickle=False)
    except DatasetError:
        raise
    except FileNotFoundError:
        raise DatasetError(f"file not found: {path}; check the path") from None
    except DAMAGED as exc:
        raise DatasetError(
            f"cannot read {path} as a .npy array ({type(exc).__name__}: "
            f"{one_line(exc)}); the file is damaged: save it again with numpy.save"
        ) from None


def npy_samples(path, samples=None, **options):
    """Samples as rows from a ``.npy`` file of numbers (``samples="columns"``: one
    per column); a 1-D array is one sample. NaN, infinity, no samples or no
    features are refused, and so are the other options of ``load_dataset``
    (``options``, e.g. ``x=``), which do not apply to a lone array."""
    unknown = set(options) - set(DATA_OPTIONS)
    if unknown:
        raise TypeError(f"npy_samples() got unexpected keywords {sorted(unknown)}")
    refuse_inapplicable("npy", str(path), dict(options, samples=samples))
    if samples not in (None, "rows", "columns"):
        raise DatasetError(f"samples must be 'rows' or 'columns', got {samples!r}")
    budget = MemoryBudget(path)
    X = read_npy(path, budget)
    if X.ndim not in (1, 2) or X.dtype.kind not in "biuf":
        raise DatasetError(
            f"{path} holds a {X.ndim}-dimensional {X.dtype} array; give numbers, one "
            "sample per row"
        )
    X = np.atleast_2d(X)
    X = as_samples(X.T if samples == "columns" else X, str(path), budget)
    if X.size == 0:
        what = "no samples" if X.shape[0] == 0 else "samples without features"
        raise DatasetError(
            f"{path} holds {what} ({X.shape[0]}x{X.shape[1]}); give at least one "
            "sample, one per row"
        )
    return X


# What libraries raise on a damaged file (zlib.error for a damaged compressed
# member, NotImplementedError and RuntimeError for zip methods and encryption,
# SyntaxError and TokenError for an .npy header numpy cannot parse).
DAMAGED = (
    OSError, EOFError, ValueError, TypeError, KeyError, zlib.error, NotImplementedError,
    RuntimeError, OverflowError, MemoryError, SyntaxError, tokenize.TokenError,
)  # fmt: skip


def _npy_header(f, path, what):
    """``(shape, itemsize)`` from the header of a ``.npy`` stream, or None when it is
    not one; Python objects (pickles) are refused."""
    if f.read(len(NPY_MAGIC)) != NPY_MAGIC:
        return None
    f.seek(0)
    version = np.lib.format.read_magic(f)
    read = (
        np.lib.format.read_array_header_1_0
        if version == (1, 0)
        else np.lib.format.read_array_header_2_0  # 3.0 differs only in encoding
    )
    with warnings.catch_warnings():  # a note on headers written by Python 2
        warnings.simplefilter("ignore", UserWarning)
        shape, _, dtype = read(f)
    if dtype.hasobject:
        raise DatasetError(
            f"{path} holds Python objects in {what}, which are not loaded for safety; "
            "save plain numeric or string arrays with numpy.savez"
        )
    return shape, dtype.itemsize


NPY_MAGIC = b"\x93NUMPY"
