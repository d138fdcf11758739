"""Which kinds of input each data option applies to; the others are refused.

An option that does not apply to the input it is given with (``--resize`` on an
``.npz`` file, ``--x`` on a CSV table) would be ignored, and the user would believe
it had been applied. Every loader therefore checks the options it is given against
:data:`DATA_OPTIONS` before reading anything, and refuses, in one line naming the
option, the input and what to do, the options whose kinds do not include the
input's. A command that offers a data option passes it to the loader by its keyword
(``commands/shared.py``, ``data_options``); its kinds are declared here once, for
every command and for Python.
"""

from dataclasses import dataclass

from .._common.messages import quote, setting
from ..errors import DatasetError

# The kinds of input, in the words a message uses. A registry name is of its file's
# kind and also of the kind "registry" (its file is looked for in the data folder).
KINDS = {
    "mat": "a MATLAB file",
    "npz": "an .npz archive",
    "npy": "an .npy array of samples",
    "csv": "a CSV table",
    "images": "an image folder",
    "sklearn": "a scikit-learn data set",
    "registry": "a registry name",
}

# How an input of each kind is read, when that is what an inapplicable option missed
# ({y}: the label column's option as the user writes it).
HOW_READ = {
    "csv": "a CSV table has one sample per line; its label column is {y}",
    "npy": "an .npy file holds samples only, one per row",
    "images": "an image folder's labels are its sub-folder names",
    "sklearn": "a scikit-learn data set is read as scikit-learn ships it",
}


@dataclass(frozen=True)
class DataOption:
    """A data option: its keyword, the kinds it applies to, and what it does.

    ``python`` is how a message writes it in Python (its command-line spelling is
    :data:`fdlsr._common.messages.OPTIONS`'s); ``does`` completes "it ..." in a refusal.
    """

    name: str
    python: str
    kinds: frozenset
    does: str


DATA_OPTIONS = {
    option.name: option
    for option in (
        DataOption("x", "x=NAME", frozenset({"mat", "npz"}),
                   "names the variable that holds the samples"),
        DataOption("y", "y=NAME", frozenset({"mat", "npz", "csv"}),
                   "names the labels' variable (a CSV's label column)"),
        DataOption("samples", "samples='rows'|'columns'",
                   frozenset({"mat", "npz", "npy"}),
                   "says whether the samples are the rows or the columns of a matrix"),
        DataOption("label_column", "label_column=", frozenset({"csv"}),
                   "names a table's label column"),
        DataOption("image_shape", "image_shape=(h, w)", frozenset({"mat", "npz", "csv"}),
                   "gives the image size of samples stored as flat rows"),
        DataOption("order", "order='F'|'C'", frozenset({"mat", "npz", "csv"}),
                   "says how samples stored as flat rows were flattened"),
        DataOption("grey", "grey=", frozenset({"images"}),
                   "chooses grey or colour pixels"),
        DataOption("resize", "resize=(h, w)", frozenset({"images"}),
                   "resizes image files as they are read"),
        DataOption("data_dir", "data_dir=", frozenset({"registry"}),
                   "says where the registry's files (feret, orl, ...) are looked for"),
    )
}  # fmt: skip


def spelled(name):
    """The data option ``name`` as a message tells the user to give it: ``--x NAME``
    under the ``fdlsr`` command, ``x=NAME`` in Python (every message of the loaders
    names an option so, never by one spelling alone)."""
    return setting(name, DATA_OPTIONS[name].python)


def given(name, value):
    """The data option ``name`` as the user gave it: ``--x 'fea'`` under the
    ``fdlsr`` command, ``x='fea'`` in Python."""
    flag = setting(name, None)
    return f"{flag.split()[0]} {quote(value)}" if flag else f"{name}={quote(value)}"


def refuse_inapplicable(kind, where, options, *, registry=False):
    """Refuse the first option given (not None) in ``options`` that does not apply to
    an input of ``kind``.

    Parameters
    ----------
    kind : str
        The input's format, a key of :data:`KINDS` other than ``"registry"``.
    where : str
        The input as the user named it (a path or a registry name).
    options : dict
        ``{keyword: value}``, None meaning not given; every keyword is declared in
        :data:`DATA_OPTIONS`.
    registry : bool, default=False
        Whether the input is a registry name (rather than a path).

    Raises
    ------
    fdlsr.errors.DatasetError
        For an option that does not apply, naming the option, the input's kind, the
        kinds it applies to and the fix.
    """
    kinds = {kind, "registry"} if registry else {kind}
    for name, value in options.items():
        option = DATA_OPTIONS[name]
        if value is None or option.kinds & kinds:
            continue
        spelled = setting(name, option.python)
        short = spelled.split()[0] if spelled.startswith("--") else f"{name}="
        applies = " or ".join(KINDS[k] for k in KINDS if k in option.kinds)
        how = HOW_READ.get(kind, "").format(y=setting("y", "y= (or label_column=)"))
        raise DatasetError(
            f"{spelled} does not apply to {where}, {KINDS[kind]}: it {option.does}, "
            f"for {applies} only{f' ({how})' if how else ''}; leave {short} out"
        )
