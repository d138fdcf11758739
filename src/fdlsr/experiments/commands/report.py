"""``fdlsr report``: tables rendered from results stores."""

import sys

from ...errors import ConfigError
from ..notes import table_notes
from ..outputs import check_output
from ..report import PAPER_TABLES, render, summarise
from ..store import by_data, read_info, read_store, table_info
from .shared import command_line, emit, paper_rows


def main(args):
    """``fdlsr report``: one table per data set of each store."""
    if args.output:  # never over a store's files nor into a store
        check_output(args.output, inputs=args.results)
    outputs, notices, tables = [], [], []
    for folder in args.results:
        store = read_store(folder)
        if not store.rows:
            skipped = store.skipped_text()
            raise ConfigError(
                f"{store.path} has no result rows"
                + (f": {skipped}" if skipped else "")
                + "; run an experiment into it with fdlsr run --out "
                + str(store.path.parent)
            )
        info, problem = read_info(store.path.parent)
        groups = by_data(store.rows)
        names = [name for name, _ in groups]
        notices += [*store.notices(), *([problem] if problem else [])]
        notices += [
            f"{store.path}: {names.count(name)} different data sets are named "
            f"{name!r}: each in its own table"
            for name in sorted(set(names))
            if names.count(name) > 1
        ]
        for (dataset, data), subset in sorted(
            groups.items(), key=lambda item: (item[0][0], item[0][1] or "")
        ):
            table = table_info(info, dataset)
            title = table.get("title") or dataset
            if names.count(dataset) > 1:
                title = f"{title} (data sha256 " + (
                    f"{data[:12]}...)" if data else "not recorded)"
                )
            tables.append((dataset, title, table, subset))
    command = command_line(args)
    papers = _papers(args.paper, tables)
    for (dataset, title, table, subset), (paper, forced) in zip(
        tables, papers, strict=True
    ):
        notes = table_notes(subset, table, command)
        if forced:
            notes.append(forced)
        elif args.paper and paper is None:
            notices.append(
                f"--paper: the store records no table of the paper for {dataset}; "
                "name one with --paper TABLE to show it"
            )
        outputs.append(
            render(
                summarise(subset), args.format, paper=paper, title=title, notes=notes
            )
        )
    for notice in notices:  # after every check: an error stays one line
        print(f"fdlsr: {notice}", file=sys.stderr)
    emit("\n".join(outputs), args.output, "the report")
    return 0


def _papers(option, tables):
    """The paper's rows for each table, and a note when they are forced on it:
    ``[(rows or None, note or None), ...]``.

    ``--paper`` alone gives each data set the paper's table that its config names
    (an error if none does); ``--paper TABLE`` puts that table under every one, with
    a note where it is not the data set's own.
    """
    if option is None:
        return [(None, None)] * len(tables)
    out = []
    for dataset, _, table, _ in tables:
        own = table.get("paper_table")
        name = own if option == "auto" else option
        if not name:
            out.append((None, None))
            continue
        rows = paper_rows(name, {"dataset": dataset})
        forced = None
        if name != own:
            recorded = f"Table {own}" if own else "no table of the paper"
            forced = (
                f"Rows marked (paper): the paper's Table {name} ({PAPER_TABLES[name]}), "
                f"asked for with --paper {name}; the store records {recorded} for "
                "these data."
            )
        out.append((rows, forced))
    if tables and not any(rows for rows, _ in out):
        paper_rows(option, {"dataset": tables[0][0]})  # raises: no table anywhere
    return out
