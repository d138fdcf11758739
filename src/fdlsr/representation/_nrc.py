"""Non-negative representation based classification (NRC, Xu et al., 2019)."""

from numbers import Integral

import numpy as np
from scipy import linalg
from scipy.optimize import nnls

from .._common.compat import Interval, StrOptions
from .._common.linalg import RidgeSystem, gram
from .._common.validation import POSITIVE
from ._classifier import RepresentationClassifier, representation_doc


def nrc_admm(YD, inverse, rho, max_iter):
    """The authors' ADMM for ``min ||y - a D||^2 s.t. a >= 0``, all rows at once.

    Splitting ``a = z`` with ``z >= 0``, multiplier ``delta`` and penalty ``rho``,
    starting from ``c = z = delta = 0``, each iteration is::

        c     = (y D^T + rho/2 z + delta/2) (D D^T + rho/2 I)^-1
        z     = max(c - delta / rho, 0)
        delta = delta + rho (z - c)

    Parameters
    ----------
    YD : ndarray of shape (m, n_atoms)
        ``Y D^T`` for the test samples ``Y`` (rows).
    inverse : ndarray of shape (n_atoms, n_atoms)
        ``(D D^T + rho/2 I)^-1``.
    rho : float
    max_iter : int
        Number of iterations (fixed, as in the authors' code).

    Returns
    -------
    z : ndarray of shape (m, n_atoms)
        The non-negative codes (the projected variable, as the authors return).
    """
    z = np.zeros_like(YD)
    delta = np.zeros_like(YD)
    for _ in range(max_iter):
        c = (YD + (0.5 * rho) * z + 0.5 * delta) @ inverse
        z = np.maximum(c - delta / rho, 0.0)
        delta += rho * (z - c)
    return z


def nnls_factor(dictionary):
    """``(Q, R)`` with ``D^T = Q R`` (economic QR), for the exact solver.

    Since ``a D = a R^T Q^T`` lies in the range of ``Q``,
    ``||y - a D||^2 = ||y Q - a R^T||^2 + const``: an NNLS problem with
    ``min(n_atoms, n_features)`` rows instead of ``n_features``.
    """
    return linalg.qr(dictionary.T, mode="economic")


def nnls_codes(YQ, R):
    """Exact NNLS codes, one Lawson-Hanson active-set solve per row of ``Y Q``."""
    codes = np.empty((YQ.shape[0], R.shape[1]))
    for i, b in enumerate(YQ):
        codes[i] = nnls(R, b)[0]
    return codes


@representation_doc
class NRC(RepresentationClassifier):
    """Non-negative representation based classification.

    Each test sample is coded over all training samples with non-negative
    coefficients (no other penalty) and assigned to the class whose samples
    reconstruct it with the smallest residual.

    With ``normalize=True`` (the default, the authors' setting) it unit-normalises
    the samples itself, so that its predictions do not depend on their scale; with
    ``normalize=False`` it assumes unit-norm samples and ``fit`` warns of others
    (:class:`~fdlsr.errors.DataScaleWarning`).

    Parameters
    ----------
    rho : float, default=0.1
        ADMM penalty parameter (``solver="admm"``).
    max_iter : int, default=5
        Number of ADMM iterations; the authors' code runs a fixed number, with no
        stopping rule (see Notes for the defaults).
    solver : {"admm", "nnls"}, default="admm"
        ``"admm"`` runs the authors' ADMM for ``max_iter`` iterations, batched over
        test samples; its codes are an early-stopped approximation. ``"nnls"`` solves
        the non-negative least squares problem exactly (SciPy's Lawson-Hanson active
        set method, one test sample at a time, on a QR-reduced system).
    %(normalize)s

    Attributes
    ----------
    %(dictionary)s
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    scipy.optimize.nnls : the exact solver.

    Notes
    -----
    Coding: ``a = argmin ||y - a D||^2 s.t. a >= 0``. ADMM (the authors' ``NRC.m``):
    see :func:`nrc_admm`; the n_samples x n_samples inverse is formed once in
    ``fit`` and every iteration is one product for the whole chunk of test samples.
    With ``rho`` fixed the iterates converge to the NNLS solution, but only slowly
    (the authors' convergence figure runs 200 iterations); with few iterations the
    codes stay close to the ridge solution ``y D^T (D D^T + rho/2 I)^-1`` projected
    onto ``a >= 0``, which acts as a regulariser.

    Defaults. The paper text was not available to us. The authors' code takes the
    iteration count and rho as inputs and its face demos searched ``max_iter`` in
    5-10 and ``rho`` in 0.01-1 (one 200-iteration, ``rho = 1`` run); we use
    ``max_iter=5`` and ``rho=0.1``, the setting of the NRC implementation in
    He-Feng Yin and Xiao-Jun Wu's code for FERET (the FERET file the FDLSR paper
    uses comes from the same group); docs/methods-representation.md compares our
    NRC row on FERET with the FDLSR paper's.

    Rule: ``argmin_k ||y - a_k D||`` with ``a_k`` the coefficients of class ``k``
    (the paper's rule, as in SRC). The authors' ``PredictID.m`` ranks by
    ``||a D - a_k D||`` instead (ProCRC's rule; docs/methods-representation.md
    compares the two). ``decision_function`` is minus the residual.

    References
    ----------
    J. Xu, W. An, L. Zhang and D. Zhang, "Sparse, collaborative, or nonnegative
    representation: which helps pattern classification?", Pattern Recognition 88,
    2019. Authors' code: https://github.com/csjunxu/NSCR (NRC.m).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from fdlsr.representation import NRC
    >>> X, y = load_digits(return_X_y=True)
    >>> NRC().fit(X[:1000], y[:1000]).score(X[1000:], y[1000:]) > 0.9
    True
    """

    _parameter_constraints: dict = {
        **RepresentationClassifier._parameter_constraints,
        "rho": [POSITIVE],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "solver": [StrOptions({"admm", "nnls"})],
    }

    def __init__(self, rho=0.1, *, max_iter=5, solver="admm", normalize=True):
        self.rho = rho
        self.max_iter = max_iter
        self.solver = solver
        self.normalize = normalize

    def _prepare(self, dictionary, y):
        if self.solver == "admm":
            system = RidgeSystem(gram(dictionary, samples=True), 0.5 * self.rho)
            self._inverse = system.inverse
        else:
            self._q, self._r = nnls_factor(dictionary)

    def _codes(self, Y, YD=None):
        if self.solver == "nnls":
            return nnls_codes(Y @ self._q, self._r)
        if YD is None:
            YD = Y @ self.dictionary_.T
        return nrc_admm(YD, self._inverse, rho=self.rho, max_iter=self.max_iter)

    def _residuals(self, Y):
        YD = Y @ self.dictionary_.T
        return self._class_residuals.sample(
            self._codes(Y, YD), YD, np.einsum("ij,ij->i", Y, Y)
        )
