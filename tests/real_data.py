"""The real benchmark data of the tests: ``FDLSR_DATA_DIR``, else ``../shared/data``
beside the repository, found from this file (so that the tests of a clone find it
whether fdlsr runs from ``src/`` or is installed in a virtual environment)."""

import pytest

from fdlsr._testing import data_not_found, shared_data_dir

DATA_DIR = shared_data_dir(__file__)
MANIFEST_PATH = DATA_DIR / "MANIFEST.json"

#: A test that needs the real data skips without it, naming the folder looked in.
needs_data = pytest.mark.skipif(
    not MANIFEST_PATH.exists(), reason=data_not_found(DATA_DIR)
)
