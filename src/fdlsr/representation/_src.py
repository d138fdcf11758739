"""Sparse representation based classification (SRC, Wright et al., 2009)."""

import warnings
from numbers import Integral

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso

from .._common.compat import Interval, StrOptions
from .._common.linalg import gram, single_threaded_lapack
from .._common.validation import POSITIVE
from ._classifier import RepresentationClassifier, representation_doc


def lasso_alpha(lam, n_features):
    """scikit-learn's ``Lasso`` alpha for ``||y - a D||^2 + lam ||a||_1``.

    ``Lasso`` minimises ``||y - X w||^2 / (2 n_rows) + alpha ||w||_1`` with the
    dictionary as design matrix (``X = D^T``, ``n_rows = n_features``); multiplying
    by ``2 n_features`` gives the l1_ls form, so ``alpha = lam / (2 n_features)``.
    """
    return lam / (2.0 * n_features)


def lasso_codes(Y, dictionary, sample_gram, lam, *, tol, max_iter):
    """Codes ``argmin_a ||y - a D||^2 + lam ||a||_1`` of every row ``y`` of ``Y``.

    One coordinate-descent lasso per sample (scikit-learn's ``Lasso`` with the
    samples as targets), all sharing the precomputed Gram matrix ``D D^T``. Samples
    whose duality gap is still above ``tol * ||y||^2`` (on the objective halved)
    after ``max_iter`` sweeps are reported in a single ``ConvergenceWarning``.
    """
    n_samples = Y.shape[0]
    model = Lasso(
        alpha=lasso_alpha(lam, dictionary.shape[1]),
        fit_intercept=False,
        precompute=sample_gram,
        tol=tol,
        max_iter=max_iter,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        # Transposes of C-ordered arrays are the Fortran-ordered float64 inputs that
        # check_input=False requires (scikit-learn's sparse_encode does the same).
        model.fit(dictionary.T, Y.T, check_input=False)
    failed = sum(issubclass(w.category, ConvergenceWarning) for w in caught)
    for w in caught:
        if not issubclass(w.category, ConvergenceWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if failed:
        warnings.warn(
            f"SRC: the lasso did not reach tol={tol:g} within max_iter={max_iter} for "
            f"{failed} of {n_samples} test samples; increase max_iter or tol, or lam.",
            ConvergenceWarning,
            stacklevel=3,
        )
    return np.asarray(model.coef_).reshape(n_samples, dictionary.shape[0])


# DICTOL's SRC_wrapper.m: 300 FISTA iterations.
FISTA_ITER = 300
CD_ITER = 10000
# Feature-sign steps per sample: far more than the codes' nonzeros (about 30 on FERET).
SIGN_ITER = 10000
# Relative slack of the optimality test: |gradient| <= lam (1 + SIGN_RTOL) at a zero.
SIGN_RTOL = 1e-9


def feature_sign_codes(YD, sample_gram, lam, max_iter=SIGN_ITER):
    """Exact codes ``argmin_a ||y - a D||^2 + lam ||a||_1`` of every row of ``Y``,
    given ``YD = Y D^T`` and ``D D^T``, by feature-sign search (Lee, Battle, Raina
    and Ng, "Efficient sparse coding algorithms", NIPS 2006).

    An active-set method: guess the signs of the nonzero coefficients, solve the
    least-squares problem those signs make smooth (a small system in the Gram
    matrix), keep the best point of the segment towards it where a sign would flip,
    and add the zero coefficient that violates optimality most, until none does.
    Each step lowers the objective, so it ends at the minimiser, up to rounding;
    its cost grows with the number of nonzeros (tens on face data), not with the
    conditioning that makes coordinate descent take thousands of sweeps. Returns the
    codes and the number of samples that needed more than ``max_iter`` steps.
    """
    codes = np.zeros_like(YD)
    failed = 0
    # Tens of small solves per sample: threads cost more than they give there
    # (docs/performance.md, "Measurements behind the code's choices").
    with single_threaded_lapack():
        for row, yd in enumerate(YD):
            codes[row], done = _feature_sign(yd, sample_gram, lam, max_iter)
            failed += not done
    return codes, failed


def _feature_sign(b, G, lam, max_iter):
    # Objective a G a' - 2 a b + lam |a|_1 (the sample's own norm left out).
    a = np.zeros_like(b)
    active = np.zeros(b.shape, dtype=bool)
    grad = -2.0 * b  # of the smooth part, 2 (a G - b)
    limit = lam * (1.0 + SIGN_RTOL)
    steps = 0
    while steps < max_iter:
        free = np.where(active, 0.0, np.abs(grad))
        i = int(np.argmax(free))
        if free[i] <= limit:
            return a, True
        active[i] = True
        signs = np.sign(a)
        signs[i] = -np.sign(grad[i])
        while steps < max_iter:
            steps += 1
            index = np.flatnonzero(active)
            G_aa, b_a, old = G[np.ix_(index, index)], b[index], a[index]
            try:
                target = np.linalg.solve(G_aa, b_a - 0.5 * lam * signs[index])
            except np.linalg.LinAlgError:  # duplicate samples in the active set
                target = np.linalg.lstsq(
                    G_aa, b_a - 0.5 * lam * signs[index], rcond=None
                )[0]
            a[index] = _best_on_segment(old, target, G_aa, b_a, lam)
            a[np.abs(a) <= 1e-15 * np.abs(a).max()] = 0.0
            active = a != 0
            signs = np.sign(a)
            grad = 2.0 * (G[:, active] @ a[active] - b)
            slack = np.abs(grad[active] + lam * signs[active])
            if np.all(slack <= SIGN_RTOL * lam):
                break
    return a, False


def _best_on_segment(old, target, G_aa, b_a, lam):
    """The point of least objective among ``target`` and the points of the segment
    from ``old`` where a nonzero coefficient of ``old`` crosses zero."""
    direction = target - old
    moving = (old != 0) & (old * target < 0)
    points = [target]
    for j in np.flatnonzero(moving):
        point = old + (-old[j] / direction[j]) * direction
        point[j] = 0.0  # exactly, whatever the rounding
        points.append(point)
    if len(points) == 1:
        return target
    values = [x @ G_aa @ x - 2.0 * x @ b_a + lam * np.abs(x).sum() for x in points]
    return points[int(np.argmin(values))]


def fista_codes(YD, sample_gram, lam, lipschitz, n_iter):
    """``n_iter`` FISTA iterations from zero on ``||y - a D||^2 + lam ||a||_1`` for
    every row of ``Y``, given ``YD = Y D^T`` and ``D D^T`` (DICTOL's ``lasso_fista.m``
    on its halved objective: step ``1 / lipschitz`` with ``lipschitz`` the top
    eigenvalue of ``D D^T``, threshold ``lam / 2`` times the step).

    Every sample runs the same number of iterations, so its code does not depend on
    the other samples of the batch.
    """
    step = 1.0 / lipschitz
    threshold = 0.5 * lam * step
    A = np.zeros_like(YD)
    Z = A.copy()
    t = 1.0
    for _ in range(n_iter):
        V = Z - step * (Z @ sample_gram - YD)
        A_new = np.sign(V) * np.maximum(np.abs(V) - threshold, 0.0)
        t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        Z = A_new + ((t - 1.0) / t_new) * (A_new - A)
        A, t = A_new, t_new
    return A


@representation_doc
class SRC(RepresentationClassifier):
    """Sparse representation based classification.

    Each test sample is coded over all training samples with an l1 penalty and
    assigned to the class whose samples reconstruct it with the smallest residual.

    With ``normalize=True`` (the default, the authors' setting) it unit-normalises
    the samples itself, so that its predictions do not depend on their scale; with
    ``normalize=False`` it assumes unit-norm samples and ``fit`` warns of others
    (:class:`~fdlsr.errors.DataScaleWarning`).

    Parameters
    ----------
    lam : float, default=1e-2
        Weight of ``||a||_1`` in ``||y - a D||^2 + lam ||a||_1`` (the l1_ls scaling
        used by the CRC and NRC authors' comparison code; see Notes for the default).
    tol : float, default=1e-4
        ``solver="cd"``: stop a sample's coordinate descent when the duality gap of
        the halved objective is below ``tol * ||y||^2`` (scikit-learn's ``Lasso``
        rule). Not used by the other solvers.
    max_iter : int or None, default=None
        ``solver="feature_sign"``: maximum feature-sign steps per test sample
        (``None``: 10000). ``solver="cd"``: maximum coordinate-descent sweeps per test
        sample (``None``: 10000). ``solver="fista"``: the number of FISTA iterations
        (``None``: 300, DICTOL's budget).
    solver : {"feature_sign", "cd", "fista"}, default="feature_sign"
        ``"feature_sign"``: an exact active-set method (feature-sign search), which
        ends at the minimiser. ``"cd"``: scikit-learn's coordinate descent, run until
        ``tol``. ``"fista"``: a fixed budget of FISTA iterations from zero, as
        DICTOL's ``SRC_wrapper.m`` (300), which stops well before convergence; see
        Notes.
    normalize : bool, default=True
        Scale training samples (and test samples) to unit L2 norm: the first step of
        the paper's Algorithm 1 (for the dictionary), and of every comparison code.

    Attributes
    ----------
    %(dictionary)s
    gram_ : ndarray of shape (n_samples, n_samples)
        ``D D^T``, shared by the lasso of every test sample.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    sklearn.linear_model.Lasso : the coding of one sample is
        ``Lasso(alpha=lam / (2 * n_features), fit_intercept=False)`` fitted to
        ``(dictionary_.T, y)``.
    sklearn.decomposition.sparse_encode : the same coding in dictionary-learning
        form, with ``alpha = lam / 2``.

    Notes
    -----
    Coding: ``a = argmin ||y - a D||^2 + lam ||a||_1``, the Lagrangian (lasso) form
    that l1_ls solves and that SRC's reimplementations (including the CRC and NRC
    authors' comparisons) use. The paper solves the equality-constrained problem
    ``min ||a||_1 s.t. a D = y`` (or ``||a D - y|| <= eps`` with noise); that needs
    ``y`` in the span of the training samples, which fails whenever there are fewer
    training samples than features (e.g. FERET: at most 1000 samples of 1600 pixels),
    and the noisy form's ``eps`` is a Lagrange multiplier away from ``lam``.
    Solver: feature-sign search (Lee et al., 2006) on the precomputed Gram matrix,
    one test sample at a time: it solves the problem exactly (to rounding), where
    ``solver="cd"``, scikit-learn's coordinate descent, needs thousands of sweeps
    per sample to reach its ``tol`` on face data (the training images are strongly
    correlated; some repeat, which makes ``D D^T`` singular and the minimiser
    possibly not unique, though its reconstruction ``a D`` is); see
    docs/performance.md for the two solvers' times. The codes of the two agree to the coordinate
    descent's tolerance (tests/test_representation_numerics.py).
    ``solver="fista"`` instead runs DICTOL's (Vu's) FISTA for a fixed number of
    iterations on all samples of a chunk at once; DICTOL also stops once the mean
    change of the whole batch's codes is below 1e-8, which is left out so that a
    sample's code does not depend on the batch. The early-stopped codes classify
    FERET better than the converged ones (docs/methods-representation.md).

    Default ``lam``. The paper has none (it solves the constrained problem). With
    unit-norm samples, ``lam = 1e-3`` (a value some reimplementations pass to l1_ls)
    leaves coordinate descent far from the optimum on face data, so the result
    would reflect the solver rather than the model; at ``1e-2`` it converges
    (docs/performance.md gives the duality gaps).

    Rule (the paper's Algorithm 1): ``argmin_k ||y - a_k D||``, where ``a_k`` keeps
    the coefficients of class ``k``; ``decision_function`` is minus the residual.

    References
    ----------
    J. Wright, A. Y. Yang, A. Ganesh, S. S. Sastry and Y. Ma, "Robust face recognition
    via sparse representation", IEEE TPAMI 31(2), 2009.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from fdlsr.representation import SRC
    >>> X, y = load_digits(return_X_y=True)
    >>> SRC(lam=1e-1).fit(X[:500], y[:500]).score(X[500:700], y[500:700]) > 0.9
    True
    """

    _parameter_constraints: dict = {
        **RepresentationClassifier._parameter_constraints,
        "lam": [POSITIVE],
        "tol": [POSITIVE],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "solver": [StrOptions({"feature_sign", "cd", "fista"})],
    }

    def __init__(
        self,
        lam=1e-2,
        *,
        tol=1e-4,
        max_iter=None,
        solver="feature_sign",
        normalize=True,
    ):
        self.lam = lam
        self.tol = tol
        self.max_iter = max_iter
        self.solver = solver
        self.normalize = normalize

    def _prepare(self, dictionary, y):
        self.gram_ = gram(dictionary, samples=True)
        if self.solver == "fista":
            top = np.linalg.eigvalsh(self.gram_)[-1] if self.gram_.size else 0.0
            self._lipschitz = max(float(top), np.finfo(float).tiny)

    def _codes(self, Y, YD=None):
        if self.solver == "feature_sign":
            max_iter = SIGN_ITER if self.max_iter is None else self.max_iter
            codes, failed = feature_sign_codes(
                Y @ self.dictionary_.T if YD is None else YD,
                self.gram_,
                lam=self.lam,
                max_iter=max_iter,
            )
            if failed:
                warnings.warn(
                    f"SRC: feature-sign search did not reach the optimum within "
                    f"max_iter={max_iter} steps for {failed} of {Y.shape[0]} test "
                    "samples; increase max_iter.",
                    ConvergenceWarning,
                    stacklevel=3,
                )
            return codes
        if self.solver == "fista":
            return fista_codes(
                Y @ self.dictionary_.T if YD is None else YD,
                self.gram_,
                lam=self.lam,
                lipschitz=self._lipschitz,
                n_iter=FISTA_ITER if self.max_iter is None else self.max_iter,
            )
        return lasso_codes(
            Y,
            self.dictionary_,
            self.gram_,
            lam=self.lam,
            tol=self.tol,
            max_iter=CD_ITER if self.max_iter is None else self.max_iter,
        )

    def _residuals(self, Y):
        YD = Y @ self.dictionary_.T
        return self._class_residuals.sample(
            self._codes(Y, YD), YD, np.einsum("ij,ij->i", Y, Y)
        )
