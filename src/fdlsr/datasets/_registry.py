"""The benchmark data sets by name: where each file lives and what it must hold.

``registry.json`` (shipped with the package) has one entry per data set: the file's
path relative to the data folder, the variables and orientation to read, the
image shape and flattening order, the expected sizes and class counts, the sha256
where it is known, its relation to the paper, and how to obtain it. The entries
for the files in ``../shared/data`` copy that folder's ``MANIFEST.json``; entries
for files we do not have record only what their public distributions document
(no checksum is invented).

A file's sha256 is checked each time it is loaded. Hashing a few megabytes costs
little, but experiments load the same file once per run and per worker, so the digest
is remembered by path, size and modification time, in memory and in a small JSON
file in the user's cache folder (``FDLSR_CACHE_DIR``, else
``$XDG_CACHE_HOME/fdlsr``, else ``~/.cache/fdlsr``); the data folder itself may be
read-only, so nothing is written there.
"""

import hashlib
import json
import os
import tempfile
from importlib import resources
from pathlib import Path

import numpy as np

from .._common import strict_json
from .._common.files import open_input
from .._common.messages import did_you_mean, setting
from ..errors import DatasetError

DEFAULT_DATA_DIR = "data"


def entries():
    """The registry entries, in the order of the documentation's table."""
    text = resources.files(__package__).joinpath("registry.json").read_text()
    return strict_json.loads(text)


def names():
    return [e["name"] for e in entries()]


def lookup(name):
    """The entry named ``name`` (case, hyphens and underscores are forgiven), or None."""
    key = str(name).strip().lower().replace("-", "_")
    for entry in entries():
        if entry["name"] == key:
            return entry
    return None


def require(name):
    entry = lookup(name)
    if entry is None:
        raise DatasetError(
            f"unknown data set {name!r}; the registry knows {', '.join(names())} "
            "(or give the path of a .mat, .npz, .csv file or an image folder)."
            + did_you_mean(name, names())
        )
    return entry


def data_dir(given=None):
    """The data folder and where that choice came from, for messages."""
    if given is not None:
        return Path(given).expanduser(), f"given by {setting('data_dir', 'data_dir=')}"
    env = os.environ.get("FDLSR_DATA_DIR")
    if env:
        return Path(env).expanduser(), "from FDLSR_DATA_DIR"
    return Path(DEFAULT_DATA_DIR), "./data, the default"


def locate(entry, given=None):
    """The path of an entry's file, or a DatasetError saying how to get it."""
    root, origin = data_dir(given)
    candidates = [entry["file"], *entry.get("alternatives", [])]
    for relative in candidates:
        if (root / relative).is_file():
            return root / relative
    tried = " or ".join(str(root / c) for c in candidates)
    raise DatasetError(
        f"{entry['name']}: file not found: looked for {tried} (data folder "
        f"{origin}); to get it: {entry['obtain']}; or point --data-dir (or "
        f"FDLSR_DATA_DIR) at the folder that holds {entry['file']}"
    )


def embedded_path(entry):
    """The path of a data set shipped inside the package (``loader: "embedded"``)."""
    path = resources.files("fdlsr._experiments") / "data" / entry["file"]
    if not path.is_file():
        raise DatasetError(
            f"{entry['name']}: the package's own copy {entry['file']} is missing; "
            "reinstall fdlsr (pip install .) from a complete source tree"
        )
    return Path(str(path))


def verify_checksum(entry, path):
    """Refuse a file whose sha256 differs from the registry's (when known)."""
    expected = entry.get("sha256")
    if not expected or Path(path).name != Path(entry["file"]).name:
        return None
    actual = cached_sha256(path)
    if actual != expected:
        raise DatasetError(
            f"{entry['name']}: checksum mismatch for {path} (sha256 {actual[:12]}..., "
            f"expected {expected[:12]}...): the file is damaged or another version; "
            f"get it again ({entry['obtain']}), or load the file by its path "
            f"(--dataset {path}; verify=False in Python) to skip the registry's checks"
        )
    return True


# The digests known to this process: {path: ([size, mtime_ns], sha256)}.
_MEMORY = {}


def cache_file():
    """The JSON file that remembers digests across processes."""
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


def verify_contents(entry, X, y):
    """Refuse data whose size, class count or label range differ from the entry."""
    classes, counts = np.unique(y, return_counts=True)
    found = {
        "n_samples": X.shape[0],
        "n_features": X.shape[1],
        "n_classes": classes.size,
        "per_class_min": int(counts.min()),
        "per_class_max": int(counts.max()),
    }
    if classes.dtype.kind in "iu":
        found["label_min"], found["label_max"] = int(classes[0]), int(classes[-1])
    wrong = [
        f"{key} {found[key]} (expected {entry[key]})"
        for key in found
        if entry.get(key) is not None and found[key] != entry[key]
    ]
    if wrong:
        raise DatasetError(
            f"{entry['name']}: the file does not hold the registry's data set: "
            f"{', '.join(wrong)}; replace it ({entry['obtain']}), or load the file "
            "by its path (or with verify=False) to skip these checks"
        )


def info(name, given=None):
    """The registry entry plus where its file is and whether it checks out."""
    entry = dict(require(name))
    if entry["loader"] == "embedded":
        try:
            path = embedded_path(entry)
            entry.update(path=str(path), present=True)
            entry["verified"] = verify_checksum(entry, path)
        except DatasetError as exc:
            entry.update(present=False, verified=False, problem=str(exc))
        return entry
    if entry["loader"] != "file":
        from ._sklearn import cache_status

        entry.update(cache_status(entry["name"]))
        return entry
    root, origin = data_dir(given)
    entry.update(path=str(root / entry["file"]), present=False, verified=None)
    try:
        path = locate(entry, given)
    except DatasetError as exc:
        entry["problem"] = str(exc)
        return entry
    entry.update(path=str(path), present=True)
    try:
        entry["verified"] = verify_checksum(entry, path)
    except DatasetError as exc:
        entry.update(verified=False, problem=str(exc))
    return entry
