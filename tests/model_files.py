"""Taking model files apart and putting them back together, for the tests that craft
damaged or hostile ones (test_model_file_reader.py, test_model_checks.py)."""

import json
import zipfile

import numpy as np
import pytest

import fdlsr
from fdlsr.errors import ModelFileError

MANIFEST = "model.json"


def parts(path):
    """``(manifest, arrays)`` of a model file: the decoded ``model.json`` and every
    ``.npy`` member by name."""
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read(MANIFEST))
        arrays = {
            name: np.lib.format.read_array(archive.open(name))
            for name in archive.namelist()
            if name.endswith(".npy")
        }
    return manifest, arrays


def pack(path, manifest, arrays=None, compression=zipfile.ZIP_STORED, text=None):
    """Write a model file of ``manifest`` (or the raw manifest ``text``) and
    ``arrays`` (name: array, or name: raw bytes of the member)."""
    with zipfile.ZipFile(path, "w", compression) as archive:
        archive.writestr(MANIFEST, json.dumps(manifest) if text is None else text)
        for name, array in (arrays or {}).items():
            if isinstance(array, bytes):
                archive.writestr(name, array)
                continue
            with archive.open(name, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)
    return path


def state(manifest, *path):
    """The state of the object at ``path`` (attribute names, step indexes) of the
    manifest's model tree."""
    node = manifest["model"]
    for key in path:
        if isinstance(key, int):  # a Pipeline step: (name, estimator)
            node = node["state"]["steps"][key]["$tuple"][1]
        else:
            node = node["state"][key]
    return node["state"]


def refused(path, *match):
    """``fdlsr.load(path)`` raises a one-line ModelFileError containing ``match``;
    the message is returned."""
    with pytest.raises(ModelFileError) as info:
        fdlsr.load(path)
    message = str(info.value)
    assert message and "\n" not in message, message
    for text in match:
        assert text in message, message
    return message
