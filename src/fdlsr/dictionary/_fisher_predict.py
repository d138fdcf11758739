"""Class-wise reconstruction-error classification of FDDL and LRSDL.

*Global coding* (GC; FDDL's Eq. 12, LRSDL's Sec. IV) codes a test sample ``y`` on the
whole dictionary,

    [a; a0] = argmin 1/2 ||y - D a - D0 a0||^2 + mu/2 ||a0 - m0||^2 + gamma ||[a; a0]||_1,

removes the shared part, ``yhat = y - D0 a0``, and scores each class by

    e_c = ||yhat - D_c a^c||^2 + weight * ||a - m_c||^2,

with ``m_c`` the mean training code of class ``c`` (over all class-specific atoms) and
``m0`` the mean shared code. Without shared atoms this is FDDL's GC rule.

*Local coding* (LC) codes ``y`` on each class's atoms (plus the shared ones):

* FDDL (Eq. 13): ``a = argmin 1/2||y - D_c a||^2 + gamma ||a||_1 + weight/2 ||a - m^c_c||^2``,
  ``e_c = ||y - D_c a||^2 + gamma ||a||_1 + weight ||a - m^c_c||^2``;
* LRSDL: ``a = argmin 1/2||y - [D_c D0] a||^2 + gamma ||a||_1``,
  ``e_c = 1/2 ||y - [D_c D0] a||^2 + gamma ||a||_1``.

The predicted class minimises ``e_c``. All test samples are coded together (one matrix
product per FISTA iteration; the local rule stacks the classes along a leading axis).
Prediction runs a fixed number of iterations so that a sample's code does not depend on
the other samples it is predicted with.
"""

import numpy as np

from ._fista import fista, top_eigenvalue, top_eigenvalues


def global_scores(Yt, blocks, D, D0, means, mean0, *, gamma, mu, weight, max_iter):
    """Class errors ``e_c`` of the GC rule, shape (n_classes, n_test)."""
    K, k0 = D.shape[1], D0.shape[1]
    full = np.hstack([D, D0])
    G = full.T @ full
    B = full.T @ Yt
    if k0:
        B[K:] += mu * mean0[:, None]

    def grad(A):
        out = G @ A
        out -= B
        if k0:
            out[K:] += mu * A[K:]
        return out

    lipschitz = top_eigenvalue(G) + (mu if k0 else 0.0)
    A, _ = fista(grad, np.zeros_like(B), lipschitz, gamma, max_iter=max_iter, tol=0.0)
    a, a0 = A[:K], A[K:]
    Yhat = Yt - D0 @ a0 if k0 else Yt
    # ||yhat - D_c a^c||^2 = ||yhat||^2 - 2 <D_c^T yhat, a^c> + a^c' G_cc a^c
    DtYhat = D.T @ Yhat
    GA = np.empty_like(a)
    for c in range(blocks.n_classes):
        atoms = blocks.atoms(c)
        GA[atoms] = G[atoms, atoms] @ a[atoms]
    starts = blocks.atom_edges[:-1]
    residual = (
        np.sum(Yhat * Yhat, axis=0)[None, :]
        - 2.0 * np.add.reduceat(DtYhat * a, starts, axis=0)
        + np.add.reduceat(GA * a, starts, axis=0)
    )
    distance = (
        np.sum(a * a, axis=0)[None, :]
        - 2.0 * (means.T @ a)
        + np.sum(means * means, axis=0)[:, None]
    )
    return residual + weight * np.maximum(distance, 0.0)


def _stack_class_dictionaries(blocks, D, D0):
    """``[D_c, D0]`` of every class, zero-padded to a common width: (C, d, width)."""
    width = int(blocks.atom_counts.max()) + D0.shape[1]
    stacked = np.zeros((blocks.n_classes, D.shape[0], width))
    for c in range(blocks.n_classes):
        k = blocks.atom_counts[c]
        stacked[c, :, :k] = D[:, blocks.atoms(c)]
        stacked[c, :, k : k + D0.shape[1]] = D0
    return stacked


def local_scores(Yt, blocks, D, D0, means, *, gamma, weight, max_iter, fddl):
    """Class errors ``e_c`` of the LC rule, shape (n_classes, n_test).

    ``fddl=True`` is FDDL's rule (with the class-mean term, ``weight`` is its gamma2);
    ``fddl=False`` is LRSDL's plain lasso on ``[D_c D0]``.
    """
    Dc = _stack_class_dictionaries(blocks, D, D0)
    Dct = Dc.transpose(0, 2, 1)
    G = G_data = Dct @ Dc
    B = B_data = Dct @ Yt
    if fddl:
        # Each class's own block of its mean code, padded like the dictionaries.
        M = np.zeros(B.shape[:2])
        for c in range(blocks.n_classes):
            M[c, : blocks.atom_counts[c]] = means[blocks.atoms(c), c]
        B += weight * M[:, :, None]
        G = G + weight * np.eye(G.shape[1])
        # Padding atoms are zero columns; keep their codes at exactly zero.
        for c in range(blocks.n_classes):
            G[c, blocks.atom_counts[c] :, blocks.atom_counts[c] :] = 0.0

    def grad(A):
        return G @ A - B

    lipschitz = top_eigenvalues(G)[:, None, None]
    A, _ = fista(grad, np.zeros_like(B), lipschitz, gamma, max_iter=max_iter, tol=0.0)
    # ||y - [D_c D0] a||^2 through the Gram matrix: no (C, d, n_test) array.
    error = (
        np.sum(Yt * Yt, axis=0)[None, :]
        - 2.0 * np.sum(A * B_data, axis=1)
        + np.sum(A * (G_data @ A), axis=1)
    )
    l1 = np.abs(A).sum(axis=1)
    if fddl:
        gap = A - M[:, :, None]
        return error + gamma * l1 + weight * np.sum(gap * gap, axis=1)
    return 0.5 * error + gamma * l1
