"""LC-KSVD2, LCLE, DPL and DRA-DPL as scikit-learn classifiers.

Common checks, labels of any type and order, unequal classes, sample order,
errors in the user's terms and the registry entries.
"""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_blobs
from sklearn.preprocessing import normalize
from sklearn.utils.estimator_checks import parametrize_with_checks

from fdlsr._experiments.registry import get_method
from fdlsr.dictionary import DPL, DRADPL, LCKSVD2, LCLE

# Light settings: the common checks fit each estimator dozens of times.
LIGHT = [
    LCKSVD2(n_nonzero_coefs=5, max_iter=3, init_iter=2),
    LCLE(n_nonzero_coefs=5, n_neighbors=3, max_iter=3),
    LCKSVD2(n_nonzero_coefs=5, max_iter=3, init_iter=2, clear_dictionary=True),
    LCLE(n_nonzero_coefs=5, n_neighbors=3, max_iter=3, clear_dictionary=True),
    DPL(max_iter=5),
    DRADPL(max_iter=5),
    DRADPL(max_iter=3, code_update="exact", analysis_penalty="l21"),
]

# No check is expected to fail.
EXPECTED_FAILED_CHECKS = {}
# The small data of these tests give LCLE more atoms than features: it warns (as it
# should; tests/test_dictionary_pairs.py checks that it does), which is not their point.
LCLE_COLLAPSE = pytest.mark.filterwarnings(
    "ignore:LCLE with more atoms:fdlsr.errors.UnreliableResultWarning"
)


@LCLE_COLLAPSE
@parametrize_with_checks(
    LIGHT, expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS
)
def test_sklearn_common_checks(estimator, check):
    check(estimator)


def _blobs(sizes=(6, 9, 4), n_features=12, seed=0):
    X, y = make_blobs(
        n_samples=list(sizes), n_features=n_features, cluster_std=1.0, random_state=seed
    )
    # Positive, unit-norm samples as in the paper's face data.
    return normalize(X - X.min() + 0.1), y


@LCLE_COLLAPSE
@pytest.mark.parametrize("estimator", LIGHT[:4], ids=lambda e: type(e).__name__)
def test_labels_of_any_type_order_and_unequal_classes(estimator):
    X, y = _blobs()
    names = np.array(["zebra", "ant", "moose"])[y]
    model = clone(estimator).fit(X, names)
    assert list(model.classes_) == ["ant", "moose", "zebra"]
    assert model.score(X, names) > 0.9
    codes = np.array([7, -3, 1000])
    coded = clone(estimator).fit(X, codes[y])
    rename = dict(zip(["zebra", "ant", "moose"], codes, strict=True))
    np.testing.assert_array_equal(
        coded.predict(X), [rename[v] for v in model.predict(X)]
    )


@LCLE_COLLAPSE
@pytest.mark.parametrize("estimator", LIGHT[:4], ids=lambda e: type(e).__name__)
def test_training_order_does_not_matter(estimator):
    X, y = _blobs(seed=1)
    X_test, _ = _blobs(sizes=(3, 3, 3), seed=2)
    perm = np.random.default_rng(0).permutation(len(y))
    a = clone(estimator).set_params(**_seed(estimator)).fit(X, y)
    b = clone(estimator).set_params(**_seed(estimator)).fit(X[perm], y[perm])
    np.testing.assert_allclose(
        a.decision_function(X_test), b.decision_function(X_test), rtol=1e-7, atol=1e-9
    )


def _seed(estimator):
    return {"random_state": 0} if "random_state" in estimator.get_params() else {}


@pytest.mark.parametrize("Estimator", [LCKSVD2, LCLE])
def test_more_atoms_than_samples_is_named(Estimator):
    X, y = _blobs(sizes=(6, 3, 5))
    with pytest.raises(ValueError, match="3 nonzero training samples but 4 atoms"):
        Estimator(n_atoms=4).fit(X, y)


@pytest.mark.parametrize("Estimator", [DPL, DRADPL])
def test_pair_methods_accept_any_number_of_atoms(Estimator):
    X, y = _blobs(sizes=(6, 3, 5))
    model = Estimator(n_atoms=8, max_iter=5, random_state=0).fit(X, y)
    assert model.analysis_.shape == (24, X.shape[1])
    assert [D.shape for D in model.synthesis_] == [(X.shape[1], 8)] * 3


@pytest.mark.parametrize(
    "estimator, params",
    [
        (LCKSVD2(), {"beta": 0.0}),
        (LCKSVD2(), {"atom_update": "svd"}),
        (LCLE(), {"gamma": 0.0}),
        (DPL(), {"tau": -1.0}),
        (DRADPL(), {"code_update": "newton"}),
        (DRADPL(), {"n_atoms": 0}),
    ],
)
def test_bad_parameters_are_named(estimator, params):
    name = next(iter(params))
    with pytest.raises(
        ValueError, match=f"'{name}' parameter of {type(estimator).__name__}"
    ):
        estimator.set_params(**params).fit(*_blobs())


@pytest.mark.parametrize(
    "name, cls",
    [("LC-KSVD2", LCKSVD2), ("LCLE", LCLE), ("DPL", DPL), ("DRA-DPL", DRADPL)],
)
def test_registered_with_paper_defaults(name, cls):
    method = get_method(name)
    assert method.family == "dictionary"
    model = method.build()
    assert isinstance(model, cls)
    assert model.n_atoms is None  # as many atoms as training samples
    for key, values in method.grid.items():
        assert key in model.get_params() and len(values) >= 2
