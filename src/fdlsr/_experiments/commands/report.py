"""``fdlsr report``: tables rendered from results stores (Markdown, LaTeX, CSV, or
a self-contained HTML page with the figures)."""

import dataclasses
from dataclasses import dataclass

from ...errors import ConfigError
from ..notes import commands_note, table_notes
from ..outputs import check_output
from ..report import csv_rows, csv_text, render, summarise, tables_papers
from ..result_tables import store_tables
from .shared import command_line, emit, say


@dataclass(frozen=True)
class ReportRequest:
    """What ``fdlsr report`` is asked for: the ``stores`` to render, the ``format``
    (md, latex, csv, html), the paper's table (``--paper [TABLE]``), the file to
    write (None: stdout), whether it may replace a file that fdlsr did not
    write (``--force``) and the command line, named in the notes."""

    stores: tuple
    format: str = "md"
    paper: str | None = None
    output: str | None = None
    command: str | None = None
    force: bool = False
    stats: bool = False
    reference: str = "FDLSR"


def main(args):
    """``fdlsr report``: one table per data set of each store."""
    if args.reference is not None and not args.stats:  # an option that does not apply
        raise ConfigError(
            "--reference names the method --stats compares the others with; add "
            "--stats, or drop --reference"
        )
    request = ReportRequest(
        stores=tuple(args.results),
        format=args.format,
        paper=args.paper,
        output=args.output,
        command=command_line(args),
        force=args.force,
        stats=args.stats,
        reference="FDLSR" if args.reference is None else args.reference,
    )
    if request.stats:
        return statistics(request)
    report(request)
    return 0


def report(request):
    """Render the tables of ``request``'s stores and write them out."""
    if request.output:  # never over a store's files, into a store, or a user's file
        check_output(
            request.output,
            inputs=request.stores,
            force=request.force,
        )
    notices, tables = [], []
    for folder in request.stores:
        found, said = store_tables(folder)
        if len(request.stores) > 1:  # the same data set may be in several stores
            found = [
                dataclasses.replace(table, title=f"{table.title} ({folder})")
                for table in found
            ]
        tables += found
        notices += said
    papers = tables_papers(request.paper, tables)
    for table, (paper, forced) in zip(tables, papers, strict=True):
        if not forced and request.paper and paper is None:
            notices.append(
                f"--paper: the store records no table of the paper for "
                f"{table.dataset}; name one with --paper TABLE to show it"
            )
    if request.format == "html":
        from ..html_report import html_report  # matplotlib: only for its figures

        text = html_report(tables, papers, request.command)
    elif request.format == "csv":  # one table: a column says which table a row is of
        rows = []
        for table, (paper, _) in zip(tables, papers, strict=True):
            rows += csv_rows(summarise(table.frame), paper, table=table.title)
        text = csv_text(rows)
    else:
        outputs = []
        for table, (paper, forced) in zip(tables, papers, strict=True):
            notes = table_notes(table.frame, table.info)
            notes += [forced] if forced else []
            outputs.append(
                render(
                    summarise(table.frame),
                    request.format,
                    paper=paper,
                    title=table.title,
                    notes=notes,
                    sources=commands_note(table.info, request.command),
                )
            )
        text = "\n".join(outputs)
    for notice in notices:  # after every check: an error stays one line
        say(notice)
    emit(text, request.output, "the report")


def statistics(request):
    """``fdlsr report --stats``: the paired statistics of ``request``'s stores."""
    from ..paired_stats import statistics_of_stores  # pandas: only for --stats

    if request.format not in ("md", "csv"):
        raise ConfigError(
            f"--stats writes Markdown or CSV, not {request.format}: give --format md "
            "or --format csv (the HTML report has the statistics in it)"
        )
    if request.output:
        check_output(request.output, inputs=request.stores, force=request.force)
    text, notices = statistics_of_stores(
        request.stores, request.reference, request.format
    )
    for notice in notices:
        say(notice)
    emit(text, request.output, "the statistics")
    return 0
