"""fdlsr where POSIX-only modules do not exist (Windows): with ``fcntl`` and
``resource`` blocked (``sys.modules[name] = None``, so that importing them fails as
it does there), the package imports, loads data, runs ``fdlsr run --jobs 2``, saves
and loads a model and writes a report."""

import subprocess
import sys

# The POSIX-only modules of the standard library that fdlsr could reach for.
BLOCKED = ("fcntl", "resource", "termios", "pwd", "grp")

SCRIPT = f"""
import runpy
import sys

for name in {BLOCKED!r}:
    sys.modules[name] = None

import numpy as np

import fdlsr
from fdlsr.datasets import load_dataset


def cli(*argv):
    sys.argv = ["fdlsr", *argv]
    try:
        runpy.run_module("fdlsr", run_name="__main__", alter_sys=True)
    except SystemExit as end:
        assert end.code in (0, None), (argv, end.code)


folder = sys.argv[1]
rng = np.random.default_rng(0)
y = np.repeat(np.arange(4), 8)
X = rng.standard_normal((4, 20))[y] * 3 + rng.standard_normal((y.size, 20))
np.savez(f"{{folder}}/small.npz", X=X, y=y)

data = load_dataset(f"{{folder}}/small.npz")
print("load_dataset", data.X.shape)
cli("run", "--dataset", f"{{folder}}/small.npz", "--methods", "RidgeClassifier",
    "1-NN", "-k", "2", "--splits", "2", "--jobs", "2", "--no-table",
    "--out", f"{{folder}}/store")
model = fdlsr.FDLSR().fit(X, y)
fdlsr.save(model, f"{{folder}}/model.fdlsr")
again = fdlsr.load(f"{{folder}}/model.fdlsr")
assert (again.predict(X) == model.predict(X)).all()
print("save/load ok")
cli("report", f"{{folder}}/store")
print("blocked:", [name for name in {BLOCKED!r} if sys.modules.get(name, 0) is None])
"""


def test_fdlsr_runs_without_posix_only_modules(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "load_dataset (32, 20)" in done.stdout
    assert "4 runs computed, 0 already" in done.stderr, done.stderr
    assert "save/load ok" in done.stdout
    assert "| RidgeClassifier" in done.stdout  # the report's table
    assert f"blocked: {list(BLOCKED)}" in done.stdout
    print(done.stdout, done.stderr)
