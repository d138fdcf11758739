"""Read the variables of a MATLAB file, v4/v5/v7 (scipy) or v7.3 (HDF5, h5py).

Both readers return the same thing: a flat ``{name: ndarray}`` in MATLAB's own
shapes (a d x n matrix is ``(d, n)``), with the fields of a scalar struct named
``struct.field``. Cell arrays of strings become string arrays; other cells,
character arrays, empty arrays and object handles are left out, since no layout
takes samples or labels from them. Working out which variables are the samples
and the labels is ``_layout``'s job.
"""

import numpy as np
import scipy.io
import scipy.sparse

from .._common.files import open_input
from .._common.messages import quote
from ..errors import DatasetError
from ._dataset import one_line
from ._memory import MemoryBudget

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def read_mat(path, budget=None):
    """``{name: ndarray}`` of a MATLAB file of any version, each variable charged to
    ``budget`` (a :class:`MemoryBudget`, else a new one) before it is read."""
    budget = MemoryBudget(path) if budget is None else budget
    with open_input(path, error=DatasetError, what="data file") as f:
        head = f.read(2048 + 8)
        if not head:
            raise DatasetError(f"{path} is empty; re-download or re-create the file")
        raw = None if is_hdf5(head) else _read_v5(f, path, budget)
    if raw is None:  # v7.3 (HDF5): h5py opens the file, checked above, itself
        return _read_hdf5(path, budget)
    arrays = {}
    for name, value in raw.items():
        if not name.startswith("__"):
            _add_v5(arrays, name, value, path)
    return arrays


def _read_v5(f, path, budget):
    """The variables of the v4-v7 MATLAB file ``f`` as scipy reads them, or None for
    a v7.3 file scipy spotted."""
    try:
        _charge_v5(f, budget)
        f.seek(0)
        return scipy.io.loadmat(f, struct_as_record=True, squeeze_me=False)
    except NotImplementedError:  # scipy's answer to a v7.3 file it did not spot
        return None
    except DatasetError:
        raise
    except Exception as exc:  # scipy raises many types for damaged files
        raise DatasetError(
            f"cannot read {path} as a MATLAB file ({type(exc).__name__}: "
            f"{one_line(exc)}); the file is damaged or not a .mat file: "
            "re-download it or save it again with MATLAB's save"
        ) from None


# Bytes per element of each MATLAB class once read (characters as numpy's 4-byte
# str, sparse matrices made dense, logical read as uint8 and made bool); cells,
# structs and objects: one reference each.
ITEMSIZE = {
    "double": 8, "single": 4, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2,
    "int32": 4, "uint32": 4, "int64": 8, "uint64": 8, "logical": 2, "char": 4,
    "sparse": 8,
}  # fmt: skip


def _charge_v5(f, budget):
    """Refuse a v4-v7 file ``f`` whose variables' headers declare more than memory
    holds (read before any data: a compressed variable can declare terabytes)."""
    f.seek(0)
    for name, shape, kind in scipy.io.whosmat(f):
        budget.charge(shape, ITEMSIZE.get(kind, 8), f"{quote(name)} as read")


def is_hdf5(head):
    """HDF5 puts its signature at byte 0, 512, 1024, ...; MATLAB v7.3 at 512."""
    return any(head[o : o + 8] == HDF5_SIGNATURE for o in (0, 512, 1024, 2048))


def _add_v5(arrays, name, value, path):
    if scipy.sparse.issparse(value):
        arrays[name] = _dense(value, path, quote(name))
        return
    if not isinstance(value, np.ndarray):
        return
    if value.dtype.names:  # a struct (array): only scalar structs hold data sets
        if value.size == 1:
            record = value.reshape(-1)[0]
            for field in value.dtype.names:
                _add_v5(arrays, f"{name}.{field}", record[field], path)
        return
    if value.dtype.kind == "O":
        strings = _cellstr([_v5_string(v) for v in value.reshape(-1, order="F")])
        if strings is not None:
            arrays[name] = strings.reshape(value.shape, order="F")
        return
    if value.dtype.kind in "biufc" and value.size:  # complex: for a clear refusal
        arrays[name] = value


def _v5_string(cell):
    if isinstance(cell, np.ndarray) and cell.dtype.kind == "U" and cell.size <= 1:
        return str(cell.reshape(-1)[0]) if cell.size else ""
    return None


def _cellstr(items):
    if items and all(isinstance(s, str) for s in items):
        return np.array(items, dtype=str)
    return None


def _read_hdf5(path, budget):
    try:
        import h5py
    except ImportError:
        raise DatasetError(
            f"{path} is a MATLAB v7.3 (HDF5) file and reading it needs h5py: "
            'pip install h5py (or pip install ".[data]" in the fdlsr source folder)'
        ) from None
    arrays = {}
    try:
        with h5py.File(path, "r") as f:
            _visit_hdf5(f, "", arrays, h5py, budget)
    except DatasetError:
        raise
    except Exception as exc:
        raise DatasetError(
            f"cannot read {path} as a MATLAB v7.3 (HDF5) file "
            f"({type(exc).__name__}: {one_line(exc)}); the file is damaged: "
            "re-download it or save it again with MATLAB's save"
        ) from None
    return arrays


def _matlab_class(obj):
    value = obj.attrs.get("MATLAB_class", b"")
    return value.decode() if isinstance(value, bytes) else str(value)


def _visit_hdf5(group, prefix, arrays, h5py, budget):
    """Read the variables of ``group``, charging each to ``budget`` before reading."""
    for key, obj in group.items():
        if key.startswith("#"):  # '#refs#', '#subsystem#': MATLAB's internals
            continue
        name = prefix + key
        if isinstance(obj, h5py.Group):
            if "MATLAB_sparse" in obj.attrs:
                arrays[name] = _hdf5_sparse(obj, budget, quote(name))
            else:  # a struct: its fields are the group's members
                _visit_hdf5(obj, name + ".", arrays, h5py, budget)
            continue
        if obj.attrs.get("MATLAB_empty", 0):
            continue
        cls = _matlab_class(obj)
        if cls == "cell":
            strings = _hdf5_cellstr(obj, group.file, h5py, budget, quote(name))
            if strings is not None:
                arrays[name] = strings
            continue
        # MATLAB keeps a complex array as records of its real and imaginary parts
        is_complex = set(obj.dtype.names or ()) == {"real", "imag"}
        if cls == "char" or not (obj.dtype.kind in "biuf" or is_complex):
            continue
        # a logical array is read as uint8, then made bool: one more byte a value; a
        # complex one is read as records, then made complex numbers
        itemsize = obj.dtype.itemsize * (1 + 2 * is_complex) + (cls == "logical")
        budget.charge(obj.shape or (), itemsize, f"{quote(name)} as read")
        # HDF5 stores MATLAB's column-major arrays with the axes reversed.
        value = np.asarray(obj[()]).T
        if is_complex:  # kept, so that the samples are refused as complex numbers
            value = value["real"] + 1j * value["imag"]
        arrays[name] = value.astype(bool) if cls == "logical" else value


def _hdf5_sparse(group, budget, what):
    # MATLAB sparse: CSC arrays data/ir/jc; the group's MATLAB_sparse attribute is
    # the number of rows.
    n_rows = int(group.attrs["MATLAB_sparse"])
    for part in ("jc", "ir", "data"):
        if part in group:
            budget.charge(
                group[part].shape or (), group[part].dtype.itemsize, f"{what} as read"
            )
    jc = np.asarray(group["jc"][()]).ravel()
    n_cols = jc.size - 1
    budget.charge((n_rows, n_cols), 8, f"{what} made dense")
    data = np.asarray(group["data"][()]).ravel() if "data" in group else np.zeros(0)
    ir = np.asarray(group["ir"][()]).ravel() if "ir" in group else np.zeros(0, int)
    matrix = scipy.sparse.csc_matrix((data, ir, jc), shape=(n_rows, n_cols))
    return _dense(matrix, group.file.filename, what)


def _dense(matrix, path, what):
    """A sparse matrix made dense, its index arrays checked first: scipy reads out of
    bounds (and crashes) on the indices of a damaged file."""
    try:
        matrix.check_format(full_check=True)
    except ValueError as exc:
        raise DatasetError(
            f"{what} in {path} is a damaged sparse matrix ({one_line(exc)}); "
            "re-download the file or save it again with MATLAB's save"
        ) from None
    return matrix.toarray()


def _hdf5_cellstr(dataset, f, h5py, budget, what):
    """A cell array of strings (object references to UTF-16 char arrays)."""
    budget.charge(dataset.shape or (), 8, f"{what} as read")
    refs = dataset[()]
    items = []
    for ref in refs.T.reshape(-1, order="F"):
        target = f[ref]
        if not isinstance(target, h5py.Dataset) or _matlab_class(target) != "char":
            return None
        if target.attrs.get("MATLAB_empty", 0):
            items.append("")
            continue
        budget.charge(target.shape or (), 4, f"{what} as read")
        codes = np.asarray(target[()]).T.ravel(order="F")
        if codes.dtype.kind not in "iu" or (
            codes.size and not 0 <= codes.min() <= codes.max() <= 0xFFFF
        ):
            return None
        # MATLAB's characters are UTF-16 code units: a pair makes one character
        # outside the Basic Multilingual Plane. A lone half is kept, for the label
        # reader to refuse in one line.
        text = codes.astype("<u2").tobytes().decode("utf-16-le", "surrogatepass")
        if "\0" in text:  # numpy's strings drop trailing NULs: "a\0" would be "a"
            raise DatasetError(
                f"{what} in {f.filename} holds a NUL character in a string "
                f"({quote(text)}); save the strings without"
            )
        items.append(text)
    return np.array(items, dtype=str).reshape(refs.T.shape, order="F")
