"""The model-file reader bounds what a file can make it allocate, and any file gives
either a usable model or one line.

Every member must be stored with the size it declares, so a compressed manifest
cannot expand (a few kilobytes to gigabytes) and a lying header cannot make NumPy
allocate; arrays are read once each, trees nest a bounded depth, and members, JSON
keys and class attributes cannot be given twice. The fuzz tests feed ``fdlsr.load``
and ``fdlsr predict`` any bytes and any damage to valid model files.
"""

import copy
import io
import json
import struct
import tracemalloc
import warnings
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import is_classifier
from sklearn.datasets import make_classification
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer, StandardScaler

import fdlsr
from fdlsr._testing import cli
from fdlsr.errors import ModelFileError
from fdlsr.persistence import _archive as persistence
from fdlsr.persistence._encoding import allowed_classes
from model_files import pack, parts, refused, state


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        40, 6, n_informative=4, n_classes=3, random_state=0, class_sep=2.0
    )
    return X, y


def fitted_models(X, y):
    return {
        "FDLSR": fdlsr.FDLSR().fit(X, y),
        "Pipeline(StandardScaler, FDLSR knn)": make_pipeline(
            StandardScaler(), fdlsr.FDLSR(decision_rule="knn", n_neighbors=3)
        ).fit(X, y),
        "Pipeline(Normalizer, 3-NN k-d tree)": make_pipeline(
            Normalizer(), KNeighborsClassifier(3, algorithm="kd_tree")
        ).fit(X, y),
    }


@pytest.fixture(scope="module")
def files(data, tmp_path_factory):
    """name: (bytes of its model file, its predictions on the data)."""
    X, y = data
    folder = tmp_path_factory.mktemp("models")
    out = {}
    for name, model in fitted_models(X, y).items():
        path = fdlsr.save(model, folder / "model.fdlsr")
        out[name] = path.read_bytes(), model.predict(X)
    return out


@pytest.fixture()
def model_file(files, tmp_path):
    path = tmp_path / "model.fdlsr"
    path.write_bytes(files["FDLSR"][0])
    return path


# -- bounds ------------------------------------------------------------------------


def peak_bytes(function):
    """The peak memory (Python and NumPy allocations) that ``function()`` takes."""
    tracemalloc.start()
    try:
        function()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def test_a_compressed_manifest_is_refused_before_it_expands(model_file, tmp_path):
    manifest, arrays = parts(model_file)
    text = json.dumps(manifest)[:-1] + " " * (64 * 2**20) + "}"  # valid JSON
    bomb = pack(tmp_path / "bomb", None, arrays, zipfile.ZIP_DEFLATED, text=text)
    assert bomb.stat().st_size < 200_000  # 64 MiB of manifest in a small file

    def load():
        with pytest.raises(ModelFileError) as info:
            fdlsr.load(bomb)
        assert "compressed" in str(info.value) and "\n" not in str(info.value)

    assert peak_bytes(load) < 8 * 2**20  # refused from its header: nothing expands


def test_a_manifest_over_the_limit_is_refused_from_its_header(model_file, monkeypatch):
    size = zipfile.ZipFile(model_file).getinfo("model.json").file_size
    monkeypatch.setattr(persistence, "MANIFEST_LIMIT", size - 1)
    refused(model_file, f"declares {size} bytes")


def test_a_model_whose_manifest_load_would_refuse_is_not_saved(
    data, tmp_path, monkeypatch
):
    """save refuses what load refuses: here a model.json over the limit."""
    X, y = data
    monkeypatch.setattr(persistence, "MANIFEST_LIMIT", 500)
    with pytest.raises(ModelFileError, match="would take") as info:
        fdlsr.save(fdlsr.FDLSR().fit(X, y), tmp_path / "model.fdlsr")
    assert "\n" not in str(info.value) and list(tmp_path.iterdir()) == []


def patch_sizes(content, member, file_size):
    """``content`` with the central directory entry of ``member`` declaring the
    uncompressed size ``file_size`` (below 2**32 - 1; its compressed size as is)."""
    name = member.encode()
    at = content.index(b"PK\x01\x02")  # the central directory's first entry
    while (
        struct.unpack_from("<H", content, at + 28)[0] != len(name)
        or content[at + 46 : at + 46 + len(name)] != name
    ):
        at = content.index(b"PK\x01\x02", at + 4)
    out = bytearray(content)
    struct.pack_into("<I", out, at + 24, file_size)
    return bytes(out)


def test_a_lying_size_in_the_zip_header_allocates_nothing(model_file, tmp_path):
    """An array member whose .npy header declares 1 GiB and whose zip header claims
    as much, with 64 bytes of data: refused before NumPy allocates the 1 GiB."""
    manifest, arrays = parts(model_file)
    name = state(manifest)["coef_"]["$array"]
    header = io.BytesIO()
    spec = {"descr": "<f8", "fortran_order": False, "shape": (2**27,)}
    np.lib.format.write_array_header_1_0(header, spec)
    arrays[name] = header.getvalue() + bytes(64)
    path = pack(tmp_path / "liar", manifest, arrays)
    path.write_bytes(patch_sizes(path.read_bytes(), name, 2**31))

    def load():
        with pytest.raises(ModelFileError):
            fdlsr.load(path)

    assert peak_bytes(load) < 64 * 2**20
    refused(path, "declares 2147483648 bytes")


@pytest.mark.parametrize("shift", [1, 40, 2**20])
def test_a_central_directory_pointing_outside_the_file_is_one_line(
    model_file, tmp_path, shift
):
    """The end record saying the central directory starts further on than it does:
    zipfile then places the first member before the file's start (a negative seek,
    an OSError, found by the damage fuzz)."""
    content = bytearray(model_file.read_bytes())
    end = content.rindex(b"PK\x05\x06")  # the end of central directory record
    offset = struct.unpack_from("<I", content, end + 16)[0]
    struct.pack_into("<I", content, end + 16, offset + shift)
    path = tmp_path / "shifted.fdlsr"
    path.write_bytes(bytes(content))
    with pytest.raises(ModelFileError) as info:
        fdlsr.load(path)
    assert "\n" not in str(info.value)


def test_a_member_named_twice_is_refused(model_file, tmp_path):
    manifest, arrays = parts(model_file)
    path = pack(tmp_path / "twice", manifest, arrays)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile: "Duplicate name"
        with zipfile.ZipFile(path, "a") as archive:
            archive.writestr("model.json", json.dumps(manifest))
    refused(path, "two members named 'model.json'")


def test_an_array_is_read_once(model_file, tmp_path):
    """Naming one large member in many places would multiply what loading costs."""
    manifest, arrays = parts(model_file)
    model = state(manifest)
    model["objective_"] = model["coef_"]
    refused(pack(tmp_path / "shared", manifest, arrays), "named twice in the tree")


@pytest.mark.parametrize(
    "descr, shape",
    [
        ("|V8", (3, 6)),  # void
        ([("a", "<f8")], (3, 6)),  # structured
        ("|S8", (3, 6)),  # bytes
        ("<U0", (10**15,)),  # a quadrillion empty strings in no bytes at all
    ],
)
def test_npy_headers_of_other_than_plain_numbers_and_text_are_refused(
    model_file, tmp_path, descr, shape
):
    manifest, arrays = parts(model_file)
    name = state(manifest)["coef_"]["$array"]
    header = io.BytesIO()
    spec = {"descr": descr, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(header, spec)
    arrays[name] = header.getvalue() + bytes(144)
    refused(pack(tmp_path / "dtype", manifest, arrays), "arrays/")


def test_deep_trees_duplicate_keys_and_replaced_methods_are_refused(
    model_file, tmp_path
):
    manifest, arrays = parts(model_file)
    deep = copy.deepcopy(manifest)
    node = 1
    for _ in range(100):
        node = [node]
    state(deep)["notes"] = node
    refused(pack(tmp_path / "deep", deep, arrays), "nests more than")

    text = json.dumps(manifest)
    text = text.replace('"alpha": 1.0', '"alpha": 1.0, "alpha": 0.5')
    refused(pack(tmp_path / "keys", None, arrays, text=text), "key 'alpha' twice")

    for attribute, value in [("predict", 1), ("_array_api", True)]:
        crafted = copy.deepcopy(manifest)
        state(crafted)[attribute] = value
        path = pack(tmp_path / attribute, crafted, arrays)
        refused(path, f"would replace FDLSR.{attribute}")


def test_a_member_that_the_model_does_not_name_is_refused(model_file, tmp_path):
    """fdlsr.save writes only the model's arrays: anything else was added."""
    manifest, arrays = parts(model_file)
    for name, content in [
        ("arrays/99.npy", np.zeros(3)),
        ("notes.txt", b"anything"),
        ("folder/", b""),
    ]:
        path = pack(tmp_path / "extra", manifest, {**arrays, name: content})
        refused(path, f"member {name!r}", "does not name")
    # an array of the model that the tree no longer names
    del state(manifest)["objective_"]
    refused(pack(tmp_path / "unnamed", manifest, arrays), "does not name")


LONG = 10_000


def long_positions(manifest):
    """Every place of ``manifest`` where a string can stand: the header's fields,
    its input record's, and every string and key of its model tree."""
    places = [(manifest, key) for key in manifest if key != "model"]
    record = manifest.get("input", {})
    places += [(record, key) for key in record]
    return places + tree_positions(manifest["model"], [])


@pytest.mark.parametrize("version", [1, 99, "x" * LONG, None])
def test_an_error_quotes_a_long_version_cut_short(model_file, tmp_path, version):
    manifest, arrays = parts(model_file)
    manifest.update(format_version=version, fdlsr_version="9" * LONG)
    message = refused(pack(tmp_path / "long", manifest, arrays), "format version")
    assert len(message) < 400 + len(str(tmp_path)), len(message)


@settings(max_examples=150, **{"deadline": None})
@given(choice=st.data())
def test_any_long_field_gives_a_short_error(files, tmp_path_factory, choice):
    """A 10,000-character string (or key) anywhere in model.json: the model loads,
    or the error is one line of a few hundred characters (each value it quotes is
    cut short)."""
    name = choice.draw(st.sampled_from(sorted(files)))
    manifest, arrays = parts_of(files[name][0])
    places = long_positions(manifest)
    node, key = places[choice.draw(st.integers(0, len(places) - 1))]
    text = choice.draw(st.sampled_from(["9", "x", "é", "arrays/", "$"])) * LONG
    if choice.draw(st.booleans()) and isinstance(node, dict):
        node[text] = node.pop(key)  # a long key
    else:
        node[key] = text
    path = tmp_path_factory.mktemp("long") / "model.fdlsr"
    pack(path, manifest, arrays)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fdlsr.load(path)
    except ModelFileError as error:
        message = str(error)
        assert "\n" not in message and len(message) < 800 + len(str(path)), message
        return
    for warning in caught:
        assert len(str(warning.message)) < 800 + len(str(path)), warning.message


def parts_of(content):
    """``(manifest, arrays)`` of the model file ``content`` (bytes)."""
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        manifest = json.loads(archive.read("model.json"))
        arrays = {
            n: np.lib.format.read_array(archive.open(n))
            for n in archive.namelist()
            if n.endswith(".npy")
        }
    return manifest, arrays


# -- fuzzing -----------------------------------------------------------------------

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True)
    | st.text(max_size=8)
)
TAGS = ["$dict", "$tuple", "$array", "$objects", "$scalar", "$dtype", "$sparse"]
TAGS += ["$tree", "$object", "state", "shape", "value"]
NAMES = sorted(allowed_classes()) + [f"arrays/{i}.npy" for i in range(8)]
NAMES += ["<f8", "<i8", "|b1", "<U3", "|O", "|V8", "csr_array", "KDTree"]
JSON = st.recursive(
    SCALARS | st.sampled_from(NAMES),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(TAGS) | st.text(max_size=6), inner, max_size=3
        )
    ),
    max_leaves=16,
)


def tree_positions(node, out):
    """Every (container, key) of a JSON tree, where a value can be replaced."""
    items = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else ()
    )
    for key, value in items:
        out.append((node, key))
        tree_positions(value, out)
    return out


def npy_with_shape(array, shape):
    """The member bytes of ``array`` with a header that declares ``shape``."""
    out = io.BytesIO()
    spec = {"descr": array.dtype.str, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(out, spec)
    return out.getvalue() + array.tobytes()


@st.composite
def damage(draw, content):
    """Bytes of a damaged copy of the model file ``content``."""
    how = draw(
        st.sampled_from(
            ["bytes", "flip", "truncate", "manifest", "tree", "array", "compress"]
            + ["header", "size"]
        )
    )
    if how == "bytes":  # anything, or anything that starts as a zip archive does
        return draw(st.sampled_from([b"", b"PK\x03\x04"])) + draw(
            st.binary(max_size=300)
        )
    if how == "flip":
        out = bytearray(content)
        for _ in range(draw(st.integers(1, 8))):
            out[draw(st.integers(0, len(out) - 1))] = draw(st.integers(0, 255))
        return bytes(out)
    if how == "truncate":
        return content[: draw(st.integers(0, len(content) - 1))]
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        manifest = json.loads(archive.read("model.json"))
        arrays = {
            n: np.lib.format.read_array(archive.open(n))
            for n in archive.namelist()
            if n.endswith(".npy")
        }
    compression = zipfile.ZIP_STORED
    if how == "manifest":
        manifest[draw(st.sampled_from(["model", "input"]))] = draw(JSON)
    elif how == "tree":
        positions = tree_positions(manifest["model"], [])
        node, key = positions[draw(st.integers(0, len(positions) - 1))]
        node[key] = draw(st.integers(-2, 70) | st.floats(-1e3, 1e3) | JSON)
    elif how == "array":
        name = draw(st.sampled_from(sorted(arrays)))
        dtype = draw(st.sampled_from(["<f8", "<f4", "<i8", "|b1", "<U3", "<c16"]))
        shape = draw(st.lists(st.integers(0, 4), max_size=3))
        arrays[name] = np.ones(shape, dtype=dtype)
    elif how == "compress":
        compression = zipfile.ZIP_DEFLATED
    elif how == "header":
        name = draw(st.sampled_from(sorted(arrays)))
        shape = tuple(draw(st.lists(st.integers(-2, 2**62), min_size=1, max_size=3)))
        arrays[name] = npy_with_shape(arrays[name], shape)
    buffer = io.BytesIO()
    pack(buffer, manifest, arrays, compression)
    out = buffer.getvalue()
    if how == "size":
        member = draw(st.sampled_from(["model.json", *sorted(arrays)]))
        out = patch_sizes(out, member, draw(st.integers(0, 2**32 - 2)))
    return out


# The fuzz tests' settings: no deadline, and the examples of one test share its
# function-scoped fixtures (tmp_path), where each example overwrites the same file.
WITH_FIXTURES = dict(
    deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def write_damaged(path, files, choice):
    """Write one of the model ``files``, damaged, to ``path``; return its name."""
    name = choice.draw(st.sampled_from(sorted(files)))
    path.write_bytes(choice.draw(damage(files[name][0])))
    return name


def check_usable_or_one_line(path, original, data):
    """``fdlsr.load(path)`` is a model that labels the data with its classes (the
    same labels as the original when the file is unchanged), or one line."""
    X, _ = data
    content, expected = original
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = fdlsr.load(path)
    except ModelFileError as error:
        assert str(error) and "\n" not in str(error), str(error)
        return
    assert is_classifier(model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        predicted = model.predict(X)
    assert predicted.shape == (len(X),) and np.isin(predicted, model.classes_).all()
    if path.read_bytes() == content:
        np.testing.assert_array_equal(predicted, expected)


@settings(max_examples=600, **WITH_FIXTURES)
@given(choice=st.data())
def test_any_damaged_model_file_loads_a_usable_model_or_one_line(
    tmp_path, files, data, choice
):
    path = tmp_path / "model.fdlsr"
    name = write_damaged(path, files, choice)
    check_usable_or_one_line(path, files[name], data)
    assert [p.name for p in tmp_path.iterdir()] == ["model.fdlsr"]  # nothing written


@settings(max_examples=150, **WITH_FIXTURES)
@given(choice=st.data())
def test_fdlsr_predict_with_any_damaged_model_runs_or_exits_2(
    tmp_path_factory, files, data, choice
):
    X, y = data
    folder = tmp_path_factory.mktemp("predict")
    samples = folder / "data.npz"
    np.savez(samples, X=X, y=y)
    model = folder / "model.fdlsr"
    write_damaged(model, files, choice)
    out = folder / "predictions.csv"
    status, _, err = cli(["predict", str(model), str(samples), "-o", str(out)])
    assert "Traceback" not in err
    if status == 0:
        assert len(out.read_text().splitlines()) == len(y) + 1
    else:
        lines = err.strip().splitlines()
        assert status == 2 and len(lines) == 1 and lines[0].startswith("fdlsr: error:")
        assert sorted(p.name for p in folder.iterdir()) == ["data.npz", "model.fdlsr"]


@pytest.mark.parametrize(
    "dtype",
    ["9" * 10_000, "f8, i4", "(2,)f8", "<f8 ", "O", "<V8", "<f\u0668"],
    ids=[
        "10,000 digits",
        "comma list",
        "sub-array",
        "space",
        "object",
        "void",
        "digit",
    ],
)
def test_a_dtype_other_than_what_save_writes_is_one_line(model_file, tmp_path, dtype):
    """NumPy's dtype parser reads comma lists through ``ast``: 10,000 digits were a
    SyntaxError traceback. Only the ``dtype.str`` form save writes is read."""
    manifest, arrays = parts(model_file)
    state(manifest)["n_iter_"] = {"$scalar": dtype, "value": 1}
    message = str(refused(pack(tmp_path / "m.fdlsr", manifest, arrays)))
    assert "\n" not in message and len(message) < 800 + len(str(tmp_path))
