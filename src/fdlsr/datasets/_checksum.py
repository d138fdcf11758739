"""SHA-256 of data files, remembered by path, size and modification time.

Hashing a few megabytes costs little, but experiments load the same file once per
run and per worker, so the digest is kept in memory and in a small JSON file in
the user's cache folder (``FDLSR_CACHE_DIR``, else ``$XDG_CACHE_HOME/fdlsr``, else
``~/.cache/fdlsr``). A file whose size or modification time changed is hashed
again. The data folder itself may be read-only, so nothing is written there.
"""

import hashlib
import json
import os
import tempfile
from pathlib import Path

from .._common import strict_json
from .._common.files import open_input
from ..errors import DatasetError

_MEMORY = {}


def cache_file():
    root = os.environ.get("FDLSR_CACHE_DIR")
    if not root:
        xdg = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
        root = Path(xdg) / "fdlsr"
    return Path(root) / "sha256.json"


def sha256_file(path, chunk=1 << 20):
    """The hexadecimal SHA-256 digest of a file's bytes."""
    digest = hashlib.sha256()
    with open_input(path, error=DatasetError, what="data file") as f:
        while block := f.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def cached_sha256(path):
    """``sha256_file(path)``, reused while the file's size and mtime are unchanged."""
    path = Path(path).resolve()
    stat = path.stat()
    key, stamp = str(path), [stat.st_size, stat.st_mtime_ns]
    if _MEMORY.get(key, (None,))[0] == stamp:
        return _MEMORY[key][1]
    store = _read_store()
    entry = store.get(key)
    if entry and entry.get("stamp") == stamp:
        digest = entry["sha256"]
    else:
        digest = sha256_file(path)
        store[key] = {"stamp": stamp, "sha256": digest}
        _write_store(store)
    _MEMORY[key] = (stamp, digest)
    return digest


def _read_store():
    try:
        store = strict_json.loads(cache_file().read_bytes())
    except (OSError, ValueError):
        return {}
    return store if isinstance(store, dict) else {}


def _write_store(store):
    # Written to a temporary file and renamed, so that parallel test workers and
    # runs never see half a file; a cache that cannot be written is only slower.
    target = cache_file()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(store, f)
        os.replace(tmp, target)
    except OSError:
        pass
