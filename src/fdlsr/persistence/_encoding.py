"""A model as a tree of plain JSON values plus NumPy arrays, and back.

The format of the files of :mod:`.archive`. :class:`Encoder` walks a model's
objects (their ``__getstate__`` dictionaries) and :class:`Decoder` rebuilds them from an
allowlist of classes (:func:`allowed_classes`): no name in a tree is ever imported, and
only data (numbers, strings, arrays, allowlisted objects) comes out, never a callable.

Nodes: JSON null, booleans, numbers, strings and lists stand for themselves; every
other value is an object tagged by its first key: ``{"$dict": {...}}``,
``{"$tuple": [...]}``, ``{"$array": "arrays/3.npy"}``, ``{"$objects": [...], "shape":
[...]}`` (an object array of strings or numbers), ``{"$scalar": "<f8", "value": ...}``,
``{"$dtype": "<f4"}``, ``{"$sparse": "csr_array", ...}``, ``{"$object":
"fdlsr._core.estimator.FDLSR", "state": {...}}`` and ``{"$tree": "KDTree"}`` (the k-d or
ball tree of a nearest-neighbour classifier, a compiled object with no data-only form,
rebuilt from the classifier's training samples).

What a file can make the decoder allocate is bounded by the file itself: every array
member is stored (not compressed), its ``.npy`` header may not declare more data than
the member holds, each member is read at most once, and trees nest at most
:data:`MAX_DEPTH` deep. Arrays hold numbers, or text only where labels and names are
kept (:data:`TEXT_ATTRIBUTES`), and no attribute replaces one of its class's (a method,
a property, a class setting). Whether the objects make a usable model is
:mod:`.checks`' question.
"""

import math
import re
from functools import cache

import numpy as np
import scipy.sparse as sp
from sklearn.decomposition import PCA
from sklearn.linear_model import RidgeClassifier
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.neighbors import BallTree, KDTree, KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import (
    LabelBinarizer,
    LabelEncoder,
    MaxAbsScaler,
    MinMaxScaler,
    Normalizer,
    StandardScaler,
)

from .. import _baselines, _core, dictionary, relaxed, representation
from .._common import classifiers, normalizer
from .._common.messages import QUOTE_LIMIT, cut, quote
from ..errors import ModelFileError

_SPARSE = ("csr_array", "csr_matrix", "csc_array", "csc_matrix")
#: Deepest nesting of a tree (the models of fdlsr nest about ten deep).
MAX_DEPTH = 64
#: The longest scikit-learn version an object's state may name.
VERSION_LIMIT = 40
#: The attributes whose arrays may hold text: labels, feature names, a search's record.
TEXT_ATTRIBUTES = {"classes_", "atom_labels_", "feature_names_in_", "cv_results_"}


#: The fix for a setting of a class other than the allowed ones, by attribute name:
#: FDLSRCV's search settings (the refitted model needs neither).
UNSAVABLE_FIXES = {
    "cv": (
        "give cv an integer, a KFold, a StratifiedKFold, fdlsr's PerClassSplit or "
        "the list of its (train, test) splits, list(cv.split(X, y)); or save "
        "FDLSR(**best_params_) fitted on the training data"
    ),
    "scoring": (
        "give scoring a scorer's name ('accuracy', 'balanced_accuracy', ...); or "
        "save FDLSR(**best_params_) fitted on the training data"
    ),
}


@cache
def allowed_classes():
    """The classes a model file may name, by dotted name: those that each estimator
    family declares in its ``_MODEL_FILE_CLASSES`` (its estimators and the helper
    objects they keep), and scikit-learn's classifiers that the baselines use, its
    pipeline, simple preprocessing steps and splitters."""
    classes = set()
    families = (classifiers, normalizer, _core, relaxed, representation, dictionary)
    for family in (*families, _baselines):
        classes.update(family._MODEL_FILE_CLASSES)
    classes |= {RidgeClassifier, KNeighborsClassifier}
    classes |= {Pipeline, LabelBinarizer, LabelEncoder}
    classes |= {MaxAbsScaler, MinMaxScaler, Normalizer, StandardScaler}
    classes |= {PCA, KFold, StratifiedKFold}  # FDLSRCV's cv
    allowed = {_dotted(cls): cls for cls in classes}
    return allowed


class Encoder:
    """A model as a JSON tree, its arrays collected in ``arrays`` by member name."""

    def __init__(self):
        self.arrays = {}

    def encode(self, value, where):
        # exact types: NumPy's float64 and str_ subclass float and str
        if value is None or type(value) in (bool, int, float, str):
            return value
        if type(value) is list:
            return [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if type(value) is tuple:
            return {
                "$tuple": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
            }
        if type(value) is dict:
            return {"$dict": self._encode_dict(value, where)}
        if isinstance(value, np.generic) and value.dtype.kind in "biufU":
            return {"$scalar": value.dtype.str, "value": value.item()}
        if isinstance(value, np.dtype):
            return {"$dtype": _dtype_name(value, where)}
        if type(value) is np.ndarray:
            return self._encode_array(value, where)
        if type(value).__name__ in _SPARSE and sp.issparse(value):
            return {
                "$sparse": type(value).__name__,
                "shape": list(value.shape),
                **{
                    part: self.encode(getattr(value, part), f"{where}.{part}")
                    for part in ("data", "indices", "indptr")
                },
            }
        if _is_neighbor_tree(value):
            return {"$tree": type(value).__name__}
        if type(value).__module__.split(".")[0] == "torch" and hasattr(value, "detach"):
            # a model fitted on a device: its arrays are saved as NumPy
            return self._encode_array(value.detach().cpu().numpy(), where)
        name = _dotted(type(value))
        if name not in allowed_classes():
            fix = UNSAVABLE_FIXES.get(where.rpartition(".")[2])
            if hasattr(value, "best_estimator_"):
                # a fitted search (GridSearchCV, ...): its refitted model can be saved
                fix = (
                    f"save the model it refitted, {cut(where)}.best_estimator_, or "
                    "search with fdlsr.FDLSRCV, which can be saved"
                )
            raise ModelFileError(
                f"cannot save {cut(where)}: objects of type {name} have no safe file "
                "representation (allowed: the estimators of fdlsr, Pipeline and "
                "scikit-learn's scalers, Normalizer, PCA"
                + ("; a file holds data, never code" if callable(value) else "")
                + ")"
                + (f"; {fix}" if fix else "")
            )
        _refuse_cache(value, f"cannot save {cut(where)}:")
        state = value.__getstate__()
        if type(state) is not dict:
            raise ModelFileError(
                f"cannot save {cut(where)}: {name} keeps a non-dict state"
            )
        return {"$object": name, "state": self._encode_dict(state, where)}

    def _encode_dict(self, mapping, where):
        for key in mapping:
            if not isinstance(key, str):
                raise ModelFileError(
                    f"cannot save {cut(where)}: a dictionary key {quote(key)} is not "
                    "a string"
                )
        return {k: self.encode(v, f"{where}.{k}") for k, v in mapping.items()}

    def _encode_array(self, array, where):
        if array.dtype.kind == "O":
            items = array.ravel().tolist()
            if all(v is None or type(v) in (bool, int, float, str) for v in items):
                return {"$objects": items, "shape": list(array.shape)}
            raise ModelFileError(
                f"cannot save {cut(where)}: an object array holding more than plain "
                "strings and numbers"
            )
        _dtype_name(array.dtype, where)
        name = f"arrays/{len(self.arrays)}.npy"
        self.arrays[name] = array
        return {"$array": name}


class Decoder:
    """The objects of a JSON tree, with its arrays read from ``archive``."""

    def __init__(self, archive):
        self.archive = archive
        self.members = set(archive.namelist())
        self.read = set()  # array members already read: each at most once
        self.depth = 0
        self.objects = []  # every object restored, inner ones first

    def decode(self, node):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise ValueError(f"the model tree nests more than {MAX_DEPTH} deep")
            return self._decode_node(node)
        finally:
            self.depth -= 1

    def _decode_node(self, node):
        if isinstance(node, list):
            return [self.decode(v) for v in node]
        if not isinstance(node, dict) or len(node) == 0:
            raise ValueError(f"unexpected node {quote(node)}")
        tag = next(iter(node))
        if tag == "$dict":
            return self._decode_dict(node["$dict"])
        if tag == "$tuple":
            return tuple(self.decode(v) for v in _list(node["$tuple"]))
        if tag == "$array":
            return self._read_array(node["$array"])
        if tag == "$objects":
            items = _list(node["$objects"])
            if not all(
                v is None or isinstance(v, (bool, int, float, str)) for v in items
            ):
                raise ValueError("an object array holds more than strings and numbers")
            out = np.empty(len(items), dtype=object)
            out[:] = items
            return out.reshape([int(n) for n in _list(node["shape"])])
        if tag == "$scalar":
            dtype = np.dtype(_plain_dtype(node["$scalar"]))
            return dtype.type(node["value"])
        if tag == "$dtype":
            return np.dtype(_plain_dtype(node["$dtype"]))
        if tag == "$sparse":
            kind = node["$sparse"]
            if kind not in _SPARSE:
                raise ValueError(f"unknown sparse format {quote(kind)}")
            parts = [self.decode(node[p]) for p in ("data", "indices", "indptr")]
            shape = tuple(int(n) for n in _list(node["shape"]))
            return getattr(sp, kind)(tuple(parts), shape=shape)
        if tag == "$tree":
            return _TREE  # rebuilt by _restore from the classifier's samples
        if tag == "$object":
            return self._decode_object(node["$object"], node["state"])
        raise ValueError(f"unknown node tag {quote(tag)}")

    def _decode_dict(self, mapping):
        if not isinstance(mapping, dict):
            raise ValueError("a dictionary node is not a JSON object")
        return {k: self.decode(v) for k, v in mapping.items()}

    def _decode_object(self, name, state):
        cls = allowed_classes().get(name) if isinstance(name, str) else None
        if cls is None:
            raise ModelFileError(
                f"the model file names the class {quote(name, limit=2 * QUOTE_LIMIT)}, "
                "which is not "
                "among the classes fdlsr loads; it was not written by fdlsr.save "
                "(or by a newer fdlsr: upgrade)"
            )
        state = self._decode_dict(state)
        for key, value in state.items():
            if key.startswith("__") or hasattr(cls, key):
                # data in place of a method, property or class setting
                raise ValueError(
                    f"{name} state would replace {cls.__name__}.{cut(key)}"
                )
            if key not in TEXT_ATTRIBUTES:
                _refuse_text(value, f"{cls.__name__}.{cut(key)}")
        version = state.get("_sklearn_version", "")
        if not isinstance(version, str) or len(version) > VERSION_LIMIT:
            # scikit-learn's __setstate__ quotes it whole in a warning
            raise ValueError(
                f"{name} state's _sklearn_version {quote(version)} is not a version"
            )
        obj = cls.__new__(cls)
        setstate = getattr(obj, "__setstate__", None)
        if setstate is not None:
            setstate(state)  # scikit-learn's: warns on another scikit-learn version
        else:
            obj.__dict__.update(state)
        self.objects.append(obj)
        return _restore(obj)

    def _read_array(self, name):
        if name not in self.members:
            raise ValueError(f"the array {quote(name)} is missing from the archive")
        if name in self.read:
            raise ValueError(f"the array {quote(name)} is named twice in the tree")
        self.read.add(name)
        info = self.archive.getinfo(name)  # stored, and its sizes true: see load
        with self.archive.open(info) as member:
            check_header(member, info)
        with self.archive.open(info) as member:
            array = np.lib.format.read_array(member, allow_pickle=False)
        # An empty array read from a stream has the strides of a reshape, (160, 8)
        # for (0, 20), where NumPy makes (0, 0); BLAS then takes another path in the
        # products that use it and the scores differ in the last bits (FDDL's empty
        # shared dictionary). A copy has NumPy's own strides.
        return array.copy() if array.size == 0 else array


def check_header(member, info):
    """Refuse an array whose header declares more bytes or elements than its member
    holds (NumPy would allocate them all before reading), Python objects, or a dtype
    that is not plain booleans, numbers or text."""
    version = np.lib.format.read_magic(member)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(member)
    elif version == (2, 0):
        shape, _, dtype = np.lib.format.read_array_header_2_0(member)
    else:
        raise ValueError(f"{quote(info.filename)}: .npy format version {version}")
    if dtype.hasobject:
        raise ValueError(
            f"{quote(info.filename)} holds Python objects, which are never loaded "
            "(allow_pickle=False)"
        )
    if dtype.kind not in "biufcU" or dtype.fields is not None or dtype.itemsize == 0:
        raise ValueError(f"{quote(info.filename)} holds arrays of dtype {cut(dtype)}")
    if any(n < 0 for n in shape):
        raise ValueError(f"{quote(info.filename)} declares the shape {cut(shape)}")
    declared = math.prod(shape) * dtype.itemsize
    if declared > info.file_size:
        raise ValueError(
            f"{quote(info.filename)} declares {cut(declared)} bytes of data but holds "
            f"{info.file_size}"
        )


_TREE = object()  # stands for a neighbour tree until _restore rebuilds it


def _restore(obj):
    """Rebuild what was saved as a placeholder: a nearest-neighbour classifier's
    k-d or ball tree, from its training samples, as its ``fit`` builds it."""
    _refuse_cache(obj, "the model file holds")
    if getattr(obj, "_tree", None) is _TREE:
        tree = {"kd_tree": KDTree, "ball_tree": BallTree}[obj._fit_method]
        obj._tree = tree(
            obj._fit_X,
            obj.leaf_size,
            metric=obj.effective_metric_,
            **obj.effective_metric_params_,
        )
    return obj


def _refuse_cache(obj, start):
    """A Pipeline with a cache folder is neither saved nor loaded: refitting it
    would unpickle (run) whatever files that folder holds."""
    if hasattr(obj, "steps") and getattr(obj, "memory", None) is not None:
        raise ModelFileError(
            f"{start} a Pipeline with a cache folder (memory="
            f"{quote(str(obj.memory))}), which refitting would unpickle: use "
            "memory=None"
        )


#: A dtype as ``dtype.str`` writes it: byte order, kind, size (ASCII digits only).
_DTYPE_TEXT = re.compile(r"[<>|=][biufcU][0-9]{1,9}", re.ASCII)


def _dtype_name(dtype, where):
    """``dtype.str`` for the dtypes a model file may hold: booleans, numbers, text."""
    if dtype.kind not in "biufcU" or dtype.fields is not None:
        raise ModelFileError(
            f"cannot save {cut(where)}: arrays of dtype {cut(dtype)} are not supported"
        )
    return dtype.str


def _plain_dtype(text):
    """Refuse dtype strings that are not plain booleans, numbers or text, in the form
    :func:`_dtype_name` writes (``"<f8"``, ``"|b1"``, ``"<U12"``): NumPy's own parser
    reads far more (comma lists through ``ast``, which a 10,000-digit text breaks)."""
    if not (
        isinstance(text, str)
        and _DTYPE_TEXT.fullmatch(text)
        and np.dtype(text).kind in "biufcU"
    ):
        raise ValueError(f"unsupported dtype {quote(text)}")
    return text


def _refuse_text(value, where):
    """Refuse text arrays (strings, or objects, which hold strings) in ``value``:
    outside :data:`TEXT_ATTRIBUTES` a model's arrays hold numbers."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "UO":
        raise ValueError(
            f"{cut(where)} holds text (dtype {value.dtype}) where numbers are due"
        )
    if isinstance(value, (list, tuple)):
        for item in value:
            _refuse_text(item, where)
    elif isinstance(value, dict):
        for key, item in value.items():
            _refuse_text(item, f"{where}.{key}")


def _is_neighbor_tree(value):
    return type(value) in (KDTree, BallTree)


def _list(value):
    if not isinstance(value, list):
        raise ValueError("a list node is not a JSON list")
    return value


def _dotted(cls):
    return f"{cls.__module__}.{cls.__qualname__}"
