"""Which CSV column holds the labels: named, chosen with ``--y``, or refused when the
file does not say; never a pixel column taken silently, never a row index as a feature."""

import numpy as np
import pytest

from fdlsr._experiments.cli import main
from fdlsr._testing import cli_error
from fdlsr.datasets import load_dataset
from fdlsr.errors import DatasetError


def pixels(n_classes=3, per_class=10, d=6, seed=0):
    """Whole-number grey levels (0..16, as scikit-learn's digits) and labels
    1..n_classes: every column could hold classes."""
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.repeat(np.arange(1, n_classes + 1), per_class))
    X = rng.integers(0, 17, size=(y.size, d))
    return X, y


def write(path, rows, header=None):
    lines = [",".join(header)] if header else []
    lines += [",".join(str(v) for v in row) for row in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def label_first(X, y):
    return [[label, *x] for x, label in zip(X, y, strict=True)]


def message(excinfo):
    text = str(excinfo.value)
    assert "\n" not in text and "np." not in text
    return text


@pytest.mark.parametrize("name", ["label", "Class", "target", "y", "labels"])
def test_a_header_column_named_label_is_the_label(tmp_path, name):
    X, y = pixels()
    header = [name] + [f"pixel{i}" for i in range(X.shape[1])]
    ds = load_dataset(write(tmp_path / "t.csv", label_first(X, y), header))
    np.testing.assert_array_equal(ds.y, y)
    np.testing.assert_array_equal(ds.X, X)
    assert f"label column 0 ({name!r})" in ds.description


def test_headerless_label_first_with_whole_number_pixels_is_refused(tmp_path):
    """Today's bug: the last pixel column became the labels, silently."""
    X, y = pixels()
    path = write(tmp_path / "t.csv", label_first(X, y))
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(path)
    text = message(excinfo)
    assert "--y 0" in text and "--y -1" in text and "label_column=" in text
    ds = load_dataset(path, label_column=0)
    np.testing.assert_array_equal(ds.y, y)
    np.testing.assert_array_equal(ds.X, X)


def test_headerless_label_first_with_real_valued_features(tmp_path):
    """Only the first column can be labels (the last holds fractions): it is taken,
    and the description says which."""
    X, y = pixels()
    X = X / 16
    ds = load_dataset(write(tmp_path / "t.csv", label_first(X, y)))
    np.testing.assert_array_equal(ds.y, y)
    np.testing.assert_allclose(ds.X, X)
    assert "label column 0" in ds.description


def test_y_chooses_the_label_column_by_name_or_index(tmp_path):
    X, y = pixels()
    header = ["who"] + [f"p{i}" for i in range(X.shape[1])] + ["kind"]
    rows = [[*row, 7 * label] for row, label in zip(label_first(X, y), y, strict=True)]
    path = write(tmp_path / "t.csv", rows, header)
    for choice, labels in (
        ("who", y),
        ("0", y),
        (0, y),
        ("kind", 7 * y),
        ("-1", 7 * y),
    ):
        ds = load_dataset(path, y=choice)
        np.testing.assert_array_equal(ds.y, labels)
        assert ds.X.shape == (y.size, X.shape[1] + 1)
    with pytest.raises(DatasetError, match="no column named 'what'.*who"):
        load_dataset(path, y="what")
    with pytest.raises(DatasetError, match="out of range"):
        load_dataset(path, y="12")
    with pytest.raises(DatasetError, match="label_column=0 and y=kind"):
        load_dataset(path, y="kind", label_column=0)


def test_y_on_the_command_line(tmp_path, capsys):
    X, y = pixels()
    path = write(tmp_path / "t.csv", label_first(X, y))
    argv = [
        "run",
        "--dataset",
        str(path),
        "--methods",
        "1-NN",
        "-k",
        "2",
        "--splits",
        "1",
    ]
    line = cli_error(capsys, [*argv, "--out", str(tmp_path / "a")])
    assert "--y 0" in line
    assert not (tmp_path / "a").exists()
    assert main([*argv, "--y", "0", "--out", str(tmp_path / "b"), "--no-table"]) == 0
    assert "3 classes" in capsys.readouterr().err
    assert "--x" in cli_error(capsys, [*argv, "--x", "a", "--y", "0"])


def test_ambiguous_label_columns_are_refused(tmp_path):
    X, y = pixels()
    header = ["label"] + [f"p{i}" for i in range(X.shape[1])] + ["class"]
    rows = [[*row, label] for row, label in zip(label_first(X, y), y, strict=True)]
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(write(tmp_path / "two.csv", rows, header))
    assert "'label'" in message(excinfo) and "'class'" in message(excinfo)
    assert "--y" in message(excinfo)
    # no header, text in both the first and the last column
    rows = [[f"c{label}", *x, f"d{label}"] for x, label in zip(X, y, strict=True)]
    with pytest.raises(DatasetError, match="--y"):
        load_dataset(write(tmp_path / "text.csv", rows))


def test_the_last_column_still_is_the_label_when_only_it_can_be(tmp_path):
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(12, 4)).round(3), np.repeat([1, 2, 3], 4)
    rows = [[*x, label] for x, label in zip(X, y, strict=True)]
    ds = load_dataset(write(tmp_path / "t.csv", rows))
    np.testing.assert_array_equal(ds.y, y)
    np.testing.assert_array_equal(ds.X, X)
    # text labels in the first column of a table without header
    rows = [[f"class {label}", *x] for x, label in zip(X, y, strict=True)]
    ds = load_dataset(write(tmp_path / "s.csv", rows))
    np.testing.assert_array_equal(ds.y, [f"class {v}" for v in y])


def test_pandas_index_column(tmp_path):
    """``DataFrame.to_csv()`` writes the row index as an unnamed first column."""
    X, y = pixels()
    header = ["", *[f"p{i}" for i in range(X.shape[1])], "label"]
    rows = [[i, *x, label] for i, (x, label) in enumerate(zip(X, y, strict=True))]
    ds = load_dataset(write(tmp_path / "pd.csv", rows, header))
    np.testing.assert_array_equal(ds.X, X)  # the index is not a feature
    np.testing.assert_array_equal(ds.y, y)
    assert "row index" in ds.description
    header[0] = "Unnamed: 0"
    ds = load_dataset(write(tmp_path / "pd2.csv", rows, header))
    np.testing.assert_array_equal(ds.X, X)
    # without a header (to_csv(header=False)): refused, with the fix
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(write(tmp_path / "nohead.csv", rows), label_column=-1)
    assert "index" in message(excinfo) and "index=False" in message(excinfo)


def test_pandas_index_is_dropped_when_y_names_the_label_too(tmp_path):
    X, y = pixels()
    header = ["", *[str(i) for i in range(X.shape[1])], "label"]
    rows = [[i, *x, label] for i, (x, label) in enumerate(zip(X, y, strict=True))]
    path = write(tmp_path / "pd.csv", rows, header)
    for choice in ("label", "-1", -1):
        ds = load_dataset(path, y=choice)
        np.testing.assert_array_equal(ds.X, X)
        np.testing.assert_array_equal(ds.y, y)
    # pandas's default column names 0, 1, ... without the index: still a header
    rows = [[*x, label] for x, label in zip(X, y, strict=True)]
    ds = load_dataset(write(tmp_path / "noindex.csv", rows, header[1:]))
    np.testing.assert_array_equal(ds.X, X)
    assert "label column 6 ('label')" in ds.description
    # "0" names column 1 but indexes column 0: refused rather than guessed
    with pytest.raises(DatasetError, match="both the name of column 1"):
        load_dataset(path, y="0")


def test_a_label_value_that_reads_like_a_name_is_not_a_header(tmp_path):
    """Headerless labels y/n: the first line stays a sample."""
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(12, 3)).round(3), np.array(list("ynynynynynyn"))
    rows = [[label, *x] for x, label in zip(X, y, strict=True)]
    ds = load_dataset(write(tmp_path / "yn.csv", rows))
    np.testing.assert_array_equal(ds.y, y)
    np.testing.assert_array_equal(ds.X, X)


# -- fdlsr predict: a label column only where the table has one ---------------------


@pytest.fixture()
def csv_model(tmp_path):
    """A model fitted on a CSV of header label,f0,...,f5 (whole-number pixels, so
    that a headerless table of them could hold classes in its first or last column),
    and the samples it was fitted on."""
    X, y = pixels()
    X = X + 8 * np.eye(3, X.shape[1], dtype=int)[y - 1]
    header = ["label"] + [f"f{i}" for i in range(X.shape[1])]
    write(tmp_path / "train.csv", label_first(X, y), header)
    model = tmp_path / "m.fdlsr"
    argv = ["fit", "--dataset", str(tmp_path / "train.csv"), "--method", "LSR"]
    assert main([*argv, "-o", str(model)]) == 0
    return model, X, y


def predictions(capsys, argv):
    assert main(["predict", *argv]) == 0
    out, err = capsys.readouterr()
    rows = [line.split(",") for line in out.splitlines()]
    return rows, err


def test_predict_labels_a_headerless_csv_of_samples_only(tmp_path, capsys, csv_model):
    """As wide as the model's features: samples only (was: "cannot tell which column
    of new.csv holds the labels ... --y 0 or --y -1")."""
    model, X, y = csv_model
    capsys.readouterr()
    rows, err = predictions(capsys, [str(model), str(write(tmp_path / "new.csv", X))])
    assert rows[0] == ["index", "prediction"] and len(rows) == len(y) + 1
    with_labels, _ = predictions(capsys, [str(model), str(tmp_path / "train.csv")])
    assert [r[1] for r in rows[1:]] == [r[1] for r in with_labels[1:]]
    assert "accuracy" not in err


def test_predict_labels_a_csv_whose_header_names_the_models_features(
    tmp_path, capsys, csv_model
):
    model, X, y = csv_model
    names = [f"f{i}" for i in range(X.shape[1])][::-1]
    path = write(tmp_path / "named.csv", X[:, ::-1], names)
    capsys.readouterr()
    rows, err = predictions(capsys, [str(model), str(path)])
    assert rows[0] == ["index", "prediction"] and len(rows) == len(y) + 1
    assert "taken by name" in err


def test_predict_reads_the_label_column_of_a_csv_one_column_wider(
    tmp_path, capsys, csv_model
):
    model, X, y = csv_model
    path = write(tmp_path / "test.csv", label_first(X, y))  # headerless, label first
    capsys.readouterr()
    rows, err = predictions(capsys, [str(model), str(path), "--y", "0"])
    assert rows[0] == ["index", "prediction", "label"]
    assert "accuracy" in err


def test_a_header_that_names_a_label_column_keeps_it(tmp_path, capsys, csv_model):
    """A table as wide as the model's features whose header names a label column
    has one: its samples are then a feature short, which is refused."""
    model, X, y = csv_model
    header = ["label"] + [f"f{i}" for i in range(X.shape[1] - 1)]
    path = write(tmp_path / "short.csv", label_first(X[:, :-1], y), header)
    capsys.readouterr()
    line = cli_error(capsys, ["predict", str(model), str(path)])
    assert "the columns of short.csv are not those" in line and "missing" in line
