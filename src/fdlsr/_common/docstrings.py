"""Docstring parts that several estimators share, written once.

A class docstring names a shared part on a line of its own, ``%(name)s``, at the
indentation of the parameter it begins (scipy's ``doccer`` and matplotlib's
``_docstring`` do the same); :func:`fill_doc` puts the part there.
"""

import textwrap


def fill_doc(**parts):
    """Class or function decorator: replace each line ``%(name)s`` of the docstring by
    ``parts[name]`` (dedented, then indented as that line)."""

    def decorate(obj):
        lines = []
        for line in obj.__doc__.splitlines():
            key = line.strip()
            if key.startswith("%(") and key.endswith(")s") and key[2:-2] in parts:
                indent = line[: len(line) - len(line.lstrip())]
                part = textwrap.dedent(parts[key[2:-2]]).strip("\n").splitlines()
                lines.extend(indent + text if text else text for text in part)
            else:
                lines.append(line)
        obj.__doc__ = "\n".join(lines)
        return obj

    return decorate


#: The data arguments of a classifier's numerical core ``fit_<name>(X, y, n_classes,
#: ...)``, the first entry of its Parameters (``%(training_data)s``).
TRAINING_DATA = """
X, y, n_classes
    The training samples (n_samples x n_features), their class codes in
    ``[0, n_classes)`` and the number of classes.
"""


def core_doc(func):
    """Fill ``%(training_data)s`` in the docstring of a numerical core."""
    return fill_doc(training_data=TRAINING_DATA)(func)
