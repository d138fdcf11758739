"""``.. fdlsr-cli::``: the command line's reference, read from its argparse parser.

The directive walks ``fdlsr._experiments.parser.build_parser()`` and every sub-command
under it and writes one section per command: its description, its usage line and
each option with the help text ``--help`` prints, so the page cannot drift from the
parser. The help text is formatted by argparse's own formatter (``%(default)s`` and
the option names as ``--help`` shows them).
"""

import argparse
import importlib

from docutils import nodes
from docutils.parsers.rst import Directive, directives

# The usage lines are wrapped at this width, as in a terminal of 88 columns.
WIDTH = 88


def _formatter(parser):
    return parser.formatter_class(prog=parser.prog, width=WIDTH)


def _subcommands(parser):
    """The (name, help, sub-parser) of each sub-command of ``parser``, in order."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, helps.get(name), sub


def _paragraphs(text):
    """Paragraph nodes of ``text``; indented or aligned lines stay as written."""
    out = []
    for block in text.strip().split("\n\n"):
        lines = block.splitlines()
        if any(line.startswith(" ") for line in lines) or block.endswith(":"):
            out.append(nodes.literal_block(block, block, language="none"))
        else:
            out.append(nodes.paragraph(text=" ".join(line.strip() for line in lines)))
    return out


def _option(formatter, action):
    """A definition-list item: the option as ``--help`` names it, then its help."""
    term = nodes.term()
    term += nodes.literal(text=formatter._format_action_invocation(action))
    body = nodes.definition()
    text = formatter._expand_help(action) if action.help else ""
    extra = []
    if action.choices is not None and not isinstance(
        action, argparse._SubParsersAction
    ):
        extra.append("choices: " + ", ".join(str(c) for c in action.choices))
    default = action.default
    if (
        action.option_strings
        and default not in (None, False, argparse.SUPPRESS)
        and not isinstance(action, argparse._HelpAction)
        and "%(default)" not in (action.help or "")
    ):
        extra.append(f"default: {default}")
    if extra:
        text = f"{text} ({'; '.join(extra)})" if text else "; ".join(extra)
    body += nodes.paragraph(text=text)
    return nodes.definition_list_item("", term, body)


def _section(document, parser, title, summary=None):
    section = nodes.section(
        ids=[nodes.make_id(title)], names=[nodes.fully_normalize_name(title)]
    )
    section += nodes.title(text=title)
    document.note_implicit_target(section)
    intro = parser.description or summary
    if intro:
        section.extend(_paragraphs(intro))
    usage = parser.format_usage().strip()
    section += nodes.literal_block(usage, usage, language="none")
    formatter = _formatter(parser)
    for group in parser._action_groups:
        actions = [
            a
            for a in group._group_actions
            if a.help != argparse.SUPPRESS
            and not isinstance(a, argparse._SubParsersAction)
        ]
        if not actions:
            continue
        section += nodes.rubric(text=group.title or "options")
        items = nodes.definition_list()
        for action in actions:
            items += _option(formatter, action)
        section += items
    if parser.epilog:
        section.extend(_paragraphs(parser.epilog))
    for name, help_text, sub in _subcommands(parser):
        section += _section(document, sub, f"{title} {name}", help_text)
    return section


class CommandLine(Directive):
    """``.. fdlsr-cli:: module:function``: sections for a parser and its sub-commands."""

    required_arguments = 1
    option_spec = {"prog": directives.unchanged}

    def run(self):
        module, function = self.arguments[0].split(":")
        parser = getattr(importlib.import_module(module), function)()
        title = self.options.get("prog", parser.prog)
        section = _section(self.state.document, parser, title)
        return [section]


def setup(app):
    app.add_directive("fdlsr-cli", CommandLine)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
