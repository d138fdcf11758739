"""Unit normalisation of the samples: any finite scale, and all-zero samples said aloud."""

import json
import warnings
from types import SimpleNamespace
from unittest import mock

import numpy as np
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.preprocessing import normalize

import fdlsr
from fdlsr._common import linalg
from fdlsr._common.linalg import normalize_rows
from fdlsr._common.normalizer import UnitNormalizer
from fdlsr._experiments import samples
from fdlsr._experiments.cli import main
from fdlsr._experiments.samples import prepare, scale_warnings, standardize_columns

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


# -- the one normaliser: every path (fdlsr fit's model, the rules, the methods) -------


@settings(max_examples=40, deadline=None)
@given(st.integers(-300, 300), st.integers(0, 2**32 - 1))
def test_normalize_rows_does_not_depend_on_the_scale(exponent, seed):
    X = np.random.default_rng(seed).standard_normal((4, 5))
    np.testing.assert_allclose(
        normalize_rows(X * 10.0**exponent), normalize(X), rtol=1e-12, atol=1e-300
    )
    scaled = UnitNormalizer().fit(X).transform(X * 10.0**exponent)
    np.testing.assert_allclose(scaled, normalize(X), rtol=1e-12, atol=1e-300)


def test_normalize_rows_keeps_zero_rows_and_other_namespaces_alike():
    X = np.array([[0.0, 0.0], [3e200, -4e200], [3e-200, 4e-200]])
    expected = [[0.0, 0.0], [0.6, -0.8], [0.6, 0.8]]
    np.testing.assert_allclose(normalize_rows(X), expected, rtol=1e-15)
    strict = pytest.importorskip("array_api_strict")
    with sklearn.config_context(array_api_dispatch=True):
        got = normalize_rows(strict.asarray(X))
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-15)


@pytest.mark.parametrize("scale", ["1e160", "1e-170", "1e200"])
def test_fit_and_predict_at_any_scale_give_the_unscaled_predictions(
    tmp_path, capsys, scale
):
    """fdlsr fit's saved normalisation is the protocol's: at 1e160 scikit-learn's
    Normalizer made every sample zero and the model labelled all alike."""
    X, y = separable()
    predictions = {}
    for name, factor in (("plain", 1.0), ("scaled", float(scale))):
        data = tmp_path / f"{name}.npz"
        np.savez(data, X=X * factor, y=y)
        model = tmp_path / f"{name}.fdlsr"
        fit = ["fit", "--dataset", str(data), "--method", "FDLSR", "-o", str(model)]
        assert main(fit) == 0
        out = tmp_path / f"{name}.csv"
        assert main(["predict", str(model), str(data), "-o", str(out)]) == 0
        predictions[name] = out.read_text()
        assert "accuracy 100.00%" in capsys.readouterr().err
    assert predictions["scaled"] == predictions["plain"]
    model = fdlsr.load(tmp_path / "scaled.fdlsr")
    assert isinstance(model.steps[0][1], UnitNormalizer)


@pytest.mark.parametrize("method", ["SRC", "CRC", "NRC"])
def test_representation_methods_normalise_at_any_scale(method):
    from fdlsr._experiments.registry import METHODS as REGISTRY

    X, y = separable()
    build = REGISTRY[method].build
    plain = build().fit(X, y).predict(X)
    huge = build().fit(X * 1e200, y).predict(X * 1e200)
    np.testing.assert_array_equal(huge, plain)
    np.testing.assert_array_equal(plain, y)


def one_column_larger(scale, spread=1e6, seed=2):
    """Three classes in four columns, the last ``spread`` times the others' scale."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 4))
    y = np.repeat(np.arange(3), 20)
    X[:, 0] += 2 * y
    X[:, 1] -= 2 * y
    X[:, 3] *= spread
    return X * scale, y


@pytest.mark.parametrize("scale", [1e300, 1e-300])
def test_the_scale_warning_is_that_of_the_unscaled_columns(scale):
    """Computed from numbers at most 1: no overflow (1e300 squared) to warn of, and
    the same words as for the data at scale 1."""
    X, _ = one_column_larger(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        huge = scale_warnings(SimpleNamespace(X=X * scale))
    assert huge == scale_warnings(SimpleNamespace(X=X)) and len(huge) == 1


@settings(max_examples=50, deadline=None)
@given(
    exponents=st.lists(st.integers(-1010, 1010), min_size=1, max_size=5),
    seed=st.integers(0, 2**32 - 1),
)
def test_standardised_columns_do_not_depend_on_their_scale(exponents, seed):
    """Each column scaled by its own power of two, from 2**-1010 to 2**1010: the
    standardised samples are those of the unscaled columns, to the bit, and nothing
    overflows on the way."""
    rng = np.random.default_rng(seed)
    shape = (12, len(exponents))
    X = rng.uniform(0.5, 4.0, shape) * rng.choice([-1.0, 1.0], shape)
    X[:, 0] = 7.0  # a constant column is only centred
    train = np.sort(rng.choice(12, 8, replace=False))
    scaled = X * np.exp2(exponents)  # exact: no overflow, no subnormal
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = standardize_columns(scaled, train)
    np.testing.assert_array_equal(got, standardize_columns(X, train))


def test_standardised_samples_at_1e300_are_those_at_1():
    X, _ = one_column_larger(1.0)
    train = np.arange(0, 60, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        huge = standardize_columns(X * 1e300, train)
    np.testing.assert_allclose(huge, standardize_columns(X, train), rtol=1e-12)


def test_standardize_at_1e300_gives_the_accuracy_at_1(tmp_path, capsys):
    """``fdlsr run --standardize`` on the same samples times 1e300."""
    accuracies = {}
    for scale in (1.0, 1e300):
        X, y = one_column_larger(scale)
        path = tmp_path / f"x{scale:g}.npz"
        np.savez(path, X=X, y=y)
        out = tmp_path / f"out{scale:g}"
        argv = ["run", "--dataset", str(path), "--methods", "FDLSR", "-k", "5",
                "--splits", "2", "--standardize", "--out", str(out), "--no-table"]  # fmt: skip
        assert main(argv) == 0
        rows = [json.loads(line) for line in (out / "results.jsonl").open()]
        accuracies[scale] = [row["accuracy"] for row in rows]
        assert not any(row.get("error") for row in rows)
    assert accuracies[1e300] == accuracies[1.0]
    assert "Warning" not in capsys.readouterr().err


@settings(max_examples=30, deadline=None)
@given(
    shape=st.tuples(st.integers(0, 40), st.integers(1, 6)),
    exponent=st.integers(-300, 300),
    block=st.integers(8, 200),
    seed=st.integers(0, 2**32 - 1),
)
def test_unit_rows_in_blocks_are_those_of_the_whole_matrix(
    shape, exponent, block, seed
):
    """A block of rows at a time (one copy of the samples held, not four): the same
    numbers, to the bit, as dividing the whole matrix at once; the input untouched."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=shape) * 10.0**exponent
    X[rng.random(shape[0]) < 0.2] = 0.0
    before = X.copy()
    with mock.patch.object(linalg, "NORMALIZE_BLOCK_BYTES", block):
        got = samples.unit_rows(X)
    largest = np.max(np.abs(X), axis=1, keepdims=True, initial=0.0)
    largest[largest == 0] = 1.0
    whole = X / largest
    norms = np.linalg.norm(whole, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    np.testing.assert_array_equal(got, whole / norms)
    np.testing.assert_array_equal(X, before)
