"""Shared fixtures. Helpers shared with the benchmarks live in ``fdlsr._testing``.

The real benchmark data are found through ``FDLSR_DATA_DIR``, else in
``../shared/data`` beside the repository (``real_data.DATA_DIR``, found from the
tests' own location); tests that need them skip without them, naming the folder
looked in.
"""
# ruff: noqa: E402

import os

# scikit-learn's array API dispatch (tests/test_array_api.py) needs SciPy's, which is
# read when SciPy is first imported.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import pytest
from sklearn.preprocessing import normalize

from fdlsr._testing import load_shared, one_blas_thread
from real_data import DATA_DIR


def _normalized_shared(name):
    try:
        X, y = load_shared(name, DATA_DIR)
    except FileNotFoundError as missing:
        pytest.skip(str(missing))
    return normalize(X), y


@pytest.fixture(scope="session")
def feret():
    return _normalized_shared("feret")


@pytest.fixture(scope="session")
def usps():
    return _normalized_shared("usps")


@pytest.fixture(scope="module")
def one_blas_thread_per_module():
    """BLAS on one thread for a module's tests (``pytest.mark.usefixtures``)."""
    with one_blas_thread():
        yield


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
