"""Class-wise residual rules of the representation-based classifiers.

A test sample ``y`` (a row) is coded over the dictionary ``D`` (one training sample per
row, ``n_atoms x n_features``) as ``a`` with ``y ~ a D``; ``a_k`` keeps the entries of
the atoms of class ``k`` and zeroes the others. The classifiers compare classes by

* ``sample``:          ``||y - a_k D||``              (SRC, NRC)
* ``regularised``:     ``||y - a_k D|| / ||a_k||``    (CRC, the authors' code)
* ``reconstruction``:  ``||a D - a_k D||^2``          (ProCRC, the NRC authors' code)

and predict the class of smallest value. For a batch of ``m`` samples with codes ``C``
(``m x n_atoms``) every rule is a few products, with no loop over samples or classes:
with the sparse class indicator ``E`` (``E[i, k] = 1`` if atom ``i`` is in class ``k``)
and the same-class Gram matrix ``B`` (``B[i, j] = <d_i, d_j>`` when atoms ``i`` and
``j`` share a class, else 0),

* ``<y, a_k D> = ((Y D^T) * C) E``,
* ``||a_k D||^2 = ((C B) * C) E``,
* ``<a D, a_k D> = ((C G) * C) E`` with ``G = D D^T``,
* ``||a_k||^2 = (C * C) E``,

and each squared distance is the expansion ``||u||^2 - 2 <u, v> + ||v||^2``. ``B`` has
``sum_k n_k^2`` entries, far fewer than ``G`` when there are many classes. The
expansion loses absolute accuracy ``~1e-16 ||y||^2`` near zero distance, which the
tests bound against a plain per-class computation. Nothing here knows about estimators.
"""

import numpy as np
import scipy.sparse as sp

# Stands in for ``r / ||a_k||`` when ``a_k = 0``: the class did not take part in the
# representation, so it ranks last (finite, so that differences of scores stay finite).
_UNUSED_CLASS = np.finfo(np.float64).max


class ClassResiduals:
    """Per-class residuals of coded samples over a fixed, labelled dictionary.

    Parameters
    ----------
    dictionary : ndarray of shape (n_atoms, n_features)
        The training samples, one per row.
    y : ndarray of int of shape (n_atoms,)
        Class code of each atom, in ``[0, n_classes)``; any order.
    n_classes : int
    """

    def __init__(self, dictionary, y, n_classes):
        n = y.shape[0]
        self.indicator = sp.csr_array(
            (np.ones(n), (np.arange(n), y)), shape=(n, n_classes)
        )
        rows, cols, vals = [], [], []
        for k in range(n_classes):
            idx = np.flatnonzero(y == k)
            block = dictionary[idx] @ dictionary[idx].T
            rows.append(np.repeat(idx, idx.size))
            cols.append(np.tile(idx, idx.size))
            vals.append(block.ravel())
        self.block_gram = sp.csr_array(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
            shape=(n, n),
        )

    def class_sums(self, M):
        """Sum the columns of ``M`` (m x n_atoms) within each class: (m, n_classes)."""
        return np.asarray(self.indicator.T @ M.T).T

    def own_sq_norms(self, C):
        """``||a_k D||^2`` for every sample and class."""
        CB = np.asarray(self.block_gram @ C.T).T  # B is symmetric
        return self.class_sums(CB * C)

    def code_norms(self, C):
        """``||a_k||`` for every sample and class."""
        return np.sqrt(self.class_sums(C * C))

    def sample(self, C, YD, y_sq_norms):
        """``||y - a_k D||`` from the codes, ``Y D^T`` and ``||y||^2``."""
        sq = y_sq_norms[:, None] - 2.0 * self.class_sums(YD * C) + self.own_sq_norms(C)
        return np.sqrt(np.maximum(sq, 0.0))

    def regularised(self, C, YD, y_sq_norms):
        """``||y - a_k D|| / ||a_k||``; a class with ``a_k = 0`` ranks last."""
        norms = self.code_norms(C)
        residual = self.sample(C, YD, y_sq_norms)
        out = np.full_like(residual, _UNUSED_CLASS)
        np.divide(residual, norms, out=out, where=norms > 0)
        return out

    def reconstruction(self, C, CG):
        """``||a D - a_k D||^2`` from the codes and ``C G`` (``G = D D^T``)."""
        cross = self.class_sums(CG * C)
        total = cross.sum(axis=1, keepdims=True)  # ||a D||^2 = sum_k <a D, a_k D>
        return np.maximum(total - 2.0 * cross + self.own_sq_norms(C), 0.0)
