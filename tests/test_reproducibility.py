"""A seeded command gives the same result values every time, for every method."""

import json

import numpy as np
import pytest
from sklearn.datasets import load_digits

from fdlsr._experiments.cli import main
from fdlsr._experiments.registry import METHODS, get_method
from fdlsr._experiments.splits import run_random_state, seeded

# What a run measures rather than computes: allowed to differ between runs.
MEASURED = {"fit_time", "predict_time", "tune_time", "session", "finished"}


@pytest.fixture(scope="module")
def digits_file(tmp_path_factory):
    """Digits, 12 samples per class (a second or two for every method)."""
    X, y = load_digits(return_X_y=True)
    keep = np.concatenate([np.flatnonzero(y == c)[:12] for c in range(10)])
    path = tmp_path_factory.mktemp("data") / "digits.npz"
    np.savez(path, X=X[keep], y=y[keep])
    return path


def run_rows(path, out, global_seed):
    # A method that draws from NumPy's global generator would see another state.
    saved = np.random.get_state()  # noqa: NPY002
    np.random.seed(global_seed)  # noqa: NPY002
    argv = ["run", "--dataset", str(path), "--methods", "all", "-k", "3"]
    argv += ["--splits", "1", "--seed", "11", "--out", str(out), "--no-table"]
    try:
        assert main(argv) == 0
    finally:
        np.random.set_state(saved)  # noqa: NPY002
    rows = map(json.loads, (out / "results.jsonl").read_text().splitlines())
    return {
        row["method"]: {k: v for k, v in row.items() if k not in MEASURED}
        for row in rows
    }


def test_same_seeded_command_same_values_for_every_method(digits_file, tmp_path):
    first = run_rows(digits_file, tmp_path / "a", 1)
    second = run_rows(digits_file, tmp_path / "b", 2)
    assert set(first) == set(METHODS)
    for name in METHODS:
        assert first[name] == second[name], name
        assert first[name]["accuracy"] is not None, first[name]
    # the random state came from the command's seed and split, and is stored
    assert first["LRSDL"]["params"]["random_state"] == run_random_state(11, 0)
    assert first["DPL"]["params"]["random_state"] == 0  # fixed by its defaults


def test_random_state_depends_on_seed_and_split_only():
    states = {run_random_state(seed, index) for seed in range(3) for index in range(3)}
    assert len(states) == 9
    assert run_random_state(4, 2) == run_random_state(4, 2)
    assert all(0 <= s < 2**31 for s in states)


def test_a_random_state_the_user_fixes_is_kept():
    lrsdl, one_nn = get_method("LRSDL"), get_method("1-NN")
    assert seeded(lrsdl, {}, 5) == {"random_state": 5}
    assert seeded(lrsdl, {"random_state": 3}, 5) == {"random_state": 3}
    assert seeded(one_nn, {}, 5) == {}  # no random_state to give
