"""The README's test command finds the data the README names: ``FDLSR_DATA_DIR``, else
``../shared/data`` beside the repository, found from the tests' own location (not
from the installed package's); a real-data test that skips names the folder."""

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from fdlsr._testing import shared_data_dir

TESTS = Path(__file__).resolve().parent
REPOSITORY = TESTS.parent
BESIDE = REPOSITORY.parent / "shared" / "data"
# a real-data test that reads only the manifest: quick
ONE_TEST = "tests/test_datasets_registry.py::test_registry_copies_the_manifest"


def test_the_data_are_found_beside_the_repository(monkeypatch):
    monkeypatch.delenv("FDLSR_DATA_DIR", raising=False)
    assert shared_data_dir(__file__) == BESIDE
    assert shared_data_dir(REPOSITORY / "benchmarks" / "bench.py") == BESIDE
    monkeypatch.setenv("FDLSR_DATA_DIR", "/elsewhere/data")
    assert shared_data_dir(__file__) == Path("/elsewhere/data")


def installed_run(tmp_path, env_data_dir):
    """``python -m pytest ONE_TEST -rs`` from the repository's root, with fdlsr
    imported from a copy in a virtual environment's ``lib/`` (as ``pip install .``
    puts it), not from ``src/``."""
    purelib = Path(sysconfig.get_path("purelib"))
    site = tmp_path / "venv" / purelib.relative_to(purelib.parents[2])
    shutil.copytree(
        REPOSITORY / "src" / "fdlsr",
        site / "fdlsr",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    env = {k: v for k, v in os.environ.items() if k != "FDLSR_DATA_DIR"}
    env["PYTHONPATH"] = str(site)
    if env_data_dir is not None:
        env["FDLSR_DATA_DIR"] = str(env_data_dir)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         ONE_TEST],
        cwd=REPOSITORY, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert str(site / "fdlsr") in _imported_from(env), "fdlsr not the installed copy"
    return done.stdout + done.stderr


def _imported_from(env):
    code = "import fdlsr; print(fdlsr.__file__)"
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True
    ).stdout


@pytest.mark.skipif(
    not (BESIDE / "MANIFEST.json").exists(),
    reason=f"no data beside this repository (looked in {BESIDE})",
)
def test_an_installed_fdlsr_runs_the_real_data_tests_of_the_clone(tmp_path):
    """Was: after ``pip install .`` every real-data test skipped, having looked in
    ``venv/lib/shared/data``."""
    out = installed_run(tmp_path, None)
    assert "1 passed" in out and "skipped" not in out, out


def test_a_real_data_test_that_skips_names_the_folder(tmp_path):
    missing = tmp_path / "no-data"
    out = installed_run(tmp_path, missing)
    assert "1 skipped" in out, out
    assert f"real data not found: looked in {missing}" in out, out
