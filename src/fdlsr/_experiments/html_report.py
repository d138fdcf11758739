"""The report of results stores as one self-contained HTML page (``fdlsr report
--format html``), every part computed from each table's frame (:mod:`.results_frame`).

Per data set: the table (as the Markdown and LaTeX ones: same cells, bold, marks and
notes), the parameters cross-validation chose, the two comparison figures of
:mod:`.result_plots` (PNG images inside the page, base64), the environment of the
runs (machine, versions, BLAS threads: the store's ``environment.json``) and the
commands that wrote the rows (``experiment.json``).

The page loads nothing: no script, no style sheet, no font, no image from elsewhere
(its Content-Security-Policy forbids it too), so it opens offline and can be mailed.
Every piece of text from a store is escaped (:func:`.escape.html`): a hostile store
cannot add markup or script to the page.
"""

import base64
import io

import matplotlib.pyplot as plt
import numpy as np
import pandas

from .._version import __version__
from .cv_choices import cell_choices, choices_text
from .escape import html, note
from .notes import chosen_parameters_notes, neutral_command, table_notes
from .outputs import REPORT_GENERATOR
from .paired_stats import stores_statistics_html
from .report import (
    FAMILY_TITLES,
    METHOD_HEAD,
    best_cells,
    cell_text,
    summarise,
    table_rows,
    time_cells,
    time_heads,
    tuning_text,
)
from .report import table_notes as summary_notes
from .result_plots import (
    accuracy_by_k_data,
    accuracy_by_time_data,
    draw_accuracy_by_k,
    draw_accuracy_by_time,
)
from .store import read_environment
from .variants import k_order

STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
       margin: 0 auto; max-width: 1180px; padding: 1.5em; color: #1d1d1f; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.3em; margin-top: 2.2em; border-bottom: 2px solid #ddd; }
h3 { font-size: 1.05em; margin-top: 1.6em; }
table { border-collapse: collapse; font-size: 0.86em; margin: 0.6em 0; }
th, td { padding: 0.25em 0.6em; border-bottom: 1px solid #e4e4e4; text-align: right;
         white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
thead th { background: #f3f3f3; position: sticky; top: 0; }
tr.family td { background: #fafafa; font-style: italic; font-weight: 600; }
tr.paper td { color: #666; font-style: italic; }
td.text, table.text th { text-align: left; white-space: normal; }
.notes { font-size: 0.86em; color: #333; max-width: 60em; }
.notes li { margin: 0.3em 0; }
.wide { overflow-x: auto; max-width: 100%; }
figure { margin: 1em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
code { font-size: 0.92em; background: #f4f4f4; padding: 0 0.2em;
       overflow-wrap: anywhere; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.15em 1em;
     font-size: 0.86em; }
dt { font-weight: 600; }
dd { margin: 0; overflow-wrap: anywhere; }
nav li { margin: 0.2em 0; }
.muted { color: #666; font-size: 0.86em; }
"""
# Nothing may be loaded from anywhere: images are inside the page, styles inline.
POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def html_report(tables, papers, command=None):
    """The HTML page of ``tables`` (:class:`.result_tables.ResultTable`, one section
    each) with ``papers`` (``[(paper rows or None, note or None), ...]``, one per
    table, as :func:`.commands.shared.tables_papers` gives them); ``command`` is the
    command rendering it."""
    sections = [
        _section(i, table, paper, forced, command)
        for i, (table, (paper, forced)) in enumerate(zip(tables, papers, strict=True))
    ]
    sections.append(stores_statistics_html([f for t in tables for f in t.stores], _png))
    nav = ""
    if len(tables) > 1:
        nav = (
            "<nav><ul>"
            + "".join(
                f'<li><a href="#table-{i}">{html(t.title)}</a></li>'
                for i, t in enumerate(tables)
            )
            + "</ul></nav>"
        )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"{REPORT_GENERATOR}\n"
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html(_page_title(tables))}</title>\n"
        f"<style>{STYLE}</style>\n</head>\n<body>\n"
        f"<h1>{html(_page_title(tables))}</h1>\n"
        f'<p class="muted">Written by fdlsr {html(__version__)}'
        + (f" (<code>{html(neutral_command(command))}</code>)" if command else "")
        + ", from the results folders it names; the folders are the source of "
        "truth.</p>\n" + nav + "\n".join(sections) + "\n</body>\n</html>\n"
    )


def _page_title(tables):
    """The page's title: the one table's, or how many tables of how many data sets
    (two folders may hold tables of one data set) from how many folders."""
    if len(tables) == 1:
        return f"Results: {tables[0].title}"
    datasets = len({(t.dataset, t.data_sha256) for t in tables})
    folders = len({folder for t in tables for folder in t.stores})
    if datasets == len(tables):
        title = f"Results of {datasets} data sets"
    else:
        title = f"Results: {len(tables)} tables of {datasets} data set"
        title += "s" if datasets != 1 else ""
    if folders > 1:
        title += f", from {folders} results folders"
    return title


def _section(i, table, paper, forced, command):
    summary = summarise(table.frame)
    ks, rows = table_rows(summary, paper)
    # what cross-validation chose and the commands: parts of their own
    shown_apart = set(chosen_parameters_notes(table.frame))
    notes = [n for n in table_notes(table.frame, table.info) if n not in shown_apart]
    notes += [forced] if forced else []
    notes += summary_notes(summary, rows)
    parts = [
        f'<section id="table-{i}">',
        f"<h2>{html(table.title)}</h2>",
        _table(summary, ks, rows),
        '<ul class="notes">'
        + "".join(f"<li>{note(n, 'html')}</li>" for n in notes)
        + "</ul>",
        _choices(table.frame),
        _figures(table, paper),
        _environment(table),
        _commands(table, command),
        "</section>",
    ]
    return "\n".join(part for part in parts if part)


def _table(summary, ks, rows):
    """The table: the same cells as the Markdown one (mean ± std, bold, marks)."""
    n_max = max((s["n_splits"] + s.get("n_failed", 0) for s in summary), default=None)
    best, _ = best_cells(summary)
    head = [METHOD_HEAD] + [f"k={k}" for k in ks] + time_heads(rows)
    out = ['<div class="wide"><table>', "<thead><tr>"]
    out += [f"<th>{html(h)}</th>" for h in head]
    out += ["</tr></thead>", "<tbody>"]
    family = None
    for r in rows:
        if r["family"] != family:
            family = r["family"]
            title = FAMILY_TITLES.get(family, family)
            out.append(
                f'<tr class="family"><td colspan="{len(head)}">{html(title)}</td></tr>'
            )
        cells = [
            cell_text(r["cells"].get(k), n_max, r["label"] in best.get(k, ()), "html")
            for k in ks
        ]
        kind = "" if r["source"] == "ours" else ' class="paper"'
        out.append(
            f"<tr{kind}><td>{html(r['label'])}</td>"
            + "".join(f"<td>{cell}</td>" for cell in cells)
            + "".join(f"<td>{cell}</td>" for cell in time_cells(r, rows, "html"))
            + f"<td>{html(tuning_text(r, 'html'))}</td></tr>"
        )
    out += ["</tbody>", "</table></div>"]
    return "\n".join(out)


def _choices(frame):
    """The parameters cross-validation chose: per tuned method and k, the value most
    splits chose and in how many (every split's choice: ``--format csv``)."""
    chosen = cell_choices(frame)
    if not chosen:
        return ""
    ks = sorted({k for by_k in chosen.values() for k in by_k}, key=k_order)
    out = [
        "<h3>Parameters chosen by cross-validation</h3>",
        '<p class="muted">Per method and k: the value of each searched parameter '
        "that most training splits chose, and in how many of them (every split's "
        "choice: <code>fdlsr report --format csv</code>, column chosen_per_split, or "
        "<code>fdlsr.results.read_results</code>).</p>",
        '<table class="text"><thead><tr><th>Method</th>',
    ]
    out += [f"<th>k={html(k)}</th>" for k in ks]
    out.append("</tr></thead><tbody>")
    for label, by_k in chosen.items():
        cells = [html(choices_text(by_k[k])) if k in by_k else "—" for k in ks]
        out.append(
            f"<tr><td>{html(label)}</td>"
            + "".join(f'<td class="text">{c}</td>' for c in cells)
            + "</tr>"
        )
    out.append("</tbody></table>")
    return "\n".join(out)


def _png(fig):
    """A figure as an ``<img>`` holding its PNG (base64)."""
    buffer = io.BytesIO()
    with np.errstate(over="ignore"):  # a huge time on a log axis (see save_figure)
        fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img src="data:image/png;base64,{data}"'


def _figures(table, paper):
    by_k = draw_accuracy_by_k(accuracy_by_k_data(table.frame, paper, ""))
    time_data = accuracy_by_time_data(table.frame, "")
    by_time = draw_accuracy_by_time(time_data)
    return (
        "<h3>Figures</h3>\n"
        f'<figure>{_png(by_k)} alt="Mean test accuracy against k, one panel per '
        'family of methods"><figcaption class="muted">Mean test accuracy against k '
        "(training samples per class), one panel per family of methods with FDLSR "
        "in each for reference, the standard deviation over the splits as error bars"
        + ("; the paper's numbers as hollow markers" if paper else "")
        + ".</figcaption></figure>\n"
        f'<figure>{_png(by_time)} alt="Mean test accuracy against training time">'
        '<figcaption class="muted">Mean test accuracy against training time at '
        f"k={html(time_data['k'])} (log scale; a tuned method's tuning plus its "
        "fit); ringed and joined: the Pareto front, the methods that no other beats "
        "in both.</figcaption></figure>"
    )


def _environment(table):
    """The machine, versions and BLAS threads of the sessions that wrote the rows:
    what they share once, then a line per session with what differs."""
    used = {None if pandas.isna(s) else int(s) for s in table.frame.session}
    out, sessions = ["<h3>Environment</h3>"], []
    for folder in table.stores:
        found, problem = read_environment(folder)
        if problem:
            out.append(f'<p class="muted">{html(problem)}</p>')
        sessions += [_session_fields(s) for s in found if s.get("session") in used]
    for number, fields in enumerate(sessions, 1):  # as a reader counts them
        fields["Session"] = str(number)
    if not sessions:
        out.append(
            '<p class="muted">The results folder records no environment for these '
            "rows.</p>"
        )
        return "\n".join(out)
    names = list(dict.fromkeys(name for fields in sessions for name in fields))
    shared = [
        name
        for name in names
        if name not in ("Session", "Date", "Load average", "Command")
        and all(name in fields for fields in sessions)
        and len({fields[name] for fields in sessions}) == 1
    ]
    own = [name for name in names if name not in shared]
    out.append(
        "<dl>"
        + "".join(
            f"<dt>{html(name)}</dt><dd>{html(sessions[0][name])}</dd>"
            for name in shared
        )
        + "</dl>"
    )
    out.append(
        '<table class="text"><thead><tr>'
        + "".join(f"<th>{html(name)}</th>" for name in own)
        + "</tr></thead><tbody>"
    )
    for fields in sessions:
        cells = []
        for name in own:
            value = fields.get(name, "")
            shown = f"<code>{html(value)}</code>" if name == "Command" else html(value)
            cells.append(f'<td class="text">{shown}</td>')
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    if None in used:
        out.append(
            '<p class="muted">Some rows name no session (written before fdlsr '
            "recorded one): their environment is unknown.</p>"
        )
    return "\n".join(out)


def _session_fields(session):
    """``{name: text}`` of one session of ``environment.json``, as shown."""
    date = session.get("date")
    if isinstance(date, str):  # 2026-11-26T01:23:28+00:00, as a person reads it
        date = date.replace("T", " ").replace("+00:00", " UTC")
    fields = {"Session": session.get("session"), "Date": date}
    fields["Machine"] = f"{session.get('cpu')} ({session.get('cpu_count')} cores)"
    load = session.get("load_average")
    if isinstance(load, list):
        fields["Load average"] = ", ".join(
            f"{v:.2f}" if isinstance(v, (int, float)) else str(v) for v in load
        )
    fields["Platform"] = session.get("platform")
    fields["Python"] = session.get("python")
    packages = session.get("packages")
    if isinstance(packages, dict):
        fields["Packages"] = ", ".join(f"{n} {v}" for n, v in packages.items())
    pools = session.get("threadpools")
    if isinstance(pools, list):
        fields["BLAS and OpenMP threads"] = "; ".join(
            " ".join(
                str(part)
                for part in (p.get("internal_api"), p.get("version"))
                if part is not None
            )
            + f": {p.get('num_threads')}"
            for p in sorted(
                (p for p in pools if isinstance(p, dict)),
                key=lambda p: (str(p.get("internal_api")), str(p.get("version"))),
            )
        )
    if "blas_threads_per_run" in session:
        fields["BLAS threads per run"] = session["blas_threads_per_run"]
    if session.get("thread_variables"):
        fields["Thread variables"] = session["thread_variables"]
    command = session.get("command")
    if isinstance(command, list):
        command = " ".join(map(str, command))
    if command:
        fields["Command"] = neutral_command(str(command))
    return {name: str(value) for name, value in fields.items() if value is not None}


def _commands(table, command):
    """The commands that wrote the rows, and the one that rendered this page (the
    data folder as ``DATA_DIR``, no folder of the machine)."""
    written = list(dict.fromkeys(table.info.get("commands") or []))
    out = ["<h3>Commands</h3>"]
    if command:
        out.append(f"<p>This page: <code>{html(neutral_command(command))}</code></p>")
    if written:
        out.append("<p>The results, written by:</p><ul>")
        out += [f"<li><code>{html(neutral_command(c))}</code></li>" for c in written]
        out.append("</ul>")
        if any("--data-dir" in c for c in written):
            out.append(
                '<p class="muted"><code>DATA_DIR</code>: the folder that holds the '
                "data files.</p>"
            )
    else:
        out.append('<p class="muted">The results folder records no command.</p>')
    return "\n".join(out)
