"""Text from a results store or a model file, written as data into every output.

A store is plain text that anyone can edit, and a foreign or hand-edited one may name
a method ``a|b``, ``<script>``, ``=HYPERLINK(...)`` or a string of terminal escape
sequences. Every piece of such text that reaches an output goes through the function
of its channel here: :func:`terminal`, :func:`markdown`, :func:`latex`,
:func:`csv_cell`, :func:`html` and :func:`figure_label`. Each applies one rule
first, :func:`visible`: *a character that could move the cursor, end a line or
reorder the text around it is shown as its Python escape* (ESC as ``\\x1b``, CSI
as ``\\x9b``, U+202E as ``\\u202e``), then the channel's own escaping, so the text
prints as written and can neither drive a terminal, add a table cell, run as LaTeX,
become HTML markup, start a spreadsheet formula nor blow up a figure.

A note under a table is a string, or a tuple of pieces: plain text and :class:`Code`
(a command, shown as code). :func:`note` renders one in a format.
"""

import html as _html
import re

from .._common.messages import printable

MARK = "†"  # a cell whose runs warned that their result is unreliable
MARK_TEX = r"$^\dagger$"

# What Markdown (GitHub's, MyST's) reads as table, inline or HTML markup.
_MD_SPECIAL = re.compile(r"([\\`*_|<>\[\]$~&#])")
# What LaTeX reads as commands, in one pass so that no escape is escaped again.
_TEX_SPECIAL = re.compile(r"<=|>=|" + MARK + r"|[\\{}$^_%&#~|<>]")
_TEX = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "^": r"\^{}",
    "_": r"\_",
    "%": r"\%",
    "&": r"\&",
    "#": r"\#",
    "~": r"\textasciitilde{}",
    "|": r"\textbar{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    MARK: MARK_TEX,
    "<=": r"$\le$",
    ">=": r"$\ge$",
}


class Code(str):
    """A command quoted in a note: shown as code (its text still escaped)."""


def prose(text):
    """A note of the program's own words, its commands in backticks, as pieces: each
    backticked span a :class:`Code`. Never for text from a store, whose backticks
    are characters like any other."""
    parts = str(text).split("`")
    return tuple(Code(p) if i % 2 else p for i, p in enumerate(parts) if p)


def visible(text):
    """``text`` with every character that could move the cursor, end a line or
    reorder the text around it shown as its Python escape (``\\x1b``, ``\\u202e``);
    the rule of every message too (:func:`fdlsr._common.messages.printable`)."""
    return printable(text)


def one_line(text):
    """``text`` on one line, every invisible character shown (:func:`visible`): a
    line break would end a table row or a paragraph, so it is made a space."""
    return visible(" ".join(str(text).splitlines()))


def terminal(text):
    """``text`` as printed on a terminal or in a log: one line, nothing that a
    terminal would take as a command (:func:`one_line`)."""
    return one_line(text)


def markdown(text):
    """``text`` as literal Markdown inside a table cell, a heading or a note: markup
    escaped with a backslash, a line break made a space."""
    return _MD_SPECIAL.sub(r"\\\1", one_line(text))


def latex(text):
    """``text`` as literal LaTeX text: every special character escaped, a line break
    made a space (a blank line would end a caption's paragraph)."""
    return _TEX_SPECIAL.sub(lambda match: _TEX[match.group()], one_line(text))


# What a spreadsheet reads as the start of a formula (OWASP's list for CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(text):
    """``text`` as a CSV cell a spreadsheet shows as text: one line, and a leading
    ``=``, ``+``, ``-``, ``@``, tab or carriage return preceded by ``'`` (OWASP's
    advice), so it cannot start a formula. For text only: numbers are written as
    numbers."""
    text = str(text)
    if text.startswith(_FORMULA_START):
        text = "'" + text
    return one_line(text)


def html(text):
    """``text`` as literal HTML text or attribute value: markup escaped, invisible
    characters shown (:func:`visible`), so no bidirectional control can reverse the
    page around it. A line break is kept (HTML shows it as a space)."""
    text = "\n".join(visible(line) for line in str(text).split("\n"))
    return _html.escape(text, quote=True)


# The longest label a figure's legend gives a series (a longer one is cut).
LABEL_LIMIT = 60


def figure_label(text, limit=LABEL_LIMIT):
    """``text`` as a matplotlib label: one line, at most ``limit`` characters (a
    longer one cut, ending in an ellipsis), and a ``$`` kept literal (matplotlib
    would start mathematics with it)."""
    text = one_line(text)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text.replace("$", r"\$")


def _markdown_code(text):
    """A Markdown code span holding ``text`` exactly: fenced by more backticks than
    it holds in a row (CommonMark), with the spaces that let it start or end with one."""
    text = one_line(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def note(pieces, fmt):
    """One note as ``fmt`` (``md``, ``latex``, ``html`` or ``text``) writes it.

    Parameters
    ----------
    pieces : str or tuple of str
        The note: plain text, with :class:`Code` pieces for the commands it quotes.
    fmt : {"md", "latex", "html", "text"}
        The output format; ``text`` is the note as a person reads it (commands in
        backticks), for messages and tests.

    Returns
    -------
    str
    """
    if isinstance(pieces, str):
        pieces = (pieces,)
    out = []
    for piece in pieces:
        code = isinstance(piece, Code)
        if fmt == "md":
            out.append(_markdown_code(piece) if code else markdown(piece))
        elif fmt == "latex":
            out.append(rf"\texttt{{{latex(piece)}}}" if code else latex(piece))
        elif fmt == "html":
            out.append(f"<code>{html(piece)}</code>" if code else html(piece))
        else:
            out.append(f"`{one_line(piece)}`" if code else one_line(piece))
    return "".join(out)
