"""How much memory this process can still allocate, and sizes in words.

The data readers charge the arrays a file declares against it before reading them
(:mod:`fdlsr.datasets._memory`); a method that allocates a matrix whose
size the data's shape decides (LDA's features x features covariance) checks it
before allocating, so that a problem too large is refused in one line instead of a
``MemoryError`` deep inside NumPy.
"""

import os
from pathlib import Path


def available_memory():
    """Bytes this process can still allocate: the system's available memory, or less
    when a control group (a container) or a limit of this process (``ulimit -v``,
    ``ulimit -d``: its address space, its data) allows less; None where unknown."""
    candidates = [_meminfo_available(), *_process_limits_left()]
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


def _process_limits_left():
    """Bytes left under this process's own limits: its address space (``RLIMIT_AS``,
    against ``VmSize``) and its data (``RLIMIT_DATA``, against ``VmData``)."""
    try:
        import resource
    except ImportError:  # not a POSIX system: no such limits
        return []
    try:
        status = Path("/proc/self/status").read_text().splitlines()
    except OSError:
        return []
    used = {}
    for line in status:
        name, _, value = line.partition(":")
        if name in ("VmSize", "VmData") and value.split():
            used[name] = int(value.split()[0]) * 1024  # kB
    left = []
    for limit, name in (
        (resource.RLIMIT_AS, "VmSize"),
        (resource.RLIMIT_DATA, "VmData"),
    ):
        soft = resource.getrlimit(limit)[0]
        if soft != resource.RLIM_INFINITY and name in used:
            left.append(max(soft - used[name], 0))
    return left


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


def size_in_words(n):
    """``n`` bytes in words: ``1.5 GB``; ``10^30 bytes`` for sizes past any memory."""
    if n >= 10**18:
        return f"10^{len(str(n)) - 1} bytes"
    for unit, scale in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"
