"""The results store: one JSON line per finished run, with its side files beside it.

A results directory holds

* ``fdlsr-store.json``: the mark that makes the folder a results store (see
  :func:`check_store`), written when the store is made and never changed;
* ``results.jsonl``: one row per method x dataset x k x split x setting, appended and
  flushed to disk (``fsync``) as each run finishes;
* ``environment.json``: one entry per session that wrote rows (package versions, BLAS
  and its threads, CPU, Python, platform, date, command line); each row names its
  session;
* ``experiment.json``: what the reports need besides the rows (title, notes, the
  commands that wrote the store).

A folder is a store only if its mark says so: every command that reads or writes a
store goes through :func:`check_store`, which refuses any other folder (the user's
own, which may hold files of these names) in one line, before anything is written.

Why JSON Lines rather than CSV: a row carries nested data (the chosen parameters, the
warnings raised) without an escaping scheme or a fixed set of columns, each line stands
alone, and a line cut short by ``kill -9`` is recognisable (the last line, not valid
JSON) and dropped on the next start. That row was not finished, so it is computed again;
nothing finished is lost or computed twice. Reader and writer share that rule
(:func:`~fdlsr._experiments.rows.whole_lines`).

Rows are read through one schema (``fdlsr._experiments.rows``): a line that fails it is
skipped and counted. A store never holds two data sets under one name
(:meth:`ResultStore.stored_runs` refuses the second), and side files are replaced whole
(a temporary file renamed over the old one).
"""

import contextlib
import json
import os
import re
from pathlib import Path

from .._common import strict_json
from .._common.strict_json import JSONError
from ..errors import ConfigError
from .environment import environment, now
from .outputs import write_atomic
from .rows import RESULTS, n_rows, read_lines, row_key, whole_lines
from .store_folder import (
    ENVIRONMENT,
    INFO,
    UNREADABLE,
    check_store,
    lock_store,
    make_store,
)


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool)


# -- side files ---------------------------------------------------------------------


def _optional_text(value):
    return value is None or isinstance(value, str)


def _texts(value):
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


# What experiment.json says of the table of one data set (``tables[name]``):
# ``configured`` lists, per method, the settings run as the config gives them (no
# --params, --raw or --cv), the rows that the config's note speaks of.
TABLE_FIELDS = {
    "title": _optional_text,
    "paper_table": _optional_text,
    "note": _optional_text,
    "source": _optional_text,
    "commands": _texts,
    "methods": _texts,
    "configured": lambda value: (
        isinstance(value, dict) and all(_texts(v) for v in value.values())
    ),
}
INFO_FIELDS = {
    "tables": lambda value: isinstance(value, dict),
    "commands": _texts,
}


def _read_json(path):
    """The JSON object in ``path``, or ``(None, why not)``."""
    try:
        # NaN and infinities allowed: the run's parameters are written as given
        value = strict_json.loads(path.read_bytes(), allow_nan=True)
    except OSError as error:
        return None, f"cannot be read ({error.strerror})"
    except JSONError as error:
        return None, f"is empty or not valid JSON ({error})"
    if not isinstance(value, dict):
        return None, "is not a JSON object"
    return value, None


def read_info(directory):
    """``(info, notice)``: the store's ``experiment.json`` with its fields checked.

    A file that cannot be read gives ``{}``; a field of the wrong type is left out; the
    notice (one line, or None) says which.
    """
    path = Path(directory) / INFO
    if not path.exists():
        return {}, None
    info, problem = _read_json(path)
    if info is None:
        return {}, (
            f"{path} {problem}: ignored (a run keeps it as {INFO}{UNREADABLE} and "
            "writes a new one)"
        )
    wrong = _drop_wrong(info, INFO_FIELDS)
    for name, table in list(info.get("tables", {}).items()):
        if not isinstance(table, dict):
            del info["tables"][name]
            wrong.append(f"tables.{name}")
        else:
            wrong += [
                f"tables.{name}.{key}" for key in _drop_wrong(table, TABLE_FIELDS)
            ]
    if not wrong:
        return info, None
    names = ", ".join(f"'{name}'" for name in wrong)
    return info, f"{path}: ignored {names} (of the wrong type)"


def read_environment(directory):
    """``(sessions, notice)``: the sessions of a store's ``environment.json`` (a list
    of dicts, one per process that wrote rows: see :func:`environment`), or ``[]``
    with a notice (one line) when the file cannot be read; entries that are not
    objects are left out."""
    path = Path(directory) / ENVIRONMENT
    if not path.exists():
        return [], None
    stored, problem = _read_json(path)
    if stored is not None and not isinstance(stored.get("sessions"), list):
        stored, problem = None, "has no list of sessions"
    if stored is None:
        return [], f"{path} {problem}: the environment of its runs is not shown"
    return [s for s in stored["sessions"] if isinstance(s, dict)], None


def _drop_wrong(values, fields):
    """Delete the entries of ``values`` that fail their check in ``fields``; their names."""
    wrong = [
        name for name, ok in fields.items() if name in values and not ok(values[name])
    ]
    for name in wrong:
        del values[name]
    return wrong


def write_info(directory, info):
    write_atomic(Path(directory) / INFO, json.dumps(info, indent=1) + "\n")


def table_info(info, dataset):
    """What a store's ``experiment.json`` (``info``) says of the table of the data
    set named ``dataset``: the fields of :data:`TABLE_FIELDS` that are known."""
    return dict(info.get("tables", {}).get(dataset, {}))


def record_run(info, dataset, command, *, settings, configured, **config):
    """``info`` (a store's experiment.json) with a run on ``dataset`` added.

    ``settings`` maps each method the run asked for to the settings of its runs;
    ``configured`` names the methods whose settings are the config's own (not changed
    by --params, --raw or --cv). ``config`` holds the title, paper_table, note and
    source of the run's config: an empty value leaves the one recorded. Fields fdlsr
    does not write are kept as they are.
    """
    tables = dict(info.get("tables") or {})
    table = dict(tables.get(dataset, {}))
    table.update({key: value for key, value in config.items() if value})
    table.setdefault("title", dataset)
    table["commands"] = _added(table.get("commands", []), [command])
    table["methods"] = _added(table.get("methods", []), list(settings))
    known = dict(table.get("configured", {}))
    for method in configured:
        known[method] = _added(known.get(method, []), settings[method])
    table["configured"] = known
    tables[dataset] = table
    commands = info.get("commands") or []
    others = {key: value for key, value in info.items() if key not in INFO_FIELDS}
    return {**others, "commands": _added(commands, [command]), "tables": tables}


def _added(old, new):
    """``old`` followed by what of ``new`` it does not hold, in order."""
    out = list(old)
    out += [item for item in dict.fromkeys(new) if item not in out]
    return out


# -- the store ----------------------------------------------------------------------


class ResultStore:
    """Append-only results of one experiment folder; safe to interrupt at any point.

    Opening the store checks the folder (:func:`check_store`: a missing or empty one
    is made a new store, one that is not a store is refused before anything is
    written in it) and takes an exclusive lock on it (released when the process ends,
    even by ``kill -9``), so two runs cannot interleave rows in one file.
    ``notices`` collects one line per problem found in the store (skipped lines, rows
    without a fingerprint, a side file that could not be read).
    """

    def __init__(self, directory):
        self.directory, new = check_store(directory, writing=True)
        if new:
            make_store(self.directory)
        self.path = self.directory / RESULTS
        self._lock = lock_store(self.directory)
        try:
            _remove_temporaries(self.directory)
            data = self._end_last_line()
        except BaseException:
            self._lock.release()
            raise
        contents = read_lines(data, self.path) if data is not None else None
        self.rows = contents.rows if contents else []
        self.notices = contents.notices() if contents else []
        self.session = None
        self._keys = {row_key(row) for row in self.rows}

    def _end_last_line(self):
        """End the last line of ``results.jsonl`` before rows are appended after it:
        a whole row without its newline gets one, a row cut short by an interruption
        is dropped (:func:`~fdlsr._experiments.rows.whole_lines`, the reader's rule).
        The file's bytes then, or None when there is no file."""
        if not self.path.exists():
            return None
        try:
            with open(self.path, "rb+") as handle:
                data = handle.read()
                _, torn = whole_lines(data)
                if torn:
                    data = data[: len(data) - len(torn)]
                    handle.truncate(len(data))
                elif data and not data.endswith(b"\n"):
                    handle.write(b"\n")
                    data += b"\n"
                else:
                    return data
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as error:
            raise ConfigError(
                f"cannot write to {self.path}: {error.strerror}; "
                "choose another folder with --out DIR"
            ) from None
        return data

    def stored_runs(self, name, data, fingerprints, facts):
        """Which of the runs ``fingerprints`` (``{row_key: fingerprint}``) are stored.

        ``name`` and ``data`` are the dataset's name and ``data_sha256``; ``facts``
        its ``n_samples``, ``n_features`` and ``n_classes``. A run is stored when a row
        of its name has its fingerprint, or has none (a row from before fingerprints)
        and nothing in it contradicts ``facts``.

        Raises :class:`ConfigError` when the store holds rows of other data under
        ``name``, or one of these runs computed differently: its rows are never mixed
        with these.
        """
        same_name = [row for row in self.rows if row["dataset"] == name]
        other = [r for r in same_name if r.get("data_sha256", data) != data]
        if other:
            theirs = other[0]["data_sha256"][:12]
            raise ConfigError(
                f"{self.directory} holds {n_rows(len(other))} of other data named "
                f"{name!r} (arrays with sha256 {theirs}..., these "
                f"have {data[:12]}...: another file of that name, another --x/--y, or "
                "the file changed since); give this run its own folder with --out DIR"
            )
        for row in same_name:
            if "data_sha256" not in row:
                clash = _contradiction(row, facts)
                if clash:
                    raise ConfigError(
                        f"{self.directory} holds rows of other data named {name!r} "
                        f"(a row written before fingerprints has {clash}); give this "
                        "run its own folder with --out DIR"
                    )
        stored = {row_key(row): row for row in same_name}
        done, differ = set(), []
        for key, fingerprint in fingerprints.items():
            row = stored.get(key)
            if row is None:
                continue
            if row.get("fingerprint", fingerprint) != fingerprint:
                differ.append(row)
            else:
                done.add(key)
        if differ:
            row = differ[0]
            raise ConfigError(
                f"{self.directory} holds {n_rows(len(differ))} of these runs computed "
                f"differently (e.g. {row['method']} k={row['k']} split {row['split']}: "
                "same data and setting, other parameters or preprocessing, as after an "
                "upgrade that changed a default); give this run its own folder with "
                "--out DIR"
            )
        return done

    def start_session(self, command=None, blas_threads=None):
        """Record the environment of this process; later rows point to it.

        ``blas_threads``: the BLAS threads each run computes with (``--jobs`` shares
        the cores out among worker processes), recorded as ``blas_threads_per_run``.

        An ``environment.json`` that cannot be read is kept as
        ``environment.json.unreadable`` (``.unreadable.2``, ... if taken; with a
        notice) and a new one is started; session numbers continue after those the
        rows name.
        """
        env = environment(command)
        if blas_threads is not None:
            env["blas_threads_per_run"] = blas_threads
        path = self.directory / ENVIRONMENT
        sessions = []
        if path.exists():
            stored, problem = _read_json(path)
            if stored is not None and not isinstance(stored.get("sessions"), list):
                stored, problem = None, "has no list of sessions"
            if stored is None:
                kept = _keep_aside(path)
                self.notices.append(
                    f"{path} {problem}: kept as {kept}, a new one started"
                )
            else:
                sessions = stored["sessions"]
        used = [s.get("session") for s in sessions if isinstance(s, dict)]
        used += [row.get("session") for row in self.rows]
        env["session"] = 1 + max(
            [len(sessions) - 1, *(n for n in used if _whole(n))], default=-1
        )
        sessions.append(env)
        write_atomic(path, json.dumps({"sessions": sessions}, indent=1) + "\n")
        self.session = env["session"]
        return env

    def read_info(self):
        """The store's ``experiment.json`` with its fields checked (:func:`read_info`),
        for a run that rewrites it: one that cannot be read is first kept as
        ``experiment.json.unreadable`` (with a notice), never lost."""
        path = self.directory / INFO
        if path.exists():
            stored, problem = _read_json(path)
            if stored is None:
                kept = _keep_aside(path)
                self.notices.append(
                    f"{path} {problem}: kept as {kept}, a new one started"
                )
        info, problem = read_info(self.directory)
        if problem:
            self.notices.append(problem)
        return info

    def append(self, row):
        """Write one finished row and force it to disk before returning.

        A run's key is written once: a row whose key (:func:`.rows.row_key`) the
        store already holds is refused, whatever asked for it, before anything is
        written. A write that fails partway (a full disk, an interrupt) is undone: the
        file ends with a whole line, and the next row never follows a torn one.
        """
        key = row_key(row)
        if key in self._keys:
            raise ConfigError(
                f"{self.path} already holds the run {key.method} k={key.k} split "
                f"{key.split} (seed {key.seed}) of {key.dataset!r}, with this setting; "
                "a run is stored once (a request names each method and each k "
                "once): give this run its own folder with --out DIR"
            )
        if self.session is None:
            self.start_session()
        row = {**row, "session": self.session, "finished": now()}
        line = (json.dumps(row, default=str) + "\n").encode()
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
        fd = os.open(self.path, flags, 0o644)
        try:
            size = os.fstat(fd).st_size
            try:
                written = 0
                while written < len(line):
                    written += os.write(fd, line[written:])
                os.fsync(fd)
            except BaseException:
                # a row cut short is undone; a whole one (the interrupt came after
                # the write) is kept
                with contextlib.suppress(OSError):
                    if os.fstat(fd).st_size != size + len(line):
                        os.ftruncate(fd, size)
                raise
        finally:
            os.close(fd)
        self.rows.append(row)
        self._keys.add(key)

    def close(self):
        self._lock.release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _remove_temporaries(folder):
    """Remove what a kill left of a side file being replaced (``write_atomic``'s
    temporary ``.experiment.XXXXXXXX.tmp.json``): while the store is locked, no
    writer is using one."""
    for name in (ENVIRONMENT, INFO):
        stem, suffix = os.path.splitext(name)
        left = re.compile(
            rf"\.{re.escape(stem)}\.[a-z0-9_]{{8}}\.tmp{re.escape(suffix)}"
        )
        for entry in os.listdir(folder):
            path = folder / entry
            if left.fullmatch(entry) and path.is_file() and not path.is_symlink():
                with contextlib.suppress(OSError):
                    path.unlink()


def _keep_aside(path):
    """Rename the unreadable side file ``path`` to ``NAME.unreadable`` (or
    ``.unreadable.2``, ...: an earlier one is never replaced); the name it got."""
    target = path.with_name(path.name + UNREADABLE)
    number = 1
    while os.path.lexists(target):
        number += 1
        target = path.with_name(f"{path.name}{UNREADABLE}.{number}")
    os.replace(path, target)
    return target.name


def _contradiction(row, facts):
    """What in a row without fingerprint shows other data than ``facts``, or ``""``."""
    for name in ("n_features", "n_classes"):
        if name in row and row[name] != facts[name]:
            return f"{name}={row[name]} where these data have {facts[name]}"
    if row["k"] != "fixed" and "n_train" in row and "n_test" in row:
        n = row["n_train"] + row["n_test"]
        if n != facts["n_samples"]:
            return f"{n} samples where these data have {facts['n_samples']}"
    return ""
