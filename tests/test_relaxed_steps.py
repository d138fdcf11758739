"""The closed-form steps of ReLSR, GReLSR and LRDLSR against brute force, and the
whole of LRDLSR against a transcription of the authors' code.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import minimize
from sklearn.datasets import load_digits
from sklearn.preprocessing import normalize

from fdlsr._testing import relative_error
from fdlsr.relaxed import LRDLSR, GReLSR, ReLSR
from fdlsr.relaxed._lrdlsr import class_blocks, classwise_svt, svt
from fdlsr.relaxed._retarget import (
    group_penalty,
    group_translations,
    margin_projection,
    targets_from_translation,
)
from reference_relaxed import lrdlsr_transcription

# Small problems: BLAS threads only add contention on shared cores.
pytestmark = pytest.mark.usefixtures("one_blas_thread_per_module")


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return normalize(X[:300]), y[:300]


# --- ReLSR's projection and GReLSR's translations ------------------------------------


def _projection_qp(r, label):
    c = r.size
    cons = [
        {
            "type": "ineq",
            "fun": lambda t, j=j: t[label] - t[j] - 1,
            "jac": lambda t, j=j: np.eye(c)[label] - np.eye(c)[j],
        }
        for j in range(c)
        if j != label
    ]
    res = minimize(
        lambda t: ((t - r) ** 2).sum(),
        r,
        jac=lambda t: 2 * (t - r),
        constraints=cons,
        method="SLSQP",
        options=dict(ftol=1e-14, maxiter=500),
    )
    return res.x


@pytest.mark.parametrize("c", [2, 3, 7])
def test_margin_projection_against_a_qp_solver(c):
    rng = np.random.default_rng(c)
    R = rng.normal(scale=1.5, size=(40, c))
    R[:5] = np.round(R[:5])  # ties
    y = rng.integers(0, c, 40)
    R[5, :] = 0
    R[5, y[5]] = 3  # already feasible: unchanged
    T = margin_projection(R, y)
    for i in range(40):
        reference = _projection_qp(R[i], y[i])
        assert ((T[i] - R[i]) ** 2).sum() <= ((reference - R[i]) ** 2).sum() + 1e-9
        np.testing.assert_allclose(T[i], reference, atol=1e-5)
    margins = T[np.arange(40), y][:, None] - T
    margins[np.arange(40), y] = np.inf
    assert margins.min() >= 1 - 1e-12
    np.testing.assert_array_equal(T[5], R[5])


def _phi(u, R, y):
    """GReLSR's per-sample cost of a translation, M eliminated."""
    rows = np.arange(y.size)
    a = R[rows, y] - 1
    others = np.where(np.eye(R.shape[1], dtype=bool)[y], -np.inf, R)
    excess = np.maximum(others - u[:, None], 0)
    val = np.maximum(u - a, 0) ** 2 + (excess**2).sum(1)
    grad = 2 * np.maximum(u - a, 0) - 2 * excess.sum(1)
    return val, grad


@pytest.mark.parametrize("group", [0.05, 1.0, 30.0])
def test_group_translations_against_a_generic_optimiser(group):
    rng = np.random.default_rng(7)
    c, n = 5, 60
    y = rng.integers(0, c, n)
    R = rng.normal(size=(n, c)) + 0.8 * np.eye(c)[y]

    def total(u):
        val, grad = _phi(u, R, y)
        means = np.bincount(y, u, c) / np.bincount(y, minlength=c)
        dev = u - means[y]
        return val.sum() + group * dev @ dev, grad + 2 * group * dev

    u = group_translations(R, y, c, group)
    ref = minimize(
        total,
        np.zeros(n),
        jac=True,
        method="L-BFGS-B",
        options=dict(ftol=1e-15, gtol=1e-12, maxiter=5000),
    ).x
    assert total(u)[0] <= total(ref)[0] + 1e-9
    np.testing.assert_allclose(u, ref, atol=1e-5)
    # The targets of these translations are optimal for the dragging values too.
    T = targets_from_translation(R, y, u)
    assert np.sum((T - R) ** 2) == pytest.approx(_phi(u, R, y)[0].sum())
    assert group_penalty(u, y, c, group) >= 0


def test_grelsr_translations_collapse_per_class_as_the_penalty_grows():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 4, 50)
    R = rng.normal(size=(50, 4))
    u = group_translations(R, y, 4, 1e8)
    spread = [np.ptp(u[y == k]) for k in range(4)]
    assert max(spread) < 1e-5


def test_grelsr_without_group_penalty_is_relsr(digits):
    X, y = digits
    relsr = ReLSR(lam=0.02).fit(X, y)
    grelsr = GReLSR(lam=0.02, group=0.0).fit(X, y)
    np.testing.assert_allclose(grelsr.coef_, relsr.coef_, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(grelsr.objective_, relsr.objective_, rtol=1e-10)
    # The general path (regula falsi per class) tends to it continuously.
    near = GReLSR(lam=0.02, group=1e-7).fit(X, y)
    assert relative_error(near.coef_, relsr.coef_) < 1e-5


# --- LRDLSR -----------------------------------------------------------------------------


def test_svt_is_the_nuclear_norm_prox():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((6, 8, 5))
    tau = 0.7
    P, norms = svt(A, tau)
    for a, p, norm in zip(A, P, norms, strict=True):
        U, s, Vt = np.linalg.svd(a)  # full SVD, one matrix at a time
        direct = U[:, :5] @ np.diag(np.maximum(s - tau, 0)) @ Vt
        np.testing.assert_allclose(p, direct, atol=1e-12)
        assert norm == pytest.approx(np.linalg.svd(p, compute_uv=False).sum())

        def prox_objective(z, a=a):
            return tau * np.linalg.svd(z, compute_uv=False).sum() + 0.5 * np.sum(
                (z - a) ** 2
            )

        best = prox_objective(p)
        for _ in range(20):
            assert prox_objective(p + 1e-3 * rng.standard_normal(p.shape)) >= best


def test_classwise_svt_on_classes_of_any_size_and_order():
    rng = np.random.default_rng(2)
    y = rng.permutation(np.repeat([0, 1, 2], [1, 4, 4]))
    Z = rng.standard_normal((3, y.size))
    P, nuclear = classwise_svt(Z, class_blocks(y, 3), 0.4)
    total = 0.0
    for k in range(3):
        block, norm = svt(Z[:, y == k], 0.4)
        np.testing.assert_allclose(P[:, y == k], block, atol=1e-12)
        total += norm
    assert nuclear == pytest.approx(total)


def test_lrdlsr_matches_transcription_of_authors_code(digits):
    X, y = digits
    keep = np.concatenate([np.flatnonzero(y == k)[:6] for k in range(10)])
    Xs, ys = X[keep], y[keep]  # class-sorted, 6 per class, as the MATLAB code needs
    params = dict(alpha=0.1, beta=0.1, gamma=0.1, lam=0.01)
    Q_ref, n_iter = lrdlsr_transcription(Xs.T, 10, np.eye(10)[:, ys], 6, **params)
    order = np.random.default_rng(0).permutation(ys.size)
    model = LRDLSR(**params).fit(Xs[order], ys[order])
    assert model.n_iter_ == n_iter
    assert relative_error(model.coef_, Q_ref) < 1e-7
    assert model.residual_[-1] < 1e-6


@settings(max_examples=60, deadline=None)
@given(
    arrays(
        np.float64,
        st.tuples(st.integers(1, 6), st.integers(2, 6)),
        elements=st.floats(-5, 5),
    ),
    st.randoms(use_true_random=False),
)
def test_margin_projection_is_a_projection(R, rnd):
    """Feasible, idempotent and non-expansive, as a projection onto a convex set."""
    y = np.array([rnd.randrange(R.shape[1]) for _ in range(R.shape[0])])
    T = margin_projection(R, y)
    rows = np.arange(R.shape[0])
    gaps = T[rows, y][:, None] - T
    gaps[rows, y] = np.inf
    assert np.all(gaps >= 1 - 1e-9)
    np.testing.assert_allclose(margin_projection(T, y), T, atol=1e-9)
    other = R + np.array([[rnd.uniform(-1, 1) for _ in row] for row in R])
    moved = np.linalg.norm(margin_projection(other, y) - T, axis=1)
    assert np.all(moved <= np.linalg.norm(other - R, axis=1) + 1e-9)
