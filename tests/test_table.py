"""Readers refuse rows they cannot read unambiguously, naming the line (file:line).

A CSV line with one field too many (an unquoted ``1,234.5``) must not be read shifted
by one, its last value dropped: ``numpy.loadtxt`` reads every column of the table and
refuses a line of another width, and the refusal names the line of the file (blank
lines and quoted line breaks counted). The other readers of rows (list files,
CUB-200's tables, the Oxford Flowers index files, index splits in .mat/.npz files)
check theirs too.
"""

import csv
import io
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fdlsr._testing import cli
from fdlsr.datasets import load_dataset
from fdlsr.datasets._image_lists import image_list
from fdlsr.errors import DatasetError
from image_layouts import cub200, flowers102

FUZZ = dict(deadline=None, suppress_health_check=list(HealthCheck))


def table(rows, header=("label", *(f"f{j}" for j in range(10)))):
    return "\n".join([",".join(header), *rows]) + "\n"


def row(label, values):
    return ",".join([str(label), *(f"{v:.3f}" for v in values)])


def test_a_number_with_a_thousands_separator_is_refused_with_its_line(tmp_path):
    """The issue's case: 12 fields among lines of 11, exit 2 and the line named,
    nothing written; quoted, the same value is one field (and not a number)."""
    values = np.random.default_rng(0).normal(size=(40, 10))
    rows = [row(i % 4, v) for i, v in enumerate(values)]
    rows[5] = "1,1,234.5," + ",".join(["0.5"] * 9)  # line 7 of the file
    path = tmp_path / "t.csv"
    path.write_text(table(rows))
    model = tmp_path / "m.fdlsr"
    status, out, err = cli(
        ["fit", "--dataset", str(path), "--method", "1-NN", "-o", str(model)]
    )
    assert status == 2 and not model.exists()
    (line,) = err.strip().splitlines()
    assert f"{path}:7 has 12 fields but line 1 has 11" in line
    # the advice leads to a number: quoting would only give a field that is not one
    assert "without a thousands separator (1234.5)" in line
    rows[5] = '1,"1,234.5",' + ",".join(["0.5"] * 9)
    path.write_text(table(rows))
    with pytest.raises(DatasetError, match=r"t.csv:7: column 1 .*'1,234.5'.* not a"):
        load_dataset(path)


@pytest.mark.parametrize(
    "text, line, fields",
    [
        ("label,a,b\n1,2,3\n1,2,3,\n2,5,6\n2,5,6\n", 3, 4),  # a trailing delimiter
        ("label,a,b\n1,2,3\n1,2\n2,5,6\n2,5,6\n", 3, 2),  # a value missing
        ("label,a\n1,2,3\n1,2,3\n2,5,6\n2,5,6\n", 2, 3),  # the header is short
        ("\n\nlabel,a,b\n\n1,2,3\n1,2,3\n2,5,6,7\n", 7, 4),  # blank lines counted
        ('label,a,b\n"x\ny",2,3\n1,2,3\n2,5,6,7\n', 5, 4),  # a quoted line break
        ("label;a;b\n1;2;3\n1;2,5;3;4\n2;5;6\n", 3, 4),  # semicolons
        ("label\ta\tb\n1\t2\t3\n1\t2\t3\t4\n", 3, 4),  # tabs
        ("label a b\n1 2 3\n1 2  3 4\n2 5 6\n", 3, 4),  # white space
        ("label,a,b\r\n1,2,3\r\n1,2,3,4\r\n", 3, 4),  # CR LF
        ("label,a,b\r1,2,3\r1,2,3,4\r", 3, 4),  # CR
    ],
)
def test_a_line_of_another_width_is_refused(tmp_path, text, line, fields):
    path = tmp_path / "t.csv"
    path.write_text(text, newline="")
    with pytest.raises(DatasetError) as refusal:
        load_dataset(path)
    message = str(refusal.value)
    assert f"{path}:{line} has {fields} fields" in message, message
    assert "\n" not in message


@st.composite
def tables(draw):
    """A table with a header naming its columns in any order, written with any
    delimiter, and maybe lines made ragged: ``(text, X, y, first ragged line)``."""
    n_features = draw(st.integers(1, 4))
    n = draw(st.integers(4, 10))
    labels = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    labels[:2] = ["a", "b"]
    X = (
        np.array(
            draw(
                st.lists(
                    st.lists(
                        st.integers(-999, 999), min_size=n_features, max_size=n_features
                    ),
                    min_size=n,
                    max_size=n,
                )
            )  # fmt: skip
        )
        / 8
    )
    names = [f"f{j}" for j in range(n_features)]
    order = draw(st.permutations(["label", *names]))
    delimiter = draw(st.sampled_from([",", ";", "\t", " "]))
    lines = [delimiter.join(order)]
    for label, x in zip(labels, X, strict=True):
        values = {"label": label, **{f"f{j}": repr(float(v)) for j, v in enumerate(x)}}
        lines.append(delimiter.join(values[c] for c in order))
    ragged = sorted(draw(st.sets(st.integers(1, n), max_size=2)))
    for i in ragged:
        fields = lines[i].split(delimiter)
        how = draw(st.sampled_from(["extra", "missing", "thousands"]))
        if how == "extra":
            fields.append("0.5")
        elif how == "missing":
            fields.pop(draw(st.integers(0, len(fields) - 1)))
        else:  # a value written with the delimiter inside, unquoted
            j = draw(st.integers(0, len(fields) - 1))
            fields[j:j + 1] = ["1", "234.5"]  # fmt: skip
        lines[i] = delimiter.join(fields)
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    features = [int(c[1:]) for c in order if c != "label"]
    return newline.join(lines) + newline, X[:, features], labels, ragged


@settings(max_examples=150, **FUZZ)
@given(case=tables())
def test_tables_with_ragged_lines_and_any_column_order(case):
    """Read exactly (features in the file's order, labels by the header), or refused
    at the first ragged line."""
    text, X, y, ragged = case
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.csv"
        path.write_bytes(text.encode())
        if not ragged:
            ds = load_dataset(path)
            np.testing.assert_array_equal(ds.X, X)
            assert ds.y.tolist() == y
            return
        with pytest.raises(DatasetError) as refusal:
            load_dataset(path)
    assert f"{path}:{ragged[0] + 1} has " in str(refusal.value)


@st.composite
def tables_with_a_bad_value(draw):
    """A table (comma, semicolon or tab) with blank lines and quoted labels that run
    over line ends between its records, and one feature value that is not a number:
    ``(text, line of that value, its column)``."""
    delimiter = draw(st.sampled_from([",", ";", "\t"]))
    n_features = draw(st.integers(1, 3))
    n = draw(st.integers(4, 9))
    header = draw(st.booleans())
    line, lines = 1, []

    def add(text):
        nonlocal line
        lines.append(text)
        line += text.count("\n") + 1

    if header:
        add(delimiter.join(["label", *(f"f{j}" for j in range(n_features))]))
    bad_row = draw(st.integers(1, n - 1))  # a first line of text would be a header
    bad_column = draw(st.integers(1, n_features))
    bad = draw(st.sampled_from(["", "x", "1e", '"1,5"', "--1", "0x10"]))
    where = None
    for i in range(n):
        for _ in range(draw(st.integers(0, 2))):
            add("")  # blank lines: no record
        label = draw(st.sampled_from(["a", "b", '"c\nd"', '"e\r\nf"']))
        values = [label, *(str(i + j / 8) for j in range(n_features))]
        if i == bad_row:
            values[bad_column] = bad
            where = line
        add(delimiter.join(values))
    return "\n".join(lines) + "\n", where, bad_column


@settings(max_examples=150, **FUZZ)
@given(case=tables_with_a_bad_value())
def test_a_value_that_is_not_a_number_is_named_by_its_line(case):
    """numpy counts records after the header; the refusal names the file's line."""
    text, line, column = case
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.csv"
        path.write_bytes(text.encode())
        with pytest.raises(DatasetError) as refusal:
            load_dataset(path, label_column=0)  # text in a last column: no guess
    message = str(refusal.value)
    assert f"{path}:{line}: column {column}" in message and "not a number" in message


NAME = st.text(alphabet="ab ,;\t'\"", min_size=1, max_size=6).filter(
    lambda name: name.strip() and name.strip().lower() not in ("label", "y")
)


@settings(max_examples=150, **FUZZ)
@given(
    delimiter=st.sampled_from([",", ";", "\t"]),
    names=st.lists(NAME, min_size=1, max_size=4, unique_by=str.strip),
    last=st.booleans(),
)
def test_quoted_header_names_may_hold_any_delimiter(delimiter, names, last):
    """A header of quoted names holding commas, semicolons, tabs and quotes is read
    as the same table with plain names: the delimiter is found outside quotes."""
    rng = np.random.default_rng(len(names))
    X = rng.integers(-99, 99, size=(9, len(names))) / 4
    y = np.repeat(["a", "b", "c"], 3)
    quoted = ['"' + name.replace('"', '""') + '"' for name in names]
    header = [*quoted, "label"] if last else ["label", *quoted]
    plain = [*(f"f{j}" for j in range(len(names))), "label"]
    rows = [
        [*map(str, x), label] if last else [label, *map(str, x)]
        for x, label in zip(X, y, strict=True)
    ]
    with tempfile.TemporaryDirectory() as folder:
        path, reference = Path(folder) / "q.csv", Path(folder) / "p.csv"
        path.write_text("\n".join(map(delimiter.join, [header, *rows])) + "\n")
        reference.write_text(
            "\n".join(map(delimiter.join, [plain if last else plain[-1:] + plain[:-1],
                                           *rows])) + "\n"
        )  # fmt: skip
        ds, ref = load_dataset(path), load_dataset(reference)
    np.testing.assert_array_equal(ds.X, ref.X)
    np.testing.assert_array_equal(ds.X, X)
    assert ds.y.tolist() == ref.y.tolist() == y.tolist()
    assert list(ds.feature_names) == [name.strip() for name in names]


# --- the other readers of rows ------------------------------------------------------


def test_list_file_lines_are_named_file_colon_line(tmp_path):
    (tmp_path / "a.png").write_bytes(b"")
    listing = tmp_path / "list.txt"
    listing.write_text("# path,label\na.png,x\na.png,x,train,extra\n")
    with pytest.raises(DatasetError, match=rf"{listing}:3: expected path,label"):
        image_list(listing)


@pytest.mark.parametrize(
    "table_name", ["image_class_labels.txt", "train_test_split.txt"]
)
def test_cub_tables_of_one_value_per_id(tmp_path, table_name):
    """A class id or split flag followed by another word is refused, not read as a
    class named '2 7'."""
    root = tmp_path / "cub"
    cub200(root)
    path = root / table_name
    lines = path.read_text().splitlines()
    lines[1] += " 7"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DatasetError, match=rf"{path}:2: expected 'id value'"):
        image_list(root)


@pytest.mark.parametrize(
    "file, name, value",
    [
        ("setid.mat", "trnid", lambda a: a.astype(float) + 0.5),  # not whole numbers
        ("imagelabels.mat", "labels", lambda a: np.vstack([a, a])),  # a matrix
    ],
)
def test_flowers_index_files_hold_whole_number_vectors(tmp_path, file, name, value):
    flowers102(tmp_path)
    arrays = scipy.io.loadmat(tmp_path / file)
    arrays = {k: v for k, v in arrays.items() if not k.startswith("__")}
    arrays[name] = value(arrays[name])
    scipy.io.savemat(tmp_path / file, arrays)
    with pytest.raises(DatasetError, match=f"'{name}' in .* is not a vector of whole"):
        image_list(tmp_path)


def test_index_splits_are_vectors(tmp_path):
    """trainIdx given as a matrix is refused, not flattened into some order."""
    path = tmp_path / "s.mat"
    fea = np.random.default_rng(0).random((12, 3))
    gnd = np.repeat([1, 2, 3], 4)
    index = np.arange(1, 7).reshape(2, 3)
    scipy.io.savemat(path, {"fea": fea, "gnd": gnd, "trainIdx": index,
                            "testIdx": np.arange(7, 13)})  # fmt: skip
    with pytest.raises(DatasetError, match="not vectors of 1-based indices"):
        load_dataset(path)


def test_csv_writer_output_is_read_back(tmp_path):
    """Text with delimiters, quotes and line breaks, quoted by Python's csv writer:
    one field each, read back exactly."""
    labels = ['a,b', 'say "hi"', "two\nlines", "x;y", "a,b", 'say "hi"', "two\nlines",
              "x;y"]  # fmt: skip
    X = np.arange(16.0).reshape(8, 2)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["label", "p", "q"])
    writer.writerows([[lab, *x] for lab, x in zip(labels, X, strict=True)])
    path = tmp_path / "t.csv"
    path.write_text(out.getvalue(), newline="")
    ds = load_dataset(path)
    np.testing.assert_array_equal(ds.X, X)
    assert ds.y.tolist() == labels


def damaged_sparse_v5(path):
    """A v5 file whose sparse matrix has a row index past its rows."""
    scipy.io.savemat(path, {"fea": scipy.sparse.csc_matrix(np.eye(4)),
                            "gnd": np.arange(4.0)})  # fmt: skip
    data = bytearray(path.read_bytes())
    at = data.find(np.array([0, 1, 2, 3], "<i4").tobytes())  # the row indices
    data[at + 12 : at + 16] = np.array([10**8], "<i4").tobytes()
    path.write_bytes(bytes(data))


def damaged_sparse_v73(path):
    h5py = pytest.importorskip("h5py")
    with h5py.File(path, "w", userblock_size=512) as f:
        group = f.create_group("fea")
        group.attrs["MATLAB_sparse"] = np.uint64(4)
        group.attrs["MATLAB_class"] = np.bytes_("double")
        group["data"] = np.ones(4)
        group["ir"] = np.array([0, 1, 2, 10**8], np.uint64)
        group["jc"] = np.arange(5, dtype=np.uint64)
        f["gnd"] = np.arange(4.0)[None]
        f["gnd"].attrs["MATLAB_class"] = np.bytes_("double")


@pytest.mark.parametrize("write", [damaged_sparse_v5, damaged_sparse_v73])
def test_a_sparse_matrix_with_indices_out_of_bounds_is_refused(tmp_path, write):
    """scipy reads such indices out of bounds when making the matrix dense, and the
    process dies (a segmentation fault): refused in one line instead. Run as a
    separate process, so that a crash fails the test rather than the test run."""
    path = tmp_path / "sparse.mat"
    write(path)
    done = subprocess.run(
        [sys.executable, "-m", "fdlsr", "datasets", "info", str(path)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.strip().splitlines() == [
        f"fdlsr: error: 'fea' in {path} is a damaged sparse matrix (indices must be "
        "< 4); re-download the file or save it again with MATLAB's save"
    ]
