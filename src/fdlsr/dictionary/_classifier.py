"""What LC-KSVD2, LCLE, DPL and DRA-DPL share as scikit-learn classifiers.

Validation, labels and the step from class scores to predictions are
:class:`~fdlsr._common.classifiers.ScoreClassifier`'s; here each estimator learns from
integer class codes with a pure function of its own module (``fit_<name>``), given the
atoms of each class and its parameters by name, and keeps the fields of its result as
fitted attributes.
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp

from .._common.classifiers import ScoreClassifier
from .._common.compat import Interval
from .._common.validation import N_ITER, NON_NEGATIVE, POSITIVE

N_ATOMS = [Interval(Integral, 1, None, closed="left"), None]


def unit_columns(M):
    """Columns scaled to unit length (the MATLAB codes' ``normcols``, whose eps
    leaves a zero column zero)."""
    return M / np.sqrt(np.sum(M * M, axis=0) + np.finfo(float).eps)


class DictionaryClassifier(ScoreClassifier):
    """Base class: atoms per class.

    Subclasses have an ``n_atoms`` parameter and implement ``_fit_encoded`` (call the
    method's numerical core, keep its result as fitted attributes) and
    ``_class_scores``.
    """

    def _atoms_per_class(self, codes):
        """``n_atoms`` for every class, or with None one atom per training sample."""
        counts = np.bincount(codes, minlength=len(self.classes_))
        if self.n_atoms is None:
            return counts
        return np.full(len(counts), self.n_atoms)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


class ClassResidualClassifier(DictionaryClassifier):
    """Base of the dictionary-pair methods, which classify by class-wise residuals.

    A subclass's ``_fit_encoded`` calls its core ``fit_<name>(X, codes, n_classes,
    atoms_per_class, tau=self.tau, ...)`` and keeps the synthesis dictionaries
    ``D_c`` (``synthesis_``) and the stacked analysis dictionary ``P``
    (``analysis_``); the score of class c is ``-||x - D_c P_c x||``.
    """

    # What every dictionary-pair method takes; a subclass adds its own.
    _parameter_constraints: dict = {
        "n_atoms": N_ATOMS,
        "tau": [POSITIVE],
        "lam": [NON_NEGATIVE],
        "max_iter": [N_ITER],
        "random_state": ["random_state"],
    }

    def _class_scores(self, X):
        return class_residual_scores(X, self.analysis_, self.synthesis_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Each class is modelled by a linear subspace (the range of D_c P_c), which
        # cannot tell apart the 2-feature Gaussian blobs off the origin of
        # scikit-learn's score check (DPL reaches 0.70 there, the check asks 0.83);
        # they are meant for high-dimensional data such as images.
        tags.classifier_tags.poor_score = True
        return tags


def class_residual_scores(X, encoders, decoders):
    """Minus the class-wise reconstruction errors ``||x - D_c P_c x||``.

    ``encoders`` is the stacked analysis dictionary (n_atoms x n_features) and
    ``decoders`` the list of synthesis dictionaries D_c (n_features x m_c); class c
    uses the next m_c rows of ``encoders``. The squared error is expanded as
    ``||x||^2 - 2 a^T D_c^T x + a^T D_c^T D_c a`` (``a = P_c x``) so that all classes
    are scored with two matrix products instead of one residual matrix per class.
    """
    codes = X @ encoders.T
    D = np.hstack(decoders)
    gram = sp.block_diag([Dc.T @ Dc for Dc in decoders], format="csr")
    starts = np.cumsum([0] + [Dc.shape[1] for Dc in decoders[:-1]])
    cross = np.add.reduceat(codes * (X @ D), starts, axis=1)
    quad = np.add.reduceat(np.asarray(codes @ gram) * codes, starts, axis=1)
    sq = np.einsum("ij,ij->i", X, X)[:, None] - 2 * cross + quad
    return -np.sqrt(np.maximum(sq, 0.0))
