"""Fitted models saved to a file that holds data only, and loaded back:
``fdlsr.save(model, path)`` and ``fdlsr.load(path)`` (docs/saving.md).

:mod:`.archive` is the file (a zip of a JSON manifest and ``.npy`` arrays),
:mod:`.encoding` a model as a tree of JSON values and arrays, rebuilt from an
allowlist of classes that the estimator families declare
(``fdlsr.methods.model_file_classes``), and :mod:`.checks` what a loaded model must
be: a fitted classifier whose arrays agree.
"""

from .archive import load, save

__all__ = ["load", "save"]
