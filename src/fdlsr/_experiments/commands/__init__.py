"""The handlers of the ``fdlsr`` sub-commands: ``fdlsr NAME`` runs ``main(args)`` of
the module ``NAME`` here (``run``, ``report``, ``plot``, ``datasets``, ``methods``,
``features``, ``fit``, ``predict``), with what they share in :mod:`.shared`.

Each handler turns parsed arguments into calls to the modules below it and prints
what the user should see; :mod:`..parser` builds the arguments, :mod:`..cli` calls
the handler.
"""

import importlib

# One module per sub-command, named as the sub-command.
COMMANDS = (
    "run",
    "report",
    "plot",
    "datasets",
    "features",
    "methods",
    "fit",
    "predict",
)


# What an interrupted command has kept, said after "fdlsr: interrupted" (the others
# write their outputs whole or not at all, and have nothing to add).
KEPT_WHEN_INTERRUPTED = {
    "run": "finished runs are saved: run the same command again to resume",
    "features": "finished chunks are kept: run the same command again to resume",
}


def interrupted_note(argv):
    """What the command of ``argv`` (the command line, without ``fdlsr``) has kept
    when interrupted, or ``""``; read from ``argv`` itself, since Ctrl-C may come
    before the arguments are parsed."""
    command = next((a for a in argv if not a.startswith("-")), None)
    return KEPT_WHEN_INTERRUPTED.get(command, "")


def handler(command):
    """The function that runs ``fdlsr COMMAND``: ``main`` of the module of that name
    (imported on use, so that one command loads only what it needs)."""
    if command not in COMMANDS:
        raise ValueError(f"no such fdlsr command: {command!r}")
    return importlib.import_module(f"{__name__}.{command}").main
