"""What the relaxed-regression classifiers add to the shared projection classifier.

A fitted model holds a projection ``coef_`` (n_classes x n_features) and an
``intercept_``; ``transform`` gives the regression features ``Q x + b``. Samples are
classified by one of the two rules the papers use: the largest regression output
(``"linear"``, DLSR and ReLSR) or the label of the nearest training sample after
projecting and L2-normalising (``"nearest_neighbor"``, LRDLSR and FDLSR), or by the
k-NN vote (``"knn"``) or nearest class centroid (``"nearest_mean"``) on the same
normalised projections (see :class:`~fdlsr._common.classifiers.ProjectionClassifier`).
"""

import numpy as np

from .._common.classifiers import RULE_CONSTRAINTS, ProjectionClassifier
from .._common.compat import StrOptions
from .._common.docstrings import fill_doc
from .._common.validation import N_ITER, NON_NEGATIVE, POSITIVE

#: The end of every family member's ``decision_rule`` entry, the two parameters of the
#: k-NN rule and the solver, for :func:`fill_doc` (``%(other_rules)s``).
OTHER_RULES_DOC = """
        ``"knn"`` (a vote of the ``n_neighbors`` nearest normalised training
        projections) and ``"nearest_mean"`` (the nearest class centroid of the
        normalised projections) scale to large training sets; the rule can be
        changed after fitting (see :class:`~fdlsr._common.classifiers.ProjectionClassifier`).
    n_neighbors : int, default=5
        Number of neighbours that vote under ``decision_rule="knn"`` (all training
        samples, with a ``UserWarning``, if there are fewer).
    weights : {"uniform", "distance"}, default="uniform"
        Votes under ``decision_rule="knn"``: one per neighbour or the inverse of its
        distance.
    solver : {"auto", "primal", "dual"}, default="auto"
        Form of the ridge solves: the d x d (primal) or n x n (dual) system;
        ``"auto"`` takes the smaller. Both give the same solution.
"""
#: The whole ``decision_rule`` entry of the members whose rule is the argmax, with
#: the parameters that follow it, for ``%(linear_rule)s``.
LINEAR_RULE_DOC = (
    """
    decision_rule : {"linear", "nearest_neighbor", "nearest_mean", "knn"}, \
            default="linear"
        ``"linear"`` predicts ``argmax(Q x + b)``, the rule of the DLSR and ReLSR
        papers; ``"nearest_neighbor"`` is FDLSR's 1-NN rule on the L2-normalised
        projections."""
    + OTHER_RULES_DOC
)
#: The fitted projection of every family member, for ``%(projection)s``.
PROJECTION_DOC = """
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_classes, n_features)
        The projection ``Q`` (``W^T`` in the DLSR and ReLSR papers).
    intercept_ : ndarray of shape (n_classes,)
        The bias ``b``; zeros for the models without one.
"""
#: The fitted attributes of every iterative family member (the projection's
#: included), for ``%(iterated)s``.
ITERATED_DOC = (
    PROJECTION_DOC
    + """    n_iter_ : int
    objective_ : ndarray of shape (`n_iter_`,)
        The objective after each iteration; it never increases.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
"""
)


def relaxed_doc(cls):
    """Fill the shared parts of a family member's docstring (``%(other_rules)s``,
    ``%(linear_rule)s``, ``%(projection)s``, ``%(iterated)s``)."""
    return fill_doc(
        other_rules=OTHER_RULES_DOC,
        linear_rule=LINEAR_RULE_DOC,
        projection=PROJECTION_DOC,
        iterated=ITERATED_DOC,
    )(cls)


class RelaxedRegressionClassifier(ProjectionClassifier):
    """Base class: a projection with an intercept, learnt by the family's numerical
    cores.

    A subclass's ``_fit_encoded`` calls its core ``fit_<name>(X, codes, n_classes,
    lam=self.lam, ...)``, keeps what the model reports (``n_iter_``, ...) and hands
    the learnt projection to :meth:`_set_projection`.
    """

    # Every method of the family has a ridge weight, a decision rule and a solver.
    _parameter_constraints: dict = {
        "lam": [POSITIVE],
        **RULE_CONSTRAINTS,
        "solver": [StrOptions({"auto", "primal", "dual"})],
    }

    def _set_projection(self, X, codes, n_classes, coef, intercept=None):
        """Keep ``Q`` (``coef``) and ``b`` (``intercept``; None: zeros), then what
        the decision rule needs from the training projections."""
        self.coef_ = coef
        self.intercept_ = np.zeros(n_classes) if intercept is None else intercept
        self._n_features_out = n_classes
        return self._fit_rule(self._project(X), codes, n_classes)

    def _project(self, X):
        return X @ self.coef_.T + self.intercept_


#: The constraints of the iterative family members: those of every member, with an
#: iteration limit and an optional stopping threshold.
ALTERNATING_CONSTRAINTS = {
    **RelaxedRegressionClassifier._parameter_constraints,
    "max_iter": [N_ITER],
    "tol": [NON_NEGATIVE, None],
}
