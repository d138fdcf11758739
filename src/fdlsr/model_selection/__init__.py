"""Splitters of the paper's protocol, for scikit-learn's model selection.

* :class:`PerClassSplit`: ``k`` random training samples of each class, the rest for
  testing, as a cross-validation splitter (``cv=PerClassSplit(k=3)``).
* :func:`per_class_split`: one such split of ``(X, y)``.
"""

from ._split import PerClassSplit, per_class_split

__all__ = ["PerClassSplit", "per_class_split"]
