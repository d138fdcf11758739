"""The ``fdlsr`` command: parse the arguments, run the sub-command's handler, and turn
any refusal into one line on stderr with exit status 2.

The parser is built in :mod:`.parser` (:func:`build_parser`), each sub-command's
handler is ``main`` of the module of its name in :mod:`.commands`; nothing here
computes.
"""

import contextlib
import os
import signal
import sys
import threading

from .._common.messages import on_command_line, printable
from ..errors import FdlsrError
from .commands import handler, interrupted_note
from .parser import build_parser

__all__ = ["build_parser", "main"]

# What bare ``fdlsr`` runs: the quick demo on the embedded faces.
DEMO = ["run", "--config", "faces"]

# Signals that end a command as Ctrl-C does (one line, exit 130, finished runs kept):
# SIGTERM (``kill``, a batch system's time limit) and SIGHUP (the terminal or ssh
# session closed; ``nohup`` keeps it ignored). Where the system has no SIGHUP
# (Windows) it is left out.
INTERRUPTS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def main(argv=None):
    """Run ``fdlsr ARGV``; the exit status (errors exit through ``SystemExit``)."""
    program = argv is None  # the fdlsr command itself, not a call from Python
    argv = sys.argv[1:] if program else argv
    try:
        # from the first statement: building the parser imports the configs'
        # modules, and Ctrl-C, SIGTERM or SIGHUP may come at any moment
        with _signals_as_interrupt():
            return _run(argv)
    except KeyboardInterrupt:
        _interrupted(program, argv)
    except ImportError as error:
        # Ctrl-C while a compiled module initialises reaches here as its ImportError
        if not isinstance(error.__cause__, KeyboardInterrupt):
            raise
        _interrupted(program, argv)
    finally:
        if program:  # its last line is out: a signal while Python exits changes nothing
            _signals_ignored()


def _interrupted(program, argv):
    """Exit 130 with one line, saying what the interrupted command (``argv``) kept.
    CPython notes a KeyboardInterrupt that leaves code run from a string
    (dataclasses and numpy run some while they are imported) and, under ``python
    -m``, ends with SIGINT instead of the status asked for; running a string clears
    that note."""
    if program:  # a second Ctrl-C would cut this line
        _signals_ignored()
    eval("0")
    note = interrupted_note(argv or DEMO)
    try:
        sys.stderr.write(f"fdlsr: interrupted{f'; {note}' if note else ''}\n")
        sys.stderr.flush()
        gone = False
    except OSError:  # the terminal is gone (SIGHUP): nowhere to say it
        gone = True
    if gone or program:  # the command's last line is out: what libraries print as
        # they stop (a half-started dask cluster's asyncio task, exit hooks) goes nowhere
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)  # the process's own stderr
    sys.exit(130)


def _signals_ignored():
    if threading.current_thread() is threading.main_thread():
        for number in (signal.SIGINT, *INTERRUPTS):
            signal.signal(number, signal.SIG_IGN)


def _run(argv):
    parser = build_parser()
    args = parser.parse_args(argv or DEMO)
    args.argv = list(argv)  # the command line, recorded beside the results
    try:
        with on_command_line():
            return handler(args.command)(args)
    except FdlsrError as error:
        parser.exit(2, f"fdlsr: error: {printable(str(error))}\n")
    except MemoryError:
        # what no budget foresaw (a method's own arrays, a library's copies): the
        # arrays are gone with the frames that held them, and one line says so
        parser.exit(
            2,
            f"fdlsr: error: fdlsr {args.command} ran out of memory; give it less data "
            "(fewer or smaller samples, a smaller --resize) or run it on a machine "
            "with more memory\n",
        )
    except BrokenPipeError:
        # the reader stopped early (`fdlsr methods | head`): nothing went wrong here;
        # point stdout at /dev/null so that Python's exit flush does not fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:  # a file or folder the system refused: say which
        where = f" ({error.filename})" if error.filename else ""
        parser.exit(
            2,
            f"fdlsr: error: {printable(f'{error.strerror or error}{where}')}; check "
            "the paths given and that you may read and write there\n",
        )


@contextlib.contextmanager
def _signals_as_interrupt():
    """:data:`INTERRUPTS` end a command as Ctrl-C does: every command goes through
    here, so each cleans up (workers, clusters, temporary files) the same way."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return
    # a signal ignored from the start stays ignored (``nohup fdlsr ...``)
    previous = {
        number: signal.signal(number, signal.default_int_handler)
        for number in INTERRUPTS
        if signal.getsignal(number) is not signal.SIG_IGN
    }
    try:
        yield
    finally:
        for number, handler in previous.items():
            if handler is not None:  # None: set outside Python, cannot be restored
                signal.signal(number, handler)


if __name__ == "__main__":
    sys.exit(main())
