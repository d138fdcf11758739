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

from .core.cv import FDLSRCV
from .core.estimator import FDLSR
from .experiments import datasets
from .experiments.persistence import load, save
from .methods import dictionary, relaxed, representation

__version__ = "0.1.0"

__all__ = ["FDLSR", "FDLSRCV", "__version__", "load", "save"]

# The family packages and the dataset loaders were importable as fdlsr.relaxed,
# fdlsr.representation, fdlsr.dictionary and fdlsr.datasets before the layers became
# folders; those names stay the same module objects.
for _module in (relaxed, representation, dictionary, datasets):
    sys.modules[f"{__name__}.{_module.__name__.rsplit('.', 1)[-1]}"] = _module
del _module
