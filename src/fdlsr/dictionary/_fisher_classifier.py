"""The scikit-learn front-end shared by FDDL and LRSDL (atom checks and dispatch)."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from .._common.classifiers import ScoreClassifier
from .._common.compat import Interval, StrOptions
from .._common.docstrings import fill_doc
from .._common.validation import N_ITER, NON_NEGATIVE, check_fitted_shapes, label_repr
from ._class_blocks import ClassBlocks
from ._fisher_predict import global_scores, local_scores
from ._ksvd import canonical_order
from ._lrsdl_solver import Penalties, fit_lrsdl

#: The training iterations both models document alike, for ``%(training_iterations)s``.
TRAINING_ITERATIONS_DOC = """
init_iter : int, default=30
    Alternations of the initial learning of each class's dictionary (and of the
    shared one), as in DICTOL.
coding_iter : int, default=20
    FISTA iterations of each code update during training (DICTOL: at most 300).
final_coding_iter : int, default=300
    FISTA iterations of one more coding of the training samples with the final
    dictionaries, from which the class mean codes are taken (the authors' choice:
    DICTOL's ``LRSDL.m`` runs 300 after its main loop). ``0`` takes the means
    from the codes of the last iteration.
"""


def fisher_doc(cls):
    """Fill the shared part of FDDL's and LRSDL's docstrings."""
    return fill_doc(training_iterations=TRAINING_ITERATIONS_DOC)(cls)


class FisherDictionaryClassifier(ScoreClassifier):
    """Common fit/predict of FDDL and LRSDL; subclasses fix the model's parameters.

    A subclass's ``_fit_encoded`` calls :meth:`_fit_dictionaries` with its shared
    atoms and their low-rank weight (FDDL: none). The class scores are the negated
    class-wise errors ``-e_c``.
    """

    _parameter_constraints: dict = {
        "n_atoms_per_class": [Interval(Integral, 1, None, closed="left"), None],
        "lambda1": [NON_NEGATIVE],
        "lambda2": [NON_NEGATIVE],
        "max_iter": [N_ITER],
        "init_iter": [N_ITER],
        "coding_iter": [Interval(Integral, 1, None, closed="left")],
        "final_coding_iter": [Interval(Integral, 0, None, closed="left")],
        "predict_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [NON_NEGATIVE],
        "decision_rule": [StrOptions({"global", "local"})],
        "gamma": [NON_NEGATIVE, None],
        "weight": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    # Set by the subclasses: FDDL's local rule, or LRSDL's.
    _local_rule_is_fddl = True

    def _fit_dictionaries(self, X, codes, n_classes, *, n_shared, eta):
        """Learn the class dictionaries and ``n_shared`` shared atoms, whose nuclear
        norm is weighted by ``eta``, with :func:`fit_lrsdl`."""
        counts = np.bincount(codes, minlength=n_classes)
        if self.n_atoms_per_class is None:
            atoms = counts
        else:
            smallest = int(np.argmin(counts))
            if self.n_atoms_per_class > counts[smallest]:
                raise ValueError(
                    f"n_atoms_per_class={self.n_atoms_per_class} exceeds the "
                    f"{counts[smallest]} training sample(s) of class "
                    f"{label_repr(self.classes_[smallest])}: atoms start as training samples. "
                    "Lower n_atoms_per_class or leave it None (one atom per sample)."
                )
            atoms = np.full(n_classes, self.n_atoms_per_class)
        if n_shared > X.shape[0]:
            raise ValueError(
                f"n_shared_atoms={n_shared} exceeds the {X.shape[0]} training "
                "samples: shared atoms start as training samples. Lower it."
            )
        order = canonical_order(X, codes)
        rng = check_random_state(self.random_state)
        # Shared atoms start from random samples, drawn from an order that does not
        # depend on the class labels either.
        by_features = canonical_order(X[order], np.zeros_like(codes))
        shared = np.sort(by_features[rng.choice(X.shape[0], n_shared, replace=False)])
        blocks = ClassBlocks(counts, atoms)
        penalties = Penalties(float(self.lambda1), float(self.lambda2), eta)
        model = fit_lrsdl(
            np.ascontiguousarray(X[order].T),
            blocks,
            shared,
            penalties,
            max_iter=self.max_iter,
            coding_iter=self.coding_iter,
            tol=self.tol,
            rng=rng,
            init_iter=self.init_iter,
            final_coding_iter=self.final_coding_iter,
        )
        self._blocks = blocks
        self.components_ = np.ascontiguousarray(model.D.T)
        self.shared_components_ = np.ascontiguousarray(model.D0.T)
        self.atom_labels_ = self.classes_[blocks.atom_class]
        self.mean_codes_ = np.ascontiguousarray(blocks.class_means(model.X).T)
        self.mean_shared_code_ = model.X0.mean(axis=1)
        self.objective_ = model.objective
        self.n_iter_ = model.n_iter
        return self

    def _check_fitted_arrays(self):
        """Raise ``ValueError`` if the fitted arrays disagree with the classes, the
        features and the class blocks (a model file's check)."""
        if not hasattr(self, "components_"):
            return  # not fitted
        c, d = len(self.classes_), self.n_features_in_
        blocks = self._blocks
        if not isinstance(blocks, ClassBlocks) or blocks.n_classes != c:
            raise ValueError(
                f"{type(self).__name__}'s class blocks are not of {c} classes"
            )
        k, k0 = blocks.n_atoms, np.shape(self.shared_components_)[0]
        shapes = {"components_": (k, d), "shared_components_": (k0, d)}
        shapes.update(mean_codes_=(c, k), mean_shared_code_=(k0,))
        check_fitted_shapes(self, shapes)
        if np.shape(self.atom_labels_) != (k,):
            raise ValueError(f"{type(self).__name__}.atom_labels_ is not one per atom")

    def _class_scores(self, X):
        Yt = np.ascontiguousarray(X.T)
        D, D0 = self.components_.T, self.shared_components_.T
        means = self.mean_codes_.T
        gamma = self.lambda1 if self.gamma is None else self.gamma
        if self.decision_rule == "global":
            errors = global_scores(
                Yt,
                self._blocks,
                D,
                D0,
                means,
                self.mean_shared_code_,
                gamma=gamma,
                mu=self.lambda2,
                weight=self.weight,
                max_iter=self.predict_iter,
            )
        else:
            errors = local_scores(
                Yt,
                self._blocks,
                D,
                D0,
                means,
                gamma=gamma,
                weight=self.weight,
                max_iter=self.predict_iter,
                fddl=self._local_rule_is_fddl,
            )
        return -errors.T
