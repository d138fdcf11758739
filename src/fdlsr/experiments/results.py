"""The results store: one JSON line per finished run, with the environment beside it.

A results directory holds

* ``results.jsonl``: one row per method x dataset x k x split x setting, appended and
  flushed to disk (``fsync``) as each run finishes;
* ``environment.json``: one entry per session that wrote rows (package versions, BLAS
  and its threads, CPU, Python, platform, date, command line); each row names its
  session.

Why JSON Lines rather than CSV: a row carries nested data (the chosen parameters, the
warnings raised) without an escaping scheme or a fixed set of columns, each line stands
alone, and a line cut short by ``kill -9`` is recognisable (no final newline, not valid
JSON) and dropped on the next start. That row was not finished, so it is computed again;
nothing finished is lost or computed twice.
"""

import datetime
import fcntl
import json
import os
import platform
import sys
from pathlib import Path

from ..errors import ConfigError

RESULTS = "results.jsonl"
ENVIRONMENT = "environment.json"
KEY_FIELDS = ("dataset", "method", "k", "split", "seed", "setting")


def row_key(row):
    """The identity of a row: what was run, not what it gave."""
    return tuple(row[name] for name in KEY_FIELDS)


def read_rows(path):
    """Rows of a ``results.jsonl`` file, skipping a torn last line."""
    given = Path(path)
    path = given / RESULTS if given.is_dir() else given
    if not path.is_file():
        folder = given if given.is_dir() or given.name != RESULTS else given.parent
        raise ConfigError(
            f"no results in {folder}: run an experiment first (fdlsr run --out "
            f"{folder}) or point at the folder that has {RESULTS}"
        )
    rows = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.endswith("\n"):
                break  # cut short by an interruption: never finished
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return rows


class ResultStore:
    """Append-only results of one experiment folder; safe to interrupt at any point.

    Opening the store takes an exclusive lock on the folder (released when the process
    ends, even by ``kill -9``), so two runs cannot interleave rows in one file.
    """

    def __init__(self, directory):
        self.directory = Path(directory)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ConfigError(
                f"cannot create the results folder {self.directory}: "
                f"{error.strerror}; choose another with --out DIR"
            ) from None
        self.path = self.directory / RESULTS
        self._lock = open(self.directory / ".lock", "w")  # noqa: SIM115 (held open)
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            raise ConfigError(
                f"another fdlsr run is writing to {self.directory}; wait for it or "
                "choose another folder with --out DIR"
            ) from None
        self._drop_torn_line()
        self.rows = read_rows(self.path) if self.path.exists() else []
        self.session = None

    def _drop_torn_line(self):
        """Truncate a last line without its newline (a write cut by a kill)."""
        if not self.path.exists():
            return
        with open(self.path, "rb+") as handle:
            data = handle.read()
            if data and not data.endswith(b"\n"):
                handle.truncate(data.rfind(b"\n") + 1)

    def done_keys(self):
        return {row_key(row) for row in self.rows}

    def start_session(self, command=None):
        """Record the environment of this process; later rows point to it."""
        env = environment(command)
        path = self.directory / ENVIRONMENT
        sessions = json.loads(path.read_text())["sessions"] if path.exists() else []
        env["session"] = len(sessions)
        sessions.append(env)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"sessions": sessions}, indent=1) + "\n")
        os.replace(tmp, path)
        self.session = env["session"]
        return env

    def append(self, row):
        """Write one finished row and force it to disk before returning."""
        if self.session is None:
            self.start_session()
        row = {**row, "session": self.session, "finished": _now()}
        line = (json.dumps(row, default=str) + "\n").encode()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)
        self.rows.append(row)

    def close(self):
        self._lock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment(command=None):
    """Versions, BLAS, threads, CPU and platform of this process, as a dict."""
    from importlib.metadata import PackageNotFoundError, version

    from threadpoolctl import threadpool_info

    packages = {}
    for name in (
        "fdlsr",
        "numpy",
        "scipy",
        "scikit-learn",
        "threadpoolctl",
        "matplotlib",
    ):
        try:
            packages[name] = version(name)
        except PackageNotFoundError:
            packages[name] = None
    blas = [
        {
            key: info.get(key)
            for key in (
                "user_api",
                "internal_api",
                "version",
                "num_threads",
                "architecture",
                "filepath",
            )
        }
        for info in threadpool_info()
    ]
    threads = {
        name: os.environ[name]
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
        if name in os.environ
    }
    try:
        load = list(os.getloadavg())  # other jobs on a shared machine skew the timings
    except OSError:
        load = None
    return {
        "date": _now(),
        "load_average": load,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "packages": packages,
        "threadpools": blas,
        "thread_variables": threads,
        "command": command if command is not None else sys.argv,
    }
