"""How much memory the arrays a file declares may take, checked before reading them.

A file's header (``.npy``, a MATLAB variable's tag, an HDF5 dataset) states the shape
and type of an array; reading it allocates that much, whatever the file's size (a
compressed or sparse file of a few kilobytes can declare terabytes). Each reader
hands every declared size to a :class:`MemoryBudget` first, which refuses, in one
line naming the file, what the machine cannot hold.
"""

import os
from pathlib import Path

from ...errors import DatasetError


def available_memory():
    """Bytes this process can still allocate: the system's available memory, or less
    when a control group (a container) limits it."""
    candidates = [_meminfo_available()]
    cgroup = Path("/sys/fs/cgroup")
    for limit, usage in (
        ("memory.max", "memory.current"),  # cgroup v2
        ("memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes"),  # v1
    ):
        try:
            left = int((cgroup / limit).read_text()) - int((cgroup / usage).read_text())
        except (OSError, ValueError):  # absent, or "max": no limit
            continue
        candidates.append(max(left, 0))
    known = [c for c in candidates if c is not None]
    return min(known) if known else None


def _meminfo_available():
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # not a POSIX system
        return None


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


def _size(n):
    """``n`` bytes in words: ``1.5 GB``; ``10^30 bytes`` for sizes past any memory."""
    if n >= 10**18:
        return f"10^{len(str(n)) - 1} bytes"
    for unit, scale in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"
