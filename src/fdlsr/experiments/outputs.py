"""Where the ``fdlsr`` commands may write, and how: one guard for every file written.

Every command that writes (``run --out``, ``report -o``, ``plot --out``, ``fit -o``,
``predict -o``, ``features -o``) passes each path it is about to write, with the
paths of its own inputs, through :func:`check_output` before it writes anything.
The guard refuses, in one line (a :class:`~fdlsr.errors.ConfigError`):

* a path that is one of the inputs: the same path once links and ``..`` are resolved,
  or the same file under another name (a hard link);
* a path inside an input folder (an image folder, a results store being reported):
  a new file there would change the input;
* a path directly inside a results store (a folder holding fdlsr's mark,
  ``fdlsr-store.json``), except the store that ``fdlsr run`` itself writes;
* with ``kind``, an existing file that is not of that kind (a model file for ``fit``,
  a features file for ``features``), unless ``force``.

Files are then written whole: :func:`replaced_atomically` gives a temporary file
beside the target, renamed over it only once it is complete, so an interrupted write
leaves the old file or the new one, never half of one.
"""

import contextlib
import os
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError
from ..persistence.archive import MANIFEST
from .store_folder import is_store


@dataclass(frozen=True)
class FileKind:
    """A kind of file a command writes: its name in words and a test of a path."""

    name: str
    test: Callable[[Path], bool]


def _is_model_file(path):
    try:
        with zipfile.ZipFile(path) as archive:
            return MANIFEST in archive.namelist()
    except (OSError, zipfile.BadZipFile, ValueError):
        return False


def _is_features_file(path):
    """A ``.npz`` or ``.mat`` holding ``features`` and ``record`` (as written by
    ``fdlsr features``); read from the file's index only, no array is loaded."""
    needed = {"features", "record"}
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                names = {name.removesuffix(".npy") for name in archive.namelist()}
        else:
            from scipy.io import whosmat

            names = {name for name, _, _ in whosmat(str(path))}
    except Exception:  # any file that is not one of ours, however it fails
        return False
    return needed <= names


MODEL_FILE = FileKind(
    "a model file (written by `fdlsr fit` or fdlsr.save)", _is_model_file
)
FEATURES_FILE = FileKind(
    "a features file (written by `fdlsr features`)", _is_features_file
)


def _real(path):
    return Path(os.path.realpath(Path(path).expanduser()))


def _identity(path):
    """``(device, inode)`` of an existing file, or None."""
    try:
        stat = os.stat(path)
    except (OSError, ValueError):
        return None
    return stat.st_dev, stat.st_ino


def check_output(path, *, inputs=(), option="-o", kind=None, force=False, store=None):
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
    kind : FileKind, optional
        The kind of file written: an existing file of another kind is refused...
    force : bool
        ...unless ``force`` (``--force``).
    store : str or path-like, optional
        The results store the command owns (``fdlsr run --out``): its own files may
        be written.

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
    folder = real.parent
    if is_store(folder) and (store is None or _real(store) != folder):
        refuse(
            f"is inside the results store {folder} (fdlsr run keeps its results there)",
            f"write it outside {folder}",
        )
    for item in inputs:
        if item.is_dir() and _real(item) in real.parents:
            refuse(f"is inside the input folder {item}", f"write it outside {item}")
    if kind is not None and not force and real.is_file() and not kind.test(real):
        refuse(
            f"exists and is not {kind.name}",
            "give a new file name, or add --force to replace it",
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
