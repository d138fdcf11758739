"""The chunks of an unfinished feature extraction, kept to resume it.

``fdlsr features -o OUTPUT`` writes the features of each ``chunk_size`` images as they
finish to ``OUTPUT.parts/chunk-NNNNN.npz``, with the sha256 of every image file the
rows were made from; ``run.json`` there names the model, layer, weights, preprocessing,
chunk size and file list. A rerun keeps a chunk only when its images' contents are
unchanged, whatever their names, sizes and modification times say.
"""

import hashlib
import json
import os
import warnings

import numpy as np

from .._common import strict_json
from .._common.files import sha256
from .._common.strict_json import JSONError
from ..errors import ConfigError, DatasetError

IDENTITY = ("model", "layer", "weights", "preprocessing")


def start(parts, record, names, chunk_size):
    """Create ``parts``, or check that the chunks there came from the same settings."""
    identity = {key: record[key] for key in IDENTITY}
    identity["chunk_size"] = chunk_size
    identity["files"] = hashlib.sha256("\n".join(names).encode()).hexdigest()
    run = parts / "run.json"
    if run.is_file():
        try:
            before = strict_json.loads(run.read_bytes())
        except (OSError, JSONError):
            before = None
        if not isinstance(before, dict):
            raise ConfigError(
                f"{run} cannot be read, so the chunks beside it cannot be trusted; "
                f"delete the folder {parts} and run again"
            )
        if before != identity:
            changed = sorted(k for k in identity if before.get(k) != identity[k])
            raise ConfigError(
                f"{parts} holds chunks of another extraction ({', '.join(changed)} "
                "differ); rerun with the same settings to resume, or delete the folder"
            )
        return
    parts.mkdir(parents=True, exist_ok=True)
    tmp = run.with_name(run.name + ".tmp")
    tmp.write_text(json.dumps(identity, indent=1))
    os.replace(tmp, run)


def chunk_path(parts, index):
    return parts / f"chunk-{index:05d}.npz"


def save(parts, index, rows, digests):
    """The features of a chunk's images with the sha256 of each image file."""
    path = chunk_path(parts, index)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, features=rows, sha256=np.array(digests, dtype=str))
    os.replace(tmp, path)


def read(parts, index):
    """The rows and the sha256s of the files saved in chunk ``index``."""
    with np.load(chunk_path(parts, index), allow_pickle=False) as saved:
        return saved["features"], saved["sha256"]


def kept(parts, images, bounds, notice=None):
    """The indices of the chunks in ``parts`` made from the images as they are now.

    ``bounds`` are the ``(lo, hi)`` image ranges of the chunks. A chunk is kept only
    when each of its files has the sha256 recorded with it; one with a changed (or
    unreadable) image, or that cannot be read itself, is left to recompute, and
    ``notice`` (default: a warning) is told how many and why, in one line.
    """
    found, changed, damaged = set(), [], 0
    for index, (lo, hi) in enumerate(bounds):
        if not chunk_path(parts, index).is_file():
            continue
        try:
            rows, recorded = read(parts, index)
        except Exception:  # a damaged chunk is recomputed, whatever broke
            damaged += 1
            continue
        if rows.ndim != 2 or rows.shape[0] != hi - lo or recorded.shape != (hi - lo,):
            damaged += 1
            continue
        now = [_sha256_or_none(f) for f in images.files[lo:hi]]
        names = images.names[lo:hi]
        differ = [n for n, a, b in zip(names, now, recorded, strict=True) if a != b]
        if differ:
            changed.append(differ)
        else:
            found.add(index)
    if changed or damaged:
        message = (
            f"{parts}: {len(changed) + damaged} of {len(bounds)} chunks recomputed: "
        )
        message += "; ".join(_why(changed, damaged))
        if notice is None:
            warnings.warn(message, stacklevel=3)
        else:
            notice(message)
    return found


def _why(changed, damaged):
    if changed:
        n = sum(len(c) for c in changed)
        written = "their chunks were" if len(changed) > 1 else "its chunk was"
        yield (
            f"{n} image{'s' if n > 1 else ''} changed since {written} written "
            f"(first: {changed[0][0]})"
        )
    if damaged:
        yield f"{damaged} could not be read"


def remove(parts, only_if_empty=False):
    """Remove ``parts`` (its chunks and run.json), or only a folder with no chunks."""
    chunks = list(parts.glob("chunk-*"))
    if only_if_empty and chunks:
        return
    for path in [*chunks, parts / "run.json"]:
        path.unlink(missing_ok=True)
    try:
        parts.rmdir()
    except OSError:  # files of the user's own in it: leave them
        pass


def file_sha256(path):
    """The sha256 of an image file, or the one-line error of an unreadable one."""
    try:
        return sha256(path)
    except OSError as exc:
        raise DatasetError(
            f"cannot read the image {path} ({exc.strerror or exc}); replace or "
            "remove the file"
        ) from None


def _sha256_or_none(path):
    try:
        return sha256(path)
    except OSError:
        return None
