"""Opening a user's input file: regular files only.

A path may name something that is not a file of bytes: a named pipe (FIFO), whose
``open`` waits for a writer and whose read waits for data, for ever; a character
device such as ``/dev/zero`` or ``/dev/urandom``, which never ends; a socket; a
folder. Every reader of a data file or a model file opens its input here, which
refuses all of these in one line, before reading a byte: the file is opened without
waiting (``O_NONBLOCK``: a FIFO with no writer opens at once) and its kind checked
on the open descriptor, so that a path swapped after a check cannot slip through.
"""

import hashlib
import os
import stat

# What a path that is not a regular file is, in words, by its ``stat`` kind.
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO), whose reading waits for a writer"),
    (stat.S_ISCHR, "a character device (as /dev/zero), whose reading never ends"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def open_input(path, mode="rb", *, error, what="file", encoding=None, newline=None):
    """The regular file ``path``, opened for reading.

    Parameters
    ----------
    path : path-like
        The file; a symbolic link is followed.
    mode : {"rb", "r"}, default="rb"
        Binary, or text with ``encoding`` and ``newline`` (as :func:`open`).
    error : type
        The :class:`fdlsr.errors.FdlsrError` subclass raised for a path that is not
        a regular file (``DatasetError``, ``ModelFileError``).
    what : str, default="file"
        What the file should be, for the message ("model file").

    Returns
    -------
    file object
        Open for reading, to be closed by the caller (``with open_input(...)``).

    Raises
    ------
    error
        When ``path`` is a folder, a named pipe, a device or a socket.
    OSError
        When it cannot be opened (missing, no permission), as :func:`open`.
    """
    if mode not in ("rb", "r"):
        raise ValueError(f"open_input reads only: mode 'rb' or 'r', got {mode!r}")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        kind = os.fstat(fd).st_mode
        if not stat.S_ISREG(kind):
            is_what = next(
                (words for test, words in _KINDS if test(kind)), "a special file"
            )
            saved = (
                "" if stat.S_ISDIR(kind) else " (save what it gives to a file first)"
            )
            raise error(
                f"{path} is {is_what}, not a regular {what}; give the path of a "
                f"{what}{saved}"
            )
        if hasattr(os, "O_NONBLOCK"):
            # reads of a regular file never wait; the flag is cleared all the same
            os.set_blocking(fd, True)
        handle = os.fdopen(fd, mode, encoding=encoding, newline=newline)
    except BaseException:
        os.close(fd)
        raise
    # named as open(path) names it, for the libraries that quote it in messages
    (handle.raw if mode == "rb" else handle.buffer.raw).name = os.fspath(path)
    return handle


def sha256(path):
    """The SHA-256 of the file ``path``'s bytes, as hexadecimal text."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
