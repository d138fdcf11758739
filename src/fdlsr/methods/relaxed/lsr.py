"""Least squares regression to one-hot labels (the FDLSR paper's Eq. 1)."""

from ...common.linalg import make_ridge, one_hot
from ._classifier import RelaxedRegressionClassifier


def fit_lsr(X, y, n_classes, *, lam, solver="auto"):
    """``Q = argmin ||Q X^T - H||^2 + lam ||Q||^2`` for samples ``X`` (n x d).

    Returns ``Q`` (n_classes x n_features); ``y`` holds codes in ``[0, n_classes)``.
    """
    ridge = make_ridge(X, [lam], solver, repeated=[False])[0]
    _, state = ridge.solve(one_hot(y, n_classes))
    return ridge.coef(state)


class LSR(RelaxedRegressionClassifier):
    """Least squares regression classifier: ridge regression to one-hot labels.

    Parameters
    ----------
    lam : float, default=0.1
        Ridge penalty on the projection (the paper's beta in Eq. 1). Must be > 0.
    decision_rule : {"linear", "nearest_neighbor", "nearest_mean", "knn"}, \
            default="linear"
        ``"linear"`` predicts ``argmax(Q x)``; ``"nearest_neighbor"`` is the 1-NN rule
        on L2-normalised projections used by FDLSR.
        ``"knn"`` (a vote of the ``n_neighbors`` nearest normalised training
        projections) and ``"nearest_mean"`` (the nearest class centroid of the
        normalised projections) scale to large training sets; the rule can be
        changed after fitting (see :class:`~fdlsr.common.classifiers.ProjectionClassifier`).
    n_neighbors : int, default=5
        Number of neighbours that vote under ``decision_rule="knn"``.
    weights : {"uniform", "distance"}, default="uniform"
        Votes under ``decision_rule="knn"``: one per neighbour or the inverse of its
        distance.
    solver : {"auto", "primal", "dual"}, default="auto"
        Form of the ridge solve (d x d or n x n system); both give the same ``Q``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_classes, n_features)
        The projection ``Q``.
    intercept_ : ndarray of shape (n_classes,)
        Zeros: Eq. (1) has no intercept.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

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

    _parameter_constraints: dict = {
        **RelaxedRegressionClassifier._parameter_constraints
    }

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

    def _fit_core(self, X, codes, n_classes):
        return fit_lsr(X, codes, n_classes, **self._core_params()), None
