"""Where the ``fdlsr`` commands may write, and how: one guard for every file written.

Every command that writes (``run --out``, ``report -o``, ``plot --out``, ``fit -o``,
``predict -o``, ``features -o``) passes each path it is about to write, with the
paths of its own inputs, through :func:`check_output` before it writes anything.
The guard refuses, in one line (a :class:`~fdlsr.errors.ConfigError`):

* a path that is one of the inputs: the same path once links and ``..`` are resolved,
  or the same file under another name (a hard link), a file of an input folder
  included (looked for only when the output has several names);
* a path inside an input folder (an image folder, a results store being reported):
  a new file there would change the input;
* a path directly inside a results store (a folder holding fdlsr's mark,
  ``fdlsr-store.json``), except the store that ``fdlsr run`` itself writes;
* unless ``force``, an existing file that fdlsr may not replace by the rule of
  :mod:`fdlsr._common.ownership`: only a file fdlsr wrote and that is unchanged
  since (listed with its SHA-256 in the folder's ``.fdlsr-outputs.json``), or an
  empty one, is replaced without ``--force``.

Files are then written whole: :func:`replaced_atomically` gives a temporary file
beside the target, renamed over it only once it is complete, so an interrupted write
leaves the old file or the new one. The writer records the finished file
(:func:`~fdlsr._common.ownership.record_written`).
"""

import contextlib
import os
import tempfile
from pathlib import Path

from .._common.ownership import MANIFEST, may_replace
from .._version import __version__
from ..errors import ConfigError
from .store_folder import is_store

# Provenance that figures and HTML reports carry (as matplotlib names itself in its
# files); the guard never reads it.
FIGURE_MARK = f"fdlsr {__version__}"
REPORT_GENERATOR = f'<meta name="generator" content="fdlsr {__version__}">'


def _real(path):
    return Path(os.path.realpath(Path(path).expanduser()))


def _identity(path):
    """``(device, inode)`` of an existing file, or None."""
    try:
        stat = os.stat(path)
    except (OSError, ValueError):
        return None
    return stat.st_dev, stat.st_ino


def _linked_inside(path, folder):
    """The file inside ``folder`` that ``path`` is another name of (a hard link), or
    None. Only a file with several names is looked for, so a folder is walked only
    then."""
    try:
        stat = os.stat(path)
    except (OSError, ValueError):
        return None
    if stat.st_nlink < 2 or not os.path.isfile(path):
        return None
    for parent, _, names in os.walk(folder):
        for name in names:
            inside = os.path.join(parent, name)
            if _identity(inside) == (stat.st_dev, stat.st_ino):
                return Path(inside)
    return None


def check_output(path, *, inputs=(), option="-o", force=False, store=None):
    """The output ``path``, or a :class:`~fdlsr.errors.ConfigError` if writing it
    would destroy data (see the module's docstring).

    Parameters
    ----------
    path : str or path-like
        The file the command is about to write.
    inputs : iterable of str or path-like
        The command's inputs: files and folders it reads (None, and paths where
        nothing exists, are ignored: there is nothing to destroy).
    option : str
        The option that named ``path`` (``-o``, ``--out``), for the message.
    force : bool
        Replace an existing file that fdlsr did not write (``--force``); an input
        is never replaced.
    store : str or path-like, optional
        The results store the command owns (``fdlsr run --out``): its own files may
        be written and replaced (the store is the store's, by its mark).

    Returns
    -------
    pathlib.Path
        ``path``, as given.
    """
    given = Path(path).expanduser()
    real = _real(given)
    mine = _identity(given)

    def refuse(why, fix):
        raise ConfigError(f"{option} {path} {why}; nothing was written: {fix}")

    # "missing/.." names one place to this check (resolved lexically) and another to
    # a writer that creates the missing folders first
    prefix = Path(given.anchor)
    for part in given.parts[1:] if given.anchor else given.parts:
        if part == ".." and not os.path.lexists(prefix):
            refuse(
                f"goes back (..) out of the folder {prefix}, which does not exist",
                "give the path without it",
            )
        prefix = prefix / part

    inputs = [
        Path(item).expanduser()
        for item in inputs
        if item is not None and os.path.lexists(Path(item).expanduser())
    ]
    for item in inputs:
        if real == _real(item) or (mine is not None and mine == _identity(item)):
            refuse(f"is the input {item}", "give the output another name")
        linked = _linked_inside(given, item) if item.is_dir() else None
        if linked is not None:
            refuse(
                f"is the input {linked} (a hard link to it)",
                "give the output another name",
            )
    folder = real.parent
    if real.name == MANIFEST:
        refuse(
            "is fdlsr's record of the files it wrote in its folder",
            "give another file name",
        )
    own_store = store is not None and _real(store) == folder
    if is_store(folder) and not own_store:
        refuse(
            f"is inside the results store {folder} (fdlsr run keeps its results there)",
            f"write it outside {folder}",
        )
    for item in inputs:
        if item.is_dir() and _real(item) in real.parents:
            refuse(f"is inside the input folder {item}", f"write it outside {item}")
    if not force and not own_store and not may_replace(real):
        other = "choose another folder" if option == "--out" else "give a new file name"
        refuse(
            f"exists and fdlsr did not write it (or it was changed since: fdlsr "
            f"replaces only its own files, listed in {MANIFEST})",
            f"{other}, or add --force to replace it",
        )
    return given


@contextlib.contextmanager
def replaced_atomically(path):
    """A temporary path beside ``path`` to write to; renamed over ``path`` when the
    block ends without an error, removed otherwise.

    The temporary name keeps ``path``'s suffix, so writers that choose the format by
    extension (matplotlib) write the same format. A symbolic link is written through:
    its target is replaced, the link kept.
    """
    path = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    fd, tmp = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.stem}.", suffix=f".tmp{path.suffix}"
    )
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_atomic(path, text):
    """Replace ``path`` by ``text`` whole: a temporary file beside it, renamed.

    A path that exists and is not a regular file (a pipe, /dev/stdout, /dev/null) is
    written in place: renaming over it would replace the device itself.
    """
    path = Path(path)
    if path.exists() and not path.is_file():
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        return
    with replaced_atomically(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
