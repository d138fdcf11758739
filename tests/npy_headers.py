"""``.npy`` files with any header, for the reader tests: what ``numpy.save`` writes
first, followed by as many data bytes as the test wants (or none)."""

import io

import numpy as np


def npy_bytes(shape, descr="<f8", data=b""):
    """A ``.npy`` file whose header declares ``shape`` and ``descr`` and whose data is
    ``data`` (whatever its length)."""
    f = io.BytesIO()
    header = {"descr": descr, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(f, header)
    return f.getvalue() + data
