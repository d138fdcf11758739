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
* with ``kind``, an existing file that is not of that kind (a model file for ``fit``,
  a features file for ``features``, a report for ``report -o``, a figure or its
  numbers for ``plot``), unless ``force``; an empty file holds nothing to lose and
  is replaced.

fdlsr recognises its own files by what it writes in them: a model file's manifest, a
features file's ``features`` and ``record`` arrays, a report's own lines (the table's
header row in Markdown, the first comment line in LaTeX, the header row in CSV, the
``generator`` meta element or the "Written by fdlsr" line in HTML), and a figure's
mark (:data:`FIGURE_MARK`: the ``Software`` text of a PNG, the ``Creator`` of a PDF,
the ``written_by`` field of its numbers' JSON).

Files are then written whole: :func:`replaced_atomically` gives a temporary file
beside the target, renamed over it only once it is complete, so an interrupted write
leaves the old file or the new one, never half of one.
"""

import contextlib
import os
import re
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .._common import strict_json
from .._common.strict_json import JSONError
from .._version import __version__
from ..errors import ConfigError
from ..persistence._archive import is_model_file
from .store_folder import is_store

# What fdlsr writes in a figure file (and its JSON) to know it again as its own.
FIGURE_MARK = f"fdlsr {__version__}"
# What fdlsr writes in an HTML report for the same purpose.
REPORT_GENERATOR = f'<meta name="generator" content="fdlsr {__version__}">'
# A file larger than this is not read to find a mark: fdlsr writes none so large.
_LARGEST_MARKED = 256 * 2**20


@dataclass(frozen=True)
class FileKind:
    """A kind of file a command writes: its name in words and a test of a path."""

    name: str
    test: Callable[[Path], bool]


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


def _head(path, size):
    """The first ``size`` bytes of ``path`` (``b""`` if it cannot be read)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(size)
    except OSError:
        return b""


# The lines by which fdlsr knows a report it wrote, one per format.
_REPORT_LINES = (
    # Markdown: the table's header row
    re.compile(
        rb"^\| Method[^|]*\|.*\| Training time \(s\) \|.*\| Parameters \|$",
        re.MULTILINE,
    ),
    # LaTeX: the comment line it opens with
    re.compile(rb"\A% Requires \\usepackage\{booktabs\}\. Rendered by fdlsr report"),
    # CSV: the first columns of its header row
    re.compile(
        rb"\Asource,(table|dataset),method,label,family,k,n_splits,accuracy_mean_pct,"
    ),
    # HTML: its generator, or the line under its heading
    re.compile(
        rb'<meta name="generator" content="fdlsr |<p class="muted">Written by fdlsr '
    ),
)


def _is_report(path):
    """A report written by ``fdlsr report`` (in any of its formats)."""
    head = _head(path, 1 << 20)
    return any(line.search(head) for line in _REPORT_LINES)


def _is_predictions(path):
    """A CSV written by ``fdlsr predict``: its header row, as that command writes it."""
    return re.match(rb"index,prediction(,label)?\r?\n", _head(path, 64)) is not None


def _is_figure(path):
    """A figure file written by fdlsr (PNG, PDF) or its numbers (JSON), by the mark
    :func:`.figures.save_figure` puts in it (:data:`FIGURE_MARK`)."""
    suffix = Path(path).suffix.lower()
    try:
        if os.path.getsize(path) > _LARGEST_MARKED:
            return False
    except OSError:
        return False
    if suffix == ".png":  # a tEXt chunk before the image data
        head = _head(path, 1 << 16)
        head = head[: head.find(b"IDAT")] if b"IDAT" in head else head
        return b"tEXtSoftware\x00fdlsr " in head
    if suffix == ".pdf":  # the document's information dictionary
        return b"/Creator (fdlsr " in _head(path, _LARGEST_MARKED)
    if suffix == ".json":
        try:
            # NaN allowed: a figure's numbers are written as they are
            value = strict_json.loads(_head(path, _LARGEST_MARKED), allow_nan=True)
        except JSONError:  # a key named twice too: not told to be fdlsr's
            return False
        mark = value.get("written_by") if isinstance(value, dict) else None
        return isinstance(mark, str) and mark.startswith("fdlsr ")
    return False


MODEL_FILE = FileKind(
    "a model file (written by `fdlsr fit` or fdlsr.save)", is_model_file
)
FEATURES_FILE = FileKind(
    "a features file (written by `fdlsr features`)", _is_features_file
)
REPORT_FILE = FileKind("a report written by `fdlsr report`", _is_report)
FIGURE_FILE = FileKind("a figure written by `fdlsr plot`", _is_figure)
PREDICTIONS_FILE = FileKind(
    "a predictions CSV (written by `fdlsr predict`)", _is_predictions
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
        linked = _linked_inside(given, item) if item.is_dir() else None
        if linked is not None:
            refuse(
                f"is the input {linked} (a hard link to it)",
                "give the output another name",
            )
    folder = real.parent
    if is_store(folder) and (store is None or _real(store) != folder):
        refuse(
            f"is inside the results store {folder} (fdlsr run keeps its results there)",
            f"write it outside {folder}",
        )
    for item in inputs:
        if item.is_dir() and _real(item) in real.parents:
            refuse(f"is inside the input folder {item}", f"write it outside {item}")
    if kind is not None and not force and _holds_data(real) and not kind.test(real):
        other = "choose another folder" if option == "--out" else "give a new file name"
        refuse(
            f"exists and is not {kind.name}", f"{other}, or add --force to replace it"
        )
    return given


def _holds_data(path):
    """Whether ``path`` is a file with something in it to lose."""
    try:
        return path.is_file() and path.stat().st_size > 0
    except OSError:
        return False


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
