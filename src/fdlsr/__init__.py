"""fdlsr: Fisher Discriminative Least Squares Regression and its relatives.

The package has five layers, each importing only those above it in this list
(``tests/test_architecture.py`` enforces it; docs/architecture.md draws it):

* ``fdlsr._common``: array helpers, linear algebra, input checks, the shared
  scikit-learn classifier plumbing and the nearest-projection rule.
* ``fdlsr._core``: the FDLSR model, its solvers, its cross-validation and the paper's
  per-class split (``fdlsr.model_selection._split.PerClassSplit``).
* ``fdlsr._experiments.methods``: the comparison methods, in three families, and their registry.
* ``fdlsr.persistence``: ``fdlsr.save(model, path)`` and ``fdlsr.load(path)``, which
  write and read fitted models in a file format that holds data only (docs/saving.md).
* ``fdlsr._experiments``: datasets, the paper's protocol, results stores, reports,
  figures and the command line.

``import fdlsr`` loads no module of ``fdlsr._experiments``, and no estimator: each
public name (``fdlsr.FDLSR``, ``fdlsr.save``, ``fdlsr.relaxed``, ``fdlsr.datasets``, ``fdlsr.results``...)
is imported on first use.
"""

import importlib

from ._version import __version__

__all__ = ["FDLSR", "FDLSRCV", "__version__", "load", "save"]

# Each public name and the module it lives in, imported when first used: ``import
# fdlsr._experiments.cli`` (the ``fdlsr`` command) then imports no estimator before
# the command's handler runs, where Ctrl-C is one line and exit status 130.
_LAZY = {
    "FDLSR": "fdlsr._core.estimator",
    "FDLSRCV": "fdlsr._core.cv",
    "load": "fdlsr.persistence",
    "save": "fdlsr.persistence",
    # short public names of the method families, and the dataset loaders (a module
    # of the experiments layer)
    "dictionary": None,
    "relaxed": None,
    "representation": None,
    "datasets": None,
    "results": None,
}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    where = _LAZY[name]
    if where is None:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        value = getattr(importlib.import_module(where), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__():
    return sorted({*globals(), *_LAZY})
