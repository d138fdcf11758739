"""The search over ``C`` of the tuned LinearSVC, every candidate of a fold at once.

``fdlsr run --cv LinearSVC`` chooses ``C`` as scikit-learn's ``GridSearchCV`` of
:class:`~fdlsr._baselines.estimators.LinearSVC` would (the mean validation accuracy
over the folds, the first ``C`` of the grid on ties), but fits each fold's whole grid
of one-vs-rest problems together: liblinear's trust-region Newton method on the
fold's Gram matrix (:mod:`._squared_hinge`), every ``C`` and class one row of a
batch, with the Gram matrix of the training split computed once for all folds.
With fewer samples than features (face images) this is the problem
:class:`~fdlsr._baselines.estimators.LinearSVC` solves in the samples' span, by the same
steps, at a fraction of the cost where the folds are large (FERET, CPU time of
``GridSearchCV`` over this search: 2.7x at k = 5, 1.9x at k = 4, 1.4x at k = 3, but
0.83x at k = 2, folds of 267 samples; ``benchmarks/bench_baselines_search.py``).

The solutions are liblinear's up to its stopping tolerance (its relative gradient
``tol * max(min(pos, neg), 1) / n``), which at large ``C`` leaves them free by up to
about 1e-2 relative: liblinear's own result moves as much with the order of its
sums. A validation sample whose two best classes are that close may then change
its label, and a ``C`` whose mean accuracy ties or nearly ties another's may lose
or win. The benchmark counts how often the choice differs from ``GridSearchCV``'s.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV

from .c_search import CSearch, reproduces_grid_search
from .estimators import LinearSVC
from .squared_hinge import fit_squared_hinge

# LinearSVC's settings the batched solver reproduces; anything else is searched by
# GridSearchCV.
_DEFAULTS = dict(
    penalty=("l2",),
    loss=("squared_hinge",),
    dual=(False,),
    multi_class=("ovr",),
    class_weight=(None,),
)
_FREE = {
    "tol",
    "max_iter",
    "fit_intercept",
    "intercept_scaling",
    "random_state",
    "verbose",
}


def linear_svc_search(*, grid, cv, **fixed):
    """The search behind ``fdlsr run --cv LinearSVC`` (a registry ``cv_factory``):
    :class:`LinearSVCSearch` when it reproduces ``GridSearchCV`` for these settings
    (only ``C`` searched, the primal squared-hinge one-vs-rest problem), else
    ``GridSearchCV``."""
    if not reproduces_grid_search(LinearSVC, grid, fixed, _DEFAULTS, _FREE):
        return GridSearchCV(LinearSVC(**fixed), grid, cv=cv, scoring="accuracy")
    params = LinearSVC(**fixed).get_params()
    return LinearSVCSearch(Cs=list(grid["C"]), cv=cv, params=params)


class LinearSVCSearch(CSearch):
    """Choose ``C`` of :class:`~fdlsr._baselines.estimators.LinearSVC` by cross-validated
    accuracy, every ``C`` of a fold solved in one batch (see the module's notes).

    Parameters
    ----------
    Cs : list of float, default=(0.01, 0.1, 1.0, 10.0)
        The candidates, in the grid's order (ties go to the first).
    cv : cross-validation splitter or int, default=5
        As ``GridSearchCV``'s (stratified for an int).
    params : dict, default=None
        LinearSVC's other parameters (``tol``, ``max_iter``, ``fit_intercept``,
        ``intercept_scaling`` are used); None: LinearSVC's defaults.
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
    Falls back to ``GridSearchCV`` when the samples outnumber the features, where
    the Gram matrix would be larger than the samples (and the span fit does not
    apply).
    """

    def __init__(self, Cs=(0.01, 0.1, 1.0, 10.0), cv=5, params=None, refit=False):
        self.Cs = Cs
        self.cv = cv
        self.params = params
        self.refit = refit

    estimator_class = LinearSVC

    def _fold_data(self, X, params):
        """The Gram matrix of the training split (computed once for all folds) and
        the intercept's scaling."""
        scaling = params["intercept_scaling"] if params["fit_intercept"] else 0.0
        return X @ X.T, scaling

    def _fold_accuracies(self, data, y, train, test, params):
        """Validation accuracy of every ``C`` on one fold."""
        gram, scaling = data
        classes = np.unique(y[train])
        # One problem per class (one in all for two classes: the second class +1).
        positive = classes[1:] if classes.size == 2 else classes
        signs = np.where(y[train][None, :] == positive[:, None], 1.0, -1.0)
        n_problems = len(positive)
        K = gram[np.ix_(train, train)] + scaling**2
        A, n_iter = fit_squared_hinge(
            K,
            np.tile(signs, (len(self.Cs), 1)),
            np.repeat(np.asarray(self.Cs, dtype=np.float64), n_problems),
            tol=params["tol"],
            max_iter=params["max_iter"],
        )
        if n_iter.max() >= params["max_iter"]:
            warnings.warn(  # scikit-learn's words for the same event
                "Liblinear failed to converge, increase the number of iterations.",
                ConvergenceWarning,
                stacklevel=3,
            )
        decision = (gram[np.ix_(test, train)] + scaling**2) @ A.T
        decision = decision.reshape(len(test), len(self.Cs), n_problems)
        if classes.size == 2:
            predicted = classes[(decision[:, :, 0] > 0).astype(int)]
        else:
            predicted = classes[np.argmax(decision, axis=2)]
        return np.mean(predicted == y[test][:, None], axis=0)
