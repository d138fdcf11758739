"""The addresses of ``fdlsr run --scheduler``: ``local:N`` (N worker processes on this
machine) or a running dask scheduler's ``[tcp://|tls://]HOST:PORT``, read strictly.

N is written in the digits 0-9 only (not '٣', '+2', '2_0', ' 2'), from 1 to
:func:`.workers.max_processes`; HOST is a name (parts of 1 to 63 letters, digits,
'-' or '_' between dots, the last not all digits), an IPv4 address (four numbers from
0 to 255) or a bracketed IPv6 address, PORT a number from 1 to 65535; the scheme is
written in lower case. Anything else is refused in one line that says what to give,
before any connection is tried.

Each wait on a scheduler has a deadline (:func:`scheduler_timeout`): dask's
``distributed.comm.timeouts.connect``, 30 s unless set (e.g.
``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=10s``), so that one value governs dask's
own connection attempts and the command's waits.

What answers at a ``tcp://`` address is asked before dask connects
(:func:`check_answers`): a name that is not known, a port where nothing listens, a
server that sends other bytes, or an HTTP server are each one line at once, not a
wait for the deadline.
"""

import asyncio
import contextlib
import ipaddress
import re
import socket
import struct
from dataclasses import dataclass

from .._common.messages import one_line, quote
from ..errors import ConfigError
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
    scheme = re.match(r"(local:|tcp://|tls://)", text, re.IGNORECASE | re.ASCII)
    if scheme and scheme.group() != scheme.group().lower():
        lower = scheme.group().lower() + text[scheme.end() :]
        raise ConfigError(
            f"--scheduler {quote(text)}: write {quote(scheme.group())} in lower case, "
            f"e.g. --scheduler {quote(lower)}"
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
    if not _an_ip_address(host):
        raise ConfigError(
            f"--scheduler {quote(text)}: {host} is not an IP address (IPv4: four "
            "numbers from 0 to 255, e.g. 10.0.0.5; IPv6 in brackets, e.g. [::1]) "
            "nor a host name"
        )
    return SchedulerAddress(url=f"{scheme or 'tcp'}://{host}:{int(port)}")


def _an_ip_address(host):
    """False for a host that can only mean an IP address and is not one: in brackets
    (IPv6), or whose last part is all digits (no top-level domain is)."""
    if host.startswith("["):
        literal = host[1:-1]
        cls = ipaddress.IPv6Address
    elif host.rsplit(".", 1)[-1].isdigit():
        literal = host
        cls = ipaddress.IPv4Address
    else:
        return True
    try:
        cls(literal)
    except ValueError:
        return False
    return True


def scheduler_timeout():
    """Seconds of each wait on a scheduler: dask's ``distributed.comm.timeouts.connect``."""
    import dask
    from dask.utils import parse_timedelta

    given = dask.config.get(TIMEOUT_SETTING, None)
    try:
        seconds = parse_timedelta(given, default="s")
    except (TypeError, ValueError, KeyError):
        seconds = None
    negative = isinstance(given, str) and given.strip().startswith("-")
    if (seconds is None or seconds != seconds) and not negative:  # not a time, NaN
        raise ConfigError(
            f"dask's setting {TIMEOUT_SETTING} must be a time such as 30s, got "
            f"{quote(given)}"
        )
    if negative or not 0 < seconds < float("inf"):
        raise ConfigError(
            f"dask's setting {TIMEOUT_SETTING} (the deadline of each wait on the "
            f"scheduler) must be a positive time, e.g. 30s; got {quote(given)}"
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


# A dask server greets each connection at once with its handshake, one message in
# dask's framing: the bytes that follow (8 bytes, little-endian), the number of
# frames, each frame's length, the frames. Larger greetings are not dask's.
_GREETING_BYTES = 1 << 16
# Asked of a server that stays silent for the whole deadline: an HTTP server (a
# dashboard's port) answers it; a dask scheduler would have greeted already.
_HTTP_REQUEST = b"GET / HTTP/1.0\r\n\r\n"
_HTTP_SECONDS = 1.0


def no_scheduler(text, reason, seconds):
    """The line for an address where no dask scheduler answers."""
    return (
        f"no dask scheduler answers at --scheduler {quote(text)} ({reason}; each "
        f"wait is {TIMEOUT_SETTING}, {seconds:g} s); start one (dask scheduler) and "
        "give its address, e.g. tcp://HOST:8786, or use --scheduler local:N"
    )


def not_a_scheduler(text, reason):
    """The line for an address where something else answers."""
    return (
        f"--scheduler {quote(text)}: what answers there is not a dask scheduler "
        f"({reason}); give the address of one, e.g. tcp://HOST:8786"
    )


async def check_answers(text, url, seconds):
    """Return when a dask server greets at the ``tcp://`` address ``url`` within
    ``seconds``; raise :class:`~fdlsr.errors.ConfigError` (one line) naming what is
    there otherwise: a host name not known, nothing listening (refused), a server
    that closes, sends other bytes or is an HTTP server, or silence.

    The greeting is answered with itself (dask's handshake is the same both ways),
    so that the scheduler sees a whole handshake and logs nothing when the
    connection closes. ``text`` is the address as given, for the messages.
    """
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    host = host.strip("[]")
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds

    def left():  # one deadline for the whole exchange
        return max(0.0, end - loop.time())

    try:
        found = await asyncio.wait_for(
            loop.getaddrinfo(host, int(port), type=socket.SOCK_STREAM), left()
        )
    except socket.gaierror as error:
        raise ConfigError(
            f"--scheduler {quote(text)}: the host name {host} is not known here "
            f"({one_line(error.strerror or error, limit=80)}); check the name, or give "
            "the scheduler's IP address (dask scheduler prints its address)"
        ) from None
    except asyncio.TimeoutError:
        raise ConfigError(
            no_scheduler(
                text, f"the name {host} was not resolved within {seconds:g} s", seconds
            )
        ) from None
    family, _, _, _, where = found[0]
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(where[0], int(port), family=family), left()
        )
    except ConnectionRefusedError:
        raise ConfigError(
            f"no dask scheduler at --scheduler {quote(text)}: nothing listens at port "
            f"{port} of {host} (connection refused); start one there (dask scheduler "
            "--port PORT prints its address) and give that, or use --scheduler local:N"
        ) from None
    except asyncio.TimeoutError:
        raise ConfigError(
            no_scheduler(text, f"no reply within {seconds:g} s", seconds)
        ) from None
    except OSError as error:  # unreachable network or host
        reason = one_line(error.strerror or error, limit=80)
        raise ConfigError(no_scheduler(text, reason, seconds)) from None
    try:
        greeting = await _greeting(reader, left)
        writer.write(greeting)
        await asyncio.wait_for(writer.drain(), left())
    except asyncio.TimeoutError:
        raise ConfigError(await _silent(text, reader, writer, seconds)) from None
    except (OSError, asyncio.IncompleteReadError, ValueError) as error:
        raise ConfigError(not_a_scheduler(text, _what_came(error))) from None
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer.wait_closed(), 1.0)


async def _greeting(reader, left):
    """The first message the server sends, in dask's framing, within ``left()``
    seconds (``ValueError`` when the bytes are not dask's)."""
    head = await asyncio.wait_for(reader.readexactly(16), left())
    size, frames = struct.unpack("<QQ", head)
    if not 16 <= size + 8 <= _GREETING_BYTES or not 1 <= frames <= (size - 8) // 8:
        raise ValueError(head)
    rest = await asyncio.wait_for(reader.readexactly(size - 8), left())
    lengths = struct.unpack(f"<{frames}Q", rest[: 8 * frames])
    if 8 + 8 * frames + sum(lengths) != size:
        raise ValueError(head + rest)
    return head + rest


async def _silent(text, reader, writer, seconds):
    """The line for a server silent for ``seconds``: an HTTP server answers a
    request, anything else stays 'no reply'."""
    with contextlib.suppress(Exception):
        writer.write(_HTTP_REQUEST)
        await asyncio.wait_for(writer.drain(), _HTTP_SECONDS)
        answer = await asyncio.wait_for(reader.readline(), _HTTP_SECONDS)
        if answer.startswith(b"HTTP/"):
            status = one_line(answer.decode("latin-1"), limit=60)
            return (
                f"--scheduler {quote(text)}: an HTTP server answers there ({status}), "
                "not a dask scheduler; give the scheduler's own address, e.g. "
                "tcp://HOST:8786 (its dashboard's port, 8787, is not it)"
            )
    return no_scheduler(text, f"no reply within {seconds:g} s", seconds)


def _what_came(error):
    if isinstance(error, asyncio.IncompleteReadError):
        if error.partial.startswith(b"HTTP/"):
            return "an HTTP server"
        if not error.partial:
            return "it closed the connection without a word"
        return f"it sent {error.partial[:24]!r}, then closed the connection"
    if isinstance(error, ValueError):
        sent = error.args[0] if error.args else b""
        return f"it sent {bytes(sent)[:24]!r}, not a dask greeting"
    return one_line(error.strerror or error, limit=80)
