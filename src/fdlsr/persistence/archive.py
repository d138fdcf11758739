"""Saving fitted models to a file that holds data only, and loading them back.

A model file is a zip archive: ``model.json`` (the format's name and version, the
versions that wrote it, and the model as a tree of plain JSON values, see
:mod:`.encoding`) and one uncompressed ``.npy`` member per NumPy array. Loading
rebuilds the objects from an allowlist of classes and reads the arrays with
``allow_pickle=False``; nothing in the file is imported or executed. This is why
neither pickle nor joblib is used: unpickling runs whatever callable the file names.

Every member is stored, not compressed, and none is read beyond the size it declares
(the manifest at most :data:`MANIFEST_LIMIT` bytes), so what loading allocates is
bounded by the file's size: no zip bomb. The loaded model must then be a fitted
classifier whose arrays agree with each other (:mod:`.checks`). See
docs/saving.md.
"""

import json
import os
import tempfile
import warnings
import zipfile
import zlib
from collections import Counter
from pathlib import Path

import numpy as np

from .._version import __version__
from ..errors import ModelFileError
from .checks import InconsistentModel, check_model, check_savable
from .encoding import Decoder, Encoder

FORMAT = "fdlsr-model"
FORMAT_VERSION = 1
MANIFEST = "model.json"
#: The largest manifest read. Arrays are members of their own, so a model's manifest
#: holds parameters and short lists (a few kilobytes; a search's record of a large
#: grid, some megabytes); decoded, JSON takes up to some 20 times its size.
MANIFEST_LIMIT = 16 * 2**20
_SAVE_HINT = "save the model with fdlsr.save(model, path) or `fdlsr fit`"


def save(model, path):
    """Write the fitted ``model`` to the model file ``path``.

    ``model`` is an estimator of this package (any method of ``fdlsr methods``,
    ``FDLSR``, ``FDLSRCV``) or a scikit-learn ``Pipeline`` of allowed preprocessing
    steps ending in one. Arrays of another library (a PyTorch tensor of a model
    fitted on a GPU) are saved as NumPy arrays: the loaded model predicts on NumPy
    input. The file is written whole or not at all.

    Raises :class:`~fdlsr.errors.ModelFileError` for a model that is not a fitted
    classifier (or a ``Pipeline`` of transformers ending in one), and for a part of
    the model that has no safe representation (e.g. a class outside the allowlist, a
    callable).

    Parameters
    ----------
    model : estimator
        A fitted classifier of this package, or a ``Pipeline`` ending in one.
    path : str or path-like
        The model file to write (conventionally ``*.fdlsr``).

    Returns
    -------
    path : pathlib.Path
        The file written.
    """
    path = Path(path)
    if path.exists() and not path.is_file():
        # the file is written beside and renamed over: never over a device or folder
        raise ModelFileError(
            f"{path} exists and is not a regular file; give the path of a model file"
        )
    writer = Encoder()
    tree = writer.encode(model, "model")
    check_savable(model)
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
    archive...), a truncated, corrupt or compressed one, an unknown format version, a
    class outside the allowlist, and a model that is not a fitted classifier or whose
    arrays contradict each other (:func:`~.checks.check_model`). Warns when the
    file was written by another fdlsr version (scikit-learn warns likewise for its
    own version).

    Parameters
    ----------
    path : str or path-like
        A model file written by :func:`save` (or ``fdlsr fit``).

    Returns
    -------
    model : estimator
        The fitted model, ready to ``predict``.
    """
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
            _check_members(archive, path)
            manifest = _read_manifest(archive, path)
            _check_version(manifest, path, __version__)
            decoder = Decoder(archive)
            try:
                model = decoder.decode(manifest["model"])
            except ModelFileError as error:  # a class it refuses: name the file
                raise ModelFileError(f"{path}: {error}") from None
        check_model(model, decoder.objects, budget=path.stat().st_size)
        return model
    except ModelFileError:
        raise
    except InconsistentModel as error:
        raise ModelFileError(
            f"{path} does not hold a usable model: {_one_line(error)}; the file was "
            "altered or damaged: save the model again"
        ) from None
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


def _check_members(archive, path):
    """Refuse an archive that is not a model file's shape: no manifest, a member named
    twice (which one counts would be a guess), or a member that is compressed or
    declares other sizes than the bytes it has in the file (whatever its header says,
    no member then makes loading allocate more than the file holds)."""
    infos = archive.infolist()
    names = Counter(info.filename for info in infos)
    if MANIFEST not in names:
        raise ModelFileError(
            f"{path} is a zip archive but not an fdlsr model file (it has no "
            f"{MANIFEST}); {_SAVE_HINT}"
        )
    twice = [name for name, count in names.items() if count > 1]
    if twice:
        raise ModelFileError(
            f"{path} holds two members named {twice[0][:60]!r}; fdlsr.save writes each "
            "once: the file was altered, save the model again"
        )
    size = path.stat().st_size
    for info in infos:
        if info.compress_type != zipfile.ZIP_STORED:
            raise ModelFileError(
                f"{path}: its member {info.filename[:60]!r} is compressed; fdlsr.save "
                "stores every member as is (a compressed member can expand without "
                "bound): save the model again"
            )
        if not info.file_size == info.compress_size <= size:
            raise ModelFileError(
                f"{path}: its member {info.filename[:60]!r} declares "
                f"{info.file_size} bytes but holds {min(info.compress_size, size)}; "
                "the file is damaged: save the model again"
            )


def _read_manifest(archive, path):
    info = archive.getinfo(MANIFEST)
    if info.file_size > MANIFEST_LIMIT:
        raise ModelFileError(
            f"{path}: its {MANIFEST} declares {info.file_size} bytes, more than a "
            f"model's ({MANIFEST_LIMIT} at most); save the model again"
        )
    with archive.open(info) as member:
        text = member.read(info.file_size + 1)  # a hard cap: headers can lie
    if len(text) != info.file_size:
        raise ModelFileError(
            f"{path}: its {MANIFEST} holds other than the {info.file_size} bytes it "
            "declares; the file is damaged: save the model again"
        )
    try:
        manifest = json.loads(text, object_pairs_hook=_unique_keys)
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


def _unique_keys(pairs):
    """A JSON object as a dict, refusing a key given twice (which value counts would
    be a guess)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a JSON object names a key twice")
    return out


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


def _sklearn_version():
    import sklearn

    return sklearn.__version__


def _one_line(error):
    return " ".join(str(error).split())[:200]
