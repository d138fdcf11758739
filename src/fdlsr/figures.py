"""The numbers behind the paper's figures, as arrays (``fdlsr plot`` draws them).

* :func:`split_data`: the training and test samples of one split, as the figures use
  them;
* :func:`convergence`: FDLSR's objective per iteration (Fig. 1);
* :func:`projections`: the projected features of several methods, for t-SNE (Fig. 2);
* :func:`sensitivity`: accuracy over the alpha x lambda grid (Fig. 3);
* :func:`lambda_curve`: accuracy as lambda varies (Fig. 4).
"""

from ._experiments.figure_data import (
    convergence,
    lambda_curve,
    projections,
    sensitivity,
    split_data,
)

__all__ = ["convergence", "lambda_curve", "projections", "sensitivity", "split_data"]
