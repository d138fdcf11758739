"""Closed-form target updates shared by the epsilon-dragging methods.

With ``H`` the one-hot labels and ``B = 2H - 1``, the relaxed targets of DLSR are
``H + B.M`` with ``M >= 0``. For fitted values ``F`` the best ``M`` is
``max(B.(F - H), 0)`` (Xiang et al., 2012, Eq. 10), so the best target is
``max(F, 1)`` on the true class and ``min(F, 0)`` elsewhere: no matrix ``B`` needed.
"""

import numpy as np


def dragged_targets(fitted, y):
    """``H + B.M`` with the optimal ``M = max(B.(fitted - H), 0)``.

    ``fitted`` is n_classes x n_samples; ``y`` holds the integer class codes.
    """
    target = np.minimum(fitted, 0)
    cols = np.arange(fitted.shape[1])
    target[y, cols] = np.maximum(fitted[y, cols], 1)
    return target


def sq_dist(a, b):
    """``||a - b||_F^2``."""
    diff = a - b
    return float(np.vdot(diff, diff))
