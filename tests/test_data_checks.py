"""Data that cannot be classified, or not even held in memory, is refused in one line
before anything runs or is written; so is ``fdlsr predict`` on samples it cannot label."""

import zipfile

import numpy as np
import pytest
import scipy.io
import scipy.sparse

from fdlsr._experiments.cli import main
from fdlsr._testing import cli_error
from matlab_v73 import savemat_v73
from npy_headers import npy_bytes


def samples(n, d=4, seed=0):
    return np.random.default_rng(seed).random((n, d))


@pytest.fixture
def one_class(tmp_path):
    path = tmp_path / "one.npz"
    np.savez(path, X=samples(12), y=np.full(12, 7))
    return path


TRAINING = [
    ["run", "--methods", "FDLSR", "1-NN", "-k", "2", "--splits", "1"],
    ["fit", "--method", "LDA"],
    ["fit", "--method", "FDLSR"],
    ["plot", "convergence", "-k", "2"],
]


@pytest.mark.parametrize("command", TRAINING, ids=lambda c: " ".join(c[:2]))
def test_every_training_command_refuses_a_single_class(
    tmp_path, one_class, capsys, command
):
    out = tmp_path / "out"
    flag = "-o" if command[0] == "fit" else "--out"
    line = cli_error(capsys, [*command, "--dataset", str(one_class), flag, str(out)])
    assert "one.npz holds a single class (7)" in line and "at least two" in line
    assert not out.exists()


def test_a_fixed_split_whose_training_part_has_one_class(tmp_path, capsys):
    path = tmp_path / "split.npz"
    X = samples(8, 3)
    np.savez(
        path,
        x_train=X[:4], y_train=np.array(["a"] * 4),
        x_test=X[4:], y_test=np.array(["a", "b", "a", "b"]),
    )  # fmt: skip
    out = tmp_path / "out"
    argv = ["run", "--dataset", str(path), "--methods", "1-NN", "--out", str(out)]
    line = cli_error(capsys, argv)
    assert "training part of split.npz's own split holds a single class ('a')" in line
    assert not out.exists()


def test_predict_may_label_samples_of_one_class(tmp_path, one_class, capsys):
    train = tmp_path / "train.npz"
    np.savez(train, X=samples(12), y=np.repeat([7, 8], 6))
    model = tmp_path / "m.fdlsr"
    argv = ["fit", "--dataset", str(train), "--method", "1-NN", "-o", str(model)]
    assert main(argv) == 0
    assert main(["predict", str(model), str(one_class)]) == 0
    assert "accuracy" in capsys.readouterr().err


def test_fit_reports_a_methods_refusal_in_one_line(tmp_path, capsys):
    """LDA needs more samples than classes: said in one line, no model written."""
    path = tmp_path / "two.npz"
    np.savez(path, X=samples(2), y=np.array([1, 2]))
    out = tmp_path / "m.fdlsr"
    argv = ["fit", "--dataset", str(path), "--method", "LDA", "-o", str(out)]
    line = cli_error(capsys, argv)
    assert "LDA cannot be fitted on two.npz" in line and not out.exists()


HUGE = (10**7, 10**7)  # 800 TB of float64


def test_an_npz_declaring_more_than_memory_is_refused_before_reading(tmp_path, capsys):
    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("X.npy", npy_bytes(HUGE, data=b"\0" * 64))
        archive.writestr("y.npy", npy_bytes((2,), "<i8", np.arange(2).tobytes()))
    line = cli_error(capsys, ["fit", "--dataset", str(path), "--method", "1-NN",
                              "-o", str(tmp_path / "m.fdlsr")])  # fmt: skip
    assert "bomb.npz needs 800.0 TB of memory" in line
    assert "('X' as read: 10000000x10000000)" in line
    assert "memory available" in line and not (tmp_path / "m.fdlsr").exists()


def test_a_npy_declaring_more_than_memory_is_refused_by_predict(tmp_path, capsys):
    model = fitted_model(tmp_path, capsys)
    path = tmp_path / "bomb.npy"
    path.write_bytes(npy_bytes(HUGE))
    line = cli_error(capsys, ["predict", str(model), str(path)])
    assert "bomb.npy needs 800.0 TB" in line and "memory available" in line


def test_mat_files_declaring_more_than_memory_are_refused(tmp_path, capsys):
    """A sparse matrix is made dense: its shape, not its file size, is what counts;
    and an HDF5 (v7.3) dataset never written takes no room on disk."""
    v5 = tmp_path / "sparse.mat"
    big = scipy.sparse.csc_matrix(([1.0], ([0], [0])), shape=HUGE)
    scipy.io.savemat(v5, {"fea": big, "gnd": np.arange(2.0)})
    line = cli_error(capsys, ["datasets", "info", str(v5)])
    assert "sparse.mat needs 800.0 TB" in line
    assert "'fea' as read: 10000000x10000000" in line
    h5py = pytest.importorskip("h5py")
    v73 = tmp_path / "v73.mat"
    with h5py.File(v73, "w", userblock_size=512) as f:
        f.create_dataset("fea", shape=HUGE, dtype="f8", chunks=(100, 100))
        f["fea"].attrs["MATLAB_class"] = np.bytes_("double")
    line = cli_error(capsys, ["datasets", "info", str(v73)])
    assert "v73.mat needs 800.0 TB" in line and "memory available" in line


def test_the_budget_is_the_memory_available(tmp_path, capsys, monkeypatch):
    """An ordinary file is refused when memory is short (here: made short)."""
    from fdlsr.datasets import _memory

    path = tmp_path / "d.npz"
    np.savez(path, X=samples(100, 99), y=np.repeat([1, 2], 50))
    working = _memory.WORKING_MEMORY  # the readers' own, 1 MiB
    monkeypatch.setattr(_memory, "available_memory", lambda: working + 50_000)
    line = cli_error(capsys, ["datasets", "info", str(path)])
    assert "d.npz needs 1.1 MB of memory to be loaded ('X' as read: 100x99)" in line
    assert "more than the 1.1 MB of memory available" in line
    monkeypatch.setattr(_memory, "available_memory", lambda: working + 200_000)
    assert main(["datasets", "info", str(path)]) == 0


def fitted_model(tmp_path, capsys):
    train = tmp_path / "train.npz"
    np.savez(train, X=samples(12), y=np.repeat([1, 2], 6))
    model = tmp_path / "m.fdlsr"
    argv = ["fit", "--dataset", str(train), "--method", "1-NN", "-o", str(model)]
    assert main(argv) == 0
    capsys.readouterr()
    return model


@pytest.mark.parametrize(
    "array, match",
    [
        (np.array([[1.0, np.nan, 0, 0]]), "NaN or infinite"),
        (np.array([[1.0, np.inf, 0, 0]]), "NaN or infinite"),
        (np.zeros((0, 4)), "holds no samples"),
        (np.zeros(0), "holds samples without features"),
    ],
)
def test_predict_refuses_samples_it_cannot_label(tmp_path, capsys, array, match):
    model = fitted_model(tmp_path, capsys)
    path = tmp_path / "x.npy"
    np.save(path, array)
    out = tmp_path / "p.csv"
    line = cli_error(capsys, ["predict", str(model), str(path), "-o", str(out)])
    assert match in line and "x.npy" in line and not out.exists()


def test_plot_reports_a_methods_refusal_in_one_line(tmp_path, capsys):
    """t-SNE of two test samples: scikit-learn's refusal, in one line."""
    path = tmp_path / "small.npz"
    np.savez(path, X=samples(6, 5), y=np.repeat([1, 2], 3))
    argv = ["plot", "tsne", "--dataset", str(path), "-k", "1"]
    line = cli_error(capsys, [*argv, "--out", str(tmp_path / "figures")])
    assert "the tsne figure of small.npz: perplexity" in line


def dates(kind):
    """Samples as datetime64 or timedelta64 seconds, the first a missing value."""
    X = (samples(30) * 1e6).astype("int64").astype(f"{kind}[s]")
    X[0, 0] = np.datetime64("NaT") if kind == "datetime64" else np.timedelta64("NaT")
    return X


@pytest.mark.parametrize(
    "write, named",
    [
        (lambda p: np.savez(p, X=dates("datetime64"), y=np.repeat([0, 1, 2], 10)),
         "are dates (datetime64[s]), not numbers"),
        (lambda p: np.savez(p, X=dates("timedelta64"), y=np.repeat([0, 1, 2], 10)),
         "are durations (timedelta64[s]), not numbers"),
        (lambda p: scipy.io.savemat(p, {"fea": samples(30) + 1j,
                                        "gnd": np.repeat([1, 2, 3], 10)[:, None]}),
         "are complex numbers"),
        (lambda p: savemat_v73(p, {"fea": samples(30) + 1j,
                                   "gnd": np.repeat([1, 2, 3], 10)[:, None]}),
         "are complex numbers"),
    ],
    ids=["datetime64 npz", "timedelta64 npz", "complex mat v5", "complex mat v7.3"],
)  # fmt: skip
@pytest.mark.parametrize("named_variables", [False, True])
def test_samples_that_are_not_real_numbers_are_refused_as_what_they_are(
    tmp_path, capsys, write, named, named_variables
):
    """Not read as counts of seconds (NaT as -9.2e18), nor dropped as if the file
    had no such variable: the refusal says what the samples are, with the fix."""
    path = tmp_path / ("d.mat" if "complex" in named else "d.npz")
    write(path)
    variables = ["--x", "fea", "--y", "gnd"] if path.suffix == ".mat" else [
        "--x", "X", "--y", "y"]  # fmt: skip
    argv = ["run", "--dataset", str(path), "--methods", "LSR", "-k", "2",
            "--splits", "1", "--out", str(tmp_path / "o")]  # fmt: skip
    line = cli_error(capsys, argv + (variables if named_variables else []))
    assert named in line and "--x NAME" in line, line
    assert not (tmp_path / "o").exists()
