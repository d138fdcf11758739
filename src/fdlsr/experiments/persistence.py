"""Saving fitted models to a file that holds data only, and loading them back.

A model file is a zip archive: ``model.json`` describes the model as a tree of plain
JSON values, and every NumPy array of the model is a ``.npy`` member beside it. Loading
rebuilds the objects of that tree from an allowlist of classes (this package's
estimators and the helpers they keep, a few scikit-learn preprocessing steps and
``Pipeline``) and reads the arrays with ``allow_pickle=False``; no name in the file is
ever imported and nothing in it is executed, so a crafted file can at worst fail to
load. This is why neither pickle nor joblib is used: unpickling runs whatever callable
the file names. See docs/saving.md.

Tree nodes: JSON null, booleans, numbers, strings and lists stand for themselves; every
other value is a one-key-tagged object: ``{"$dict": {...}}``, ``{"$tuple": [...]}``,
``{"$array": "arrays/3.npy"}``, ``{"$objects": [...], "shape": [...]}`` (an object
array of strings or numbers), ``{"$scalar": "float64", "value": ...}``,
``{"$dtype": "float32"}``, ``{"$sparse": "csr_array", ...}``,
``{"$object": "fdlsr.core.estimator.FDLSR", "state": {...}}`` and ``{"$tree": ...}``
(a k-d or ball tree of a nearest-neighbour classifier, rebuilt from its training
samples on load: the tree is a compiled object with no data-only form).
"""

import json
import math
import os
import tempfile
import warnings
import zipfile
import zlib
from functools import cache
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..errors import ModelFileError

FORMAT = "fdlsr-model"
FORMAT_VERSION = 1
MANIFEST = "model.json"
_MANIFEST_LIMIT = 256 * 2**20  # a manifest larger than this is not one we wrote
_SPARSE = ("csr_array", "csr_matrix", "csc_array", "csc_matrix")
_SAVE_HINT = "save the model with fdlsr.save(model, path) or `fdlsr fit`"


def save(model, path):
    """Write ``model`` (fitted or not) to the model file ``path``.

    ``model`` is an estimator of this package (any method of ``fdlsr methods``,
    ``FDLSR``, ``FDLSRCV``) or a scikit-learn ``Pipeline`` of allowed preprocessing
    steps ending in one. Arrays of another library (a PyTorch tensor of a model
    fitted on a GPU) are saved as NumPy arrays: the loaded model predicts on NumPy
    input. The file is written whole or not at all.

    Raises :class:`~fdlsr.errors.ModelFileError` for a part of the model that has
    no safe representation (e.g. a class outside the allowlist, a callable).
    """
    from .. import __version__

    path = Path(path)
    writer = _Encoder()
    tree = writer.encode(model, "model")
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "fdlsr_version": __version__,
        "numpy_version": np.__version__,
        "sklearn_version": _sklearn_version(),
        "model": tree,
    }
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        # Stored, not compressed: saving and loading cost what pickle's do (DEFLATE
        # made them 20 to 100 times slower for a third off the size at most, see
        # benchmarks/README.md), and every size a member declares is then bytes
        # really in the file, which bounds what loading allocates.
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED) as archive:
            archive.writestr(MANIFEST, json.dumps(manifest, indent=1))
            for name, array in writer.arrays.items():
                with archive.open(name, "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, array, allow_pickle=False)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def load(path):
    """The model saved in ``path`` by :func:`save`.

    Raises :class:`~fdlsr.errors.ModelFileError` (one line, naming the problem) for
    a missing file, a file that is not an fdlsr model (a pickle, an image, a NumPy
    archive...), a truncated or corrupt one, an unknown format version, or a class
    outside the allowlist. Warns when the file was written by another fdlsr version
    (scikit-learn warns likewise for its own version).
    """
    from .. import __version__

    path = Path(path)
    if not path.exists():
        raise ModelFileError(f"model file {path} not found; check the path")
    if path.is_dir():
        raise ModelFileError(f"{path} is a folder; give the path of a model file")
    if not zipfile.is_zipfile(path):
        raise ModelFileError(
            f"{path} is not an fdlsr model file ({_what_is(path)}); {_SAVE_HINT}"
        )
    try:
        with zipfile.ZipFile(path) as archive:
            manifest = _read_manifest(archive, path)
            _check_version(manifest, path, __version__)
            return _Decoder(archive).decode(manifest["model"])
    except ModelFileError:
        raise
    except (zipfile.BadZipFile, EOFError, zlib.error) as error:
        raise ModelFileError(
            f"{path} is truncated or corrupt ({_one_line(error)}); save the model again"
        ) from None
    except (
        ValueError,
        TypeError,
        KeyError,
        AttributeError,
        IndexError,
        OverflowError,
        MemoryError,
        RecursionError,
        RuntimeError,  # zipfile: an encrypted member
        NotImplementedError,  # zipfile: an unknown compression
    ) as error:
        raise ModelFileError(
            f"{path} is a damaged fdlsr model file ({type(error).__name__}: "
            f"{_one_line(error)}); save the model again"
        ) from None


@cache
def allowed_classes():
    """The classes a model file may name, by dotted name: every registered method,
    FDLSR and FDLSRCV, the helper objects they keep, and scikit-learn's pipeline
    and simple preprocessing steps."""
    from sklearn.decomposition import PCA
    from sklearn.model_selection import KFold, StratifiedKFold
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import (
        LabelBinarizer,
        LabelEncoder,
        MaxAbsScaler,
        MinMaxScaler,
        Normalizer,
        StandardScaler,
    )

    from ..common.neighbors import NearestProjection
    from ..core.cv import FDLSRCV
    from ..core.estimator import FDLSR
    from ..methods import METHODS
    from ..methods.dictionary._class_blocks import ClassBlocks
    from ..methods.dictionary._class_stacks import PaddedClasses
    from ..methods.representation.residuals import ClassResiduals
    from .protocol import PerClassSplit

    classes = {type(method.build()) for method in METHODS.values()}
    classes |= {FDLSR, FDLSRCV, NearestProjection, ClassBlocks, ClassResiduals}
    classes |= {PaddedClasses, KNeighborsClassifier, Pipeline, LabelBinarizer}
    classes |= {LabelEncoder, MaxAbsScaler, MinMaxScaler, Normalizer, StandardScaler}
    classes |= {PCA, KFold, StratifiedKFold, PerClassSplit}  # FDLSRCV's cv
    return {_dotted(cls): cls for cls in classes}


class _Encoder:
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
            raise ModelFileError(
                f"cannot save {where}: objects of type {name} have no safe file "
                "representation (allowed: the estimators of fdlsr, Pipeline and "
                "scikit-learn's scalers, Normalizer, PCA)"
            )
        _refuse_cache(value, f"cannot save {where}:")
        state = value.__getstate__()
        if type(state) is not dict:
            raise ModelFileError(f"cannot save {where}: {name} keeps a non-dict state")
        return {"$object": name, "state": self._encode_dict(state, where)}

    def _encode_dict(self, mapping, where):
        for key in mapping:
            if not isinstance(key, str):
                raise ModelFileError(
                    f"cannot save {where}: a dictionary key {key!r} is not a string"
                )
        return {k: self.encode(v, f"{where}.{k}") for k, v in mapping.items()}

    def _encode_array(self, array, where):
        if array.dtype.kind == "O":
            items = array.ravel().tolist()
            if all(v is None or type(v) in (bool, int, float, str) for v in items):
                return {"$objects": items, "shape": list(array.shape)}
            raise ModelFileError(
                f"cannot save {where}: an object array holding more than plain "
                "strings and numbers"
            )
        _dtype_name(array.dtype, where)
        name = f"arrays/{len(self.arrays)}.npy"
        self.arrays[name] = array
        return {"$array": name}


class _Decoder:
    """The objects of a JSON tree, with its arrays read from ``archive``."""

    def __init__(self, archive):
        self.archive = archive
        self.members = set(archive.namelist())

    def decode(self, node):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            return [self.decode(v) for v in node]
        if not isinstance(node, dict) or len(node) == 0:
            raise ValueError(f"unexpected node {node!r:.60}")
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
                raise ValueError(f"unknown sparse format {kind!r:.40}")
            parts = [self.decode(node[p]) for p in ("data", "indices", "indptr")]
            shape = tuple(int(n) for n in _list(node["shape"]))
            return getattr(sp, kind)(tuple(parts), shape=shape)
        if tag == "$tree":
            return _TREE  # rebuilt by _restore from the classifier's samples
        if tag == "$object":
            return self._decode_object(node["$object"], node["state"])
        raise ValueError(f"unknown node tag {tag!r:.40}")

    def _decode_dict(self, mapping):
        if not isinstance(mapping, dict):
            raise ValueError("a dictionary node is not a JSON object")
        return {k: self.decode(v) for k, v in mapping.items()}

    def _decode_object(self, name, state):
        cls = allowed_classes().get(name) if isinstance(name, str) else None
        if cls is None:
            raise ModelFileError(
                f"the model file names the class {str(name)[:80]!r}, which is not "
                "among the classes fdlsr loads; it was not written by fdlsr.save "
                "(or by a newer fdlsr: upgrade)"
            )
        state = self._decode_dict(state)
        if any(key.startswith("__") for key in state):
            raise ValueError(f"{name} state has a reserved attribute name")
        obj = cls.__new__(cls)
        setstate = getattr(obj, "__setstate__", None)
        if setstate is not None:
            setstate(state)  # scikit-learn's: warns on another scikit-learn version
        else:
            obj.__dict__.update(state)
        return _restore(obj)

    def _read_array(self, name):
        if name not in self.members:
            raise ValueError(
                f"the array {str(name)[:60]!r} is missing from the archive"
            )
        info = self.archive.getinfo(name)
        if info.compress_type != zipfile.ZIP_STORED:
            raise ValueError(f"{name} is compressed; fdlsr.save stores arrays as is")
        with self.archive.open(info) as member:
            _check_header(member, info)
        with self.archive.open(info) as member:
            array = np.lib.format.read_array(member, allow_pickle=False)
        # An empty array read from a stream has the strides of a reshape, (160, 8)
        # for (0, 20), where NumPy makes (0, 0); BLAS then takes another path in the
        # products that use it and the scores differ in the last bits (FDDL's empty
        # shared dictionary). A copy has NumPy's own strides.
        return array.copy() if array.size == 0 else array


def _check_header(member, info):
    """Refuse an array whose header declares more bytes than its member holds
    (NumPy would allocate them all before reading) or Python objects."""
    version = np.lib.format.read_magic(member)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(member)
    elif version == (2, 0):
        shape, _, dtype = np.lib.format.read_array_header_2_0(member)
    else:
        raise ValueError(f"{info.filename}: .npy format version {version}")
    if dtype.hasobject:
        raise ValueError(
            f"{info.filename} holds Python objects, which are never loaded "
            "(allow_pickle=False)"
        )
    declared = math.prod(shape) * dtype.itemsize
    if declared > info.file_size:
        raise ValueError(
            f"{info.filename} declares {declared} bytes of data but holds "
            f"{info.file_size}"
        )


_TREE = object()  # stands for a neighbour tree until _restore rebuilds it


def _restore(obj):
    """Rebuild what was saved as a placeholder: a nearest-neighbour classifier's
    k-d or ball tree, from its training samples, as its ``fit`` builds it."""
    _refuse_cache(obj, "the model file holds")
    if getattr(obj, "_tree", None) is _TREE:
        from sklearn.neighbors import BallTree, KDTree

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
            f"{str(obj.memory)[:60]!r}), which refitting would unpickle: use "
            "memory=None"
        )


def _read_manifest(archive, path):
    try:
        info = archive.getinfo(MANIFEST)
    except KeyError:
        raise ModelFileError(
            f"{path} is a zip archive but not an fdlsr model file (it has no "
            f"{MANIFEST}); {_SAVE_HINT}"
        ) from None
    if info.file_size > _MANIFEST_LIMIT:
        raise ModelFileError(f"{path}: its {MANIFEST} is too large to be a model's")
    try:
        manifest = json.loads(archive.read(MANIFEST))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ModelFileError(
            f"{path}: {MANIFEST} is not valid JSON ({_one_line(error)}); the file is "
            "damaged: save the model again"
        ) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ModelFileError(
            f"{path} is a zip archive but not an fdlsr model file (its {MANIFEST} "
            f"does not say format {FORMAT!r}); {_SAVE_HINT}"
        )
    return manifest


def _check_version(manifest, path, current):
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise ModelFileError(
            f"{path} has model format version {str(version)[:20]}, which this fdlsr "
            f"({current}) does not know (it reads version {FORMAT_VERSION}); load it "
            "with the fdlsr version that saved it"
            + (f" ({manifest['fdlsr_version']})" if "fdlsr_version" in manifest else "")
        )
    saved = manifest.get("fdlsr_version")
    if saved != current:
        warnings.warn(
            f"{path} was saved by fdlsr {saved} and is loaded by fdlsr {current}; "
            "check its predictions, or save it again with this version",
            UserWarning,
            stacklevel=3,
        )


def _what_is(path):
    """What a file that is not a zip archive looks like, from its first bytes."""
    with open(path, "rb") as handle:
        head = handle.read(8)
    if not head:
        return "it is empty"
    if head[:1] == b"\x80" and len(head) > 1 and head[1] <= 5:
        return "it is a Python pickle, which fdlsr never loads: unpickling runs code"
    if head.startswith(b"\x89PNG"):
        return "it is a PNG image"
    if head.startswith(b"\x93NUMPY"):
        return "it is a NumPy .npy array"
    if head.startswith(b"PK"):
        return "it looks like a truncated zip archive"
    return "it is not a zip archive"


def _dtype_name(dtype, where):
    """``dtype.str`` for the dtypes a model file may hold: booleans, numbers, text."""
    if dtype.kind not in "biufcU" or dtype.fields is not None:
        raise ModelFileError(
            f"cannot save {where}: arrays of dtype {dtype} are not supported"
        )
    return dtype.str


def _plain_dtype(text):
    """Refuse dtype strings that are not plain booleans, numbers or text."""
    if not isinstance(text, str) or np.dtype(text).kind not in "biufcU":
        raise ValueError(f"unsupported dtype {str(text)[:40]!r}")
    return text


def _is_neighbor_tree(value):
    from sklearn.neighbors import BallTree, KDTree

    return type(value) in (KDTree, BallTree)


def _list(value):
    if not isinstance(value, list):
        raise ValueError("a list node is not a JSON list")
    return value


def _dotted(cls):
    return f"{cls.__module__}.{cls.__qualname__}"


def _sklearn_version():
    import sklearn

    return sklearn.__version__


def _one_line(error):
    return " ".join(str(error).split())[:200]
