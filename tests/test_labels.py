"""Label identity: two labels a file stores differently are never one class, whatever
the reader (CSV, .npz, .mat v5 and v7.3, image folders, fixed splits), and labels
keep the form the file gives them in what fdlsr prints."""

import numpy as np
import pytest
import scipy.io

from fdlsr._experiments.cli import main
from fdlsr._testing import cli_error
from fdlsr.datasets import load_dataset
from fdlsr.errors import DatasetError

# Text that int() reads as a number although it is not how Python writes one: each
# would merge with the plain integer beside it.
LOOKALIKES = [
    ["1_12", "11_2", "01", "1"],  # underscores and a leading zero: 112, 112, 1, 1
    ["١", "1"],  # an Arabic-Indic one
    ["+1", "1"],
    [" 1", "1"],
    ["-0", "0"],
    ["001", "01", "1"],
]


def samples(n, d=3, seed=0):
    return np.random.default_rng(seed).random((n, d))


def class_labels(values, tmp_path):
    """The labels ``load_dataset`` gives for ``values`` stored in an .npz file."""
    values = np.asarray(values)
    np.savez(tmp_path / "labels.npz", X=samples(values.size), y=values)
    return load_dataset(tmp_path / "labels.npz", samples="rows").y


def write_csv(path, labels, per_class=3):
    rows = [lab for lab in labels for _ in range(per_class)]
    X = samples(len(rows))
    lines = ["label,a,b,c"] + [
        ",".join([f'"{lab}"', *map(str, x)]) for lab, x in zip(rows, X, strict=True)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("labels", LOOKALIKES)
def test_text_labels_that_int_reads_alike_stay_apart(tmp_path, labels):
    y = class_labels(labels, tmp_path)
    assert y.dtype.kind == "U" and y.tolist() == labels


@pytest.mark.parametrize("labels", LOOKALIKES)
def test_csv_labels_keep_their_identity(tmp_path, labels):
    ds = load_dataset(write_csv(tmp_path / "t.csv", labels))
    assert ds.n_classes == len(labels)
    assert sorted(ds.classes.tolist()) == sorted(labels)


def test_the_issues_four_class_csv_runs_as_four_classes(tmp_path, capsys):
    path = write_csv(tmp_path / "t.csv", ["1_12", "11_2", "01", "1"], per_class=4)
    argv = ["run", "--dataset", str(path), "--methods", "1-NN", "-k", "2"]
    assert main([*argv, "--splits", "1", "--out", str(tmp_path / "o")]) == 0
    assert "4 classes" in capsys.readouterr().err


def test_integers_written_plainly_become_integers_that_int64_holds(tmp_path):
    y = class_labels(["3", "-2", "10", "3"], tmp_path)
    assert y.dtype == np.int64 and y.tolist() == [3, -2, 10, 3]
    too_big = ["9223372036854775808", "1"]  # beyond int64: kept as text, not wrapped
    assert class_labels(too_big, tmp_path).tolist() == too_big


def test_white_space_is_dropped_only_when_that_merges_nothing(tmp_path):
    assert class_labels([" 1", "2 "], tmp_path).tolist() == [1, 2]
    assert class_labels([" cat", "cat"], tmp_path).tolist() == [" cat", "cat"]


@pytest.mark.parametrize(
    "values, expected",
    [
        ([1.0000000001, 1.0], ["1.0000000001", "1"]),
        ([1.5, 2.5, 1.5], ["1.5", "2.5", "1.5"]),
        ([2.0**63, 0.0], ["9.223372036854776e+18", "0"]),  # not int64's -2**63
        ([1e300, -1e300], ["1e+300", "-1e+300"]),
        ([-0.0, 0.0, 1.5], ["0", "0", "1.5"]),  # numbers are classes by value
    ],
)
def test_float_labels_are_never_rounded_or_wrapped(tmp_path, values, expected):
    assert class_labels(values, tmp_path).tolist() == expected


def test_other_number_types_keep_every_class(tmp_path):
    huge = np.array([2**64 - 1, 0], dtype=np.uint64)
    assert class_labels(huge, tmp_path).tolist() == ["18446744073709551615", "0"]
    fine = np.longdouble(1) + np.longdouble(2.0**-60)
    if fine != 1:  # long double is wider than float64 here
        wide = np.array([fine, 1], np.longdouble)
        assert np.unique(class_labels(wide, tmp_path)).size == 2
    assert class_labels([b"a", b"b"], tmp_path).tolist() == ["a", "b"]


@pytest.mark.parametrize(
    "values, match",
    [
        (np.array(["a", "  "]), "empty label"),
        (np.array([b"\xff"]), "not UTF-8"),
        (np.array(["\ud800"]), "not valid text"),
    ],
)
def test_labels_that_name_no_class_are_refused(tmp_path, values, match):
    with pytest.raises(DatasetError, match=match):
        class_labels(values, tmp_path)


def test_npz_and_mat_labels_keep_their_identity(tmp_path):
    labels = ["01", "1", "1_0", "10"]
    y = np.repeat(labels, 3)
    np.savez(tmp_path / "d.npz", X=samples(y.size), y=y)
    assert load_dataset(tmp_path / "d.npz").n_classes == 4
    cells = np.array(list(y), dtype=object).reshape(-1, 1)
    scipy.io.savemat(tmp_path / "d.mat", {"fea": samples(y.size), "gnd": cells})
    ds = load_dataset(tmp_path / "d.mat", x="fea", y="gnd", samples="rows")
    assert sorted(ds.classes.tolist()) == sorted(labels)


def test_v73_cell_labels_decode_utf16(tmp_path):
    pytest.importorskip("h5py")
    from matlab_v73 import savemat_v73

    labels = ["😀", "😁", "01", "1"]  # two characters beyond U+FFFF (surrogate pairs)
    y = [lab for lab in labels for _ in range(3)]
    savemat_v73(tmp_path / "d.mat", {"fea": samples(len(y)).T, "gnd": y})
    ds = load_dataset(tmp_path / "d.mat", x="fea", y="gnd")
    assert sorted(ds.classes.tolist()) == sorted(labels)


def test_a_fixed_split_converts_its_two_parts_together(tmp_path):
    """The same label is one class in both parts, and different ones stay apart."""
    X = samples(8)
    np.savez(
        tmp_path / "s.npz",
        x_train=X[:4], y_train=np.array(["01", "02", "01", "02"]),
        x_test=X[4:], y_test=np.array([1, 2, 1, 2]),
    )  # fmt: skip
    ds = load_dataset(tmp_path / "s.npz")
    assert sorted(ds.classes.tolist()) == ["01", "02", "1", "2"]
    np.savez(
        tmp_path / "t.npz",
        x_train=X[:4], y_train=np.array([1, 2, 1, 2]),
        x_test=X[4:], y_test=np.array(["1", "2", "x", "1"]),
    )  # fmt: skip
    ds = load_dataset(tmp_path / "t.npz")
    assert ds.y.tolist() == ["1", "2", "1", "2", "1", "2", "x", "1"]


def test_image_folder_names_are_labels_like_any_text(tmp_path):
    pytest.importorskip("PIL")
    from image_layouts import write_image

    for i, name in enumerate(["01", "1", "1_0"]):
        for j in range(2):
            write_image(tmp_path / "a" / name / f"{j}.png", 10 * i + j)
    assert sorted(load_dataset(tmp_path / "a").classes.tolist()) == ["01", "1", "1_0"]
    for i, name in enumerate(["2", "10"]):
        write_image(tmp_path / "b" / name / "0.png", i)
    assert load_dataset(tmp_path / "b").classes.tolist() == [2, 10]


def test_predict_compares_labels_by_their_text(tmp_path, capsys):
    """A model fitted on integer labels scores test labels written as text."""
    X = samples(12)
    np.savez(tmp_path / "train.npz", X=X, y=np.repeat([1, 2, 3], 4))
    model = tmp_path / "m.fdlsr"
    argv = ["fit", "--dataset", str(tmp_path / "train.npz"), "--method", "1-NN"]
    assert main([*argv, "-o", str(model)]) == 0
    test = np.repeat(["1", "2", "x"], 4)  # text, because of "x"
    np.savez(tmp_path / "test.npz", X=X, y=test)
    capsys.readouterr()
    assert main(["predict", str(model), str(tmp_path / "test.npz")]) == 0
    out, err = capsys.readouterr()
    assert "accuracy 66.67% (8 of 12" in err
    assert out.splitlines()[1] == "0,1,1"


def test_predict_says_how_many_labels_are_not_classes_of_the_model(tmp_path, capsys):
    """A model fitted on labels read as text ('1.0', '2', '3') scores data labelled
    1, 2, 3: the 4 samples of label 1 are counted wrong, and a warning says so with
    both kinds (was: "accuracy 66.67%" and nothing else)."""
    import fdlsr
    from fdlsr.relaxed import LSR

    X = samples(12) + 5 * np.repeat(np.eye(3), 4, axis=0)
    model = LSR().fit(X, np.repeat(["1.0", "2", "3"], 4))
    fdlsr.save(model, tmp_path / "m.fdlsr")
    np.savez(tmp_path / "test.npz", X=X, y=np.repeat([1, 2, 3], 4))
    assert main(["predict", str(tmp_path / "m.fdlsr"), str(tmp_path / "test.npz")]) == 0
    err = capsys.readouterr().err
    (warning,) = [line for line in err.splitlines() if "warning" in line]
    assert (
        "4 of the 12 samples of test.npz carry a label that is not a class" in warning
    )
    assert "(1; its classes: '1.0', '2', '3')" in warning
    assert "the model's labels are text, these integers" in warning
    assert "accuracy 66.67% (8 of 12" in err


def test_predict_with_every_label_a_class_warns_of_none(tmp_path, capsys):
    import fdlsr
    from fdlsr.relaxed import LSR

    X = samples(12) + 5 * np.repeat(np.eye(3), 4, axis=0)
    fdlsr.save(LSR().fit(X, np.repeat([1, 2, 3], 4)), tmp_path / "m.fdlsr")
    np.savez(tmp_path / "test.npz", X=X, y=np.repeat(["1", "2", "3"], 4))
    assert main(["predict", str(tmp_path / "m.fdlsr"), str(tmp_path / "test.npz")]) == 0
    err = capsys.readouterr().err
    assert "warning" not in err and "accuracy 100.00%" in err


@pytest.mark.parametrize(
    "fitted, given",
    [
        (np.repeat([0.0, 1.0, 2.0], 4), np.repeat([0, 1, 2], 4)),
        (np.repeat([False, True, True], 4), np.repeat([0, 1, 1], 4)),
        (np.repeat(np.array([1, 5, 9], dtype=np.uint8), 4), np.repeat([1.0, 5, 9], 4)),
    ],
    ids=["floats", "booleans", "bytes"],
)
def test_predict_compares_a_python_models_labels_by_value(
    tmp_path, capsys, fitted, given
):
    """A model fitted in Python on 0.0/1.0/2.0 (or False/True) scores a file whose
    labels are 0/1/2 (0/1) as it scores its own: 1.0 and True are the class 1."""
    import fdlsr
    from fdlsr import FDLSR

    X = samples(12) + np.repeat(np.eye(3), 4, axis=0)
    model = FDLSR().fit(X, fitted)
    fdlsr.save(model, tmp_path / "m.fdlsr")
    np.savez(tmp_path / "test.npz", X=X, y=given)
    assert main(["predict", str(tmp_path / "m.fdlsr"), str(tmp_path / "test.npz")]) == 0
    right = int(np.sum(model.predict(X) == fitted))
    err = capsys.readouterr().err
    assert f"({right} of 12 samples" in err and "warning" not in err, err
    assert right > 0


@pytest.mark.parametrize(
    "a, b",
    [
        ([1, 2], [1.0, 2.0]),
        ([1, 0], [True, False]),
        ([2**63], np.array([2**63], dtype=np.uint64)),
        ([-0.0], [0]),
        (np.array(["7"]), [7]),
    ],
)
def test_labels_equal_by_value_have_one_text(a, b):
    from fdlsr.datasets._labels import label_text

    assert label_text(np.asarray(a)).tolist() == label_text(np.asarray(b)).tolist()


def test_labels_of_other_values_have_other_texts():
    from fdlsr.datasets._labels import label_text

    texts = label_text(np.array([1.5, 1.0000000001, 1e300, 1])).tolist()
    assert texts == ["1.5", "1.0000000001", "1e+300", "1"]
    assert label_text(np.array(["1.0", " 1"])).tolist() == ["1.0", " 1"]  # as written


def test_errors_quote_file_text_short(tmp_path, capsys):
    """A label, a column name or a list line from a file is cut in a message."""
    long = "x" * 5000
    y = np.array([long, "b", "b", "c", "c"])
    np.savez(tmp_path / "d.npz", X=samples(5), y=y)
    argv = ["run", "--dataset", str(tmp_path / "d.npz"), "--methods", "1-NN"]
    line = cli_error(capsys, [*argv, "-k", "1"])
    assert "xxx…" in line and len(line) < 400
    csv = tmp_path / "t.csv"
    csv.write_text(f"label,{long}\n1,0.5\n2,0.25\n", encoding="utf-8")
    line = cli_error(capsys, [*argv[:2], str(csv), "--y", "nope", "--methods", "1-NN"])
    assert "…" in line and len(line) < 400
    listing = tmp_path / "list.txt"
    listing.write_text(f"a.png,{long},{long}\n", encoding="utf-8")
    from fdlsr.datasets._image_lists import image_list

    with pytest.raises(DatasetError) as excinfo:
        image_list(listing)
    assert "…" in str(excinfo.value) and len(str(excinfo.value)) < 400


def test_quoted_csv_labels_keep_line_breaks_and_hashes(tmp_path):
    """A carriage return and a line feed, or text after "#", are parts of a label."""
    labels = ["a\r", "a\n", "a#1", "a#2"]
    rows = [lab for lab in labels for _ in range(2)]
    text = "label,f\n" + "".join(f'"{lab}",{i / 10}\n' for i, lab in enumerate(rows))
    path = tmp_path / "t.csv"
    path.write_bytes(text.encode())
    assert sorted(load_dataset(path).classes.tolist()) == sorted(labels)


def test_nul_characters_in_text_files_are_refused(tmp_path):
    """numpy's strings drop a trailing NUL: "1\\0" would become the label "1"."""
    path = tmp_path / "t.csv"
    path.write_bytes(b"label,f\n1,0.5\n1\x00,0.25\n2,0.75\n")
    with pytest.raises(DatasetError, match="NUL"):
        load_dataset(path)
    from fdlsr.datasets._image_lists import image_list

    (tmp_path / "a.png").write_bytes(b"")
    listing = tmp_path / "list.txt"
    listing.write_bytes(b"a.png,x\na.png,x\x00\n")
    with pytest.raises(DatasetError, match="not a UTF-8 text file"):
        image_list(listing)


def test_a_first_line_that_may_be_a_sample_is_refused(tmp_path):
    """Text in one column above numbers: a column's name, or a sample whose label is
    text? Refused, rather than drop the sample or read a name as a label."""
    path = tmp_path / "t.csv"
    path.write_text(":,0.1,0.2\n0,0.3,0.4\n00,0.5,0.6\n0,0.7,0.8\n00,0.9,1.0\n")
    with pytest.raises(DatasetError, match="header or a sample.*names every column"):
        load_dataset(path, y=0)
    path.write_text("label,0.1,0.2\n" + path.read_text().split("\n", 1)[1])
    assert load_dataset(path, y=0).n_samples == 4  # a label column's name: a header
    path.write_text("Y,0.1,0.2\n1,0.3,0.4\n01,0.5,0.6\n")  # class Y, or a name?
    with pytest.raises(DatasetError, match="header or a sample"):
        load_dataset(path, y=0)


def test_cub200_names_and_ids_stay_one_per_class_and_image(tmp_path):
    from fdlsr.datasets._image_lists import image_list
    from image_layouts import cub200

    cub200(tmp_path / "cub")
    (tmp_path / "cub" / "classes.txt").write_text("1 bird\n2 bird\n")
    with pytest.raises(DatasetError, match="two classes the name 'bird'"):
        image_list(tmp_path / "cub")
    (tmp_path / "cub" / "classes.txt").write_text("1 a\n2 b\n")
    images = tmp_path / "cub" / "images.txt"
    images.write_text(images.read_text() + images.read_text().splitlines()[0] + "\n")
    with pytest.raises(DatasetError, match="id '1' is given twice"):
        image_list(tmp_path / "cub")
