"""Memory checks count what loading will hold, before it is allocated.

Every reader charges one ``MemoryBudget`` (``datasets/_memory.py``) with each array
as it will be held: as read, made float64 samples (a uint8 matrix takes nine times
its size, with the NaN check's mask), text labels as wide numpy strings, images at
their resized size and all of them together. The property tests load files of many
dtypes and shapes under ``tracemalloc`` and check that the estimate is never below
the peak the load really reaches, and that a machine with exactly the estimate loads
the file while one byte less refuses it in one line. "Available memory" is faked
through ``_memory.available_memory``; nothing large is allocated.
"""

import contextlib
import subprocess
import sys
import tempfile
import tracemalloc
import zipfile
from pathlib import Path
from unittest import mock

import h5py
import numpy as np
import pytest
import scipy.io
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fdlsr._experiments import samples
from fdlsr._testing import cli
from fdlsr.datasets import _files, _memory, load_dataset
from fdlsr.errors import DatasetError
from npy_headers import npy_bytes

FUZZ = dict(deadline=None, suppress_health_check=list(HealthCheck))
GB = 10**9


@contextlib.contextmanager
def available(n_bytes):
    with mock.patch.object(_memory, "available_memory", lambda: n_bytes):
        yield


def one_line_refusal(argv):
    status, out, err = cli(argv)
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith("fdlsr: error:"), err
    return lines[0]


def test_the_npz_of_the_issue_is_refused_before_float64(tmp_path):
    """A 200 KB .npz declaring a uint8 X of 12,000 x 16,000 (192 MB) with 1 GB free:
    read, it would become 1.5 GB of float64; refused in one line instead."""
    path = tmp_path / "big.npz"
    y = np.repeat(np.arange(2), 6000)
    np.savez_compressed(path, X=np.zeros((12000, 16000), np.uint8), y=y)
    assert path.stat().st_size < 300_000
    with available(GB):
        line = one_line_refusal(["datasets", "info", str(path)])
    assert "big.npz needs 1.9 GB of memory" in line, line
    assert "'X' as float64 samples: 12000x16000" in line and "1.0 GB of memory" in line


def test_uint8_samples_are_counted_as_float64(tmp_path):
    """The same arithmetic on a small file: 1.9 MB as read, 17 MB once loaded."""
    path = tmp_path / "u8.npz"
    np.savez(path, X=np.ones((1200, 1600), np.uint8), y=np.repeat([1, 2], 600))
    working = _memory.WORKING_MEMORY
    with available(working + 5 * 10**6):  # what main counted fits; float64 does not
        line = one_line_refusal(["datasets", "info", str(path)])
    assert "('X' as float64 samples: 1200x1600)" in line
    with available(working + 20 * 10**6):
        assert cli(["datasets", "info", str(path)])[0] == 0


def image_folder(root, n=4, size=(6, 5), mode="L", seed=0):
    from PIL import Image

    rng = np.random.default_rng(seed)
    for i in range(n):
        folder = root / f"class{i % 2}"
        folder.mkdir(parents=True, exist_ok=True)
        if mode == "I;16":
            pixels = (rng.random(size) * 65535).astype(np.uint16)
            Image.fromarray(pixels).save(folder / f"{i}.png")
        else:
            pixels = (rng.random((*size, 3)) * 255).astype(np.uint8)
            Image.fromarray(pixels).convert(mode).save(folder / f"{i}.png")
    return root


def test_a_resize_beyond_pillows_limit_is_refused(tmp_path):
    """--resize 100000 100000 would ask Pillow for 10^10 pixels per image."""
    folder = image_folder(tmp_path / "imgs")
    line = one_line_refusal(["datasets", "info", str(folder), "--resize", "100000",
                             "100000"])  # fmt: skip
    assert "--resize H W of 100000x100000 asks for 10000000000 pixels" in line


def test_all_images_at_their_resized_size_are_counted_before_any_is_decoded(
    tmp_path, monkeypatch
):
    folder = image_folder(tmp_path / "imgs", n=4)
    decoded = []
    monkeypatch.setattr(_files, "read_image", lambda *a, **k: decoded.append(a))
    with available(_memory.WORKING_MEMORY + 100 * 10**6):
        line = one_line_refusal(["datasets", "info", str(folder), "--resize", "2000",
                                 "2000"])  # fmt: skip
    assert "(4 images of 2000x2000 pixels as read: 4x4000000)" in line, line
    assert "give a smaller --resize H W" in line and decoded == []


def test_wide_text_labels_are_counted(tmp_path):
    """One label of 5000 characters makes every label of the column that wide (and
    more while they become classes): 1000 lines of 100 KB hold 100 MB."""
    path = tmp_path / "wide.csv"
    lines = ["label,a,b"] + [f"{'ab'[i % 2]},{i},{2 * i}" for i in range(1000)]
    lines[7] = "z" * 5000 + ",1,2"
    path.write_text("\n".join(lines) + "\n")
    with available(_memory.WORKING_MEMORY + 50 * 10**6):
        line = one_line_refusal(["datasets", "info", str(path)])
    assert "wide.csv needs" in line and "(column 0 as text: 1000)" in line


def test_a_tables_longest_line_is_counted_as_it_will_be_split(tmp_path):
    """A line of 100,000 fields becomes 100,000 strings while it is read."""
    path = tmp_path / "wide.csv"
    header = "label," + ",".join(f"f{j}" for j in range(100_000))
    rows = [f"{'ab'[i % 2]}," + ",".join(["0.5"] * 100_000) for i in range(4)]
    path.write_text("\n".join([header, *rows]) + "\n")
    with available(_memory.WORKING_MEMORY + 8 * 10**6):
        line = one_line_refusal(["datasets", "info", str(path)])
    assert f"(its longest line split into fields: {len(header)})" in line, line


# --- the arithmetic: the estimate is never below what loading holds -------------------


@contextlib.contextmanager
def recorded_budgets():
    budgets = []
    init = _memory.MemoryBudget.__init__

    def recording(self, *args, **kwargs):
        init(self, *args, **kwargs)
        budgets.append(self)

    with mock.patch.object(_memory.MemoryBudget, "__init__", recording):
        yield budgets


def check_estimate(load):
    """Load once to warm up, then under tracemalloc: the estimate is at least the
    peak; with exactly the estimate available the load succeeds, one byte less
    refuses it."""
    load()
    with recorded_budgets() as budgets:
        tracemalloc.start()
        try:
            start = tracemalloc.get_traced_memory()[0]
            load()
            peak = tracemalloc.get_traced_memory()[1] - start
        finally:
            tracemalloc.stop()
    (budget,) = budgets
    needed = getattr(budget, "needed", getattr(budget, "declared", 0))
    assert needed >= peak, (needed, peak)
    with available(needed):
        load()
    with available(needed - 1), pytest.raises(DatasetError, match="memory"):
        load()
    return needed, peak


DTYPES = ["|u1", "|i1", "<i2", ">u2", "<i4", "<f2", "<f4", ">f4", "<f8", ">f8", "|b1"]


@st.composite
def sample_files(draw):
    """An .npz, MATLAB v5 or v7.3 file of samples of any dtype and shape: a matrix
    (rows or columns) or a stack of images (first or last axis)."""
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    n = draw(st.integers(4, 60))
    d = draw(st.integers(1, 400))
    layout = draw(st.sampled_from(["rows", "columns", "first axis", "last axis"]))
    kind = draw(st.sampled_from(["npz", "npz compressed", "mat", "v7.3"]))
    rng = np.random.default_rng(n * d)
    X = (rng.random((n, d)) * 100).astype(dtype)
    h = draw(st.sampled_from([k for k in range(1, d + 1) if d % k == 0]))
    stored = {
        "rows": X, "columns": X.T,
        "first axis": X.reshape(n, h, d // h),
        "last axis": np.moveaxis(X.reshape(n, h, d // h), 0, -1),
    }[layout]  # fmt: skip
    fortran = draw(st.booleans())
    stored = np.asfortranarray(stored) if fortran else np.ascontiguousarray(stored)
    labels = np.arange(n) % 3
    return kind, stored, labels, dtype, layout


def write(folder, kind, X, y):
    path = Path(folder) / ("d.npz" if kind.startswith("npz") else "d.mat")
    if kind == "npz":
        np.savez(path, X=X, y=y)
    elif kind == "npz compressed":
        np.savez_compressed(path, X=X, y=y)
    elif kind == "mat":
        scipy.io.savemat(path, {"X": X, "y": y})
    else:
        with h5py.File(path, "w", userblock_size=512) as f:
            for name, value in (("X", X), ("y", y.astype(float))):
                value = value.astype(np.uint8) if value.dtype == bool else value
                f.create_dataset(name, data=value.T)
                cls = "logical" if X.dtype == bool and name == "X" else "double"
                f[name].attrs["MATLAB_class"] = np.bytes_(cls)
    return path


@settings(max_examples=60, **FUZZ)
@given(case=sample_files())
def test_samples_of_any_dtype_and_shape(case):
    kind, X, y, dtype, layout = case
    if kind == "mat" and dtype.itemsize == 2 and dtype.kind == "f":
        return  # MATLAB has no float16
    with tempfile.TemporaryDirectory() as folder:
        path = write(folder, kind, X, y)
        samples = "rows" if layout in ("rows", "first axis") else "columns"
        check_estimate(lambda: load_dataset(path, x="X", y="y", samples=samples))


@st.composite
def label_files(draw):
    """Text (or bytes) labels of any widths, in an .npz file or a CSV column."""
    n = draw(st.integers(4, 200))
    widths = draw(st.lists(st.integers(1, 300), min_size=2, max_size=4))
    labels = [f"L{i % len(widths)}".ljust(widths[i % len(widths)], "x")
              for i in range(n)]  # fmt: skip
    kind = draw(st.sampled_from(["npz text", "npz bytes", "csv"]))
    return kind, labels


@settings(max_examples=40, **FUZZ)
@given(case=label_files())
def test_text_labels_of_any_width(case):
    kind, labels = case
    X = np.arange(len(labels) * 2.0).reshape(-1, 2)
    with tempfile.TemporaryDirectory() as folder:
        if kind == "csv":
            path = Path(folder) / "t.csv"
            rows = [f"{lab},{a},{b}" for lab, (a, b) in zip(labels, X, strict=True)]
            path.write_text("label,a,b\n" + "\n".join(rows) + "\n")
        else:
            path = Path(folder) / "t.npz"
            y = np.array(labels, dtype="S" if kind == "npz bytes" else "U")
            np.savez(path, X=X, y=y)
        check_estimate(lambda: load_dataset(path))


@pytest.mark.parametrize("mode", ["L", "RGB", "I;16"])
@pytest.mark.parametrize("grey", [True, False])
@pytest.mark.parametrize("resize", [None, (3, 4), (40, 30)])
def test_image_folders(tmp_path, mode, grey, resize):
    folder = image_folder(tmp_path / "imgs", n=6, size=(12, 10), mode=mode)
    check_estimate(lambda: load_dataset(folder, grey=grey, resize=resize))


def test_sparse_and_declared_sizes_still_refused_before_reading(tmp_path):
    """A header declaring 800 TB is refused before its data are read."""
    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("X.npy", npy_bytes((10**7, 10**7), data=b"\0" * 64))
        archive.writestr("y.npy", npy_bytes((2,), "<i8", np.arange(2).tobytes()))
    with available(GB):
        line = one_line_refusal(["datasets", "info", str(path)])
    assert "('X' as read: 10000000x10000000)" in line


def test_the_memory_left_under_this_processs_own_limit(tmp_path):
    """``ulimit -v`` (RLIMIT_AS) counts: what is left under it, not the machine's."""
    code = (
        "import resource\n"
        "from fdlsr._common.memory import available_memory\n"
        "used = next(int(l.split()[1]) * 1024 for l in open('/proc/self/status')\n"
        "            if l.startswith('VmSize:'))\n"
        "limit = used + 300 * 2**20\n"
        "resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))\n"
        "print(available_memory())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert 0 < int(done.stdout) <= 300 * 2**20


def test_a_run_refuses_samples_whose_copies_would_not_fit(tmp_path, capsys):
    """The samples load, but the copies a run makes of them (normalised, a split's
    rows) would not fit: one line before any copy, nothing written."""
    path = tmp_path / "d.npz"
    X = np.random.default_rng(0).normal(size=(40, 500))
    np.savez(path, X=X, y=np.repeat(np.arange(4), 10))
    out = tmp_path / "out"
    argv = ["run", "--dataset", str(path), "--methods", "LSR", "-k", "2",
            "--splits", "1", "--out", str(out)]  # fmt: skip
    with mock.patch.object(samples, "available_memory", lambda: X.nbytes):
        status, _, err = cli(argv)
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1, err
    assert "copies a run makes" in lines[0] and "320.0 KB" in lines[0], lines
    assert not out.exists()
    with mock.patch.object(samples, "available_memory", lambda: 2 * X.nbytes):
        assert cli(argv)[0] == 0
