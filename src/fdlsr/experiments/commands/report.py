"""``fdlsr report``: tables rendered from results stores (Markdown, LaTeX, CSV, or
a self-contained HTML page with the figures)."""

import sys

from ..notes import commands_note, table_notes
from ..outputs import check_output
from ..report import render, summarise
from ..result_tables import store_tables
from .shared import command_line, emit, tables_papers


def main(args):
    """``fdlsr report``: one table per data set of each store."""
    if args.output:  # never over a store's files nor into a store
        check_output(args.output, inputs=args.results)
    notices, tables = [], []
    for folder in args.results:
        found, said = store_tables(folder)
        tables += found
        notices += said
    command = command_line(args)
    papers = tables_papers(args.paper, tables)
    for table, (paper, forced) in zip(tables, papers, strict=True):
        if not forced and args.paper and paper is None:
            notices.append(
                f"--paper: the store records no table of the paper for "
                f"{table.dataset}; name one with --paper TABLE to show it"
            )
    if args.format == "html":
        from ..html_report import html_report  # matplotlib: only for its figures

        text = html_report(tables, papers, command)
    else:
        outputs = []
        for table, (paper, forced) in zip(tables, papers, strict=True):
            notes = table_notes(table.rows, table.info)
            notes += [forced] if forced else []
            outputs.append(
                render(
                    summarise(table.rows),
                    args.format,
                    paper=paper,
                    title=table.title,
                    notes=notes,
                    sources=commands_note(table.info, command),
                )
            )
        text = "\n".join(outputs)
    for notice in notices:  # after every check: an error stays one line
        print(f"fdlsr: {notice}", file=sys.stderr)
    emit(text, args.output, "the report")
    return 0
