"""The registry: the real files of FDLSR_DATA_DIR, checksums, names and messages."""

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
import scipy.io

from fdlsr._testing import load_shared
from fdlsr.datasets import _registry, dataset_info, list_datasets, load_dataset
from fdlsr.errors import DatasetError
from real_data import DATA_DIR, MANIFEST_PATH, needs_data

SHARED = ["feret", "orl", "yale", "extended_yaleb", "coil20", "pie_subset",
          "ar_nonoccluded", "usps"]  # fmt: skip
FACES = ["feret", "orl", "yale", "extended_yaleb", "pie_subset", "ar_nonoccluded"]


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Each test hashes into its own cache, so no test sees another's digests."""
    monkeypatch.setenv("FDLSR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(_registry, "_MEMORY", {})


def message(excinfo):
    text = str(excinfo.value)
    assert "\n" not in text and isinstance(excinfo.value, ValueError)
    return text


def manifest():
    return json.loads(MANIFEST_PATH.read_text())


def test_registry_entries_are_complete():
    entries = list_datasets()
    names = [e["name"] for e in entries]
    assert len(names) == len(set(names))
    for wanted in [*SHARED, "ar", "pie", "lfw", "coil100", "mnist", "digits"]:
        assert wanted in names
    for e in entries:
        for key in ("file", "description", "n_samples", "n_features", "n_classes",
                    "image_shape", "sha256", "paper", "obtain"):  # fmt: skip
            assert key in e, (e["name"], key)
        assert e["description"] and e["obtain"] and e["paper"]
        assert e["loader"] in ("file", "sklearn", "embedded")
        assert (e["file"] is None) == (e["loader"] == "sklearn")
        assert e["loader"] != "embedded" or e["sha256"]  # always checked
        assert e["sha256"] is None or len(e["sha256"]) == 64


@needs_data
def test_registry_copies_the_manifest():
    entries = {e["name"]: e for e in list_datasets()}
    for name, m in manifest().items():
        e = entries[name]
        for key in ("file", "x", "y", "samples", "image_shape", "order", "sha256",
                    "n_samples", "n_features", "n_classes", "per_class_min",
                    "per_class_max", "label_min", "label_max"):  # fmt: skip
            assert e[key] == m[key], (name, key)


@needs_data
@pytest.mark.parametrize("name", SHARED)
def test_shared_files_load_with_the_manifest_shape(name):
    m = manifest()[name]
    ds = load_dataset(name, data_dir=DATA_DIR)
    assert ds.X.shape == (m["n_samples"], m["n_features"])
    assert ds.n_classes == m["n_classes"]
    assert (ds.y.min(), ds.y.max()) == (m["label_min"], m["label_max"])
    counts = np.unique(ds.y, return_counts=True)[1]
    assert (counts.min(), counts.max()) == (m["per_class_min"], m["per_class_max"])
    assert ds.image_shape == tuple(m["image_shape"]) and ds.order == m["order"]
    assert ds.X.dtype == np.float64 and ds.y.dtype == np.int64
    # The same numbers as the plain scipy transcription of the manifest in _testing,
    # and as the file read by path with automatic layout detection.
    X, y = load_shared(name, DATA_DIR)
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.y, y)
    auto = load_dataset(DATA_DIR / m["file"])
    np.testing.assert_array_equal(auto.X, X)
    np.testing.assert_array_equal(auto.y, y)
    info = dataset_info(name, data_dir=DATA_DIR)
    assert info["present"] and info["verified"] is True


def neighbour_correlation(images):
    """Correlation of horizontally and vertically adjacent pixels."""
    h = np.corrcoef(images[:, :, :-1].ravel(), images[:, :, 1:].ravel())[0, 1]
    v = np.corrcoef(images[:, :-1, :].ravel(), images[:, 1:, :].ravel())[0, 1]
    return h, v


@needs_data
def test_feret_row_reshaped_column_major_is_an_upright_face():
    ds = load_dataset("feret", data_dir=DATA_DIR)
    assert ds.image_shape == (40, 40) and ds.order == "F"
    face = ds.X[0].reshape(40, 40, order="F")
    np.testing.assert_array_equal(ds.images()[0], face)
    assert min(neighbour_correlation(face[None])) > 0.8
    # A face is roughly left-right symmetric, not top-bottom: this tells the right
    # flattening order from its transpose (which the other order would give).
    mean = ds.images().mean(axis=0)
    mirror = np.corrcoef(mean.ravel(), mean[:, ::-1].ravel())[0, 1]
    upside = np.corrcoef(mean.ravel(), mean[::-1].ravel())[0, 1]
    assert mirror > upside + 0.2


@needs_data
@pytest.mark.parametrize("name", SHARED)
def test_every_shared_set_reshapes_to_images(name):
    ds = load_dataset(name, data_dir=DATA_DIR)
    images = ds.images()
    assert min(neighbour_correlation(images[:300])) > 0.75
    if name in FACES:  # upright, not transposed (see the FERET test)
        mean = images.mean(axis=0)
        mirror = np.corrcoef(mean.ravel(), mean[:, ::-1].ravel())[0, 1]
        upside = np.corrcoef(mean.ravel(), mean[::-1].ravel())[0, 1]
        assert mirror > upside + 0.1


def test_data_dir_from_the_environment(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    (tmp_path / "coil100").mkdir()
    scipy.io.savemat(
        tmp_path / "coil100" / "COIL100.mat",
        {"fea": rng.random((8, 1024)), "gnd": np.arange(8) % 2 + 1},
    )
    monkeypatch.setenv("FDLSR_DATA_DIR", str(tmp_path))
    ds = load_dataset("coil100", verify=False)
    assert ds.X.shape == (8, 1024) and ds.image_shape == (32, 32) and ds.order == "F"
    assert ds.name == "coil100" and "COIL-100" in ds.description
    # verify=True compares the file with what the registry says it holds.
    with pytest.raises(DatasetError) as excinfo:
        load_dataset("COIL-100".replace("-", ""))
    text = message(excinfo)
    assert (
        "n_samples 8 (expected 7200)" in text and "n_classes 2 (expected 100)" in text
    )


def test_missing_registry_file_says_where_and_how(tmp_path, monkeypatch):
    monkeypatch.delenv("FDLSR_DATA_DIR", raising=False)
    with pytest.raises(DatasetError) as excinfo:
        load_dataset("feret", data_dir=tmp_path)
    text = message(excinfo)
    assert str(tmp_path / "feret" / "FERET.mat") in text
    assert "--data-dir" in text and "FDLSR_DATA_DIR" in text
    assert "yinhefeng/Score-level-fusion-of-LRC-and-NRC" in text
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DatasetError, match=r"\./data, the default"):
        load_dataset("orl")
    info = dataset_info("orl")
    assert info["present"] is False and "file not found" in info["problem"]


def test_alternative_file_names(tmp_path):
    """The FDLSR authors' own copy of the AR features is accepted in place of
    LC-KSVD's (the registry's sizes are still checked)."""
    rng = np.random.default_rng(0)
    (tmp_path / "ar").mkdir()
    y = np.repeat(np.arange(1, 101), 26)
    scipy.io.savemat(
        tmp_path / "ar" / "randomprojection_AR.mat",
        {"DATA": rng.normal(size=(540, 2600)), "Label": y.reshape(1, -1)},
    )
    ds = load_dataset("ar", data_dir=tmp_path)
    assert ds.X.shape == (2600, 540) and ds.n_classes == 100


def test_checksum_mismatch(tmp_path):
    (tmp_path / "orl").mkdir()
    scipy.io.savemat(
        tmp_path / "orl" / "ORL_32x32.mat",
        {"fea": np.ones((4, 1024)), "gnd": np.array([1, 1, 2, 2])},
    )
    with pytest.raises(DatasetError) as excinfo:
        load_dataset("orl", data_dir=tmp_path)
    text = message(excinfo)
    assert "checksum mismatch" in text and "c30cb53be2ca" in text
    assert "verify=False" in text
    assert load_dataset("orl", data_dir=tmp_path, verify=False).n_samples == 4
    info = dataset_info("orl", data_dir=tmp_path)
    assert info["present"] is True and info["verified"] is False


@needs_data
def test_checksum_is_cached_by_size_and_mtime(tmp_path, monkeypatch):
    src = DATA_DIR / "yale" / "Yale_32x32.mat"
    (tmp_path / "yale").mkdir()
    copy = tmp_path / "yale" / "Yale_32x32.mat"
    shutil.copyfile(src, copy)
    calls = []
    real = _registry.sha256_file
    monkeypatch.setattr(_registry, "sha256_file", lambda p: calls.append(p) or real(p))
    load_dataset("yale", data_dir=tmp_path)
    load_dataset("yale", data_dir=tmp_path)
    assert len(calls) == 1
    monkeypatch.setattr(_registry, "_MEMORY", {})  # a new process: the JSON cache
    load_dataset("yale", data_dir=tmp_path)
    assert len(calls) == 1 and _registry.cache_file().exists()
    # A changed file (same size, new bytes and mtime) is hashed again and refused.
    data = bytearray(copy.read_bytes())
    data[-1] ^= 0xFF
    copy.write_bytes(bytes(data))
    stat = copy.stat()
    os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    with pytest.raises(DatasetError, match="checksum mismatch"):
        load_dataset("yale", data_dir=tmp_path)
    assert len(calls) == 2


def test_unknown_name_lists_the_registry():
    with pytest.raises(DatasetError) as excinfo:
        load_dataset("ferret")
    text = message(excinfo)
    assert "unknown data set 'ferret'" in text
    for name in ("feret", "orl", "digits", "coil100"):
        assert name in text
    with pytest.raises(DatasetError, match="unknown data set"):
        dataset_info("ferret")


def test_names_are_forgiving_and_sklearn_entries_report_their_cache():
    assert load_dataset("Digits").name == "digits"
    info = dataset_info("digits")
    assert info["present"] is True and info["n_samples"] == 1797
    assert dataset_info("EXTENDED-YALEB")["name"] == "extended_yaleb"


def test_documentation_lists_every_registry_entry():
    docs = (Path(__file__).resolve().parents[1] / "docs" / "datasets.md").read_text()
    for e in list_datasets():
        assert f"| `{e['name']}` |" in docs, e["name"]


def test_embedded_faces_load_verified_without_a_data_folder(tmp_path, monkeypatch):
    """The AT&T faces shipped in the package: no data folder needed, checksum checked."""
    monkeypatch.delenv("FDLSR_DATA_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    ds = load_dataset("faces")
    assert ds.X.shape == (400, 1024) and ds.n_classes == 40
    assert ds.image_shape == (32, 32) and ds.order == "C"
    assert np.bincount(ds.y.astype(int))[1:].tolist() == [10] * 40
    assert 0 <= ds.X.min() and ds.X.max() <= 255
    info = dataset_info("faces")
    assert info["present"] is True and info["verified"] is True
    entry = next(e for e in list_datasets() if e["name"] == "faces")
    assert _registry.sha256_file(info["path"]) == entry["sha256"]
    notice = Path(info["path"]).with_name("README.md").read_text()
    assert entry["sha256"] in notice and "AT&T Laboratories Cambridge" in notice


def test_embedded_faces_with_a_changed_file_are_refused(tmp_path, monkeypatch):
    from fdlsr.datasets import _registry

    copy = tmp_path / "orl_32x32.npz"
    data = dict(np.load(_registry.embedded_path(_registry.require("faces"))))
    data["X"][0, 0] ^= 1
    np.savez_compressed(copy, **data)
    monkeypatch.setattr(_registry, "embedded_path", lambda entry: copy)
    with pytest.raises(DatasetError, match="checksum mismatch"):
        load_dataset("faces", verify=False)  # the package's own copy: always checked


@needs_data
def test_embedded_faces_are_the_orl_file():
    faces, orl = load_dataset("faces"), load_dataset("orl", data_dir=DATA_DIR)
    np.testing.assert_array_equal(faces.images(), orl.images())
    np.testing.assert_array_equal(faces.y, orl.y)
