"""
Your classifier beside FDLSR and its family
===========================================

Write a scikit-learn classifier, name it beside registered methods, and
:func:`fdlsr.experiments.run_experiment` runs them all under the paper's protocol:
the same unit-normalised samples, the same ``k`` per class and the same random splits
for every method, each run stored as it finishes (run it again: nothing is
recomputed). Here the shipped faces, ``k = 2, 3`` and two splits to keep it short;
the paper's protocol is ten splits (``n_splits=10``), and ``dataset="feret"`` with
``data_dir`` runs it on the paper's data. ``n_jobs=2`` would run two at once, your
class included, even defined in a script or a notebook. On the command line:
``fdlsr run --methods FDLSR mypkg.models:NearestMean ...``, then
``fdlsr report OUT --format html -o report.html`` for the HTML report.
"""

import tempfile

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from fdlsr.experiments import run_experiment
from fdlsr.results import plot_accuracy_by_k


class NearestMean(ClassifierMixin, BaseEstimator):
    """Label a sample with the class whose mean is closest."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.means_ = np.array([X[y == c].mean(axis=0) for c in self.classes_])
        return self

    def predict(self, X):
        distances = ((X[:, None, :] - self.means_[None]) ** 2).sum(axis=-1)
        return self.classes_[distances.argmin(axis=1)]


out = tempfile.mkdtemp()
methods = {"FDLSR": "FDLSR", "LSR": "LSR", "NearestMean": NearestMean()}
results = run_experiment("faces", methods, k=[2, 3], n_splits=2, out=out)

# %%
# ``results`` holds one row per run (pandas); the figure is drawn from the store.
print(results.groupby(["method", "k"], observed=True)["accuracy"].mean())
figure = plot_accuracy_by_k(out)
