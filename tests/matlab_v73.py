"""Write MATLAB v7.3 files the way MATLAB lays them out, for the loader tests.

A v7.3 MAT-file is HDF5 with a 512-byte user block holding MATLAB's 128-byte text
header; every variable is a dataset whose axes are reversed (MATLAB is
column-major), tagged with a ``MATLAB_class`` attribute; a struct is a group; a
cell array is a dataset of object references into the ``#refs#`` group; a char
array is uint16 character codes.
"""

import h5py
import numpy as np

CLASSES = {
    "f": "double",
    "u1": "uint8",
    "u2": "uint16",
    "i4": "int32",
    "i8": "int64",
    "b1": "logical",
}


def savemat_v73(path, variables):
    """Save ``{name: value}``: arrays (MATLAB shapes; complex ones too), dicts
    (structs), str, list of str."""
    with h5py.File(path, "w", userblock_size=512) as f:
        for name, value in variables.items():
            _write(f, name, value)
    header = (
        b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: test HDF5 schema 1.00 ."
    )
    block = header.ljust(116, b" ") + b"\0" * 8 + b"\x00\x02" + b"IM"
    with open(path, "r+b") as f:
        f.write(block.ljust(512, b"\0"))


def _write(group, name, value):
    if isinstance(value, dict):
        sub = group.create_group(name)
        sub.attrs["MATLAB_class"] = np.bytes_("struct")
        for key, item in value.items():
            _write(sub, key, item)
    elif isinstance(value, str):
        _char(group, name, value)
    elif isinstance(value, list):  # a cell array of strings, 1 x n
        refs = group.file.require_group("#refs#")
        handles = []
        for i, text in enumerate(value):
            handles.append(_char(refs, f"{name}_{i}", text).ref)
        data = np.array(handles, dtype=h5py.ref_dtype).reshape(len(value), 1)
        ds = group.create_dataset(name, data=data)
        ds.attrs["MATLAB_class"] = np.bytes_("cell")
    elif np.iscomplexobj(value):  # records of the real and imaginary parts
        value = np.asarray(value, dtype=np.complex128)
        value = value.reshape(1, -1) if value.ndim < 2 else value
        parts = np.empty(value.shape, dtype=[("real", "<f8"), ("imag", "<f8")])
        parts["real"], parts["imag"] = value.real, value.imag
        ds = group.create_dataset(name, data=parts.T)
        ds.attrs["MATLAB_class"] = np.bytes_("double")
    else:
        value = np.asarray(value)
        if value.ndim < 2:
            value = value.reshape(1, -1)  # MATLAB has no 1-D arrays
        cls = CLASSES[value.dtype.str[1:] if value.dtype.kind != "f" else "f"]
        stored = value.astype(np.uint8) if value.dtype.kind == "b" else value
        ds = group.create_dataset(name, data=stored.T)
        ds.attrs["MATLAB_class"] = np.bytes_(cls)
        if cls == "logical":
            ds.attrs["MATLAB_int_decode"] = np.int32(1)


def _char(group, name, text):
    # UTF-16 code units, 1 x n in MATLAB (a pair for a character beyond U+FFFF)
    codes = np.frombuffer(text.encode("utf-16-le"), dtype="<u2").reshape(1, -1)
    ds = group.create_dataset(name, data=codes.T)
    ds.attrs["MATLAB_class"] = np.bytes_("char")
    ds.attrs["MATLAB_int_decode"] = np.int32(2)
    return ds
