"""Class-block layout of the samples and atoms of FDDL and LRSDL.

Both methods give every class its own sub-dictionary ``D_c`` and penalise codes by
class. With samples (columns of ``Y`` and ``X``) and atoms (columns of ``D``, rows of
``X``) stored contiguously by class, every class-wise quantity is a slice, and the
class means of the codes are those of :class:`~fdlsr._common.class_means.ClassMeans`
for samples sorted by class. ``X^j_c`` denotes the block of codes of the class-``c``
samples on the atoms of class ``j``; the *own-class* blocks are those with ``j == c``.
(The dictionary-pair methods keep their classes in zero-padded stacks instead:
:mod:`._padded_classes`.)
"""

import numpy as np

from .._common.class_means import ClassMeans
from .._core.iteration import fisher


class ClassBlocks:
    """Sample and atom ranges of each class (both sorted by class).

    Parameters
    ----------
    sample_counts : ndarray of int of shape (n_classes,)
        Number of samples of each class (all >= 1).
    atom_counts : ndarray of int of shape (n_classes,)
        Number of class-specific atoms of each class (all >= 1).
    """

    def __init__(self, sample_counts, atom_counts):
        self.sample_counts = np.asarray(sample_counts, dtype=np.intp)
        self.atom_counts = np.asarray(atom_counts, dtype=np.intp)
        self.n_classes = self.sample_counts.shape[0]
        self.sample_edges = np.concatenate(([0], np.cumsum(self.sample_counts)))
        self.atom_edges = np.concatenate(([0], np.cumsum(self.atom_counts)))
        self.n_samples = int(self.sample_edges[-1])
        self.n_atoms = int(self.atom_edges[-1])
        self.sample_class = np.repeat(np.arange(self.n_classes), self.sample_counts)
        self.atom_class = np.repeat(np.arange(self.n_classes), self.atom_counts)
        self._own = None
        self._own_atoms = None
        self._means = ClassMeans(self.sample_class, self.n_classes)

    def __getstate__(self):
        # The class-means helper and the own-block indices are rebuilt from the
        # counts (model files hold the layout only).
        state = self.__dict__.copy()
        del state["_means"]
        state.pop("_own_entries", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._means = ClassMeans(self.sample_class, self.n_classes)

    def _check_fitted_arrays(self):
        """Raise ``ValueError`` unless the ranges and class indices are those of the
        counts (a model file's check: all of it derives from the two counts)."""
        counts = (self.sample_counts, self.atom_counts)
        if not all(
            isinstance(a, np.ndarray)
            and a.shape == (self.sample_counts.size,)
            and a.dtype.kind in "iu"
            and np.all(a >= 0)
            for a in counts
        ):
            raise ValueError("the class blocks' counts are not per-class counts")
        fresh = ClassBlocks(*counts)
        names = ["sample_edges", "atom_edges", "sample_class", "atom_class"]
        names += ["n_classes", "n_samples", "n_atoms"]
        derived = {name: getattr(fresh, name) for name in names}
        if self._own is not None:  # the caches, when saved filled
            derived["_own"] = fresh.own
        if self._own_atoms is not None:
            derived["_own_atoms"] = fresh.own_atoms
        for name, value in derived.items():
            if not np.array_equal(getattr(self, name), value):
                raise ValueError(f"the class blocks' {name} contradict their counts")

    def samples(self, c):
        return slice(self.sample_edges[c], self.sample_edges[c + 1])

    def atoms(self, c):
        return slice(self.atom_edges[c], self.atom_edges[c + 1])

    @property
    def own(self):
        """``1 + [atom class == sample class]`` (n_atoms x n_samples)."""
        if self._own is None:
            self._own = 1.0 + (self.atom_class[:, None] == self.sample_class[None, :])
        return self._own

    @property
    def own_atoms(self):
        """``1 + [same class]`` over pairs of atoms (n_atoms x n_atoms)."""
        if self._own_atoms is None:
            same = self.atom_class[:, None] == self.atom_class[None, :]
            self._own_atoms = 1.0 + same
        return self._own_atoms

    def double_own(self, Z, *, overwrite=False):
        """``Z`` with its own-class blocks doubled (Z: n_atoms x n_samples).

        The same numbers as ``Z * own``: only the own-class entries are touched (a
        few per sample), so the product of a large matrix with ``own`` is not formed;
        with ``overwrite`` (``Z`` a temporary) not even a copy is.
        """
        out = Z if overwrite else Z.copy()
        rows, cols = self._own_index("samples")
        out[rows, cols] *= 2.0
        return out

    def double_diagonal(self, S, *, overwrite=False):
        """``S`` with its diagonal class blocks doubled (S: n_atoms x n_atoms), as
        :meth:`double_own`."""
        out = S if overwrite else S.copy()
        rows, cols = self._own_index("atoms")
        out[rows, cols] *= 2.0
        return out

    def _own_index(self, kind):
        """Row and column indices of the own-class entries of an atoms x samples
        (``kind="samples"``) or atoms x atoms matrix."""
        cache = self.__dict__.setdefault("_own_entries", {})
        if kind not in cache:
            edges = self.sample_edges if kind == "samples" else self.atom_edges
            rows, cols = [], []
            for c in range(self.n_classes):
                a = np.arange(self.atom_edges[c], self.atom_edges[c + 1])
                b = np.arange(edges[c], edges[c + 1])
                rows.append(np.repeat(a, b.size))
                cols.append(np.tile(b, a.size))
            cache[kind] = (np.concatenate(rows), np.concatenate(cols))
        return cache[kind]

    def class_means(self, X):
        """Mean of the columns of each class, one column per class: the class sums
        divided by the class sizes."""
        if X.shape[0] == 0:
            return np.zeros((0, self.n_classes))
        return self._means.sums(X) / self.sample_counts

    def spread(self, means):
        """Each sample's column replaced by its class mean."""
        return self._means.spread(means)

    def subtract_spread(self, Z, means):
        """``Z -= spread(means)`` in place (without forming the spread if possible)."""
        return self._means.add_spread(Z, -means)

    def own_reconstruction(self, D, X):
        """``D_c X^c_c`` for the samples of every class c (n_features x n_samples)."""
        P = np.empty((D.shape[0], self.n_samples))
        for c in range(self.n_classes):
            atoms, samples = self.atoms(c), self.samples(c)
            P[:, samples] = D[:, atoms] @ X[atoms, samples]
        return P

    def block_quadratic(self, G, X):
        """``sum_j ||D_j X^j||^2`` from the Gram matrix ``G = D^T D``."""
        total = 0.0
        for c in range(self.n_classes):
            atoms = self.atoms(c)
            Xc = X[atoms]
            total += float(np.vdot(G[atoms, atoms] @ Xc, Xc))
        return total


def fisher_term(blocks, X):
    """FDDL's discriminative term (Eq. 4 of Yang et al. 2014, with eta = 1).

    ``g(X) = sum_c (||X_c - M_c||^2 - ||M_c - M||^2) + ||X||^2``: FDLSR's Fisher
    term, Eq. (11) (:func:`fdlsr._core.iteration.fisher`). With the class-mean and
    global-mean projections ``P_c`` and ``P_1`` (nested, orthogonal) this is
    ``2||X||^2 - 2||X P_c||^2 + ||X P_1||^2``.
    """
    means = blocks.class_means(X)
    overall = means @ blocks.sample_counts / blocks.n_samples
    within = float(np.sum(means * means, axis=0) @ blocks.sample_counts)
    return fisher(
        float(np.vdot(X, X)), within, blocks.n_samples * float(overall @ overall)
    )


def centred(X0):
    """``X0 - M0``: the codes minus their mean over the samples (the last axis)."""
    return X0 - X0.mean(axis=-1, keepdims=True)
