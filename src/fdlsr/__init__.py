"""fdlsr: Fisher Discriminative Least Squares Regression and its relatives.

The package has four layers, each importing only those above it in this list
(``tests/test_architecture.py`` enforces it; docs/architecture.md draws it):

* ``fdlsr.common``: array helpers, linear algebra, input checks, the shared
  scikit-learn classifier plumbing and the nearest-projection rule.
* ``fdlsr.core``: the FDLSR model, its solvers and its cross-validation.
* ``fdlsr.methods``: the comparison methods, in three families, and their registry.
* ``fdlsr.experiments``: datasets, the paper's protocol, results stores, reports,
  figures, model files and the command line.

``fdlsr.save(model, path)`` and ``fdlsr.load(path)`` write and read fitted models in a
file format that holds data only (docs/saving.md).
"""

import sys

from . import dictionary, relaxed, representation  # noqa: F401 (short public names)
from .core.cv import FDLSRCV
from .core.estimator import FDLSR
from .experiments import datasets
from .experiments.persistence import load, save

__version__ = "0.1.0"

__all__ = ["FDLSR", "FDLSRCV", "__version__", "load", "save"]

# ``from fdlsr.datasets import ...``: the dataset loaders under their short name.
sys.modules[f"{__name__}.datasets"] = datasets
