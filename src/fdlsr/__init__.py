"""fdlsr: Fisher Discriminative Least Squares Regression and its relatives.

The public surface (docs/api.rst lists it; each name has one import path):

* ``fdlsr``: ``FDLSR``, ``FDLSRCV``, ``save``, ``load``;
* ``fdlsr.relaxed``, ``fdlsr.representation``, ``fdlsr.dictionary``: the comparison
  methods of the paper;
* ``fdlsr.model_selection``: the paper's per-class split as a splitter;
* ``fdlsr.persistence``: what a model file holds (``read_model_file``...);
* ``fdlsr.datasets``, ``fdlsr.features``, ``fdlsr.figures``, ``fdlsr.results``: data
  sets, deep features, the numbers behind the paper's figures, results of ``fdlsr run``;
* ``fdlsr.experiments``: experiments under the paper's protocol, from Python;
* ``fdlsr.errors``: the exceptions and warnings.

Everything else is private by its name (``fdlsr._common``, ``fdlsr._core``,
``fdlsr._experiments``, modules starting with ``_``). The layers, each importing only
those below it, are drawn in docs/architecture.md and checked by
``tests/test_architecture.py``.

``import fdlsr`` loads no estimator and nothing of the experiments: each public name
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
    "load": "fdlsr.persistence._archive",
    "save": "fdlsr.persistence._archive",
    # the public modules, imported as attributes (fdlsr.relaxed.DLSR)
    "datasets": None,
    "dictionary": None,
    "errors": None,
    "experiments": None,
    "features": None,
    "figures": None,
    "model_selection": None,
    "persistence": None,
    "relaxed": None,
    "representation": None,
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
