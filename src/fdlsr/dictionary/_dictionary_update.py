"""Dictionary steps: unit-ball block coordinate descent and its low-rank variant.

Both FDDL's and LRSDL's dictionary updates reduce to

    min_D  tr(D F D^T) - 2 tr(E D^T) (+ eta ||D||_*)   s.t.  ||d_i||_2 <= 1,

with ``F`` positive semidefinite (Vu & Monga 2017, Sec. III-C). Without the nuclear
norm it is solved by Mairal et al.'s online-dictionary-learning (ODL) block coordinate
descent: each atom in turn is set to the exact minimiser over its own column,
``u = d_i + (e_i - D f_i) / F_ii`` projected onto the unit ball. With it, ADMM splits
``D = J``: the ``D``-step is the same problem with ``F + rho/2 I``, the ``J``-step a
singular value thresholding.
"""

import numpy as np

# Atoms are visited in groups: one product ``D @ F[:, group]`` per group and small
# corrections inside it give exactly the cyclic per-atom sweep at matrix-product speed.
_GROUP = 64


def singular_value_threshold(A, threshold):
    """Prox of ``threshold * ||.||_*`` at ``A``: shrink every singular value."""
    if A.size == 0:
        return A.copy()
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    s = np.maximum(s - threshold, 0.0)
    return (U * s) @ Vt


def nuclear_norm(A):
    return float(np.linalg.svd(A, compute_uv=False).sum()) if A.size else 0.0


def quadratic_value(D, E, F):
    """``tr(D F D^T) - 2 tr(E D^T)``."""
    return float(np.vdot(D @ F, D) - 2.0 * np.vdot(E, D))


def ball_bcd(D, E, F, *, max_iter, tol, size=None):
    """Cyclic block coordinate descent over the atoms, columns kept in the unit ball.

    Parameters
    ----------
    D : ndarray of shape (n_features, n_atoms) or (n_problems, n_features, n_atoms)
        Starting dictionary (columns of norm <= 1); not modified. A leading axis
        solves independent problems of the same size together.
    E : ndarray of the shape of ``D``
    F : ndarray of shape (n_atoms, n_atoms) or (n_problems, n_atoms, n_atoms)
        Symmetric positive semidefinite.
    max_iter : int
        Maximum number of sweeps over all atoms.
    tol : float
        Stop once ``||D - D_prev||_F / size < tol`` after a sweep (DICTOL's rule). With
        a leading axis every problem tests the rule on its own change and stops on its
        own, exactly as if it were solved alone.
    size : int, optional
        Size of one problem's dictionary; defaults to ``n_features * n_atoms``. A
        caller solving in a reduced orthonormal basis passes the size in the original
        feature space, so that it stops at the same sweep (DICTOL's ``numel(D)``).

    Returns
    -------
    D : ndarray
    n_iter : int, or ndarray of shape (n_problems,) with a leading axis

    Notes
    -----
    Every atom update is the exact minimiser over that atom (the Hessian in ``d_i`` is
    ``F_ii I``, so projecting the unconstrained minimiser onto the ball is exact), hence
    the objective never increases. Atoms with ``F_ii = 0`` (unused) are left as they are.
    """
    batched = np.ndim(D) == 3
    if not batched:
        D, E, F = D[None], E[None], F[None]
    # Atoms as contiguous rows: (problems, atoms, features).
    Dr = np.ascontiguousarray(np.swapaxes(D, 1, 2), dtype=np.float64)
    Er = np.swapaxes(E, 1, 2)
    n_atoms = Dr.shape[1]
    diag = np.diagonal(F, axis1=1, axis2=2)
    # Unused atoms (F_ii = 0) get a zero step and keep their value.
    inverse = np.divide(1.0, diag, out=np.zeros(diag.shape), where=diag > 0)
    size = max(size or Dr[0].size, 1)
    n_iter = np.zeros(Dr.shape[0], dtype=int)
    # Problems still running; a problem that met the rule is left as it is.
    active = np.arange(Dr.shape[0])
    for sweep in range(1, max_iter + 1):
        Da, Ea, Fa, inv = Dr[active], Er[active], F[active], inverse[active]
        previous = Da.copy()
        for start in range(0, n_atoms, _GROUP):
            group = slice(start, min(start + _GROUP, n_atoms))
            # Residual rows of the group with the dictionary as it is now.
            R = Ea[:, group] - Fa[:, group] @ Da
            if Da.shape[0] == 1:
                _sweep_group(Da[0], R[0], Fa[0, group, group], inv[0], start)
            else:
                _sweep_group_batched(Da, R, Fa[:, group, group], inv, start)
        Dr[active] = Da
        n_iter[active] = sweep
        change = np.linalg.norm((Da - previous).reshape(len(active), -1), axis=1)
        active = active[change / size >= tol]
        if active.size == 0:
            break
    D = np.swapaxes(Dr, 1, 2)
    if batched:
        return D, n_iter
    return np.ascontiguousarray(D[0]), int(n_iter[0])


def _sweep_group(Dr, R, Fg, inverse, start):
    """Atom-by-atom updates inside one group (one problem, atoms as rows)."""
    change = np.zeros_like(R)
    for j in range(R.shape[0]):
        i = start + j
        a = Dr[i] + (R[j] - Fg[j] @ change) * inverse[i]
        norm = np.sqrt(a @ a)
        if norm > 1.0:
            a /= norm
        change[j] = a - Dr[i]
        Dr[i] = a


def _sweep_group_batched(Dr, R, Fg, inverse, start):
    """As :func:`_sweep_group` for a stack of problems (leading axis)."""
    change = np.zeros_like(R)
    for j in range(R.shape[1]):
        i = start + j
        r = R[:, j] - np.einsum("pk,pkd->pd", Fg[:, j], change)
        a = Dr[:, i] + r * inverse[:, i, None]
        norm = np.sqrt(np.einsum("pd,pd->p", a, a))
        a /= np.maximum(norm, 1.0)[:, None]
        change[:, j] = a - Dr[:, i]
        Dr[:, i] = a


def low_rank_ball_dictionary(D, E, F, eta, *, max_iter, tol, inner_iter=50, size=None):
    """ADMM for the unit-ball problem plus ``eta * ||D||_*`` (LRSDL's ``D0``-step).

    ``J = D`` is split off the nuclear norm; with the scaled dual ``U``:
    ``D <- argmin_{ball} tr(D (F + rho/2 I) D^T) - 2 tr((E + rho/2 (J - U)) D^T)``
    (by :func:`ball_bcd`), ``J <- SVT(D + U, eta / rho)``, ``U <- U + D - J``. The
    penalty ``rho`` starts at 0.25 and is doubled or halved to balance the primal and
    dual residuals (as in DICTOL), with ``U`` rescaled accordingly. Stops once both
    residual norms are below ``tol``. Returns the feasible iterate ``D``.
    """
    D = np.array(D, dtype=np.float64, copy=True)
    if eta == 0:
        return ball_bcd(D, E, F, max_iter=inner_iter, tol=1e-8, size=size)[0]
    rho, tau, mu = 0.25, 2.0, 10.0
    J = D.copy()
    U = np.zeros_like(D)
    identity = np.eye(F.shape[0])
    for _ in range(max_iter):
        D, _ = ball_bcd(
            D,
            E + 0.5 * rho * (J - U),
            F + 0.5 * rho * identity,
            max_iter=inner_iter,
            tol=1e-8,
            size=size,
        )
        J_new = singular_value_threshold(D + U, eta / rho)
        U += D - J_new
        primal = np.linalg.norm(D - J_new)
        dual = rho * np.linalg.norm(J_new - J)
        J = J_new
        if primal < tol and dual < tol:
            break
        if primal > mu * dual:
            rho *= tau
            U /= tau
        elif dual > mu * primal:
            rho /= tau
            U *= tau
    return D
