"""How much memory loading a data set will take, counted before anything is allocated.

A file's header (``.npy``, a MATLAB variable's tag, an HDF5 dataset, an image's size)
states the shape and type of an array; reading it allocates that much, whatever the
file's size (a compressed or sparse file of a few kilobytes can declare terabytes).
And what is read is not all that is held: samples become float64 (a uint8 matrix
takes eight times its size), text labels become fixed-width numpy strings (as wide as
the longest, several times over while they are made classes), images are decoded and
resized. Every reader hands each of these sizes, as it will be held, to the one
:class:`MemoryBudget` of the file before allocating it; the budget adds them up and
refuses, in one line naming the file and the array, what the machine cannot hold.
The arithmetic (what each step holds) is in the functions below, used by every
reader.
"""

import numpy as np

from .._common.memory import available_memory
from .._common.memory import size_in_words as _size
from ..errors import DatasetError

# The readers' own working memory besides the arrays they make: numpy's text parser
# reads a table in blocks of up to 512 kB, zip and HDF5 members are decompressed in
# chunks, Python objects describe the file.
WORKING_MEMORY = 2**20
# Bytes per value of the samples: float64, and the one-byte mask of the check for
# NaN and infinity (``as_samples``).
SAMPLE_BYTES = 8 + 1
# Bytes per label while labels become classes (``class_labels``): text labels are
# held up to five times as numpy strings (4 bytes per character, as wide as the
# longest) and once as Python strings; numbers are converted to int64 a few times,
# and those that are not whole become text of up to 32 characters.
TEXT_LABEL_COPIES = 6
PYTHON_STRING = 128  # a short Python string object and its pointer
NUMBER_LABEL_BYTES = 32
NUMBER_TEXT_CHARACTERS = 32


# Bytes per character of a table's longest line while it is split into fields (a
# Python string per field, up to one field per two characters; numpy's tokenizer
# holds a line in 4-byte characters with 16 bytes per field).
LINE_BYTES = 32
# Bytes per pixel (of the largest image as stored and once resized) that decoding one
# image of more than 8 bits holds besides the samples: it becomes float64 samples,
# three channels, scaled, resized channel by channel (an 8-bit one: 4 bytes).
IMAGE_WORK_BYTES = 64


def array_bytes(shape, itemsize):
    """Bytes of an array of ``shape`` with ``itemsize`` bytes per element (a Python
    int: never overflows)."""
    size = int(itemsize)
    for n in shape:
        size *= int(n)
    return size


def text_label_bytes(characters):
    """Bytes held per text label of up to ``characters`` characters while labels
    become classes."""
    return TEXT_LABEL_COPIES * 4 * int(characters) + PYTHON_STRING


def text_column_bytes(characters):
    """Bytes held per value of a table's column of up to ``characters`` characters
    (at most the table's longest field) read as text (``numpy.loadtxt(dtype=str)``: Python strings first, then numpy
    strings, sorted or read as numbers once to tell what the column holds)."""
    return 3 * 4 * int(characters) + PYTHON_STRING + 16


class MemoryBudget:
    """The memory loading one file will take, charged before each array is made.

    Parameters
    ----------
    path : path-like
        The file, named in the refusal.
    available : int, optional
        Bytes available; default :func:`available_memory` (no check where unknown).

    Attributes
    ----------
    needed : int
        The bytes charged so far, :data:`WORKING_MEMORY` included.
    """

    def __init__(self, path, available=None):
        self.path = path
        self.available = available_memory() if available is None else available
        self.needed = WORKING_MEMORY

    def charge(self, shape, itemsize, what, fix=None):
        """Count an array of ``shape`` with ``itemsize`` bytes per element (``what``
        names it: "'X' as read"), refusing it if the file's arrays no longer fit in
        memory; ``fix`` replaces the advice of the refusal."""
        self.needed += array_bytes(shape, itemsize)
        if self.available is not None and self.needed > self.available:
            fix = fix or "the file is damaged, or load it on a machine with more memory"
            raise DatasetError(
                f"{self.path} needs {_size(self.needed)} of memory to be loaded "
                f"({what}: {'x'.join(str(int(n)) for n in shape)}), more than the "
                f"{_size(self.available)} of memory available; {fix}"
            )

    def charge_samples(self, X, what):
        """Count the samples ``X`` (an array) as float64 rows (``as_samples``): a copy
        unless ``X`` is C-ordered float64 already, and the NaN check's mask."""
        copied = not (X.dtype == np.float64 and X.flags.c_contiguous)
        itemsize = SAMPLE_BYTES if copied else SAMPLE_BYTES - 8
        self.charge(X.shape, itemsize, f"{what} as float64 samples")
