"""Least squares regression to one-hot labels (the FDLSR paper's Eq. 1)."""

from dataclasses import dataclass

import numpy as np

from .._common.class_means import one_hot
from .._common.docstrings import core_doc
from .._common.linalg import make_ridge
from ._classifier import RelaxedRegressionClassifier, relaxed_doc


@dataclass
class LSRResult:
    """What :func:`fit_lsr` returns."""

    coef: np.ndarray  # Q, n_classes x n_features


@core_doc
def fit_lsr(X, y, n_classes, *, lam, solver):
    """``Q = argmin ||Q X^T - H||^2 + lam ||Q||^2``, one Cholesky solve.

    Parameters
    ----------
    %(training_data)s
    lam : float
        Ridge penalty, > 0.
    solver : {"auto", "primal", "dual"}
        Form of the solve (:func:`~fdlsr._common.linalg.make_ridge`).

    Returns
    -------
    result : LSRResult
        ``coef``: ``Q``, shape (n_classes, n_features).
    """
    ridge = make_ridge(X, [lam], solver, repeated=[False])[0]
    _, state = ridge.solve(one_hot(y, n_classes))
    return LSRResult(coef=ridge.coef(state))


@relaxed_doc
class LSR(RelaxedRegressionClassifier):
    """Least squares regression classifier: ridge regression to one-hot labels.

    Assumes unit-norm samples, as the FDLSR paper's comparison gives every method
    (and ``fdlsr run`` does): ``fit`` warns of samples far from unit norm
    (:class:`~fdlsr.errors.DataScaleWarning`) and refuses a scale its arithmetic
    cannot hold (:class:`~fdlsr.errors.DataScaleError`).

    Parameters
    ----------
    lam : float, default=0.1
        Ridge penalty on the projection (the paper's beta in Eq. 1). Must be > 0.
    %(linear_rule)s

    Attributes
    ----------
    %(projection)s
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    sklearn.linear_model.RidgeClassifier : the same model on {-1, 1} targets, whose
        argmax agrees with this one when it has no intercept.

    Notes
    -----
    Model (the FDLSR paper's Eq. 1, samples as rows of ``X``, ``H`` one-hot)::

        min_Q ||Q X^T - H||_F^2 + lam ||Q||_F^2,    Q = H X (X^T X + lam I)^-1

    solved once by Cholesky in the primal or dual form.

    References
    ----------
    Z. Chen, X.-J. Wu and J. Kittler, "Fisher Discriminative Least Squares Regression
    for Image Classification", Eq. (1).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from fdlsr.relaxed import LSR
    >>> X, y = load_digits(return_X_y=True)
    >>> LSR(lam=1.0).fit(X[:1000], y[:1000]).score(X[1000:], y[1000:]) > 0.85
    True
    """

    def __init__(
        self,
        lam=0.1,
        *,
        decision_rule="linear",
        n_neighbors=5,
        weights="uniform",
        solver="auto",
    ):
        self.lam = lam
        self.decision_rule = decision_rule
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.solver = solver

    def _fit_encoded(self, X, codes, n_classes):
        result = fit_lsr(X, codes, n_classes, lam=self.lam, solver=self.solver)
        return self._set_projection(X, codes, n_classes, result.coef)
