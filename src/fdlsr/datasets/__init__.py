"""TEMPORARY stand-in for ``fdlsr.datasets`` (being written on its own branch).

Implements only the part of the agreed API the experiments need: the embedded
``digits`` and the ``.mat`` files described by a ``MANIFEST.json`` in ``data_dir``.
It is replaced wholesale when the real module is merged.
"""

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import DatasetError


@dataclass
class Dataset:
    X: np.ndarray
    y: np.ndarray
    name: str
    image_shape: tuple | None = None
    order: str = "C"
    fixed_split: tuple | None = None
    description: str = ""


def _data_dir(data_dir):
    if data_dir is not None:
        return Path(data_dir)
    return Path(os.environ.get("FDLSR_DATA_DIR", "data"))


def _manifest(data_dir):
    path = _data_dir(data_dir) / "MANIFEST.json"
    if not path.exists():
        raise DatasetError(
            f"no MANIFEST.json in {path.parent}; pass --data-dir DIR with the data files"
        )
    return json.loads(path.read_text())


def load_dataset(name_or_path, *, data_dir=None, verify=True, **_):
    if name_or_path == "digits":
        from sklearn.datasets import load_digits

        X, y = load_digits(return_X_y=True)
        return Dataset(
            X.astype(np.float64), y, "digits", (8, 8), "C", None, "scikit-learn digits"
        )
    manifest = _manifest(data_dir)
    if name_or_path not in manifest:
        raise DatasetError(
            f"unknown dataset {name_or_path!r}; choose from: digits, "
            + ", ".join(manifest)
        )
    import scipy.io

    entry = manifest[name_or_path]
    path = _data_dir(data_dir) / entry["file"]
    if not path.exists():
        raise DatasetError(f"{path} not found; pass --data-dir DIR holding it")
    mat = scipy.io.loadmat(path)
    X = np.asarray(mat[entry["x"]], dtype=np.float64)
    if entry["samples"] == "columns":
        X = X.T
    y = np.asarray(mat[entry["y"]]).ravel().astype(int)
    return Dataset(
        np.ascontiguousarray(X),
        y,
        name_or_path,
        tuple(entry["image_shape"]),
        entry["order"],
        None,
        entry.get("paper", ""),
    )


def list_datasets():
    return ["digits"]


def dataset_info(name):
    return {"name": name}
