"""The addresses of ``fdlsr run --scheduler``: ``local:N`` (N worker processes on this
machine) or a running dask scheduler's ``[tcp://|tls://]HOST:PORT``, read strictly.

N is written in the digits 0-9 only (not '٣', '+2', '2_0', ' 2'), from 1 to
:func:`.workers.max_processes`; HOST is a name (parts of 1 to 63 letters, digits,
'-' or '_' between dots), an IPv4 address or a bracketed IPv6 address, PORT a
number from 1 to 65535. Anything else is refused in one
line that says what to give, before any connection is tried.

Each wait on a scheduler has a deadline (:func:`scheduler_timeout`): dask's
``distributed.comm.timeouts.connect``, 30 s unless set (e.g.
``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=10s``), so that one value governs dask's
own connection attempts and the command's waits.
"""

import re
from dataclasses import dataclass

from ..errors import ConfigError, quote
from .workers import PROCESSES_PER_CORE, max_processes, usable_cores

LOCAL = "local:"
TIMEOUT_SETTING = "distributed.comm.timeouts.connect"
_PORT = r"([0-9]{1,5})"
_HOST = r"([A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\])"
_REMOTE = re.compile(rf"(?:(tcp|tls)://)?{_HOST}:{_PORT}", re.ASCII)
_NO_PORT = re.compile(rf"(?:(tcp|tls)://)?{_HOST}:?", re.ASCII)
_WHOLE = re.compile(r"[0-9]{1,6}", re.ASCII)


@dataclass(frozen=True)
class SchedulerAddress:
    """Where the units run: ``workers`` local processes (``local:N``) or the
    scheduler at ``url`` (``tcp://HOST:PORT``)."""

    workers: int = 0
    url: str = ""

    @property
    def local(self):
        return self.workers > 0


def scheduler_address(text):
    """``--scheduler TEXT`` read: ``local:N`` with N an ASCII whole number from 1 to
    :func:`.workers.max_processes`, or ``[tcp://|tls://]HOST:PORT``.

    Raises :class:`~fdlsr.errors.ConfigError` (one line) for anything else.
    """
    if not isinstance(text, str):
        raise ConfigError(
            f"--scheduler must be an address (tcp://HOST:PORT) or local:N, got {quote(text)}"
        )
    if text.startswith(LOCAL):
        n = text[len(LOCAL) :]
        limit = max_processes()
        if not _WHOLE.fullmatch(n) or not 1 <= int(n) <= limit:
            raise ConfigError(
                f"--scheduler {quote(text)}: N of local:N is the number of worker "
                f"processes, a whole number from 1 to {limit} ({PROCESSES_PER_CORE} "
                f"for each of the {usable_cores()} cores this process may use) in "
                "digits 0-9, e.g. --scheduler local:2"
            )
        return SchedulerAddress(workers=int(n))
    found = _REMOTE.fullmatch(text)
    if found is None:
        if _NO_PORT.fullmatch(text):
            raise ConfigError(
                f"--scheduler {quote(text)} has no port: give the dask scheduler's "
                "port too, e.g. tcp://HOST:8786 (dask scheduler prints its address)"
            )
        raise ConfigError(
            f"--scheduler {quote(text)} is not a scheduler's address: give "
            "tcp://HOST:PORT of a running dask scheduler (e.g. tcp://10.0.0.5:8786) "
            "or local:N for N worker processes on this machine"
        )
    scheme, host, port = found.groups()
    labels = [] if host.startswith("[") else host.split(".")
    if len(host) > 253 or any(not 1 <= len(label) <= 63 for label in labels):
        raise ConfigError(
            f"--scheduler {quote(text)}: the host is not a name (parts of 1 to 63 "
            "characters between dots, 253 in all) nor an address"
        )
    if not 1 <= int(port) <= 65535:
        raise ConfigError(
            f"--scheduler {quote(text)}: the port must be a number from 1 to 65535"
        )
    return SchedulerAddress(url=f"{scheme or 'tcp'}://{host}:{int(port)}")


def scheduler_timeout():
    """Seconds of each wait on a scheduler: dask's ``distributed.comm.timeouts.connect``."""
    import dask
    from dask.utils import parse_timedelta

    try:
        seconds = parse_timedelta(dask.config.get(TIMEOUT_SETTING), default="s")
    except (TypeError, ValueError, KeyError):
        seconds = None
    if seconds is None or not 0 < seconds < float("inf"):
        raise ConfigError(
            f"dask's setting {TIMEOUT_SETTING} must be a time such as 30s, got "
            f"{quote(dask.config.get(TIMEOUT_SETTING, None))}"
        )
    return float(seconds)


def check_tls(address):
    """A ``tls://`` address needs dask's TLS settings (``distributed.comm.tls``)."""
    from distributed.security import Security

    arguments = Security().get_connection_args("client")
    if arguments.get("ssl_context") is None:
        raise ConfigError(
            f"--scheduler {quote(address)}: a tls:// address needs dask's TLS "
            "settings (distributed.comm.tls.ca-file, .client.cert, .client.key); "
            "set them, or give the scheduler's tcp:// address"
        )
