"""The search over ``C`` of the tuned LogisticRegression, each fold's span formed once
and its fits by the lean L-BFGS of :mod:`.multinomial_lbfgs`.

``fdlsr run --cv LogisticRegression`` chooses ``C`` as scikit-learn's ``GridSearchCV``
of :class:`~fdlsr._baselines.estimators.LogisticRegression` would: every ``C`` fitted
from zero on each fold's training samples (in their span, as that class fits), the
mean validation accuracy over the folds, the first ``C`` of the grid on ties. Only
the cost differs: the span of a fold's training samples is factorised once for all
its ``C`` (not once per fit), and each fit takes scikit-learn's L-BFGS steps without
L-BFGS-B's bookkeeping for bounds, with the samples as a triangular factor (FERET,
k = 2..5, 10 splits: 2.19x less CPU than ``GridSearchCV``, the same C in 37 of 40
runs; ``benchmarks/bench_baselines_search.py --method LogisticRegression``).

The fits agree with scikit-learn's to rounding where L-BFGS stops on its gradient
tolerance at a point that rounding does not move (FERET: C = 10 to 1e3, the same
steps and coefficients to about 1e-8). Where ``tol = 1e-4`` stops it far from the
optimum (C = 1e4 on FERET), the point it stops at depends on rounding: scikit-learn's
own fit of a fold, its samples scaled by ``1 + 1e-15``, took 251 steps instead of 128
and its validation accuracy moved from 50.0% to 60.2%. The choice of ``C`` inherits
that where C = 1e3 and 1e4 nearly tie (the 3 FERET runs above: scikit-learn's own
search on the samples times ``1 + 1e-15`` chose as this one in two of them).

Warm starts along the ``C`` path (``LogisticRegressionCV``'s way) were measured and
not used: they stop elsewhere at large ``C`` and chose another ``C`` in 28 of 40
FERET runs (``benchmarks/bench_baselines_path.py``).
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV

from .._common.compat import DCSRCH
from .._common.linalg import single_threaded_lapack
from .c_search import CSearch, reproduces_grid_search
from .estimators import LogisticRegression
from .multinomial_lbfgs import fit_multinomial_lbfgs

# LogisticRegression's settings the lean L-BFGS reproduces; anything else is searched
# by GridSearchCV.
# (Several values where scikit-learn versions spell the L2 penalty differently.)
_DEFAULTS = dict(
    solver=("lbfgs",),
    penalty=("deprecated", "l2"),
    l1_ratio=(0.0, None),
    multi_class=("deprecated", "auto", "multinomial"),  # scikit-learn < 1.8 only
    class_weight=(None,),
    dual=(False,),
    fit_intercept=(True,),
    warm_start=(False,),
)
_FREE = {"tol", "max_iter", "intercept_scaling", "n_jobs", "random_state", "verbose"}


def logistic_regression_search(*, grid, cv, **fixed):
    """The search behind ``fdlsr run --cv LogisticRegression`` (a registry
    ``cv_factory``): :class:`LogisticRegressionSearch` when it reproduces
    ``GridSearchCV`` for these settings (only ``C`` searched; multinomial L2-penalised
    ``lbfgs`` with an intercept, and a SciPy with the line search it takes), else
    ``GridSearchCV``."""
    reproduced = reproduces_grid_search(
        LogisticRegression, grid, fixed, _DEFAULTS, _FREE
    )
    if not reproduced or DCSRCH is None:
        return GridSearchCV(
            LogisticRegression(**fixed), grid, cv=cv, scoring="accuracy"
        )
    params = LogisticRegression(**fixed).get_params()
    return LogisticRegressionSearch(Cs=list(grid["C"]), cv=cv, params=params)


class LogisticRegressionSearch(CSearch):
    """Choose ``C`` of :class:`~fdlsr._baselines.estimators.LogisticRegression` by
    cross-validated accuracy, as ``GridSearchCV`` does, at less cost (see the module's
    notes).

    Parameters
    ----------
    Cs : list of float, default=(10.0, 100.0, 1e3, 1e4)
        The candidates, in the grid's order (ties go to the first).
    cv : cross-validation splitter or int, default=5
        As ``GridSearchCV``'s (stratified for an int).
    params : dict, default=None
        LogisticRegression's other parameters (``tol`` and ``max_iter`` are used);
        None: LogisticRegression's defaults.
    refit : bool, default=False
        Only ``False``: the search reports its choice, it fits no final model.

    Attributes
    ----------
    best_params_ : dict
        ``{"C": chosen}``.
    cv_scores_ : ndarray of shape (n_candidates, n_folds)
        Validation accuracy of every candidate on every fold.

    Notes
    -----
    Falls back to ``GridSearchCV`` when the samples outnumber the features (no span
    fit), and to scikit-learn's fit for a fold with fewer than three classes
    (scikit-learn fits two as one binomial problem).
    """

    def __init__(self, Cs=(10.0, 100.0, 1e3, 1e4), cv=5, params=None, refit=False):
        self.Cs = Cs
        self.cv = cv
        self.params = params
        self.refit = refit

    estimator_class = LogisticRegression

    def _fold_accuracies(self, X, y, train, test, params):
        """Validation accuracy of every ``C`` on one fold."""
        classes, codes = np.unique(y[train], return_inverse=True)
        if classes.size < 3:
            return [
                LogisticRegression(**{**params, "C": C})
                .fit(X[train], y[train])
                .score(X[test], y[test])
                for C in self.Cs
            ]
        basis, triangle = np.linalg.qr(X[train].T)  # as LogisticRegression's fit
        accuracies = []
        for C in self.Cs:
            # Hundreds of small products per fit: on more BLAS threads than free
            # cores their waiting costs 10-100x the work (FERET k = 2, 2 threads on a
            # busy 2-core machine), and a run's other threads are better used elsewhere.
            with single_threaded_lapack():
                weights, intercepts, n_iter = fit_multinomial_lbfgs(
                    triangle, codes, classes.size,
                    C=C, tol=params["tol"], max_iter=params["max_iter"],
                )  # fmt: skip
            if n_iter >= params["max_iter"]:
                warnings.warn(  # scikit-learn's words for the same event
                    f"lbfgs failed to converge after {n_iter} iteration(s) (status=1):",
                    ConvergenceWarning,
                    stacklevel=3,
                )
            coef = weights @ basis.T  # back to the features, as the span fit does
            predicted = classes[np.argmax(X[test] @ coef.T + intercepts, axis=1)]
            accuracies.append(np.mean(predicted == y[test]))
        return accuracies
