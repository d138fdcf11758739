"""MATLAB files: every layout, written by the tests as v5 (scipy) and v7.3 (HDF5)."""

import sys

import numpy as np
import pytest
import scipy.io
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st

from fdlsr.datasets import load_dataset
from fdlsr.datasets._layout import resolve
from fdlsr.errors import DatasetError
from matlab_v73 import savemat_v73

VERSIONS = ["v5", "v7.3"]


def truth(n_classes=3, per_class=4, d=6, seed=0):
    """Samples as rows (integer pixel values) and shuffled 1-based labels."""
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.repeat(np.arange(1, n_classes + 1), per_class))
    X = rng.integers(0, 256, size=(y.size, d)).astype(np.float64)
    return X, y


def save(path, variables, version):
    if version == "v7.3":
        savemat_v73(path, variables)
    else:
        scipy.io.savemat(path, _v5(variables))
    return path


def _v5(variables):
    out = {}
    for name, value in variables.items():
        if isinstance(value, dict):
            out[name] = _v5(value)
        elif isinstance(value, list):  # a cell array of strings
            out[name] = np.array(value, dtype=object).reshape(1, -1)
        else:
            out[name] = value
    return out


def one_hot(y, n_classes):
    H = np.zeros((n_classes, y.size))
    H[y - 1, np.arange(y.size)] = 1
    return H


def message(excinfo):
    text = str(excinfo.value)
    assert "\n" not in text and isinstance(excinfo.value, ValueError)
    return text


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    "names, columns",
    [
        (("fea", "gnd"), False),
        (("all_data", "all_label"), True),
        (("DATA", "Label"), True),
    ],
)
def test_sample_and_label_pairs(tmp_path, version, names, columns):
    X, y = truth()
    xname, yname = names
    stored = X.T if columns else X
    labels = y.reshape(1, -1) if columns else y.reshape(-1, 1)
    path = save(tmp_path / "d.mat", {xname: stored, yname: labels}, version)
    ds = load_dataset(path)
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.y, y)
    assert ds.X.dtype == np.float64 and ds.X.flags.c_contiguous
    assert ds.y.dtype == np.int64
    assert ds.order == "F" and ds.image_shape is None and ds.fixed_split is None
    assert ds.name == "d.mat" and repr(names[0]) in ds.description


@pytest.mark.parametrize("version", VERSIONS)
def test_lcksvd_random_faces_one_hot(tmp_path, version):
    """featureMat d x n with a one-hot labelMat c x n and a cell of file names."""
    X, y = truth(n_classes=4, per_class=3, d=7)
    names = [f"img{i}.pgm" for i in range(y.size)]
    variables = {"featureMat": X.T, "labelMat": one_hot(y, 4), "filenameMat": names}
    ds = load_dataset(save(tmp_path / "randomfaces.mat", variables, version))
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.y, y)


def test_sparse_one_hot_labels_v5(tmp_path):
    X, y = truth()
    scipy.io.savemat(
        tmp_path / "s.mat",
        {"featureMat": X.T, "labelMat": scipy.sparse.csc_matrix(one_hot(y, 3))},
    )
    np.testing.assert_array_equal(load_dataset(tmp_path / "s.mat").y, y)


@pytest.mark.parametrize("version", VERSIONS)
def test_struct_with_mat_and_labels(tmp_path, version):
    X, y = truth()
    variables = {"dataset": {"mat": X, "labels": y.reshape(-1, 1)}}
    ds = load_dataset(save(tmp_path / "s.mat", variables, version))
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.y, y)
    assert "dataset.mat" in ds.description


@pytest.mark.parametrize("version", VERSIONS)
def test_fixed_split_traindata_testdata(tmp_path, version):
    X, y = truth(per_class=5)
    tr, te = np.arange(9), np.arange(9, 15)
    variables = {
        "traindata": X[tr].T,
        "trainlabel": y[tr].reshape(1, -1),
        "testdata": X[te].T,
        "testlabel": y[te].reshape(1, -1),
    }
    ds = load_dataset(save(tmp_path / "split.mat", variables, version))
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.y, y)
    train, test = ds.fixed_split
    np.testing.assert_array_equal(train, tr)
    np.testing.assert_array_equal(test, te)


@pytest.mark.parametrize("version", VERSIONS)
def test_fixed_split_as_one_based_indices(tmp_path, version):
    X, y = truth()
    train, test = np.array([3, 1, 7, 9, 12]), np.array([2, 4, 5, 6, 8, 10, 11])
    variables = {"fea": X, "gnd": y, "trainIdx": train[:, None], "testIdx": test}
    ds = load_dataset(save(tmp_path / "idx.mat", variables, version))
    np.testing.assert_array_equal(ds.fixed_split[0], train - 1)
    np.testing.assert_array_equal(ds.fixed_split[1], test - 1)
    np.testing.assert_array_equal(ds.X, X)
    variables["trainIdx"] = train - 1  # 0-based by mistake: index 0 is out of range
    with pytest.raises(
        DatasetError, match="not vectors of 1-based indices of the 12 samples"
    ):
        load_dataset(save(tmp_path / "bad.mat", variables, version))
    variables["trainIdx"] = np.array([2, 3])
    with pytest.raises(DatasetError, match="share 1 samples"):
        load_dataset(save(tmp_path / "overlap.mat", variables, version))


@pytest.mark.parametrize("version", VERSIONS)
def test_fixed_split_lcksvd_one_hot(tmp_path, version):
    X, y = truth(per_class=5)
    variables = {
        "training_feats": X[:10].T,
        "H_train": one_hot(y[:10], 3),
        "testing_feats": X[10:].T,
        "H_test": one_hot(y[10:], 3),
    }
    ds = load_dataset(save(tmp_path / "featurevectors.mat", variables, version))
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.y, y)
    assert [len(i) for i in ds.fixed_split] == [10, 5]


@pytest.mark.parametrize("version", VERSIONS)
def test_fixed_split_in_train_and_test_structs(tmp_path, version):
    X, y = truth(per_class=4)
    variables = {
        "Train": {"mat": X[:8], "labels": y[:8].reshape(-1, 1)},
        "Test": {"mat": X[8:], "labels": y[8:].reshape(-1, 1)},
    }
    ds = load_dataset(save(tmp_path / "split.mat", variables, version))
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.fixed_split[1], np.arange(8, 12))


@pytest.mark.parametrize("version", VERSIONS)
def test_image_stack_and_size_hints(tmp_path, version):
    """An h x w x n stack flattens column-major; rows/cols scalars give the shape."""
    rng = np.random.default_rng(1)
    images = rng.integers(0, 256, size=(5, 3, 8)).astype(float)  # h=5, w=3, n=8
    y = np.arange(8) % 2 + 1
    ds = load_dataset(save(tmp_path / "stack.mat", {"I": images, "c": y}, version))
    assert ds.image_shape == (5, 3) and ds.order == "F"
    np.testing.assert_array_equal(ds.images(), np.moveaxis(images, -1, 0))
    flat = np.stack([images[:, :, i].ravel(order="F") for i in range(8)])
    variables = {"fea": flat, "gnd": y, "rows": np.array(5.0), "cols": np.array(3.0)}
    ds = load_dataset(save(tmp_path / "hint.mat", variables, version))
    assert ds.image_shape == (5, 3)
    np.testing.assert_array_equal(ds.images(), np.moveaxis(images, -1, 0))


@pytest.mark.parametrize("version", VERSIONS)
def test_unnamed_layout_found_by_sizes(tmp_path, version):
    X, y = truth()
    variables = {"faces": X.T, "ids": y, "NClass": np.array(3.0)}
    ds = load_dataset(save(tmp_path / "u.mat", variables, version))
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.y, y)


@pytest.mark.parametrize("version", VERSIONS)
def test_string_labels_from_a_cell_array(tmp_path, version):
    X, y = truth()
    names = [f"person {v}" for v in y]
    path = save(tmp_path / "c.mat", {"A": X, "who": names}, version)
    ds = load_dataset(path, x="A", y="who")
    assert ds.y.dtype.kind == "U"
    np.testing.assert_array_equal(ds.y, names)


@pytest.mark.parametrize("version", VERSIONS)
def test_ambiguous_variables_list_the_candidates(tmp_path, version):
    X, y = truth()
    variables = {"A": X, "B": X[:, :4] * 2, "lab": y}
    path = save(tmp_path / "amb.mat", variables, version)
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(path)
    text = message(excinfo)
    assert "ambiguous" in text and "'A'" in text and "'B'" in text and "x=" in text
    ds = load_dataset(path, x="B", y="lab")
    np.testing.assert_array_equal(ds.X, X[:, :4] * 2)
    ds = load_dataset(path, x="A")  # the labels follow from the one fitting vector
    np.testing.assert_array_equal(ds.X, X)


def test_two_known_layouts_are_ambiguous(tmp_path):
    X, y = truth()
    path = save(
        tmp_path / "two.mat",
        {"fea": X, "gnd": y.reshape(-1, 1), "DATA": X.T, "Label": y},
        "v5",
    )
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(path)
    text = message(excinfo)
    assert "x='fea', y='gnd'" in text and "x='DATA', y='Label'" in text
    np.testing.assert_array_equal(load_dataset(path, x="DATA", y="Label").X, X)


@pytest.mark.parametrize("version", VERSIONS)
def test_square_matrix_needs_samples(tmp_path, version):
    X, y = truth(n_classes=3, per_class=2, d=6)  # 6 samples x 6 features
    path = save(tmp_path / "sq.mat", {"fea": X, "gnd": y}, version)
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(path)
    assert "samples='rows' or samples='columns'" in message(excinfo)
    np.testing.assert_array_equal(load_dataset(path, samples="rows").X, X)
    np.testing.assert_array_equal(load_dataset(path, samples="columns").X, X.T)


@pytest.mark.parametrize("version", VERSIONS)
def test_labels_that_do_not_match_the_samples(tmp_path, version):
    X, y = truth()
    path = save(tmp_path / "bad.mat", {"fea": X, "gnd": y[:-1]}, version)
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(path)
    text = message(excinfo)
    assert "labels do not match the samples" in text and "11 labels" in text
    assert "12x6" in text
    with pytest.raises(DatasetError, match="the rows of 'fea'"):
        load_dataset(path, samples="rows")


def test_unknown_variable_lists_the_variables(tmp_path):
    X, y = truth()
    path = save(tmp_path / "v.mat", {"fea": X, "gnd": y}, "v5")
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(path, x="features", y="gnd")
    text = message(excinfo)
    assert "no variable 'features'" in text and "fea (12x6)" in text


def test_nothing_usable_in_the_file(tmp_path):
    path = save(tmp_path / "n.mat", {"a": np.array(1.0), "note": "hello"}, "v5")
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(path)
    assert "pass x=NAME and y=NAME" in message(excinfo)


def test_nan_labels_and_samples_are_refused(tmp_path):
    X, y = truth()
    path = save(
        tmp_path / "nan.mat", {"fea": X, "gnd": np.where(y == 1, np.nan, y)}, "v5"
    )
    with pytest.raises(DatasetError, match="labels .* NaN"):
        load_dataset(path)
    X[0, 0] = np.inf
    path = save(tmp_path / "inf.mat", {"fea": X, "gnd": y}, "v5")
    with pytest.raises(DatasetError, match="1 NaN or infinite values"):
        load_dataset(path)


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"this is not a MATLAB file at all" * 10,
        b"MATLAB 5.0 MAT-file" + b"\x00" * 100 + b"\x00\x01IM" + b"\x0e\x00" * 9,
        b"\0" * 512 + b"\x89HDF\r\n\x1a\n" + b"broken" * 20,
    ],
    ids=["empty", "text", "truncated-v5", "broken-hdf5"],
)
def test_unreadable_file(tmp_path, content):
    path = tmp_path / "broken.mat"
    path.write_bytes(content)
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(path)
    text = message(excinfo)
    assert str(path) in text and ("cannot read" in text or "empty" in text)


def test_truncated_copy_of_a_valid_file(tmp_path):
    X, y = truth(d=200)
    path = save(tmp_path / "full.mat", {"fea": X, "gnd": y}, "v5")
    cut = tmp_path / "cut.mat"
    cut.write_bytes(path.read_bytes()[:2000])
    with pytest.raises(DatasetError, match="cannot read .*cut.mat as a MATLAB file"):
        load_dataset(cut)


def test_v73_without_h5py_says_what_to_install(tmp_path, monkeypatch):
    X, y = truth()
    path = save(tmp_path / "h.mat", {"fea": X, "gnd": y}, "v7.3")
    monkeypatch.setitem(sys.modules, "h5py", None)
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(path)
    assert 'pip install ".[data]"' in message(excinfo)


def test_image_shape_and_order_overrides(tmp_path):
    X, y = truth(d=6)
    path = save(tmp_path / "o.mat", {"fea": X, "gnd": y}, "v5")
    ds = load_dataset(path, image_shape=(2, 3), order="C")
    assert ds.image_shape == (2, 3) and ds.order == "C"
    np.testing.assert_array_equal(ds.images()[0], X[0].reshape(2, 3))
    ds = load_dataset(path, image_shape=(2, 3))
    np.testing.assert_array_equal(ds.images()[0], X[0].reshape(2, 3, order="F"))
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(path, image_shape=(4, 4))
    assert "16 pixels but the samples have 6 features" in message(excinfo)
    with pytest.raises(DatasetError, match="order must be 'F'"):
        load_dataset(path, order="K")
    with pytest.raises(DatasetError, match="samples must be 'rows' or 'columns'"):
        load_dataset(path, samples="cols")


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 30),
    d=st.integers(1, 30),
    columns=st.booleans(),
    one_hot_labels=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_orientation_follows_the_label_count(n, d, columns, one_hot_labels, seed):
    """Whatever the sizes: samples as rows when unambiguous, an error naming
    samples= when the matrix is square, never a silent transpose."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.integers(1, 4, size=n)
    y[:3] = [1, 2, 3][:n] if n < 3 else [1, 2, 3]
    labels = one_hot(y, 3) if one_hot_labels else y.reshape(1, -1)
    arrays = {"A": X.T if columns else X, "lab": labels}
    if n == d and d > 1:
        with pytest.raises(DatasetError, match="samples='rows' or samples='columns'"):
            resolve(arrays, "f.mat", x="A", y="lab")
        layout = resolve(
            arrays, "f.mat", x="A", y="lab", samples="columns" if columns else "rows"
        )
    else:
        layout = resolve(arrays, "f.mat", x="A", y="lab")
    np.testing.assert_array_equal(layout.X, X)
    np.testing.assert_array_equal(layout.y, y)
