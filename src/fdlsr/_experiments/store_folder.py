"""Which folder is a results store: the store's files, fdlsr's mark on it, its lock.

A folder is a results store only if it holds fdlsr's mark, ``fdlsr-store.json``
(``{"format": "fdlsr results store", "version": 1}``), written when ``fdlsr run``
makes the store and never changed. Files named like a store's (``experiment.json``,
``results.jsonl``, ``.lock``) do not make a store: a user's folder that holds them is
refused, never written into. Every command that reads or writes a store
(``fdlsr run --out``, ``fdlsr report``) goes through :func:`check_store` first.
"""

import json
import os
from pathlib import Path

from filelock import FileLock, Timeout

from .._common import strict_json
from .._common.strict_json import JSONError
from ..errors import ConfigError
from .rows import RESULTS, read_lines

MARK = "fdlsr-store.json"
# The mark's content: a store of another format version is refused, not misread.
MARK_FORMAT = "fdlsr results store"
MARK_VERSION = 1
MARK_TEXT = json.dumps({"format": MARK_FORMAT, "version": MARK_VERSION}) + "\n"
ENVIRONMENT = "environment.json"
INFO = "experiment.json"
LOCK = ".lock"
UNREADABLE = ".unreadable"  # the suffix of a side file kept aside, unreadable
# Every file `fdlsr run` writes into a store.
STORE_FILES = (
    MARK,
    RESULTS,
    ENVIRONMENT,
    ENVIRONMENT + UNREADABLE,
    INFO,
    INFO + UNREADABLE,
    LOCK,
)


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool)


def is_store(folder):
    """Whether ``folder`` claims to be a results store: it holds fdlsr's mark,
    whatever the mark's content (:func:`check_store` checks it)."""
    return os.path.lexists(Path(folder) / MARK)


def check_store(path, *, writing=False):
    """``(folder, new)``: the results store at ``path``, checked. The one check of
    every command that reads or writes a store, made before anything is written.

    A folder is a store when it holds fdlsr's mark (``fdlsr-store.json`` of this
    format version) and the store's own files in it are files (not links, folders
    or pipes). Files named like a store's (``experiment.json``, ``results.jsonl``)
    do not make a store: a folder of files of its own, a file, a damaged or foreign
    mark are refused in one line. A missing or empty folder is a new store for a
    writer and has "no results" for a reader.

    Parameters
    ----------
    path : str or path-like
        The store's folder; for a reader, also its ``results.jsonl``.
    writing : bool
        Whether the caller writes the store (``fdlsr run --out``).

    Returns
    -------
    folder : pathlib.Path
        The store's folder.
    new : bool
        Whether the folder is missing or empty (only when ``writing``):
        :func:`make_store` makes it a store.

    Raises
    ------
    ConfigError
        When ``path`` is not a store (nor, for a writer, a new one).
    """
    folder = Path(path).expanduser()
    if not writing and folder.name == RESULTS and folder.is_file():
        folder = folder.parent
    if writing:
        fix = (
            "nothing was written: give --out a new or empty folder, or a store that "
            "fdlsr run wrote"
        )
    else:
        fix = "give a folder that `fdlsr run --out` wrote"

    def refuse(why):
        raise ConfigError(f"{folder} {why}; {fix}")

    if not folder.is_dir():
        if folder.exists():
            refuse("is not a results store: it is a file")
        if os.path.lexists(folder):
            refuse("is a link to nothing")
        return _new(folder, writing)
    try:
        names = sorted(os.listdir(folder))
    except OSError as error:
        refuse(f"cannot be read ({error.strerror})")
    if MARK not in names:
        if names:
            refuse(
                f"is not a results store: it holds {_some(names)} and no {MARK}, the "
                "mark that fdlsr run gives each store"
            )
        return _new(folder, writing)
    problem, version = _mark_problem(folder / MARK)
    if problem == "is empty" and names == [MARK]:  # the making of a store, cut short
        return _new(folder, writing)
    if version is not None:
        raise ConfigError(
            f"{folder} is a results store of a newer format (version {version}; this "
            f"fdlsr knows version {MARK_VERSION}): upgrade fdlsr to use it"
        )
    if problem:
        refuse(f"is not a results store: its {MARK} {problem}")
    for name in STORE_FILES:
        file = folder / name
        if file.is_symlink():
            raise ConfigError(
                f"{file} is a symbolic link: a store's files are its own (rows "
                "written through a link would change the file it points to); replace "
                "it by a copy of that file"
            )
        if os.path.lexists(file) and not file.is_file():
            raise ConfigError(
                f"{file} is not a file (a folder, a pipe or a device): a store's "
                "files are fdlsr's own; move it out of the store"
            )
    return folder, False


def _new(folder, writing):
    """A missing or empty folder: a new store for a writer, no results for a reader."""
    if not writing:
        raise ConfigError(
            f"no results in {folder}: run an experiment first (fdlsr run --out "
            f"{folder}) or point at the folder that has {RESULTS}"
        )
    return folder, True


def _some(names, shown=3):
    """``"a, b, c and 4 more"``: the first of a folder's entries, for a message."""
    listed = ", ".join(repr(name) for name in names[:shown])
    more = len(names) - shown
    return listed + (f" and {more} more" if more > 0 else "")


def _mark_problem(path):
    """``(problem, newer)``: why ``path`` is not fdlsr's mark of this version, in a
    few words, or None; and the version of a mark of a newer format, or None."""
    if path.is_symlink():
        return "is a symbolic link", None
    if not path.is_file():
        return "is not a file", None
    try:
        with open(path, "rb") as handle:
            data = handle.read(len(MARK_TEXT) + 64)  # never a large file whole
    except OSError as error:
        return f"cannot be read ({error.strerror})", None
    if not data:
        return "is empty", None
    try:
        mark = strict_json.loads(data)
    except JSONError:
        return "is not fdlsr's mark (not the JSON fdlsr writes)", None
    if not isinstance(mark, dict) or mark.get("format") != MARK_FORMAT:
        return f'is not fdlsr\'s mark (no "format": "{MARK_FORMAT}")', None
    version = mark.get("version")
    if _whole(version) and version > MARK_VERSION:
        return "is of a newer format", version
    if not (_whole(version) and version == MARK_VERSION):
        return f"is not fdlsr's mark (version {str(version)[:20]!r})", None
    return None, None


def make_store(folder):
    """Make the missing or empty ``folder`` a new results store: the folder, and the
    mark in it (written in one piece: a kill leaves it whole or empty)."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / MARK, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        try:
            os.write(fd, MARK_TEXT.encode())
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as error:
        raise ConfigError(
            f"cannot create the results folder {folder}: {error.strerror}; choose "
            "another with --out DIR"
        ) from None


def lock_store(folder):
    """The lock of the store ``folder``, held (``filelock``: exclusive, released by
    ``release()`` or when the process ends, even by ``kill -9``), so that two runs
    never write one store at once."""
    lock = FileLock(folder / LOCK)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise ConfigError(
            f"another fdlsr run is writing to {folder}; wait for it or choose "
            "another folder with --out DIR"
        ) from None
    except OSError as error:
        raise ConfigError(
            f"cannot write to {folder}: {error.strerror}; choose another folder "
            "with --out DIR"
        ) from None
    return lock


def read_store(path):
    """The :class:`~fdlsr._experiments.rows.StoreRows` of the store at ``path`` (its
    folder or its ``results.jsonl``): checked (:func:`check_store`), every line read
    through the rows' schema (:func:`~fdlsr._experiments.rows.read_lines`)."""
    folder, _ = check_store(path)
    results = folder / RESULTS
    if not results.exists():
        _new(folder, writing=False)  # raises: no results
    try:
        data = results.read_bytes()
    except OSError as error:
        raise ConfigError(f"cannot read {results}: {error.strerror}") from None
    return read_lines(data, results)


def read_rows(path):
    """The valid rows of a store (a folder, or its ``results.jsonl``)."""
    return read_store(path).rows
