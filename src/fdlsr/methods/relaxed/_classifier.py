"""What the relaxed-regression classifiers add to the shared projection classifier.

A fitted model holds a projection ``coef_`` (n_classes x n_features) and an
``intercept_``; ``transform`` gives the regression features ``Q x + b``. Samples are
classified by one of the two rules the papers use: the largest regression output
(``"linear"``, DLSR and ReLSR) or the label of the nearest training sample after
projecting and L2-normalising (``"nearest_neighbor"``, LRDLSR and FDLSR), or by the
k-NN vote (``"knn"``) or nearest class centroid (``"nearest_mean"``) on the same
normalised projections (see :class:`~fdlsr.common.classifiers.ProjectionClassifier`).
"""

import numpy as np

from ...common.classifiers import RULE_CONSTRAINTS, ProjectionClassifier
from ...common.compat import StrOptions
from ...common.validation import POSITIVE

#: The parameters of the decision rule, not of the numerical core.
RULE_PARAMS = ("decision_rule", "n_neighbors", "weights")


class RelaxedRegressionClassifier(ProjectionClassifier):
    """Base class: fit through the family's numerical core, with an intercept.

    Subclasses implement ``_fit_core(X, codes, n_classes)`` returning
    ``(coef, intercept)`` (intercept may be ``None``); the parameters other than
    those of the decision rule (:data:`RULE_PARAMS`) are the keyword arguments of the
    core (``_core_params``).
    """

    # Every method of the family has a ridge weight, a decision rule and a solver.
    _parameter_constraints: dict = {
        "lam": [POSITIVE],
        **RULE_CONSTRAINTS,
        "solver": [StrOptions({"auto", "primal", "dual"})],
    }

    def _fit_encoded(self, X, codes, n_classes):
        coef, intercept = self._fit_core(X, codes, n_classes)
        self.coef_ = coef
        self.intercept_ = np.zeros(n_classes) if intercept is None else intercept
        self._n_features_out = n_classes
        return self._fit_rule(self._project(X), codes, n_classes)

    def _project(self, X):
        return X @ self.coef_.T + self.intercept_

    def _core_params(self):
        """The parameters, less the decision rule's: the core's keyword arguments."""
        params = self.get_params(deep=False)
        for name in RULE_PARAMS:
            del params[name]
        return params

    def _iterated(self, result):
        """Keep the iteration count and objective of an iterative core's result;
        return its ``(coef, intercept)``."""
        self.n_iter_ = result.n_iter
        self.objective_ = result.objective
        return result.coef, getattr(result, "intercept", None)
