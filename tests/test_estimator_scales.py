"""Every registered estimator on samples of any scale: a usable model, or a warning or
refusal in one line that names the samples' scale and unit normalisation
(fdlsr._common.validation.check_sample_scale); the methods that normalise the samples
themselves, and 1-NN, predict alike at every scale."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_blobs

from fdlsr import FDLSRCV
from fdlsr._common.linalg import normalize_rows, row_norms
from fdlsr._common.validation import SCALE_LIMITS, SCALE_RANGE
from fdlsr._experiments.registry import METHODS
from fdlsr.dictionary import LCKSVD2
from fdlsr.dictionary._ksvd import atoms_from_samples
from fdlsr.errors import DataScaleError, DataScaleWarning, UnreliableResultWarning

# The methods whose predictions do not depend on the samples' scale in exact
# arithmetic: those that unit-normalise the samples first, and 1-NN. LDA's are too,
# but it computes on the raw samples, so it keeps to SCALE_LIMITS.
NORMALISING = {"SRC", "CRC", "ProCRC", "NRC", "1-NN"}
INVARIANT = NORMALISING | {"LDA"}


def _blobs():
    """Three well separated blobs of unit-norm samples: 10 per class to train on and
    10 per class to test on, 20 features (more than a class has samples, as for the
    face images the dictionary and representation methods are meant for)."""
    X, y = make_blobs(
        n_samples=60, centers=3, n_features=20, cluster_std=1.0, random_state=0
    )
    X = normalize_rows(X)
    return X[::2], y[::2], X[1::2], y[1::2]


X_TRAIN, Y_TRAIN, X_TEST, Y_TEST = _blobs()


def _run(name, s):
    """Fit the registered method on the blobs times 10**s and predict the test blobs:
    ``(predictions, scores, refusal, scale warnings)``."""
    scale = 10.0**s
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model = METHODS[name].build().fit(X_TRAIN * scale, Y_TRAIN)
        except DataScaleError as error:
            return None, None, str(error), []
        predicted = model.predict(X_TEST * scale)
        score = getattr(model, "decision_function", None) or model.predict_proba
        scores = np.asarray(score(X_TEST * scale))
    said = [str(w.message) for w in caught if issubclass(w.category, DataScaleWarning)]
    return predicted, scores, None, said


def _names_scale_and_fix(message, s):
    """One line naming the samples' typical norm (10**s: they have unit norm) and
    unit normalisation."""
    return (
        "\n" not in message
        and f"{10.0**s:.1e}" in message
        and "unit-normalise" in message
    )


def _usable(predicted, scores):
    """Not every decision value equal, zero or non-finite, and accuracy well above
    chance (1/3) on the test blobs."""
    return (
        np.all(np.isfinite(scores))
        and np.ptp(scores) > 0
        and np.mean(predicted == Y_TEST) >= 0.8
    )


_AT_SCALE_ONE = {}


def _check(name, s):
    predicted, scores, refusal, said = _run(name, s)
    typical = 10.0**s
    if name in NORMALISING:
        assert refusal is None and not said, (name, s, refusal, said)
    if refusal is not None:
        assert _names_scale_and_fix(refusal, s), refusal
        assert not SCALE_LIMITS[0] <= typical <= SCALE_LIMITS[1]
        return
    for message in said:
        assert _names_scale_and_fix(message, s), message
    if not said:
        assert _usable(predicted, scores), (name, s, np.mean(predicted == Y_TEST))
        assert SCALE_RANGE[0] <= typical <= SCALE_RANGE[1] or name in INVARIANT
    if name in INVARIANT:
        if name not in _AT_SCALE_ONE:
            _AT_SCALE_ONE[name] = _run(name, 0)[0]
        np.testing.assert_array_equal(predicted, _AT_SCALE_ONE[name])


@pytest.mark.parametrize("s", [-150, -10, 0, 10, 150])
@pytest.mark.parametrize("name", list(METHODS))
def test_every_method_is_usable_or_says_the_scale(name, s):
    _check(name, s)


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(list(METHODS)),
    s=st.one_of(st.integers(-150, 150), st.floats(-150, 150)),
)
def test_any_scale_gives_a_usable_model_or_says_so(name, s):
    _check(name, s)


@pytest.mark.parametrize("s", [-10, -2, 5, 100])
def test_fdlsrcv_says_the_scale(s):
    model = FDLSRCV(alphas=[1e-2], betas=[1e-2], lams=[1e-2], cv=2, max_iter=3)
    if SCALE_LIMITS[0] <= 10.0**s <= SCALE_LIMITS[1]:
        with pytest.warns(DataScaleWarning) as caught:
            model.fit(X_TRAIN * 10.0**s, Y_TRAIN)
        said = [str(w.message) for w in caught if w.category is DataScaleWarning]
        assert len(said) == 1 and _names_scale_and_fix(said[0], s)
    else:
        with pytest.raises(DataScaleError, match="unit-normalise"):
            model.fit(X_TRAIN * 10.0**s, Y_TRAIN)


def test_unit_norm_samples_fit_without_a_scale_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreliableResultWarning)  # LCLE's atoms
        warnings.simplefilter("error", DataScaleWarning)
        for name in METHODS:
            METHODS[name].build().fit(X_TRAIN, Y_TRAIN)


@pytest.mark.parametrize("s", [-300, -160, 155, 300])
def test_row_norms_at_any_scale(s):
    X = np.array([[3.0, 4.0], [0.0, 0.0], [-6.0, 8.0]]) * 10.0**s
    np.testing.assert_allclose(row_norms(X), np.array([5.0, 0.0, 10.0]) * 10.0**s)


@pytest.mark.parametrize("scale", [1e-300, 1e-10, 1.0, 1e155, 1e300])
def test_zero_samples_are_only_those_that_are_zero(scale):
    """The test for samples that may serve as atoms (LC-KSVD2, LCLE) does not take
    tiny or huge samples for zero ones: it once refused samples of 1e-300 and 1e155
    with "class 0 has only zero training samples"."""
    codes = np.searchsorted(np.unique(Y_TRAIN), Y_TRAIN)
    counts = atoms_from_samples(X_TRAIN * scale, codes, 3, None)
    np.testing.assert_array_equal(counts, np.bincount(codes))
    X = X_TRAIN * scale
    X[codes == 0] = 0.0
    with pytest.raises(ValueError, match="class 0 has only zero training samples"):
        atoms_from_samples(X, codes, 3, None)


@pytest.mark.parametrize("scale", [1e-300, 1e155])
def test_lcksvd2_names_the_scale_not_zero_samples(scale):
    with pytest.raises(DataScaleError, match="typical norm") as raised:
        LCKSVD2(alpha=1e-3, beta=1e-2).fit(X_TRAIN * scale, Y_TRAIN)
    assert "zero" not in str(raised.value)


def test_lcksvd2_warns_of_repeated_samples_without_cleardict():
    """The same training samples given twice become identical initial atoms, which
    without KSVD-Box's cleardict lowers LC-KSVD2's accuracy; it says so, and the
    authors' cleardict (clear_dictionary=True) fits them without loss."""
    X, y = np.vstack([X_TRAIN, X_TRAIN]), np.concatenate([Y_TRAIN, Y_TRAIN])
    with pytest.warns(UnreliableResultWarning, match="clear_dictionary=True"):
        METHODS["LC-KSVD2"].build().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnreliableResultWarning)
        METHODS["LC-KSVD2"].build().fit(X_TRAIN, Y_TRAIN)
        cleared = METHODS["LC-KSVD2"].build(clear_dictionary=True).fit(X, y)
    assert cleared.score(X_TEST, Y_TEST) == 1.0


@pytest.mark.parametrize(
    "name", [n for n, m in METHODS.items() if m.factory.__module__.startswith("fdlsr")]
)
def test_docstring_says_the_samples_scale(name):
    """Each method of the package says which samples' scale it assumes."""
    doc = " ".join(METHODS[name].factory.__doc__.split())
    assert "unit-norm samples" in doc, name
