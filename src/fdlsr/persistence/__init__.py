"""What a model file holds, read without loading it: :func:`read_model_file` gives its
:class:`ModelFile` (the model's record, versions and :class:`InputContract`: the
samples the model takes). ``fdlsr.save(model, path)`` and ``fdlsr.load(path)`` write
and read the files (docs/saving.md).

:mod:`._archive` is the file (a zip of a JSON manifest and ``.npy`` arrays),
:mod:`._encoding` a model as a tree of JSON values and arrays, rebuilt from an
allowlist of classes that each estimator family declares (``_MODEL_FILE_CLASSES``),
:mod:`._checks` what a loaded model must be: a fitted classifier whose arrays agree;
:mod:`._contract` the record of the samples a model takes (column names, image size),
which ``fdlsr predict`` applies.
"""

from ._archive import ModelFile, read_model_file
from ._contract import InputContract

__all__ = ["InputContract", "ModelFile", "read_model_file"]
