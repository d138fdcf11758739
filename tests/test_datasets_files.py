""".npz archives, CSV tables, image folders and scikit-learn's data sets."""

import sys

import joblib
import numpy as np
import pytest
from PIL import Image

from fdlsr.datasets import load_dataset
from fdlsr.errors import DatasetError


def truth(n_classes=3, per_class=4, d=5, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.repeat(np.arange(n_classes), per_class))
    X = rng.normal(size=(y.size, d)).round(3)
    return X, y


def message(excinfo):
    text = str(excinfo.value)
    assert "\n" not in text and isinstance(excinfo.value, ValueError)
    return text


# --- .npz -------------------------------------------------------------------------


@pytest.mark.parametrize("keys", [("X", "y"), ("x", "y"), ("data", "labels")])
def test_npz_keys(tmp_path, keys):
    X, y = truth()
    np.savez(tmp_path / "d.npz", **{keys[0]: X, keys[1]: y})
    ds = load_dataset(tmp_path / "d.npz")
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.y, y)
    assert ds.order == "C" and ds.fixed_split is None


def test_npz_keras_split_of_images(tmp_path):
    """x_train (n, h, w) etc.: images flatten row-major and the split is kept."""
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(10, 4, 3), dtype=np.uint8)
    y = np.arange(10) % 2
    np.savez(
        tmp_path / "mnist.npz",
        x_train=images[:6], y_train=y[:6], x_test=images[6:], y_test=y[6:],
    )  # fmt: skip
    ds = load_dataset(tmp_path / "mnist.npz")
    assert ds.image_shape == (4, 3) and ds.order == "C"
    np.testing.assert_array_equal(ds.images(), images)
    np.testing.assert_array_equal(ds.fixed_split[0], np.arange(6))
    np.testing.assert_array_equal(ds.y, y)


def test_npz_string_labels_and_overrides(tmp_path):
    X, y = truth()
    names = np.array([f"c{v}" for v in y])
    np.savez(tmp_path / "o.npz", feats=X, other=X[:, :2], who=names)
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(tmp_path / "o.npz")
    assert "x=NAME and y=NAME" in message(excinfo)
    ds = load_dataset(tmp_path / "o.npz", x="feats", y="who")
    np.testing.assert_array_equal(ds.y, names)
    np.testing.assert_array_equal(ds.X, X)


def test_npz_with_pickled_objects_is_refused(tmp_path):
    np.savez(tmp_path / "p.npz", X=np.zeros((2, 2)), y=np.array([1, {}], dtype=object))
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(tmp_path / "p.npz")
    assert "Python objects" in message(excinfo)


def test_damaged_npz(tmp_path):
    (tmp_path / "d.npz").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(DatasetError, match="cannot read .* as an .npz archive"):
        load_dataset(tmp_path / "d.npz")


# --- CSV --------------------------------------------------------------------------


def write_table(path, rows, header=None, sep=","):
    lines = [sep.join(header)] if header else []
    lines += [sep.join(str(v) for v in row) for row in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("sep", [",", ";", "\t", " "])
@pytest.mark.parametrize("header", [False, True])
def test_csv_last_column_is_the_label(tmp_path, sep, header):
    X, y = truth()
    names = [f"f{i}" for i in range(X.shape[1])] + ["class"] if header else None
    rows = [[*x, label] for x, label in zip(X, y, strict=True)]
    ds = load_dataset(write_table(tmp_path / "t.csv", rows, names, sep))
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.y, y)
    assert ds.y.dtype == np.int64


def test_csv_label_column_by_index_and_name_with_string_labels(tmp_path):
    X, y = truth()
    labels = [f'"class {v}"' for v in y]  # quoted, with a space
    rows = [[lab, *x] for lab, x in zip(labels, X, strict=True)]
    path = write_table(tmp_path / "t.csv", rows, ["species", "a", "b", "c", "d", "e"])
    for column in (0, "species"):
        ds = load_dataset(path, label_column=column)
        np.testing.assert_array_equal(ds.X, X)
        np.testing.assert_array_equal(ds.y, [f"class {v}" for v in y])
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(path, label_column="kind")
    assert "no column named 'kind'" in message(excinfo) and "species" in str(
        excinfo.value
    )
    with pytest.raises(DatasetError, match="out of range .* 6 columns"):
        load_dataset(path, label_column=9)


def test_csv_bad_rows_and_wrong_options(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("1,2,0\n3,4\n5,x,1\n")
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(path)
    assert "bad.csv:2 has 2 fields but line 1 has 3" in message(excinfo)
    with pytest.raises(DatasetError, match="label_column="):
        load_dataset(path, x="a", y="b")
    (tmp_path / "one.csv").write_text("1\n2\n")
    with pytest.raises(DatasetError, match="single column"):
        load_dataset(tmp_path / "one.csv")
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(DatasetError, match="empty"):
        load_dataset(tmp_path / "empty.csv")


def test_csv_header_without_samples_is_refused_in_one_line(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("f0,f1,f2,f3,label\n")
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(path)
    assert "h.csv holds a header and no samples" in message(excinfo)


def test_csv_line_of_white_space_is_blank(tmp_path):
    X, y = truth(n_classes=2, per_class=3, d=3)
    lines = [
        ",".join(map(str, row)) + f",{label}" for row, label in zip(X, y, strict=True)
    ]
    lines.insert(2, "  \t")  # line 4 of the file, after the header
    path = tmp_path / "s.csv"
    path.write_text("f0,f1,f2,label\n" + "\r\n".join(lines) + "\n")
    ds = load_dataset(path)
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.y, y)
    # a bad line after it keeps its number in the file
    path.write_text("f0,f1,f2,label\n" + "\n".join(lines[:4] + ["1,x,2,0"]) + "\n")
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(path)
    assert "s.csv:6: column 1 ('f1') holds 'x'" in message(excinfo)


# --- image folders ----------------------------------------------------------------


def image_folder(root, size=(6, 4), per_class=3, mode="L", seed=0):
    """Classes 'cat' and 'dog' as PNGs; returns the pixel arrays by class."""
    rng = np.random.default_rng(seed)
    stored = {}
    for label in ("cat", "dog"):
        (root / label).mkdir(parents=True)
        for i in range(per_class):
            shape = (size[0], size[1]) if mode == "L" else (size[0], size[1], 3)
            pixels = rng.integers(0, 256, size=shape, dtype=np.uint8)
            Image.fromarray(pixels, mode=mode).save(root / label / f"{i}.png")
            stored.setdefault(label, []).append(pixels)
    (root / "cat" / "notes.txt").write_text("not an image")
    return stored


def test_image_folder_grey(tmp_path):
    stored = image_folder(tmp_path / "imgs")
    ds = load_dataset(tmp_path / "imgs")
    assert ds.image_shape == (6, 4) and ds.order == "C"
    np.testing.assert_array_equal(ds.y, ["cat"] * 3 + ["dog"] * 3)
    np.testing.assert_array_equal(ds.images(), np.stack(stored["cat"] + stored["dog"]))
    assert ds.X.dtype == np.float64 and ds.X.max() > 1  # raw 0..255 values


def test_image_folder_colour_to_grey_rgb_and_resize(tmp_path):
    stored = image_folder(tmp_path / "imgs", mode="RGB")
    rgb = load_dataset(tmp_path / "imgs", grey=False)
    assert rgb.image_shape == (6, 4, 3)
    np.testing.assert_array_equal(rgb.images()[0], stored["cat"][0])
    grey = load_dataset(tmp_path / "imgs")
    expected = np.asarray(Image.fromarray(stored["cat"][0]).convert("L"))
    np.testing.assert_array_equal(grey.images()[0], expected)
    small = load_dataset(tmp_path / "imgs", resize=(3, 2))
    assert small.image_shape == (3, 2) and small.X.shape == (6, 6)


def test_image_folder_problems(tmp_path):
    image_folder(tmp_path / "mixed")
    Image.new("L", (5, 5)).save(tmp_path / "mixed" / "dog" / "big.png")
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(tmp_path / "mixed")
    assert "differ in size" in message(excinfo) and "resize=(h, w)" in str(
        excinfo.value
    )
    assert load_dataset(tmp_path / "mixed", resize=(6, 4)).n_samples == 7

    (tmp_path / "broken" / "a").mkdir(parents=True)
    (tmp_path / "broken" / "a" / "x.png").write_bytes(b"not a png")
    with pytest.raises(DatasetError, match="cannot read the image .*x.png"):
        load_dataset(tmp_path / "broken")

    (tmp_path / "flat").mkdir()
    Image.new("L", (4, 4)).save(tmp_path / "flat" / "a.png")
    with pytest.raises(DatasetError, match="one sub-folder per class"):
        load_dataset(tmp_path / "flat")


def test_image_folder_without_pillow(tmp_path, monkeypatch):
    image_folder(tmp_path / "imgs")
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(
        DatasetError, match=r'pip install pillow .*pip install "\.\[data\]"'
    ):
        load_dataset(tmp_path / "imgs")


# --- paths and formats ------------------------------------------------------------


def test_missing_path_and_unknown_format(tmp_path):
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(tmp_path / "nope.mat")
    assert "file not found" in message(excinfo) and "nope.mat" in str(excinfo.value)
    (tmp_path / "data.bin").write_bytes(b"\x00\x01\x02")
    with pytest.raises(DatasetError, match="cannot tell the format"):
        load_dataset(tmp_path / "data.bin")


# --- scikit-learn -----------------------------------------------------------------


def test_digits_is_bundled():
    from sklearn.datasets import load_digits

    ds = load_dataset("digits")
    bunch = load_digits()
    np.testing.assert_array_equal(ds.X, bunch.data)
    np.testing.assert_array_equal(ds.y, bunch.target)
    np.testing.assert_array_equal(ds.images(), bunch.images)
    assert ds.image_shape == (8, 8) and ds.order == "C"


def test_olivetti_from_scikit_learn_cache(tmp_path, monkeypatch):
    """scikit-learn's cache layout: olivetti_py3.pkz holds the 400 x 4096 faces."""
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path))
    with pytest.raises(DatasetError) as excinfo:
        load_dataset("olivetti", download=False)
    assert "not in scikit-learn's cache" in message(excinfo)
    assert str(tmp_path) in str(excinfo.value)
    rng = np.random.default_rng(0)
    faces = rng.integers(0, 256, size=(400, 4096)).astype(np.uint8)
    joblib.dump(faces, tmp_path / "olivetti_py3.pkz", compress=6)
    ds = load_dataset("olivetti", download=False)
    assert (
        ds.X.shape == (400, 4096) and ds.n_classes == 40 and ds.image_shape == (64, 64)
    )
    # scikit-learn scales to [0, 1] and transposes each stored image.
    first = faces[0].astype(float).reshape(64, 64).T
    expected = (first - faces.min()) / (faces.max() - faces.min())
    np.testing.assert_allclose(ds.images()[0], expected, rtol=1e-6)


def test_lfw_people_from_scikit_learn_cache(tmp_path, monkeypatch):
    """The cache layout of fetch_lfw_people: lfw_home/ with the pair lists and the
    funneled images, one folder per person."""
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path))
    with pytest.raises(DatasetError, match="not in scikit-learn's cache"):
        load_dataset("lfw_people", download=False)
    home = tmp_path / "lfw_home"
    for name in ("pairsDevTrain.txt", "pairsDevTest.txt", "pairs.txt"):
        (home / name).write_text("")
    rng = np.random.default_rng(0)
    counts = {"Ann_Example": 70, "Bob_Example": 71, "Cy_Few": 3}
    for person, count in counts.items():
        (home / "lfw_funneled" / person).mkdir(parents=True)
        for i in range(count):
            pixels = rng.integers(0, 256, size=(250, 250, 3), dtype=np.uint8)
            Image.fromarray(pixels).save(home / "lfw_funneled" / person / f"{i}.jpg")
    with pytest.raises(DatasetError) as excinfo:  # not the registry's 7 persons
        load_dataset("lfw_people", download=False)
    assert "n_classes 2 (expected 7)" in message(excinfo)
    ds = load_dataset("lfw_people", download=False, verify=False)
    assert ds.X.shape == (141, 50 * 37) and ds.image_shape == (50, 37)
    assert sorted(np.bincount(ds.y)) == [70, 71]
