"""Which existing files fdlsr may replace: the one rule behind ``--force``.

fdlsr replaces an existing file without ``--force`` (``overwrite=True`` in Python)
only if fdlsr wrote it and it is unchanged since: the file is listed, with the
SHA-256 of what was written, in the ``.fdlsr-outputs.json`` of its folder. An empty
file holds nothing to lose and is replaced too. Every file fdlsr writes for the user
(a report, predictions, a figure, a features file, a model file) is recorded there
once complete (:func:`record_written`); a file edited since, copied in, or written by
anyone else is the user's. Whose a file is never depends on what it holds: a user's
notes with an fdlsr table pasted in are still the user's.

The record can only make fdlsr more careful: a record lost (the manifest deleted or
damaged, two commands recording in one folder at the same moment) makes fdlsr ask
for ``--force``, never replace a file it did not write.
"""

import contextlib
import json
import os
import tempfile
from pathlib import Path

from . import strict_json
from .files import sha256

#: The file, in each folder fdlsr writes outputs to, that lists what it wrote there.
MANIFEST = ".fdlsr-outputs.json"
_ABOUT = (
    "Files fdlsr wrote in this folder, with the SHA-256 they were written with: fdlsr "
    "replaces such a file without --force only while it is unchanged."
)


def may_replace(path):
    """Whether fdlsr may replace ``path`` without ``--force``: the module's rule.

    True where there is nothing to lose (no regular file, or an empty one) and for a
    file listed in its folder's :data:`MANIFEST` with the SHA-256 it has now. A
    symbolic link is judged by the file it points to, which is what gets replaced.
    """
    real = Path(os.path.realpath(path))
    try:
        if not real.is_file() or real.stat().st_size == 0:
            return True
        return _recorded(real.parent).get(real.name) == sha256(real)
    except OSError:  # unreadable: fdlsr cannot tell that it wrote it
        return False


def record_written(path):
    """List ``path``, just written whole by fdlsr, in its folder's :data:`MANIFEST`
    with its SHA-256 (entries of files no longer there are dropped).

    A path that is not a regular file (a pipe, ``/dev/stdout``) is not recorded; a
    manifest that cannot be written leaves the file unrecorded, hence the user's.
    """
    real = Path(os.path.realpath(path))
    if real.name == MANIFEST or not real.is_file():
        return
    folder = real.parent
    with contextlib.suppress(OSError):
        files = {
            name: digest
            for name, digest in _recorded(folder).items()
            if name != real.name and (folder / name).is_file()
        }
        files[real.name] = sha256(real)
        text = json.dumps(
            {"about": _ABOUT, "files": dict(sorted(files.items()))}, indent=1
        )
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f"{MANIFEST}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text + "\n")
            os.replace(tmp, folder / MANIFEST)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def _recorded(folder):
    """``{file name: SHA-256}`` of the manifest in ``folder``; ``{}`` if there is none
    or it is not one fdlsr wrote (then no file there counts as fdlsr's)."""
    try:
        with open(Path(folder) / MANIFEST, "rb") as handle:
            value = strict_json.loads(handle.read(1 << 24))
    except (OSError, strict_json.JSONError):
        return {}
    files = value.get("files") if isinstance(value, dict) else None
    if not isinstance(files, dict):
        return {}
    return {k: v for k, v in files.items() if isinstance(v, str)}
