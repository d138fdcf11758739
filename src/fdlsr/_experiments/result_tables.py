"""The tables of results stores: one per data set, with what the store says of it.

A store may hold rows of several data sets, and two data sets of one name (other
arrays: another file named alike); each gets a table of its own, titled by the
store's ``experiment.json`` (:func:`.store.table_info`). ``fdlsr report`` renders
the tables of each store; ``fdlsr plot results`` pools several stores first
(:func:`pooled_tables`), so that methods run into different folders are compared.
"""

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError
from .rows import by_data, n_rows, row_key
from .store import read_info, table_info
from .store_folder import read_store


@dataclass
class ResultTable:
    """The rows of one data set (one ``data_sha256``) and what the store says of it.

    ``info`` is the store's record of the data set (:func:`.store.table_info`);
    ``stores`` the folders its rows were read from.
    """

    dataset: str
    data_sha256: str | None
    title: str
    rows: list
    info: dict
    stores: list = field(default_factory=list)


def store_tables(folder):
    """``(tables, notices)``: the :class:`ResultTable` of each data set of the store
    ``folder``, in the order of their names, and one line per thing a reader should
    know about the store (skipped lines, a side file ignored).

    Raises :class:`~fdlsr.errors.ConfigError` when the store has no result rows.
    """
    store = read_store(folder)
    if not store.rows:
        skipped = store.skipped_text()
        raise ConfigError(
            f"{store.path} has no result rows"
            + (f": {skipped}" if skipped else "")
            + "; run an experiment into it with fdlsr run --out "
            + str(store.path.parent)
        )
    folder = store.path.parent
    info, problem = read_info(folder)
    notices = [*store.notices(), *([problem] if problem else [])]
    origin = {id(row): folder for row in store.rows}
    return _tables(by_data(store.rows), [(folder, info)], origin, notices, store.path)


@dataclass
class PooledRows:
    """The rows of several stores, each run once (:func:`pooled_rows`): ``rows`` in
    the stores' order, ``origin`` the folder of each (by ``id``), ``infos`` each
    folder's ``experiment.json`` and ``notices`` what a reader should know."""

    rows: list
    origin: dict
    infos: list
    notices: list


def pooled_rows(folders):
    """The rows of the stores ``folders`` pooled: a run found in more than one store
    (same name and data) is taken from the first, and a notice says how many were
    left out of each later one (a :class:`PooledRows`). ``fdlsr plot results`` and
    :func:`fdlsr.results.read_results` read several stores through it."""
    rows, seen, infos, notices, origin = [], set(), [], [], {}
    for folder in folders:
        store = read_store(folder)
        info, problem = read_info(store.path.parent)
        infos.append((store.path.parent, info))
        notices += [*store.notices(), *([problem] if problem else [])]
        repeats = 0
        for row in store.rows:
            key = (row_key(row), row.get("data_sha256"))
            if key in seen:
                repeats += 1
                continue
            seen.add(key)
            rows.append(row)
            origin[id(row)] = store.path.parent
        if repeats:
            notices.append(
                f"{store.path}: {n_rows(repeats)} repeat runs of a store named before "
                "it: the first store's are used"
            )
    return PooledRows(rows, origin, infos, notices)


def pooled_tables(folders):
    """``(tables, notices)`` of the rows of several stores pooled
    (:func:`pooled_rows`), one table per data set."""
    pooled = pooled_rows(folders)
    if not pooled.rows:
        raise ConfigError(
            "no result rows in "
            + ", ".join(str(folder) for folder in folders)
            + "; give folders that `fdlsr run --out` wrote"
        )
    return _tables(by_data(pooled.rows), pooled.infos, pooled.origin, pooled.notices)


def _tables(groups, infos, origin, notices, where=None):
    """The tables of ``groups`` (from :func:`.rows.by_data`), titled by the first
    store that describes each data set; ``origin`` maps each row (by ``id``) to its
    store, ``where`` names the one store they all come from in a notice."""
    names = [name for name, _ in groups]
    prefix = f"{where}: " if where else ""
    notices = list(notices) + [
        f"{prefix}{names.count(name)} different data sets are named {name!r}: each "
        "in its own table"
        for name in sorted(set(names))
        if names.count(name) > 1
    ]
    tables = []
    for (dataset, data), rows in sorted(
        groups.items(), key=lambda item: (item[0][0], item[0][1] or "")
    ):
        theirs = {Path(origin[id(row)]) for row in rows}
        described = [
            table_info(info, dataset)
            for folder, info in infos
            if Path(folder) in theirs and table_info(info, dataset)
        ]
        info = described[0] if described else {}
        title = info.get("title") or dataset
        if names.count(dataset) > 1:
            title = f"{title} (data sha256 " + (
                f"{data[:12]}...)" if data else "not recorded)"
            )
        folders = list(dict.fromkeys(Path(origin[id(row)]) for row in rows))
        tables.append(ResultTable(dataset, data, title, rows, info, folders))
    return tables, notices
