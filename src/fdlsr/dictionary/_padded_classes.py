"""Batched per-class linear algebra for the dictionary-pair methods (DPL, DRA-DPL).

Both methods keep one small dictionary pair per class and update all classes with
the same formulas. Python loops over hundreds of classes of a few samples each are
dominated by call overhead, so the per-class matrices are stacked into zero-padded
arrays (classes x rows x columns) and updated with batched NumPy operations. The
padding is chosen so that padded entries stay exactly zero (identity blocks where a
padded system is solved).
"""

import numpy as np

from ._classifier import unit_columns


class PaddedClasses:
    """Index bookkeeping for per-class blocks of samples and atoms.

    Parameters
    ----------
    y : ndarray of int of shape (n_samples,)
        Class codes in ``[0, n_classes)``; samples need not be sorted.
    atoms_per_class : array-like of int of shape (n_classes,)
    """

    def __init__(self, y, n_classes, atoms_per_class):
        self.index = [np.flatnonzero(y == c) for c in range(n_classes)]
        self.sizes = np.array([idx.size for idx in self.index])
        self.atoms = np.asarray(atoms_per_class, dtype=int)
        self.width = int(self.sizes.max())
        self.atom_width = int(self.atoms.max())
        C = n_classes
        self.code_mask = np.zeros((C, self.atom_width, self.width))
        for c in range(C):
            self.code_mask[c, : self.atoms[c], : self.sizes[c]] = 1.0

    def diag(self, M):
        """Diagonal blocks ``M[idx_c, idx_c]`` of an n x n matrix, zero-padded."""
        out = np.zeros((len(self.index), self.width, self.width))
        for c, idx in enumerate(self.index):
            out[c, : idx.size, : idx.size] = M[np.ix_(idx, idx)]
        return out

    def samples(self, X):
        """Per-class sample matrices as columns, (C, n_features, width)."""
        out = np.zeros((len(self.index), X.shape[1], self.width))
        for c, idx in enumerate(self.index):
            out[c, :, : idx.size] = X[idx].T
        return out

    def pad_codes(self, blocks):
        """Stack (m_c x n_c) blocks into (C, atom_width, width)."""
        out = np.zeros((len(blocks), self.atom_width, self.width))
        for c, block in enumerate(blocks):
            out[c, : block.shape[0], : block.shape[1]] = block
        return out

    def random_pairs(self, rng, n_features, unit_analysis):
        """A random dictionary pair per class, in class order.

        ``D_c`` (n_features x m_c) has unit columns; ``P_c`` (m_c x n_features) has
        unit rows (``unit_analysis="rows"``, DPL's ``Initilization.m``) or unit
        columns (``"columns"``, DRA-DPL's code). Returns the lists ``(D, P)``.
        """
        synthesis, analysis = [], []
        for m in self.atoms:
            synthesis.append(unit_columns(rng.standard_normal((n_features, m))))
            if unit_analysis == "rows":
                analysis.append(unit_columns(rng.standard_normal((n_features, m))).T)
            else:
                analysis.append(unit_columns(rng.standard_normal((m, n_features))))
        return synthesis, analysis

    def analysis_codes(self, X, analysis):
        """``P_c X_c^T`` of every class, stacked as (C, atom_width, width)."""
        return self.pad_codes(
            [P @ X[idx].T for P, idx in zip(analysis, self.index, strict=True)]
        )

    def unpad(self, R, c):
        return R[c, : self.atoms[c], : self.sizes[c]]

    def synthesis_coordinates(self, X, dictionaries):
        """Coordinates of each class's samples and dictionary in a basis of their span.

        Returns ``(Xd, Dd, bases)``: ``bases[c]`` has orthonormal columns spanning
        ``[X_c^T, D_c]``; ``Xd[c] = bases[c]^T X_c^T`` and ``Dd[c] = bases[c]^T D_c``
        are zero-padded to a common number of rows. Updates that only combine
        columns of ``X_c`` and of ``D_c`` stay in this span, so they can run in these
        coordinates with every norm and inner product unchanged.
        """
        bases = []
        for idx, D in zip(self.index, dictionaries, strict=True):
            bases.append(np.linalg.qr(np.hstack([X[idx].T, D]))[0])
        rank = max(b.shape[1] for b in bases)
        C = len(self.index)
        Xd = np.zeros((C, rank, self.width))
        Dd = np.zeros((C, rank, self.atom_width))
        for c, (idx, D, U) in enumerate(
            zip(self.index, dictionaries, bases, strict=True)
        ):
            Xd[c, : U.shape[1], : idx.size] = U.T @ X[idx].T
            Dd[c, : U.shape[1], : D.shape[1]] = U.T @ D
        return Xd, Dd, bases


def sample_space_solve(X, lam, gamma):
    """``B = M^-1 X^T``, ``G = X B`` and ``B^T B`` for ``M = lam X^T X + gamma I``.

    With more features than samples the n x n form is used:
    ``M^-1 X^T = X^T (lam X X^T + gamma I)^-1`` (push-through identity).
    """
    n, d = X.shape
    if d > n:
        K = X @ X.T
        system = lam * K
        system.flat[:: n + 1] += gamma
        S = np.linalg.inv(system)
        S = (S + S.T) / 2
        B = X.T @ S
        G = K @ S
        return B, (G + G.T) / 2, S @ G
    system = lam * (X.T @ X)
    system.flat[:: d + 1] += gamma
    B = np.linalg.solve(system, X.T)
    G = X @ B
    return B, (G + G.T) / 2, B.T @ B
