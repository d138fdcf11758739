"""Text from a results store, written literally into Markdown, LaTeX or HTML.

A store is plain text that anyone can edit, and a foreign or hand-edited one may name
a method ``a|b`` or ``<script>``. Every piece of text that reaches a report from a
store (a method's name, a title, an error, a config's note, a command) goes through
the function of its output format here, so that it prints as written and can neither
add a cell to a Markdown table, nor run as LaTeX, nor become HTML markup.

A note under a table is a string, or a tuple of pieces: plain text and :class:`Code`
(a command, shown as code). :func:`note` renders one in a format.
"""

import html as _html
import re

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


def one_line(text):
    """``text`` on one line: a line break would end a table row or a paragraph."""
    return " ".join(str(text).splitlines())


def markdown(text):
    """``text`` as literal Markdown inside a table cell, a heading or a note: markup
    escaped with a backslash, a line break made a space."""
    return _MD_SPECIAL.sub(r"\\\1", one_line(text))


def latex(text):
    """``text`` as literal LaTeX text: every special character escaped, a line break
    made a space (a blank line would end a caption's paragraph)."""
    return _TEX_SPECIAL.sub(lambda match: _TEX[match.group()], one_line(text))


def html(text):
    """``text`` as literal HTML text or attribute value."""
    return _html.escape(str(text), quote=True)


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
