"""fdlsr: Fisher Discriminative Least Squares Regression and its relatives.

The package has five layers, each importing only those above it in this list
(``tests/test_architecture.py`` enforces it; docs/architecture.md draws it):

* ``fdlsr.common``: array helpers, linear algebra, input checks, the shared
  scikit-learn classifier plumbing and the nearest-projection rule.
* ``fdlsr.core``: the FDLSR model, its solvers, its cross-validation and the paper's
  per-class split (``fdlsr.core.model_selection.PerClassSplit``).
* ``fdlsr.methods``: the comparison methods, in three families, and their registry.
* ``fdlsr.persistence``: ``fdlsr.save(model, path)`` and ``fdlsr.load(path)``, which
  write and read fitted models in a file format that holds data only (docs/saving.md).
* ``fdlsr.experiments``: datasets, the paper's protocol, results stores, reports,
  figures and the command line.

``import fdlsr`` loads no module of ``fdlsr.experiments``: ``fdlsr.datasets`` (the
dataset loaders) and ``fdlsr.results`` (results folders as a DataFrame and figures)
are imported on first use.
"""

import importlib

from . import dictionary, relaxed, representation  # noqa: F401 (short public names)
from ._version import __version__
from .core.cv import FDLSRCV
from .core.estimator import FDLSR
from .persistence import load, save

__all__ = ["FDLSR", "FDLSRCV", "__version__", "load", "save"]

# Public modules that live in the experiments layer, imported when first used.
_LAZY = ("datasets", "results")


def __getattr__(name):
    if name in _LAZY:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
