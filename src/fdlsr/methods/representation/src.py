"""Sparse representation based classification (SRC, Wright et al., 2009)."""

import warnings
from numbers import Integral

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso

from ...common.compat import Interval, StrOptions
from ...common.linalg import gram
from ...common.validation import POSITIVE
from ._base import RepresentationClassifier


def lasso_alpha(lam, n_features):
    """scikit-learn's ``Lasso`` alpha for ``||y - a D||^2 + lam ||a||_1``.

    ``Lasso`` minimises ``||y - X w||^2 / (2 n_rows) + alpha ||w||_1`` with the
    dictionary as design matrix (``X = D^T``, ``n_rows = n_features``); multiplying
    by ``2 n_features`` gives the l1_ls form, so ``alpha = lam / (2 n_features)``.
    """
    return lam / (2.0 * n_features)


def lasso_codes(Y, dictionary, sample_gram, lam, *, tol=1e-4, max_iter=10000):
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


class SRC(RepresentationClassifier):
    """Sparse representation based classification.

    Each test sample is coded over all training samples with an l1 penalty and
    assigned to the class whose samples reconstruct it with the smallest residual.

    Parameters
    ----------
    lam : float, default=1e-2
        Weight of ``||a||_1`` in ``||y - a D||^2 + lam ||a||_1`` (the l1_ls scaling
        used by the CRC and NRC authors' comparison code; see Notes for the default).
    tol : float, default=1e-4
        Stop a sample's coordinate descent when the duality gap of the halved
        objective is below ``tol * ||y||^2`` (scikit-learn's ``Lasso`` rule). Not
        used by ``solver="fista"``.
    max_iter : int or None, default=None
        ``solver="cd"``: maximum coordinate-descent sweeps per test sample (``None``:
        10000). ``solver="fista"``: the number of FISTA iterations (``None``: 300,
        DICTOL's budget).
    solver : {"cd", "fista"}, default="cd"
        ``"cd"``: scikit-learn's coordinate descent, run to convergence. ``"fista"``:
        a fixed budget of FISTA iterations from zero, as DICTOL's ``SRC_wrapper.m``
        (300), which stops well before convergence; see Notes.
    normalize : bool, default=True
        Scale training samples (and test samples) to unit L2 norm: the first step of
        the paper's Algorithm 1 (for the dictionary), and of every comparison code.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    dictionary_ : ndarray of shape (n_samples, n_features)
    dictionary_labels_ : ndarray of int of shape (n_samples,)
    gram_ : ndarray of shape (n_samples, n_samples)
        ``D D^T``, shared by the lasso of every test sample.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

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
    Solver: scikit-learn's coordinate descent (with gap-safe screening) on the
    precomputed Gram matrix, one lasso per test sample, in chunks of test samples.
    ``solver="fista"`` instead runs DICTOL's (Vu's) FISTA for a fixed number of
    iterations on all samples of a chunk at once; DICTOL also stops once the mean
    change of the whole batch's codes is below 1e-8, which is left out so that a
    sample's code does not depend on the batch. The early-stopped codes classify
    FERET better than the converged ones (docs/methods-representation.md).

    Default ``lam``. The paper has none (it solves the constrained problem). With
    unit-norm samples, ``lam = 1e-3`` (a value some reimplementations pass to l1_ls)
    leaves coordinate descent far from the optimum on face data (relative duality gap
    near 1 after 1000 sweeps on FERET, still 0.1-0.4 after 5000), so the result
    would reflect the solver rather than the model; at ``1e-2`` it converges within
    about 5000 sweeps.

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
        "solver": [StrOptions({"cd", "fista"})],
    }

    def __init__(
        self, lam=1e-2, *, tol=1e-4, max_iter=None, solver="cd", normalize=True
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
        if self.solver == "fista":
            return fista_codes(
                Y @ self.dictionary_.T if YD is None else YD,
                self.gram_,
                self.lam,
                self._lipschitz,
                FISTA_ITER if self.max_iter is None else self.max_iter,
            )
        return lasso_codes(
            Y,
            self.dictionary_,
            self.gram_,
            self.lam,
            tol=self.tol,
            max_iter=CD_ITER if self.max_iter is None else self.max_iter,
        )

    def _residuals(self, Y):
        YD = Y @ self.dictionary_.T
        return self._class_residuals.sample(
            self._codes(Y, YD), YD, np.einsum("ij,ij->i", Y, Y)
        )
