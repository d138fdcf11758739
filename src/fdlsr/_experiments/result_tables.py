"""The tables of results stores: one frame per data set, with what the store says
of it.

Reading -> frame -> views: the rows of a store are read and made a frame by
:mod:`.results_frame`; here the frame is cut into one table per data set, the unit
every view renders. A store may hold rows of several data sets, and two data sets of
one name (other arrays: another file named alike); each gets a table of its own,
titled by the store's ``experiment.json`` (:func:`.store.table_info`). ``fdlsr
report`` renders the tables of each store; ``fdlsr plot results`` pools several
stores first (:func:`pooled_tables`), so that methods run into different folders are
compared.
"""

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError
from .results_frame import frame_of, pooled_rows
from .rows import by_data
from .store import read_info, table_info
from .store_folder import read_store


@dataclass
class ResultTable:
    """The runs of one data set (one ``data_sha256``) and what the store says of it.

    ``frame``: its runs (:func:`.results_frame.frame_of`), what every view of the
    table is computed from; ``info``: the store's record of the data set
    (:func:`.store.table_info`); ``stores``: the folders its rows were read from.
    """

    dataset: str
    data_sha256: str | None
    title: str
    frame: object
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


def pooled_tables(folders):
    """``(tables, notices)`` of the rows of several stores pooled
    (:func:`.results_frame.pooled_rows`), one table per data set."""
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
        frame = frame_of(rows, origin)
        tables.append(ResultTable(dataset, data, title, frame, info, folders))
    return tables, notices
