"""Collaborative representation: CRC (Zhang et al., 2011) and ProCRC (Cai et al., 2016).

Both code a test sample by regularised least squares over all training samples at
once, so the coding is one fixed linear map ``y -> y P^T`` computed in ``fit``; they
differ in the regulariser and in the class-wise rule.
"""

import numpy as np
from scipy.special import softmax

from .._common.compat import StrOptions
from .._common.linalg import RidgeSystem, gram
from .._common.validation import NON_NEGATIVE, POSITIVE
from ._classifier import RepresentationClassifier, representation_doc


def _right_solve(G, ridge, Z, what):
    """``Z (G + ridge I)^-1`` with a message in the estimator's terms on failure."""
    try:
        return RidgeSystem(G, ridge, repeated=False).right_solve(Z)
    except np.linalg.LinAlgError:
        raise np.linalg.LinAlgError(
            f"The {what} system is not numerically positive definite with "
            f"lam={ridge:g}. Increase lam."
        ) from None


def collaborative_projection(dictionary, lam, solver="auto"):
    """Transposed CRC projection ``P^T`` (n_features x n_atoms).

    The codes of test samples ``Y`` (rows) are ``Y P^T``, the minimisers of
    ``||y - a D||^2 + lam ||a||^2``: ``a = y D^T (D D^T + lam I)^-1`` (``"dual"``,
    an n_atoms x n_atoms system) ``= y (D^T D + lam I)^-1 D^T`` (``"primal"``, an
    n_features x n_features system); ``"auto"`` solves the smaller one.
    """
    n_atoms, n_features = dictionary.shape
    if solver == "auto":
        solver = "dual" if n_features > n_atoms else "primal"
    if solver == "dual":
        return _right_solve(gram(dictionary, samples=True), lam, dictionary.T, "CRC")
    return _right_solve(gram(dictionary), lam, dictionary, "CRC").T


def probabilistic_system(sample_gram, block_gram, n_classes, gamma):
    """``(1 + gamma (K - 2)) G + gamma B``: the ProCRC normal matrix without ``lam I``.

    It equals ``G + gamma sum_k Gbar_k`` where ``Gbar_k`` is the Gram matrix of the
    dictionary with the atoms of class ``k`` zeroed, since
    ``sum_k ||a D - a_k D||^2 = K a G a^T - 2 a G a^T + a B a^T``.
    """
    return (1.0 + gamma * (n_classes - 2)) * sample_gram + gamma * block_gram


@representation_doc
class CRC(RepresentationClassifier):
    """Collaborative representation based classification (CRC-RLS).

    Each test sample is coded over all training samples by regularised least squares
    and assigned to the class whose samples reconstruct it with the smallest residual
    relative to the norm of their coefficients.

    With ``normalize=True`` (the default, the authors' setting) it unit-normalises
    the samples itself, so that its predictions do not depend on their scale; with
    ``normalize=False`` it assumes unit-norm samples and ``fit`` warns of others
    (:class:`~fdlsr.errors.DataScaleWarning`).

    Parameters
    ----------
    lam : float, default=1e-3
        Weight of ``||a||^2``. The authors' demo code uses ``1e-3`` (on unit-norm
        300-d eigenfaces of AR); the paper also suggests ``1e-3 * n / 700``.
    solver : {"auto", "primal", "dual"}, default="auto"
        Form of the projection: ``"dual"`` solves an n_samples x n_samples system,
        ``"primal"`` an n_features x n_features one; ``"auto"`` picks the smaller.
        Both give the same codes.
    %(normalize)s

    Attributes
    ----------
    %(dictionary)s
    projection_ : ndarray of shape (n_features, n_samples)
        ``P^T``: the codes of samples ``Y`` are ``Y @ projection_``.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    ProCRC : collaborative coding with class-wise terms and a probabilistic rule.
    sklearn.linear_model.Ridge : the coding of one sample is
        ``Ridge(alpha=lam, fit_intercept=False).fit(dictionary_.T, y).coef_``.

    Notes
    -----
    Coding: ``a = argmin ||y - a D||^2 + lam ||a||^2 = y P^T`` with the projection
    ``P = (D D^T + lam I)^-1 D``, computed once in ``fit`` from a Cholesky factor
    (``P^T = (D^T D + lam I)^-1 D^T`` in the primal form). Rule, as in the paper
    and the authors' ``CRC_RLS.m``: ``argmin_k ||y - a_k D|| / ||a_k||``, where
    ``a_k`` keeps the coefficients of class ``k`` (the code compares the squares of
    these ratios, which ranks the classes the same way). ``decision_function`` is
    minus the ratio; a class whose coefficients are all zero ranks last.

    References
    ----------
    L. Zhang, M. Yang and X. Feng, "Sparse representation or collaborative
    representation: which helps face recognition?", ICCV 2011.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from fdlsr.representation import CRC
    >>> X, y = load_digits(return_X_y=True)
    >>> CRC(lam=1e-2).fit(X[:1000], y[:1000]).score(X[1000:], y[1000:]) > 0.9
    True
    """

    _parameter_constraints: dict = {
        **RepresentationClassifier._parameter_constraints,
        "lam": [POSITIVE],
        "solver": [StrOptions({"auto", "primal", "dual"})],
    }

    def __init__(self, lam=1e-3, *, solver="auto", normalize=True):
        self.lam = lam
        self.solver = solver
        self.normalize = normalize

    def _prepare(self, dictionary, y):
        self.projection_ = collaborative_projection(
            dictionary, lam=self.lam, solver=self.solver
        )

    def _codes(self, Y):
        return Y @ self.projection_

    def _residuals(self, Y):
        YD = Y @ self.dictionary_.T
        return self._class_residuals.regularised(
            self._codes(Y), YD, np.einsum("ij,ij->i", Y, Y)
        )


@representation_doc
class ProCRC(RepresentationClassifier):
    """Probabilistic collaborative representation based classification.

    Codes each test sample over all training samples with a ridge penalty and a term
    pulling every class's part of the reconstruction towards the whole, then assigns
    the class of highest probability, i.e. whose part is closest to the
    reconstruction.

    With ``normalize=True`` (the default, the authors' setting) it unit-normalises
    the samples itself, so that its predictions do not depend on their scale; with
    ``normalize=False`` it assumes unit-norm samples and ``fit`` warns of others
    (:class:`~fdlsr.errors.DataScaleWarning`).

    Parameters
    ----------
    lam : float, default=1.0
        Weight of ``||a||^2`` (the paper's lambda). The default is the authors' demo
        setting for faces (Extended Yale B).
    gamma : float, default=1e-2
        Weight of the class-wise terms, as in the authors' code (see Notes for the
        paper's scaling). ``gamma=0`` gives CRC's coding with ``lam``.
    %(normalize)s

    Attributes
    ----------
    %(dictionary)s
    projection_ : ndarray of shape (n_features, n_samples)
        The codes of samples ``Y`` are ``Y @ projection_``.
    gram_ : ndarray of shape (n_samples, n_samples)
        ``D D^T``, used by the rule.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    CRC : the same coding with ``gamma=0`` and a regularised-residual rule.

    Notes
    -----
    Coding, with ``K`` classes and ``a_k`` the coefficients of class ``k`` (others
    zero)::

        a = argmin ||y - a D||^2 + lam ||a||^2 + gamma sum_k ||a D - a_k D||^2
          = y D^T [(1 + gamma (K - 2)) D D^T + gamma B + lam I]^-1

    with ``B`` the block-diagonal same-class Gram matrix, as in the authors'
    ``ProCRC.m``; the n_samples x n_samples system is solved once in ``fit``.
    The paper writes the class-wise weight as ``gamma / K``; the authors' code (and
    this class) uses ``gamma``, so the paper's gamma is ``K * gamma`` here.

    Rule (the paper's maximum probability, the authors' ``ProMax.m``):
    ``P(k | y) ~ exp(-(||y - aD||^2 + lam ||a||^2 + K gamma ||aD - a_k D||^2))``,
    whose first two terms do not depend on ``k``, so the prediction is
    ``argmin_k ||a D - a_k D||^2``. ``predict_proba`` normalises these
    probabilities over the classes (the paper's unknown scale kappa taken as 1);
    ``decision_function`` is ``-||a D - a_k D||^2``.

    References
    ----------
    S. Cai, L. Zhang, W. Zuo and X. Feng, "A probabilistic collaborative
    representation based approach for pattern classification", CVPR 2016.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from fdlsr.representation import ProCRC
    >>> X, y = load_digits(return_X_y=True)
    >>> model = ProCRC(lam=1e-1).fit(X[:1000], y[:1000])
    >>> model.score(X[1000:], y[1000:]) > 0.9
    True
    """

    _parameter_constraints: dict = {
        **RepresentationClassifier._parameter_constraints,
        "lam": [POSITIVE],
        "gamma": [NON_NEGATIVE],
    }

    def __init__(self, lam=1.0, gamma=1e-2, *, normalize=True):
        self.lam = lam
        self.gamma = gamma
        self.normalize = normalize

    def _prepare(self, dictionary, y):
        self.gram_ = gram(dictionary, samples=True)
        system = probabilistic_system(
            self.gram_,
            self._class_residuals.block_gram.toarray(),
            len(self.classes_),
            gamma=self.gamma,
        )
        self.projection_ = _right_solve(system, self.lam, dictionary.T, "ProCRC")

    def _codes(self, Y):
        return Y @ self.projection_

    def _residuals(self, Y):
        C = self._codes(Y)
        return self._class_residuals.reconstruction(C, C @ self.gram_)

    def predict_proba(self, X):
        """The paper's class probabilities, normalised over the classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        residuals = self.class_residuals(X)
        return softmax(-len(self.classes_) * self.gamma * residuals, axis=1)
