"""Shared fixtures: the real benchmark data, found through one environment variable.

``FDLSR_DATA_DIR`` points at a folder laid out like ``../shared/data`` (a
``MANIFEST.json`` and one sub-folder per dataset). It defaults to ``../shared/data``
beside the repository, which is where CI has it.
"""
# ruff: noqa: E402

import json
import os
from pathlib import Path

# scikit-learn's array API dispatch (tests/test_array_api.py) needs SciPy's, which is
# read when SciPy is first imported.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np
import pytest
import scipy.io

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("FDLSR_DATA_DIR", REPO.parent / "shared" / "data"))


def load_shared(name):
    """Samples as rows (float64) and 1-based integer labels of a shared dataset."""
    manifest_path = DATA_DIR / "MANIFEST.json"
    if not manifest_path.exists():
        pytest.skip(f"real data not found: set FDLSR_DATA_DIR (looked in {DATA_DIR})")
    entry = json.loads(manifest_path.read_text())[name]
    mat = scipy.io.loadmat(DATA_DIR / entry["file"])
    X = np.asarray(mat[entry["x"]], dtype=np.float64)
    if entry["samples"] == "columns":
        X = X.T
    y = np.asarray(mat[entry["y"]]).ravel().astype(int)
    return np.ascontiguousarray(X), y


def split_per_class(y, k, seed):
    """k random training samples per class, the rest for testing (the paper's protocol)."""
    rng = np.random.default_rng(seed)
    train = np.concatenate(
        [rng.permutation(np.flatnonzero(y == c))[:k] for c in np.unique(y)]
    )
    test = np.setdiff1d(np.arange(y.size), train)
    return train, test


@pytest.fixture(scope="session")
def feret():
    from sklearn.preprocessing import normalize

    X, y = load_shared("feret")
    return normalize(X), y


@pytest.fixture(scope="session")
def usps():
    from sklearn.preprocessing import normalize

    X, y = load_shared("usps")
    return normalize(X), y


def cli(argv):
    """``(exit status, stdout, stderr)`` of the command line, exit 2 included (for
    hypothesis tests, where capsys cannot serve every example)."""
    import contextlib
    import io

    from fdlsr.experiments.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as stop:
            status = stop.code
    return status, out.getvalue(), err.getvalue()


def cli_error(capsys, argv):
    """Run the command line expecting a user error: exit 2 and one line on stderr,
    which is returned."""
    from fdlsr.experiments.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fdlsr: error: "), lines
    return lines[0]


def pytest_collection_modifyitems(config, items):
    """Skip scikit-learn's array API checks on torch "cuda" where there is no GPU.

    scikit-learn skips them only when torch was built without CUDA; the CUDA build
    that CI installs (torch 2.14.1, the one torchvision 0.29.1 imports beside) also
    runs on machines without a GPU, where moving an array to "cuda" fails.
    """
    on_cuda = [
        item
        for item in items
        if "check_array_api" in item.nodeid and "cuda" in item.nodeid
    ]
    if not on_cuda:
        return
    try:
        import torch
    except ImportError:
        return
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="torch is a CUDA build but no CUDA device is here")
    for item in on_cuda:
        item.add_marker(skip)
