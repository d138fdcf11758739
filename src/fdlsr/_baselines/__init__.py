"""The scikit-learn baselines of the experiments: scikit-learn's classifiers where
they need a change (each warns of or refuses samples far from unit norm; LDA that
refuses one class, SVM and logistic regression, and LogisticRegressionCV's search over
C, on the span of the samples)."""

from .estimators import (
    LinearDiscriminantAnalysis,
    LinearSVC,
    LogisticRegression,
    RidgeClassifier,
)

# The classes a model file of a baseline may hold (the allowlist of fdlsr.persistence):
# those the experiments' registry builds.
_MODEL_FILE_CLASSES = (
    LinearDiscriminantAnalysis,
    LinearSVC,
    LogisticRegression,
    RidgeClassifier,
)
