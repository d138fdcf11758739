"""What the ``fdlsr`` sub-command handlers share: the data options and the command
line read from the parsed arguments, and the few ways a handler speaks (an
``OSError`` in words, output to ``-o FILE`` or stdout, a method's refusal of the data
in one line).

Each handler reads its parsed arguments once, into the values (a request) that it
passes below; nothing under the handlers sees the arguments themselves.
"""

import shlex
import sys
from contextlib import contextmanager

import numpy as np

from ..._common.messages import one_line
from ..._common.ownership import record_written
from ...errors import ConfigError, FdlsrError
from ..outputs import write_atomic
from ..planning import DataOptions


def data_options(args):
    """The data options of a command's arguments (``--x``, ``--y``, ``--samples``,
    ``--resize``; None where not given): every command hands them all to the
    loader, which refuses those that do not apply to the data."""
    return DataOptions(
        x=args.x_var, y=args.y_var, samples=args.samples, resize=args.resize
    )


def reason(error):
    """An ``OSError`` in words, e.g. 'Is a directory'."""
    return error.strerror or str(error)


def command_line(args):
    """The ``fdlsr ...`` command being run (``None`` for bare ``fdlsr``)."""
    argv = getattr(args, "argv", sys.argv[1:])
    return "fdlsr " + shlex.join(argv) if argv else None


def emit(text, output, what):
    """Write ``text`` to the file ``output`` (``-o``), or print it when there is none."""
    if not output:
        print(text, end="")
        return
    try:
        write_atomic(output, text)
        record_written(output)
    except OSError as error:
        raise ConfigError(
            f"cannot write {what} to {output}: {reason(error)}; give the path of a "
            "file in an existing folder with -o FILE"
        ) from None
    print(f"wrote {output}", file=sys.stderr)


@contextmanager
def method_refusals(what):
    """Turn a method's own refusal of the data (scikit-learn's ``ValueError``, a
    singular matrix) inside the block into one line naming ``what`` was being done."""
    try:
        yield
    except FdlsrError:
        raise
    except (ValueError, np.linalg.LinAlgError) as error:
        raise ConfigError(
            f"{what}: {one_line(error).rstrip('.')}; choose other --params, another "
            "method or more data"
        ) from None
