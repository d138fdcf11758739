"""Unit normalisation of the samples: any finite scale, and all-zero samples said aloud."""

import json
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.preprocessing import normalize

from fdlsr.experiments.cli import main
from fdlsr.experiments.samples import prepare

# LC-KSVD2 and LCLE refused data that normalisation had turned into zero rows.
METHODS = ["FDLSR", "LSR", "1-NN", "LC-KSVD2", "LCLE", "LinearSVC"]


def separable(n_per_class=8, n_classes=3, n_features=6, seed=0):
    """Classes around orthogonal directions: any method gets every sample right."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), n_per_class)
    X = rng.uniform(0.0, 0.1, (y.size, n_features))
    X[np.arange(y.size), y] += 10.0
    return X, y


def unit_rows(X):
    """The samples the methods see (the protocol's normalisation)."""
    return prepare(SimpleNamespace(X=X))


def run_rows(tmp_path, name, X, y, methods=METHODS):
    path = tmp_path / f"{name}.npz"
    np.savez(path, X=X, y=y)
    out = tmp_path / f"{name}-results"
    argv = ["run", "--dataset", str(path), "--methods", *methods]
    assert main([*argv, "-k", "3", "--splits", "1", "--out", str(out)]) == 0
    lines = (out / "results.jsonl").read_text().splitlines()
    return {row["method"]: row for row in map(json.loads, lines)}


@pytest.mark.parametrize("scale", [1e200, 1e-200, 1e300, 1e-300])
def test_unit_rows_of_scaled_samples_equal_those_of_the_samples(scale):
    X, _ = separable()
    np.testing.assert_allclose(unit_rows(X * scale), normalize(X), rtol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(-300, 300), st.integers(0, 2**32 - 1))
def test_unit_rows_do_not_depend_on_the_scale(exponent, seed):
    X = np.random.default_rng(seed).standard_normal((4, 5))
    np.testing.assert_allclose(
        unit_rows(X * 10.0**exponent), unit_rows(X), rtol=1e-12, atol=1e-300
    )
    np.testing.assert_allclose(np.linalg.norm(unit_rows(X), axis=1), 1.0)


def test_zero_rows_stay_zero():
    X = np.array([[0.0, 0.0], [3.0, 4.0]])
    np.testing.assert_array_equal(unit_rows(X), [[0.0, 0.0], [0.6, 0.8]])


def test_huge_samples_get_the_accuracy_of_the_unscaled_ones(tmp_path, capsys):
    X, y = separable()
    plain = run_rows(tmp_path, "plain", X, y)
    huge = run_rows(tmp_path, "huge", X * 1e200, y)
    capsys.readouterr()
    for method in METHODS:
        assert plain[method]["accuracy"] == 1.0, plain[method]
        assert huge[method]["accuracy"] == 1.0, huge[method]
        assert not huge[method].get("error")


def test_an_all_zero_sample_is_warned_in_every_row_and_on_screen(tmp_path, capsys):
    X, y = separable()
    X[5] = 0.0
    rows = run_rows(tmp_path, "zero", X, y, methods=["1-NN", "LSR"])
    err = capsys.readouterr().err
    warned = [line for line in err.splitlines() if line.startswith("fdlsr: warning:")]
    assert len(warned) == 1 and "1 sample is all zero" in warned[0], err
    assert "index 5" in warned[0]
    for row in rows.values():
        assert any("all zero" in w for w in row["warnings"]), row
