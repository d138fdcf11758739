"""Saving fitted models to a file that holds data only, and loading them back.

A model file is a zip archive: ``model.json`` (the format's name and version, the
versions that wrote it, the record of the samples the model takes, see
:mod:`.contract`, and the model as a tree of plain JSON values, see
:mod:`.encoding`) and one uncompressed ``.npy`` member per NumPy array, each named
by the tree. Loading rebuilds the objects from an allowlist of classes and reads the
arrays with ``allow_pickle=False``; nothing in the file is imported or executed.
This is why neither pickle nor joblib is used: unpickling runs whatever callable the
file names.

Every member is stored, not compressed, and none is read beyond the size it declares
(the manifest at most :data:`MANIFEST_LIMIT` bytes), so what loading allocates is
bounded by the file's size: no zip bomb. The loaded model must then be a fitted
classifier whose arrays agree with each other (:mod:`.checks`). Saving reads the
file it wrote back with the same code before it takes the place of ``path``, so
that ``save`` never writes what ``load`` refuses. See docs/saving.md.
"""

import errno
import json
import os
import tempfile
import warnings
import zipfile
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._common import strict_json
from .._common.files import open_input
from .._common.messages import cut, one_line, quote
from .._common.ownership import may_replace, record_written
from .._common.strict_json import JSONError, RepeatedKeyError
from .._version import __version__
from ..errors import ModelFileError
from ._checks import InconsistentModel, check_model, check_savable
from ._contract import InputContract, contract_for
from ._encoding import Decoder, Encoder

FORMAT = "fdlsr-model"
#: 2: the record of the samples the model takes (``"input"``); members only the
#: model names.
FORMAT_VERSION = 2
MANIFEST = "model.json"
#: The largest manifest read. Arrays are members of their own, so a model's manifest
#: holds parameters and short lists (a few kilobytes; a search's record of a large
#: grid, some megabytes); decoded, JSON takes up to some 20 times its size.
MANIFEST_LIMIT = 16 * 2**20
_SAVE_HINT = "save the model with fdlsr.save(model, path) or `fdlsr fit`"
#: What goes wrong in a file that is not a model file's shape, beyond the zip.
_DAMAGE = (
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
)


@dataclass(frozen=True)
class ModelFile:
    """What a model file holds, as :func:`read_model_file` returns it.

    Parameters
    ----------
    model : estimator
        The fitted model, ready to ``predict``.
    input : InputContract
        The record of the samples it takes (:mod:`.contract`).
    """

    model: object
    input: InputContract


def save(model, path, *, input_contract=None, overwrite=False):
    """Write the fitted ``model`` to the model file ``path``.

    ``model`` is an estimator of this package (any method of ``fdlsr methods``,
    ``FDLSR``, ``FDLSRCV``) or a scikit-learn ``Pipeline`` of allowed preprocessing
    steps ending in one. Arrays of another library (a PyTorch tensor of a model
    fitted on a GPU) are saved as NumPy arrays: the loaded model predicts on NumPy
    input. The file records what the model takes (:mod:`.contract`): its number of
    features, their names where the model has ``feature_names_in_`` (fitted on a
    pandas DataFrame), the kind of its labels, and what ``input_contract`` adds.

    The file is written whole or not at all, and read back as :func:`load` reads
    it before it takes the place of ``path``: what ``load`` would refuse is
    refused here, with the reason. A symbolic link is written through: the file it
    points to is replaced, the link kept. An existing file is replaced only if fdlsr
    wrote it and it is unchanged since, or it is empty (the rule of
    :mod:`fdlsr._common.ownership`: the file written is recorded in its folder's
    ``.fdlsr-outputs.json``); any other only with ``overwrite=True``, so that a slip
    of the path does not cost the user a file of their own.

    Raises :class:`~fdlsr.errors.ModelFileError` for a model that is not a fitted
    classifier (or a ``Pipeline`` of transformers ending in one), one that could not
    predict once loaded (an ``FDLSRCV(refit=False)``, which fitted no model), a
    part of the model that has no safe representation (e.g. a class outside the
    allowlist, a callable), and an ``input_contract`` that contradicts the model.

    Parameters
    ----------
    model : estimator
        A fitted classifier of this package, or a ``Pipeline`` ending in one.
    path : str or path-like
        The model file to write (conventionally ``*.fdlsr``).
    input_contract : InputContract, optional
        What the samples the model was fitted on were (column names, image size,
        resizing), for ``fdlsr predict`` to apply; ``fdlsr fit`` gives it.
    overwrite : bool, default=False
        Replace ``path`` even if fdlsr did not write it (``fdlsr fit --force``).

    Returns
    -------
    path : pathlib.Path
        The file written.
    """
    path = Path(path)
    # the file is written beside its target and renamed over it: through a link
    target = Path(os.path.realpath(path)) if os.path.islink(path) else path
    if target.exists() and not target.is_file():
        # never over a device or folder
        raise ModelFileError(
            f"{path} exists and is not a regular file; give the path of a model file"
        )
    if not overwrite and not may_replace(target):  # the command line's rule
        raise ModelFileError(
            f"{path} exists and fdlsr did not write it (or it was changed since); "
            "nothing was written: give another path, or overwrite=True to replace it"
        )
    if not target.parent.is_dir():
        raise ModelFileError(
            f"cannot save the model to {path}: the folder {target.parent} does not "
            "exist; create it or give another path"
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
        "input": contract_for(model, input_contract).to_json(),
        "model": tree,
    }
    text = json.dumps(manifest, indent=1).encode()
    if len(text) > MANIFEST_LIMIT:
        raise ModelFileError(
            f"cannot save the model: its {MANIFEST} would take {len(text)} bytes, "
            f"more than a model file's ({MANIFEST_LIMIT} at most; a search's record "
            "of a very large grid, or a table of very many named columns); save the "
            "refitted model, or fit on a NumPy array"
        )
    try:
        fd, tmp = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
        )
    except OSError as error:
        raise ModelFileError(
            f"cannot save the model to {path}: {error.strerror} (in the folder "
            f"{target.parent}); give another path"
        ) from None
    os.close(fd)
    try:
        # Stored, not compressed: saving and loading cost what pickle's do (DEFLATE
        # costs far more time than it saves space: benchmarks/README.md), and every
        # size a member declares is then bytes really in the file, which bounds what
        # loading allocates.
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED) as archive:
            archive.writestr(MANIFEST, text)
            for name, array in writer.arrays.items():
                with archive.open(name, "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, array, allow_pickle=False)
        _check_saved(Path(tmp), path)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    record_written(target)
    return path


def _check_saved(written, path):
    """Read the file just written as :func:`load` reads it: a model that ``load``
    refuses is refused here, with the reason (one code for both, so the two cannot
    disagree)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scikit-learn's notes of the probe
            with open(written, "rb") as handle:
                _read(handle, path)
    except InconsistentModel as error:
        raise ModelFileError(
            f"cannot save the model: {one_line(error)} (fdlsr.load would refuse its "
            "file)"
        ) from None
    except (
        ModelFileError,
        zipfile.BadZipFile,
        EOFError,
        zlib.error,
        *_DAMAGE,
    ) as error:
        raise ModelFileError(
            f"cannot save the model: read back, its file would be refused "
            f"({type(error).__name__}: {one_line(error)})"
        ) from None


def load(path):
    """The model saved in ``path`` by :func:`save`.

    Raises :class:`~fdlsr.errors.ModelFileError` (one line, naming the problem) for
    a missing file, a file that is not an fdlsr model (a pickle, an image, a NumPy
    archive...), a truncated, corrupt or compressed one, an unknown format version, a
    class outside the allowlist, a member that the model does not name, and a model
    that is not a fitted classifier, whose arrays contradict each other
    (:func:`~.checks.check_model`) or its record of the samples it takes
    (:mod:`.contract`). Warns when the file was written by another fdlsr version
    (scikit-learn warns likewise for its own version).

    Parameters
    ----------
    path : str or path-like
        A model file written by :func:`save` (or ``fdlsr fit``).

    Returns
    -------
    model : estimator
        The fitted model, ready to ``predict``.
    """
    return read_model_file(path).model


def read_model_file(path):
    """The model saved in ``path`` and the record of the samples it takes, checked
    as :func:`load` checks them.

    Parameters
    ----------
    path : str or path-like
        A model file written by :func:`save` (or ``fdlsr fit``).

    Returns
    -------
    ModelFile
        ``model`` and ``input`` (an :class:`~.contract.InputContract`).
    """
    path = Path(path)
    if not path.exists():
        raise ModelFileError(f"model file {path} not found; check the path")
    if path.is_dir():
        raise ModelFileError(f"{path} is a folder; give the path of a model file")
    # a regular file only: a pipe or a device (/dev/zero) would be read for ever
    with open_input(path, error=ModelFileError, what="model file") as handle:
        return _read_checked(handle, path)


def _read_checked(handle, path):
    """:func:`_read`, every way a file can fail to be a model file refused in one
    line naming ``path``."""
    if not zipfile.is_zipfile(handle):
        raise ModelFileError(
            f"{path} is not an fdlsr model file ({_what_is(handle)}); {_SAVE_HINT}"
        )
    try:
        return _read(handle, path)
    except ModelFileError:
        raise
    except InconsistentModel as error:
        raise ModelFileError(
            f"{path} does not hold a usable model: {one_line(error)}; the file was "
            "altered or damaged: save the model again"
        ) from None
    except (zipfile.BadZipFile, EOFError, zlib.error) as error:
        raise ModelFileError(
            f"{path} is truncated or corrupt ({one_line(error)}); save the model again"
        ) from None
    except OSError as error:
        if error.errno != errno.EINVAL:  # a seek outside the file: damage
            raise
        raise ModelFileError(
            f"{path} is truncated or corrupt (a position outside the file); save the "
            "model again"
        ) from None
    except _DAMAGE as error:
        raise ModelFileError(
            f"{path} is a damaged fdlsr model file ({type(error).__name__}: "
            f"{one_line(error)}); save the model again"
        ) from None


def _read(file, path):
    """The :class:`ModelFile` in the zip archive ``file`` (open, binary), called
    ``path`` in messages. Raises :class:`ModelFileError` for what is not a model
    file's shape, :class:`InconsistentModel` for a model that is not usable, and the
    errors of :data:`_DAMAGE` (or zipfile's) for a damaged file."""
    size = os.fstat(file.fileno()).st_size
    with zipfile.ZipFile(file) as archive:
        _check_members(archive, path, size)
        manifest = _read_manifest(archive, path)
        _check_version(manifest, path, __version__)
        decoder = Decoder(archive)
        try:
            model = decoder.decode(manifest["model"])
        except ModelFileError as error:  # a class it refuses: name the file
            raise ModelFileError(f"{path}: {error}") from None
    check_model(model, decoder.objects, budget=size)
    contract = InputContract.from_json(manifest.get("input"))
    contract.check(model)
    _check_all_used(decoder, path)
    return ModelFile(model=model, input=contract)


def _check_all_used(decoder, path):
    """Refuse a member that the model does not name: ``fdlsr.save`` writes only the
    model's arrays, so anything else was added to the file (and would be carried
    along unseen)."""
    unused = sorted(decoder.members - decoder.read - {MANIFEST})
    if unused:
        more = f" (and {len(unused) - 1} more)" if len(unused) > 1 else ""
        raise ModelFileError(
            f"{path} holds the member {quote(unused[0])}{more}, which its model does "
            "not name; fdlsr.save writes only the model's: the file was altered, save "
            "the model again"
        )


def _check_members(archive, path, size):
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
            f"{path} holds two members named {quote(twice[0])}; fdlsr.save writes "
            "each once: the file was altered, save the model again"
        )
    for info in infos:
        if info.compress_type != zipfile.ZIP_STORED:
            raise ModelFileError(
                f"{path}: its member {quote(info.filename)} is compressed; fdlsr.save "
                "stores every member as is (a compressed member can expand without "
                "bound): save the model again"
            )
        if not 0 <= info.header_offset < size:
            raise ModelFileError(
                f"{path}: its member {quote(info.filename)} is said to start at byte "
                f"{info.header_offset}, outside the file's {size}; the file is "
                "damaged: save the model again"
            )
        if not info.file_size == info.compress_size <= size:
            raise ModelFileError(
                f"{path}: its member {quote(info.filename)} declares "
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
        # NaN and infinities allowed: json.dumps writes a model's non-finite floats
        manifest = strict_json.loads(text, allow_nan=True)
    except RepeatedKeyError as error:
        raise ModelFileError(
            f"{path}: {MANIFEST} is altered ({one_line(error)}; fdlsr.save writes "
            "each once): save the model again"
        ) from None
    except JSONError as error:
        raise ModelFileError(
            f"{path}: {MANIFEST} is {one_line(error)}; the file is "
            "damaged: save the model again"
        ) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ModelFileError(
            f"{path} is a zip archive but not an fdlsr model file (its {MANIFEST} "
            f"does not say format {FORMAT!r}); {_SAVE_HINT}"
        )
    return manifest


def _check_version(manifest, path, current):
    """Refuse a format version other than this one; warn of another fdlsr version.
    Every value quoted from the file is cut short (:func:`~fdlsr._common.messages.quote`)."""
    version = manifest.get("format_version")
    if version != FORMAT_VERSION or type(version) is not int:
        saved = manifest.get("fdlsr_version")
        raise ModelFileError(
            f"{path} has model format version {quote(version)}, which this fdlsr "
            f"({current}) does not know (it reads version {FORMAT_VERSION}); load it "
            "with the fdlsr version that saved it"
            + (f" ({cut(saved)})" if saved is not None else "")
        )
    saved = manifest.get("fdlsr_version")
    if saved != current:
        warnings.warn(
            f"{path} was saved by fdlsr {cut(saved)} and is loaded by fdlsr "
            f"{current}; check its predictions, or save it again with this version",
            UserWarning,
            stacklevel=5,  # the caller of load
        )


def _what_is(handle):
    """What a file (open, binary) that is not a zip archive looks like, from its
    first bytes."""
    handle.seek(0)
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
