"""Old import path of :mod:`fdlsr.experiments.figure_data` (the numbers behind the figures).

Kept so that imports written before the rename still work; new code imports
``fdlsr.experiments.figure_data``.
"""

from .figure_data import (  # noqa: F401
    SENSITIVITY_GRID,
    convergence,
    lambda_curve,
    nn_accuracy,
    projections,
    sensitivity,
    split_data,
)
