"""Discriminative least squares regression (Xiang et al., 2012)."""

from ._alternating import dragged_targets, fit_alternating
from ._classifier import (
    ALTERNATING_CONSTRAINTS,
    RelaxedRegressionClassifier,
    relaxed_doc,
)


def fit_dlsr(X, y, n_classes, *, lam, max_iter, tol, fit_intercept, solver):
    """DLSR by alternating ridge fits and the closed-form epsilon-draggings.

    Parameters
    ----------
    X, y, n_classes, lam, max_iter, tol, fit_intercept, solver
        As in :func:`~fdlsr.relaxed._alternating.fit_alternating`.

    Returns
    -------
    result : AlternatingResult
        Its ``targets`` are the dragged labels ``H + B.M`` of the last fit.
    """
    return fit_alternating(
        X,
        y,
        n_classes,
        lam=lam,
        update_targets=lambda fitted: (dragged_targets(fitted, y), 0.0),
        max_iter=max_iter,
        tol=tol,
        fit_intercept=fit_intercept,
        solver=solver,
    )


@relaxed_doc
class DLSR(RelaxedRegressionClassifier):
    """Discriminative least squares regression with epsilon-draggings.

    Regresses the samples on relaxed labels ``H + B.M``: the true-class target may
    grow above 1 and the others fall below 0 (``M >= 0``), enlarging the margins.

    Assumes unit-norm samples, as the FDLSR paper's comparison gives every method
    (and ``fdlsr run`` does): ``fit`` warns of samples far from unit norm
    (:class:`~fdlsr.errors.DataScaleWarning`) and refuses a scale its arithmetic
    cannot hold (:class:`~fdlsr.errors.DataScaleError`).

    Parameters
    ----------
    lam : float, default=1e-2
        Ridge penalty on the projection ``W`` (the paper's lambda). Must be > 0.
    max_iter : int, default=30
        Maximum number of iterations (the authors' code uses 30). ``0`` returns the
        ridge fit to the one-hot labels.
    tol : float or None, default=1e-4
        Stop once ``||W - W_prev||^2 + ||b - b_prev||^2 < tol``, the authors' rule and
        value. ``None`` runs all ``max_iter`` iterations.
    fit_intercept : bool, default=True
        Learn the unregularised bias ``b`` of the paper. ``False`` drops it (the model
        FDLSR reduces to when its Fisher term is removed; see Notes).
    %(linear_rule)s

    Attributes
    ----------
    %(iterated)s

    See Also
    --------
    fdlsr.FDLSR : adds a Fisher criterion on transition targets.
    LRDLSR : adds class-wise low-rank targets.

    Notes
    -----
    Model (Xiang et al.; the FDLSR paper's Eq. 2 with the original's bias ``b``;
    samples as rows of ``X``, ``H`` one-hot and ``B = 2H - 1``)::

        min_{W, b, M >= 0}  ||X W + 1 b^T - (H^T + B^T.M)||_F^2 + lam ||W||_F^2

    Solver, as in the authors' MATLAB code: ``(W, b)`` is initialised by ridge
    regression with intercept on ``H``; then, for up to 30 iterations,
    ``M = max(B.(X W + 1 b^T - H), 0)`` and ``(W, b)`` is refitted (ridge on the
    centred data, ``b`` from the means), stopping when the change of ``(W, b)`` is below
    ``tol = 1e-4``. Both steps are exact block minimisers of a jointly convex
    objective, so ``objective_`` decreases monotonically. Prediction is
    ``argmax(W^T x + b)``.

    *FDLSR with lambda = 0.* Without its Fisher term FDLSR minimises
    ``||Q X^T - T||^2 + alpha ||T - (H + B.S)||^2 + beta ||Q||^2``. Minimising over
    the transition variable ``T`` in closed form,
    ``T = (Q X^T + alpha (H + B.S)) / (1 + alpha)``, leaves
    ``alpha / (1 + alpha) * (||Q X^T - (H + B.S)||^2 + beta (1 + alpha) / alpha ||Q||^2)``:
    DLSR *without bias* with ``lam = beta (1 + alpha) / alpha``. Both problems are
    convex with a unique ``Q``, so ``FDLSR(lam=0, alpha, beta)`` and
    ``DLSR(lam=beta * (1 + alpha) / alpha, fit_intercept=False)`` converge to the same
    projection (``lam -> beta`` as ``alpha -> infinity``). The iterations differ:
    FDLSR's dragging moves by ``1 / (1 + alpha)`` of DLSR's step per iteration, so it
    needs more iterations; FDLSR has no bias and classifies by 1-NN, DLSR by argmax.

    References
    ----------
    S. Xiang, F. Nie, G. Meng, C. Pan and C. Zhang, "Discriminative least squares
    regression for multiclass classification and feature selection", IEEE Trans.
    Neural Netw. Learn. Syst. 23(11):1738-1754, 2012.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from fdlsr.relaxed import DLSR
    >>> X, y = load_digits(return_X_y=True)
    >>> DLSR(lam=1.0).fit(X[:1000], y[:1000]).score(X[1000:], y[1000:]) > 0.85
    True
    """

    _parameter_constraints: dict = {
        **ALTERNATING_CONSTRAINTS,
        "fit_intercept": ["boolean"],
    }

    def __init__(
        self,
        lam=1e-2,
        *,
        max_iter=30,
        tol=1e-4,
        fit_intercept=True,
        decision_rule="linear",
        n_neighbors=5,
        weights="uniform",
        solver="auto",
    ):
        self.lam = lam
        self.max_iter = max_iter
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.decision_rule = decision_rule
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.solver = solver

    def _fit_encoded(self, X, codes, n_classes):
        result = fit_dlsr(
            X,
            codes,
            n_classes,
            lam=self.lam,
            max_iter=self.max_iter,
            tol=self.tol,
            fit_intercept=self.fit_intercept,
            solver=self.solver,
        )
        self.n_iter_ = result.n_iter
        self.objective_ = result.objective
        return self._set_projection(X, codes, n_classes, result.coef, result.intercept)
