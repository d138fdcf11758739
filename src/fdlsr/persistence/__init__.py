"""Fitted models saved to a file that holds data only, and loaded back:
``fdlsr.save(model, path)`` and ``fdlsr.load(path)`` (docs/saving.md).

:mod:`.archive` is the file (a zip of a JSON manifest and ``.npy`` arrays),
:mod:`.encoding` a model as a tree of JSON values and arrays, rebuilt from an
allowlist of classes that the estimator families declare
(``fdlsr._experiments.methods.model_file_classes``), and :mod:`.checks` what a loaded model must
be: a fitted classifier whose arrays agree; :mod:`.contract` the record of the
samples a model takes (column names, image size), which ``fdlsr predict`` applies.
"""

from ._archive import ModelFile, load, read_model_file, save
from ._contract import InputContract

__all__ = ["InputContract", "ModelFile", "load", "read_model_file", "save"]
