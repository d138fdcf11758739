"""The retargeting steps of ReLSR and GReLSR: exact, vectorised over samples.

Rows are samples here: ``R`` (n x c) holds the regression outputs, ``y`` the class
codes.

*ReLSR* (Zhang et al., 2015) replaces every output row ``r`` (label ``y``) by its
Euclidean projection onto ``{t : t_y - t_j >= 1 for all j != y}``. Write
``t_y = r_y + delta``; for a fixed ``delta`` the best other entries are
``t_j = min(r_j, t_y - 1)``, so with ``v_j = r_j + 1 - r_y`` the problem is the
one-dimensional convex problem

    min_delta  delta^2 + sum_{j != y} max(v_j - delta, 0)^2.

Its stationarity condition ``delta = sum_{j in A} (v_j - delta)`` over the active set
``A = {j : v_j > delta}`` gives ``delta = S_k / (1 + k)`` with ``S_k`` the sum of the
``k`` largest ``v``. Sorting ``v`` in decreasing order, ``j``-th largest is active iff
``(j - 1 + 1) v_(j) > S_(j-1)`` (the derivative at ``v_(j)`` is positive), a prefix of
the sorted order: one sort and one cumulative sum, O(c log c) per sample.

*GReLSR* (Wang & Pan, 2018) writes every feasible target as
``t = h + B.m + u 1`` with ``m >= 0`` (the epsilon-draggings of DLSR) and a scalar
translation ``u`` per sample, and pulls the translations of each class towards their
mean with ``lam * sum_i (u_i - mean_{class(i)} u)^2``; ``u = 0`` is DLSR. For fixed
``u`` the best target is ``t_y = max(r_y, 1 + u)``, ``t_j = min(r_j, u)``, leaving

    phi_i(u) = max(u - (r_y - 1), 0)^2 + sum_{j != y} max(r_j - u, 0)^2,

convex and piecewise quadratic. With the class mean written as a free centre ``z``,
``u_i(z) = argmin phi_i(u) + lam (u - z)^2`` is again a sorted-prefix formula and the
centre of each class solves the monotone equation ``sum_i (u_i(z) - z) = 0``, found by
the Illinois variant of regula falsi (exact on each linear piece). The whole step is
the exact minimiser over (m, u) of the GReLSR objective for fixed regression outputs.
"""

import numpy as np


def hinge_prox(V_desc, weight, center):
    """Row-wise ``argmin_u weight (u - center)^2 + sum_j max(V_ij - u, 0)^2``.

    ``V_desc`` is sorted in decreasing order along each row; ``weight > 0`` and
    ``center`` are scalars or one value per row.
    """
    n, m = V_desc.shape
    weight = np.broadcast_to(np.asarray(weight, dtype=float), (n,))
    center = np.broadcast_to(np.asarray(center, dtype=float), (n,))
    csum = np.cumsum(V_desc, axis=1)
    w = weight[:, None]
    # The derivative at the j-th largest value (0-based j) is positive: it is active.
    active = (w + np.arange(m)) * V_desc > w * center[:, None] + (csum - V_desc)
    n_active = active.sum(axis=1)
    top = np.take_along_axis(csum, np.maximum(n_active - 1, 0)[:, None], axis=1)[:, 0]
    top = np.where(n_active > 0, top, 0.0)
    return (weight * center + top) / (weight + n_active)


def _split_true_class(R, y):
    """``(r_y, R without the true-class column sorted decreasingly)``."""
    n, c = R.shape
    rows = np.arange(n)
    others = np.ones((n, c), dtype=bool)
    others[rows, y] = False
    V = R[others].reshape(n, c - 1)
    return R[rows, y], -np.sort(-V, axis=1)


def margin_projection(R, y):
    """ReLSR's retargeting: project each row of ``R`` onto ``t_y - t_j >= 1``."""
    r_true, V_desc = _split_true_class(R, y)
    delta = hinge_prox(V_desc + (1 - r_true)[:, None], 1.0, 0.0)
    top = r_true + delta
    T = np.minimum(R, (top - 1)[:, None])
    T[np.arange(R.shape[0]), y] = top
    return T


def targets_from_translation(R, y, u):
    """Best targets ``h + B.m + u 1`` (``m >= 0``) for outputs ``R``, translations ``u``."""
    rows = np.arange(R.shape[0])
    T = np.minimum(R, u[:, None])
    T[rows, y] = np.maximum(R[rows, y], 1 + u)
    return T


def _translation(a, V_desc, lam, z):
    """``argmin_u max(u - a, 0)^2 + sum_j max(V_j - u, 0)^2 + lam (u - z)^2``.

    The derivative is increasing; if its root without the first term lies below
    ``a``, that is the root, otherwise the first term is active and joins the weight.
    """
    below = hinge_prox(V_desc, lam, z)
    above = hinge_prox(V_desc, 1 + lam, (a + lam * z) / (1 + lam))
    return np.where(below <= a, below, above)


def group_translations(R, y, n_classes, lam, max_iter=100):
    """GReLSR's translations ``u`` (one per row of ``R``) for group weight ``lam``.

    ``lam = 0`` gives each sample its own best translation, which is ReLSR's
    (``u = r_y - 1 + delta``).
    """
    a, V_desc = _split_true_class(R, y)
    a = a - 1
    if lam == 0:
        return a + hinge_prox(V_desc - a[:, None], 1.0, 0.0)

    def excess(z):  # sum over each class of u_i(z) - z: decreasing in z
        u = _translation(a, V_desc, lam, z[y])
        return np.bincount(y, weights=u - z[y], minlength=n_classes), u

    # Every phi_i is minimised inside [min(a_i, max V_i), max(a_i, max V_i)].
    top = V_desc[:, 0]
    lo = np.full(n_classes, np.inf)
    hi = np.full(n_classes, -np.inf)
    np.minimum.at(lo, y, np.minimum(a, top))
    np.maximum.at(hi, y, np.maximum(a, top))
    lo[~np.isfinite(lo)] = hi[~np.isfinite(hi)] = 0.0  # classes without samples
    g_lo, _ = excess(lo)
    g_hi, u = excess(hi)
    scale = (
        1e-12
        * np.maximum(1.0, np.abs(hi) + np.abs(lo))
        * np.bincount(y, minlength=n_classes)
    )
    z = hi
    side = np.zeros(n_classes)  # Illinois: +1 if the lower end moved last, -1 upper
    for _ in range(max_iter):
        span = g_lo - g_hi
        safe = span > 0
        z = np.where(safe, (lo * -g_hi + hi * g_lo) / np.where(safe, span, 1), lo)
        g, u = excess(z)
        if np.all(np.abs(g) <= scale):
            break
        up = g > 0  # root above z: z becomes the new lower end
        lo, g_lo = np.where(up, z, lo), np.where(up, g, g_lo)
        hi, g_hi = np.where(up, hi, z), np.where(up, g_hi, g)
        g_hi = np.where(up & (side > 0), g_hi / 2, g_hi)
        g_lo = np.where(~up & (side < 0), g_lo / 2, g_lo)
        side = np.where(up, 1.0, -1.0)
    return u


def group_penalty(u, y, n_classes, lam):
    """``lam * sum_i (u_i - mean of u over the class of i)^2``."""
    if lam == 0:
        return 0.0
    counts = np.bincount(y, minlength=n_classes)
    means = np.bincount(y, weights=u, minlength=n_classes) / np.maximum(counts, 1)
    dev = u - means[y]
    return float(lam * (dev @ dev))
