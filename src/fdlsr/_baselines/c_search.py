"""What the batched searches over ``C`` of the tuned baselines share: GridSearchCV's
protocol.

The tuned LinearSVC and LogisticRegression choose ``C`` as scikit-learn's
``GridSearchCV`` would: the mean validation accuracy over the folds, the first ``C``
of the grid on ties, no refit. Each of :mod:`.linear_svc_search` and
:mod:`.logistic_regression_search` scores a fold's whole grid its own way
(``_fold_accuracies``); here are the loop over the folds, the choice, and when to
leave the search to ``GridSearchCV`` (settings the batched solver does not
reproduce, or more samples than features, where the span fit does not apply).
"""

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.model_selection import GridSearchCV, check_cv


def reproduces_grid_search(estimator_class, grid, fixed, defaults, free):
    """Whether a batched search reproduces ``GridSearchCV(estimator_class(**fixed),
    grid)``: only ``C`` searched, each setting of ``defaults`` (name -> the values
    the solver reproduces) at one of its values, and no setting outside ``defaults``,
    ``free`` (settings the solver reads or that change nothing) and ``C``."""
    params = estimator_class(**fixed).get_params()
    simple = set(grid) == {"C"} and all(
        params.get(key, values[0]) in values for key, values in defaults.items()
    )
    unknown = set(fixed) - set(defaults) - free - {"C"}
    return simple and not unknown


class CSearch(BaseEstimator):
    """Choose ``C`` of ``estimator_class`` by cross-validated accuracy, as
    ``GridSearchCV`` does; a subclass scores one fold's grid (``_fold_accuracies``)
    on what ``_fold_data`` computes once for all folds.

    Subclasses set ``estimator_class`` and assign ``Cs``, ``cv``, ``params`` and
    ``refit`` in their ``__init__``.
    """

    estimator_class = None

    def fit(self, X, y):
        if self.refit:
            raise ValueError(f"{type(self).__name__} chooses C only; use refit=False")
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)
        # The estimator's defaults under the given parameters
        params = {**self.estimator_class().get_params(), **(self.params or {})}
        if X.shape[0] >= X.shape[1]:
            search = GridSearchCV(
                self.estimator_class(**params), {"C": self.Cs}, cv=self.cv,
                scoring="accuracy", refit=False,
            )  # fmt: skip
            self.best_params_ = search.fit(X, y).best_params_
            return self
        data = self._fold_data(X, params)
        splits = list(check_cv(self.cv, y, classifier=True).split(X, y))
        scores = np.empty((len(self.Cs), len(splits)))
        for f, (train, test) in enumerate(splits):
            scores[:, f] = self._fold_accuracies(data, y, train, test, params)
        self.cv_scores_ = scores
        means = scores.mean(axis=1)
        self.best_params_ = {"C": self.Cs[int(np.argmax(means))]}
        return self

    def _fold_data(self, X, params):
        """What every fold's scoring reads (default: the samples themselves)."""
        return X
