"""How much memory the arrays a file declares may take, checked before reading them.

A file's header (``.npy``, a MATLAB variable's tag, an HDF5 dataset) states the shape
and type of an array; reading it allocates that much, whatever the file's size (a
compressed or sparse file of a few kilobytes can declare terabytes). Each reader
hands every declared size to a :class:`MemoryBudget` first, which refuses, in one
line naming the file, what the machine cannot hold.
"""

from ...common.memory import available_memory
from ...common.memory import size_in_words as _size
from ...errors import DatasetError


class MemoryBudget:
    """The memory left for the arrays of one file, charged before each is read.

    Parameters
    ----------
    path : path-like
        The file, named in the refusal.
    available : int, optional
        Bytes available; default :func:`available_memory` (no check where unknown).
    """

    def __init__(self, path, available=None):
        self.path = path
        self.available = available_memory() if available is None else available
        self.declared = 0

    def charge(self, shape, itemsize, what):
        """Count an array of ``shape`` and ``itemsize`` bytes per item (``what`` names
        it), refusing it if the file's arrays no longer fit in memory."""
        size = itemsize
        for n in shape:
            size *= int(n)
        self.declared += size
        if self.available is not None and self.declared > self.available:
            raise DatasetError(
                f"{self.path} declares {_size(self.declared)} of arrays ({what} is "
                f"{'x'.join(str(int(n)) for n in shape)}), more than the "
                f"{_size(self.available)} of memory available; the file is damaged, "
                "or load it on a machine with more memory"
            )
