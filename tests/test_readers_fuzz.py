"""Every data reader under any input: a correct result, or one line and exit 2.

One hypothesis test per reader (CSV, .npz, .npy, MATLAB v5 and v7.3, list files,
image folders) feeds it well-formed files with any label strings, any bytes and any
array header. The command either succeeds, and then the model's classes are exactly
the file's labels (as many classes as distinct labels, each shown as the file writes
it), or it exits with status 2 and one line, writing nothing and leaving the input as
it was. The example counts are in each test's ``settings``.
"""

import csv
import hashlib
import io
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.io
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

import fdlsr
from fdlsr._testing import cli
from fdlsr.errors import DatasetError
from npy_headers import npy_bytes

FUZZ = dict(deadline=None, suppress_health_check=list(HealthCheck))

# Label text: any characters (no lone surrogates: text), with those that broke labels
# before (digits of other scripts, underscores, signs, white space, quotes,
# separators, "#", line breaks) often, and a dictionary of labels that int() or
# float() read alike.
LABEL = st.sampled_from(
    ["1", "01", "001", "1_0", "10", "+1", " 1", "1 ", "١", "1.0", "-0", "0", "1e1"]
) | st.text(
    alphabet=st.sampled_from("01١٢+-_ .,;#\"'\t\r\nab€😀")
    | st.characters(blacklist_categories=["Cs"]),
    min_size=1,
    max_size=6,
)


def digest(path):
    path = Path(path)
    if path.is_dir():
        return sorted((str(p), digest(p)) for p in path.rglob("*") if p.is_file())
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fit(data, folder, *extra):
    """``fdlsr fit`` on ``data``: the fitted classes, or None after a one-line refusal
    that wrote nothing and left ``data`` as it was."""
    model = Path(folder) / "model.fdlsr"
    before = digest(data)
    argv = ["fit", "--dataset", str(data), "--method", "1-NN", "-o", str(model)]
    status, out, err = cli([*argv, *extra])
    assert digest(data) == before
    event("fitted" if status == 0 else "refused")
    if status == 0:
        return fdlsr.load(model).classes_
    assert_one_line(status, out, err)
    assert not model.exists()
    return None


def assert_one_line(status, out, err):
    assert status == 2 and out == "", (status, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fdlsr: error: "), err
    assert len(lines[0]) < 800, lines[0]


def assert_text_classes(classes, labels):
    """The classes are the distinct labels, each as written (or, all together, without
    the white space around them), as a numpy text array holds it: without trailing
    NULs, its padding."""
    distinct = set(labels)
    shown = {str(c) for c in classes.tolist()}
    assert len(classes) == len(distinct), (classes, distinct)
    written = {s.rstrip("\0") for s in distinct}
    stripped = {s.strip().rstrip("\0") for s in distinct}
    assert shown in (written, stripped), (shown, distinct)


def assert_number_classes(classes, values):
    """As many classes as distinct numbers, each the same number (read back in the
    file's own number type)."""
    distinct = np.unique(values)
    assert len(classes) == distinct.size, (classes, distinct)
    if values.dtype.kind == "b":
        back = [bool(int(c)) for c in classes.tolist()]
    else:
        back = [values.dtype.type(str(c)) for c in classes.tolist()]
    np.testing.assert_array_equal(np.sort(np.array(back, values.dtype)), distinct)


def per_sample(draw, pool):
    """Labels of 2 to 12 samples drawn from ``pool``, each value used at least once."""
    extra = draw(st.lists(st.sampled_from(pool), max_size=6))
    return list(pool) + extra


def features(n, d=3):
    return np.random.default_rng(n).random((n, d)) + 0.1


def mutated(data):
    """Strategy: ``data`` with a few bytes changed, cut short or extended."""
    return st.one_of(
        st.tuples(st.integers(0, len(data) - 1), st.binary(min_size=1, max_size=4)).map(
            lambda c: data[: c[0]] + c[1] + data[c[0] + len(c[1]) :]
        ),
        st.integers(0, len(data)).map(lambda n: data[:n]),
        st.binary(max_size=16).map(lambda b: data + b),
    )


# --- CSV ---------------------------------------------------------------------------


@st.composite
def csv_files(draw):
    labels = per_sample(
        draw, draw(st.lists(LABEL, min_size=2, max_size=4, unique=True))
    )
    header = draw(st.booleans())
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n", quoting=draw(
        st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL])))  # fmt: skip
    if header:
        writer.writerow(["label", "a", "b", "c"])
    for label, x in zip(labels, features(len(labels)), strict=True):
        writer.writerow([label, *(f"{v:.6f}" for v in x)])
    return text.getvalue().encode(), labels


@settings(max_examples=120, **FUZZ)
@given(data=st.data())
def test_csv_reader(data):
    """Any label strings (checked), or any bytes, or a valid table changed a little."""
    content, labels = data.draw(csv_files())
    if data.draw(st.booleans()):
        content, labels = data.draw(st.binary(max_size=80) | mutated(content)), None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.csv"
        path.write_bytes(content)
        classes = fit(path, tmp, "--y", "0")
        if classes is not None and labels is not None:
            assert_text_classes(classes, labels)


# --- .npz and .npy -----------------------------------------------------------------

NUMBER_DTYPES = ["<i1", "<u2", ">i4", "<u8", "<i8", "<f2", ">f4", "<f8", "<f16", "?"]


@st.composite
def label_arrays(draw):
    """Labels as an .npz (or MATLAB) file may store them: text, bytes or numbers."""
    kind = draw(st.sampled_from(["text", "bytes", "number"]))
    if kind == "text":
        pool = draw(st.lists(LABEL, min_size=2, max_size=4, unique=True))
        return np.array(per_sample(draw, pool))
    if kind == "bytes":
        pool = draw(st.lists(st.binary(min_size=1, max_size=4) | LABEL.map(str.encode),
                             min_size=2, max_size=4,
                             unique=True))  # fmt: skip
        return np.array(per_sample(draw, pool), dtype=bytes)
    dtype = np.dtype(draw(st.sampled_from(NUMBER_DTYPES)))
    if dtype.kind == "f":
        values = st.floats(
            allow_nan=False, allow_infinity=False, width=16
        ) | st.sampled_from(
            [0.0, -0.0, 1.0, 1.0000000001, 2.0**63, -(2.0**63), 1e300, 0.5]
        )
    elif dtype.kind == "b":
        values = st.booleans()
    else:
        info = np.iinfo(dtype)
        values = st.integers(int(info.min), int(info.max)) | st.sampled_from([0, 1])
    with np.errstate(over="ignore"):  # a float that float16 cannot hold: inf, dropped
        array = np.array(per_sample(draw, draw(st.lists(values, min_size=2, max_size=4))),
                         dtype=dtype)  # fmt: skip
    assume(np.all(np.isfinite(array)) if dtype.kind == "f" else True)
    return array


def check_labels(classes, y):
    """Text labels as text, bytes as their UTF-8 text, numbers as numbers."""
    if y.dtype.kind == "S":
        assert_text_classes(classes, [v.decode() for v in y.tolist()])
    elif y.dtype.kind == "U":
        assert_text_classes(classes, y.tolist())
    else:
        assert_number_classes(classes, y)


HEADERS = st.builds(
    npy_bytes,
    st.lists(st.integers(0, 10**12) | st.integers(0, 5), max_size=3).map(tuple),
    st.sampled_from(["<f8", "<i4", "|u1", "<U3", "|S2", "<c16", "|b1", "|O", "|V4"]),
)


@settings(max_examples=120, **FUZZ)
@given(data=st.data())
def test_npz_reader(data):
    """Any labels (checked), any header for the samples, or a valid archive changed a
    little."""
    y = data.draw(label_arrays())
    buffer = io.BytesIO()
    np.savez(buffer, X=features(y.size), y=y)
    mode = data.draw(st.sampled_from(["labels", "header", "bytes"]))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "d.npz"
        if mode == "labels":
            path.write_bytes(buffer.getvalue())
            classes = fit(path, tmp, "--samples", "rows")
            if classes is not None:
                check_labels(classes, y)
            return
        if mode == "header":
            header = data.draw(HEADERS) + data.draw(st.binary(max_size=64))
            with zipfile.ZipFile(path, "w") as archive:
                archive.writestr("X.npy", header)
                archive.writestr("y.npy", npy_bytes((4,), "<i8") + bytes(32))
        else:
            path.write_bytes(data.draw(mutated(buffer.getvalue())))
        fit(path, tmp)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """A 1-NN model of 5 features, for ``fdlsr predict``."""
    folder = tmp_path_factory.mktemp("model")
    np.savez(folder / "train.npz", X=features(6, 5), y=np.array([1, 2, 3] * 2))
    assert cli(["fit", "--dataset", str(folder / "train.npz"), "--method", "1-NN",
                "-o", str(folder / "m.fdlsr")])[0] == 0  # fmt: skip
    return folder / "m.fdlsr"


@settings(max_examples=60, **FUZZ)
@given(data=st.data())
def test_npy_reader_through_predict(model, data):
    """Any header and any data bytes: one prediction per sample, or one line."""
    rows = data.draw(st.integers(0, 3))
    valid = npy_bytes((rows, 5), "<f8") + features(rows, 5).tobytes()
    content = data.draw(
        st.builds(lambda h, b: h + b, HEADERS, st.binary(max_size=64)) | mutated(valid)
    )
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / "x.npy", Path(tmp) / "p.csv"
        path.write_bytes(content)
        status, stdout, err = cli(["predict", str(model), str(path), "-o", str(out)])
        if status == 0:
            expected = np.load(path, allow_pickle=False)
            n = 1 if expected.ndim == 1 else expected.shape[0]
            assert len(out.read_text().splitlines()) == n + 1
        else:
            assert_one_line(status, stdout, err)
            assert not out.exists()


# --- MATLAB ------------------------------------------------------------------------

# scipy writes a NUL character of a MATLAB char array as a space: such labels are
# not what this test is about (nor other characters outside UTF-16 text).
MAT_LABEL = LABEL.filter(lambda s: "\0" not in s and s.isprintable())


@settings(max_examples=80, **FUZZ)
@given(data=st.data())
def test_mat_v5_reader(data):
    if data.draw(st.booleans()):  # a cell array of strings
        pool = data.draw(st.lists(MAT_LABEL, min_size=2, max_size=4, unique=True))
        labels = per_sample(data.draw, pool)
        y = np.array(labels, dtype=object).reshape(-1, 1)
    else:
        y = data.draw(label_arrays().filter(lambda a: a.dtype.kind in "biuf"))
        y = y.astype(np.float64) if y.dtype.itemsize > 8 else y  # no long double
        labels = None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "d.mat"
        compress = data.draw(st.booleans())
        scipy.io.savemat(path, {"fea": features(len(y)), "gnd": y},
                         do_compression=compress)  # fmt: skip
        if data.draw(st.booleans()):
            path.write_bytes(data.draw(mutated(path.read_bytes())))
            fit(path, tmp, "--x", "fea", "--y", "gnd", "--samples", "rows")
            return
        classes = fit(path, tmp, "--x", "fea", "--y", "gnd", "--samples", "rows")
        if classes is None:
            return
        if labels is not None:
            assert_text_classes(classes, labels)
        else:
            assert_number_classes(classes, y)


@settings(max_examples=40, **FUZZ)
@given(data=st.data())
def test_mat_v73_reader(data):
    pytest.importorskip("h5py")
    from matlab_v73 import savemat_v73

    pool = data.draw(st.lists(MAT_LABEL, min_size=2, max_size=4, unique=True))
    labels = per_sample(data.draw, pool)
    if data.draw(st.booleans()):
        y, check = labels, lambda classes: assert_text_classes(classes, labels)
    else:
        y = data.draw(label_arrays().filter(lambda a: a.dtype.kind in "iuf"))
        y = y.astype(np.float64) if y.dtype.kind == "f" else y.astype(np.int64)
        check = lambda classes: assert_number_classes(classes, y)  # noqa: E731
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "d.mat"
        savemat_v73(path, {"fea": features(len(y)).T, "gnd": y})
        if data.draw(st.booleans()):
            content = path.read_bytes()
            # bytes in MATLAB's header block and in the first HDF5 structures
            where = data.draw(st.integers(0, min(len(content), 2048) - 1))
            patch = data.draw(st.binary(min_size=1, max_size=4))
            path.write_bytes(content[:where] + patch + content[where + len(patch) :])
            fit(path, tmp, "--x", "fea", "--y", "gnd")
            return
        classes = fit(path, tmp, "--x", "fea", "--y", "gnd")
        if classes is not None:
            check(classes)


# --- list files and folder names ---------------------------------------------------

# What the list format can hold: no comma, no line break, no white space around it.
LIST_LABEL = LABEL.map(lambda s: s.replace(",", "").strip()).filter(
    lambda s: s and len(s.splitlines()) == 1 and s == s.splitlines()[0]
)


@settings(max_examples=60, **FUZZ)
@given(data=st.data())
def test_list_file_reader(data):
    """The labels of a list file reach the feature file, and the classes, intact."""
    from fdlsr.datasets._image_lists import image_list

    pool = data.draw(st.lists(LIST_LABEL, min_size=2, max_size=4, unique=True))
    labels = per_sample(data.draw, pool)
    text = "".join(f"img{i}.png,{label}\n" for i, label in enumerate(labels))
    content = text.encode()
    broken = data.draw(st.booleans())
    if broken:
        content = data.draw(st.binary(max_size=60) | mutated(content))
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(len(labels)):
            (Path(tmp) / f"img{i}.png").write_bytes(b"")
        listing = Path(tmp) / "list.txt"
        listing.write_bytes(content)
        try:
            images = image_list(listing)
        except DatasetError as error:
            assert "\n" not in str(error) and len(str(error)) < 800
            status, out, err = cli(["features", str(listing), "-o", f"{tmp}/f.npz"])
            assert_one_line(status, out, err)
            assert not (Path(tmp) / "f.npz").exists()
            return
        if broken:
            return
        assert images.labels.tolist() == labels
        # what `fdlsr features` writes beside the features, read back as a data set
        np.savez(Path(tmp) / "f.npz", features=features(len(labels)),
                 labels=np.asarray(images.labels, dtype=str))  # fmt: skip
        classes = fit(Path(tmp) / "f.npz", tmp)
        if classes is not None:
            assert_text_classes(classes, labels)


# What a folder name can be here: no "/", no NUL, not hidden, at most 255 bytes.
FOLDER = LABEL.filter(
    lambda s: (
        "/" not in s
        and "\0" not in s
        and not s.startswith(".")
        and len(s.encode("utf-8", "surrogateescape")) <= 255
    )
)


@settings(max_examples=25, **FUZZ)
@given(names=st.lists(FOLDER, min_size=2, max_size=3, unique=True))
def test_folder_name_reader(names):
    """Labels from sub-folder names, read as images or listed for ``fdlsr features``."""
    from PIL import Image

    from fdlsr.datasets._image_lists import image_list

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "images"
        try:
            for i, name in enumerate(names):
                (root / name).mkdir(parents=True)
                for j in range(2):
                    pixels = np.full((4, 4), 40 * i + j, dtype=np.uint8)
                    Image.fromarray(pixels).save(root / name / f"{j}.png")
        except (OSError, UnicodeEncodeError):
            assume(False)  # a name this file system does not take
        classes = fit(root, tmp)
        if classes is not None:
            assert_text_classes(classes, names)
        # `fdlsr features` takes the same names as labels into its feature file
        images = image_list(root)
        np.savez(Path(tmp) / "f.npz", features=features(len(images)),
                 labels=np.asarray(images.labels, dtype=str))  # fmt: skip
        classes = fit(Path(tmp) / "f.npz", tmp)
        if classes is not None:
            assert_text_classes(classes, names)
