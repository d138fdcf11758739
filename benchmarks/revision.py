"""fdlsr's library as it was at a git revision, importable beside this checkout's.

A benchmark that compares a change with the code before it runs both in one process,
on the same data, one after the other (so that the machine's load drifts equally on
both). :func:`import_revision` exports ``src/fdlsr`` of a git revision into a
temporary folder as the package ``fdlsr_<commit>`` and imports one of its modules.
The library's layers below ``experiments`` import each other only relatively, so
the exported package runs on its own code throughout, not on this checkout's.

    from revision import import_revision
    old = import_revision("methods.dictionary.lcksvd", "28efa58")
    old.fit_lcksvd2(...)

The default revision of the benchmarks, :data:`BEFORE`, is the commit the speed-ups
of issue 33 started from.
"""

import atexit
import importlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# main before the speed-ups of issue 33 (LC-KSVD2, LDA, the tuned baselines).
BEFORE = "28efa58"

_EXPORTED = {}


def package_of(ref):
    """The name under which revision ``ref`` is importable (exported on first use)."""
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short=10", f"{ref}^{{commit}}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    name = f"fdlsr_{commit}"
    if name not in _EXPORTED:
        folder = Path(tempfile.mkdtemp(prefix="fdlsr-revision-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        archive = folder / "src.tar"
        subprocess.run(
            [
                "git",
                "-C",
                str(ROOT),
                "archive",
                "-o",
                str(archive),
                commit,
                "src/fdlsr",
            ],
            check=True,
        )
        with tarfile.open(archive) as tar:
            tar.extractall(folder, filter="data")
        (folder / "src" / "fdlsr").rename(folder / name)
        sys.path.insert(0, str(folder))
        _EXPORTED[name] = folder
    return name


def import_revision(module, ref=BEFORE):
    """Module ``module`` (e.g. ``"methods.dictionary.lcksvd"``) of fdlsr at ``ref``."""
    return importlib.import_module(f"{package_of(ref)}.{module}")
