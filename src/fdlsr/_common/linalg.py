"""Shared linear algebra for the least-squares-regression family.

Every model of the family repeatedly solves the same ridge problem

    Q = argmin ||Q X^T - T||_F^2 + ridge ||Q||_F^2      (X: n_samples x n_features)

for a changing target matrix ``T`` (n_targets x n_samples) and a fixed ``X``. Two forms
give the same ``Q``:

* primal: ``Q = T X (X^T X + ridge I_d)^-1``, a d x d system, cheap when d <= n;
* dual:   ``Q = T (X X^T + ridge I_n)^-1 X``, an n x n system, cheap when d > n.

In the dual form ``Q`` itself is never needed inside an iteration: with
``R = T (X X^T + ridge I)^-1`` the fitted values are ``Q X^T = T - ridge R`` and
``||Q||_F^2 = <R, Q X^T>``.

Why an inverse: the regularised Gram matrix of an iterative solver is inverted once,
from its Cholesky factor (LAPACK potrf/potri), and then applied to a new right-hand side
at every iteration. A product with the inverse costs the same flops as the two
triangular solves it replaces and runs at matrix-multiply rate; the ridge keeps the
matrix well conditioned.

Why one BLAS: NumPy and SciPy wheels each bundle their own OpenBLAS, and after a call
into one of them its worker threads spin for a while, slowing the other library's calls
(docs/performance.md). So every product runs in NumPy, and the few SciPy LAPACK calls
(the factorisations, which NumPy does not expose) run single-threaded, leaving no
spinning threads behind.

Other array libraries (PyTorch, CuPy, array-api-strict) go through the array API:
the same products run on the arrays' device and the factorisation uses ``xp.linalg``
in the device's highest precision. NumPy keeps the paths described above.

The module also holds the products and norms the solvers share and the unit scaling
of rows (:func:`normalize_rows`). Nothing here knows about estimators; the class-mean
algebra is :mod:`fdlsr._common.class_means`.
"""

import numpy as np
from scipy import linalg
from threadpoolctl import ThreadpoolController

from .compat import (
    _convert_to_numpy,
    _max_precision_float_dtype,
    device,
    get_namespace,
    get_namespace_and_device,
)

_THREADPOOLS = None


def single_threaded_lapack():
    """Context in which SciPy's LAPACK runs on one thread (see the module notes)."""
    return limited_blas(1)


def limited_blas(threads):
    """Context in which BLAS (NumPy's and SciPy's) runs on ``threads`` threads, e.g.
    the large products of a routine that otherwise runs single-threaded; pass
    :func:`blas_threads` read before entering the single-threaded part."""
    global _THREADPOOLS
    if _THREADPOOLS is None:
        _THREADPOOLS = ThreadpoolController()
    return _THREADPOOLS.limit(limits=int(threads), user_api="blas")


def blas_threads():
    """The number of threads NumPy's BLAS would use (at least 1)."""
    global _THREADPOOLS
    if _THREADPOOLS is None:
        _THREADPOOLS = ThreadpoolController()
    counts = [
        lib.num_threads for lib in _THREADPOOLS.select(user_api="blas").lib_controllers
    ]
    return max(counts, default=1)


def gram(X, *, samples=False):
    """Return ``X^T X`` (features) or, with ``samples=True``, ``X X^T`` (samples)."""
    return X @ X.T if samples else X.T @ X


class RidgeSystem:
    """Right multiplication by ``(G + ridge I)^-1`` for a symmetric PSD Gram ``G``.

    With ``repeated=True`` (an iterative solver's system) the matrix is inverted once
    from its Cholesky factor; otherwise each call is a Cholesky solve. The small system
    is handled in float64 even for float32 data, where a ridge of 1e-4 is close to the
    rounding of a float32 Gram matrix; the products stay in the data's precision.
    """

    def __init__(self, G, ridge, repeated=True):
        self.xp = None if isinstance(G, np.ndarray) else get_namespace(G)[0]
        if self.xp is not None:
            self._init_array_api(G, ridge, repeated)
            return
        A = np.array(G, dtype=np.float64, order="F")
        A.flat[:: A.shape[0] + 1] += ridge
        self.dtype = G.dtype
        self.ridge = ridge
        self.inverse = None
        potrf, potri = linalg.get_lapack_funcs(("potrf", "potri"), (A,))
        with single_threaded_lapack():
            factor, info = potrf(A, lower=0, overwrite_a=1, clean=1)
            if info > 0:
                raise np.linalg.LinAlgError(
                    f"The regularised Gram matrix (ridge={ridge:g}) is not numerically "
                    "positive definite. Increase the ridge parameter (beta or "
                    "init_ridge) or scale the features (e.g. with Normalizer)."
                )
            if repeated:
                upper, info = potri(factor, lower=0, overwrite_c=1)
                # potri fills the upper triangle; the lower is zero (``clean``
                # above), so upper + upper^T is the inverse with its diagonal
                # doubled, and halving it restores that diagonal exactly.
                inverse = upper + upper.T
                inverse.flat[:: A.shape[0] + 1] *= 0.5
                self.inverse = np.ascontiguousarray(inverse, dtype=self.dtype)
            else:
                self.factor = factor

    def _init_array_api(self, G, ridge, repeated):
        """Cholesky-based inverse (or solve) with ``xp.linalg`` on G's device."""
        xp, dev = self.xp, device(G)
        self.dtype, self.ridge, self.inverse = G.dtype, ridge, None
        high = _max_precision_float_dtype(xp, dev)
        A = xp.astype(G, high) + ridge * xp.eye(G.shape[0], dtype=high, device=dev)
        if repeated:
            L_inv = xp.linalg.inv(xp.linalg.cholesky(A))
            self.inverse = xp.astype(L_inv.T @ L_inv, self.dtype)
        else:
            self.factor = A

    def right_solve(self, Z):
        """``Z (G + ridge I)^-1`` for ``Z`` of shape (k, m)."""
        if self.inverse is not None:
            return Z @ self.inverse
        if self.xp is not None:
            xp = self.xp
            solved = xp.linalg.solve(self.factor, xp.astype(Z, self.factor.dtype).T)
            return xp.astype(solved.T, self.dtype)
        with single_threaded_lapack():
            solved = linalg.cho_solve((self.factor, False), Z.T.astype(np.float64))
        return np.ascontiguousarray(solved.T, dtype=self.dtype)


class _RidgeForm:
    """The samples, the ridge and the factorised system of one form of the solve.

    ``gram`` is the form's Gram matrix: ``X^T X`` (primal) or ``X X^T`` (dual).
    """

    def __init__(self, X, ridge, gram, repeated=True):
        self.X = X
        self.ridge = ridge
        self.system = RidgeSystem(gram, ridge, repeated)


class PrimalRidge(_RidgeForm):
    """Ridge solves in the feature space, with the d x d system ``X^T X + ridge I``."""

    def solve(self, T, out=None):
        """Return ``(fitted, state)``: ``fitted = Q X^T`` and ``state = Q``.

        ``out`` (NumPy only) receives ``fitted``: an iteration reuses its buffer.
        """
        Q = self.system.right_solve(T @ self.X)
        if out is not None and isinstance(Q, np.ndarray):
            return np.matmul(Q, self.X.T, out=out), Q
        return Q @ self.X.T, Q

    def coef(self, state):
        return state

    @staticmethod
    def sq_norm(state, fitted):
        """``||Q||_F^2`` from the pair returned by :meth:`solve` (or differences)."""
        return inner(state, state)

    @staticmethod
    def fit_sq(state, fitted, T):
        """``||Q X^T - T||_F^2``, the difference formed a few rows at a time."""
        return sq_distance(fitted, T)


class DualRidge(_RidgeForm):
    """Ridge solves in the sample space, with the n x n system ``X X^T + ridge I``."""

    def solve(self, T, out=None):
        """Return ``(fitted, state)``: ``fitted = Q X^T`` and ``state = R``, Q = R X.

        ``out`` (NumPy only) receives ``fitted``: an iteration reuses its buffer.
        """
        R = self.system.right_solve(T)
        if isinstance(R, np.ndarray):
            fitted = np.multiply(R, -self.ridge, out=out)
            fitted += T
        else:
            fitted = R * -self.ridge
            fitted += T
        return fitted, R

    def fit_sq(self, state, fitted, T):
        """``||Q X^T - T||_F^2`` without a c x n difference: ``Q X^T - T = -ridge R``."""
        return self.ridge**2 * inner(state, state)

    def coef(self, state):
        return state @ self.X

    @staticmethod
    def sq_norm(state, fitted):
        # ||R X||^2 = <R K, R> and R K = T - ridge R = fitted.
        return inner(state, fitted)


def make_ridge(X, ridges, solver="auto", repeated=None):
    """One ridge solver per ridge value, sharing the Gram matrix of ``X``.

    ``solver="auto"`` takes the dual (n x n) form when there are more features than
    samples, as scikit-learn's Ridge does. ``repeated`` says, per ridge, whether it
    will serve many solves (inverted once) or a single one (LU solve).
    """
    n_samples, n_features = X.shape
    if solver == "auto":
        solver = "dual" if n_features > n_samples else "primal"
    cls = DualRidge if solver == "dual" else PrimalRidge
    G = gram(X, samples=solver == "dual")
    if repeated is None:
        repeated = [True] * len(ridges)
    return [cls(X, r, G, rep) for r, rep in zip(ridges, repeated, strict=True)]


class CenteredRidge:
    """Ridge with an unregularised intercept, ``min ||Q X^T + b 1^T - T||^2 + ridge ||Q||^2``.

    The intercept absorbs the sample means, so ``Q`` is the ordinary ridge solution on
    the centred samples ``X - mean`` and ``b = mean(T) - Q mean``: the same primal or
    dual solver as :func:`make_ridge`, built on the centred data. Targets are centred
    before the solve (the fitted values do not depend on their mean), which keeps the
    dual system away from its ``1 / ridge`` direction along the constant vector.
    :meth:`solve` returns the fitted values ``Q X^T + b 1^T`` and a state from which
    :meth:`coef` and :meth:`intercept` follow.
    """

    def __init__(self, X, ridge, solver="auto", repeated=True):
        self.mean = X.mean(axis=0)
        centred = X - self.mean
        self.inner = make_ridge(centred, [ridge], solver, [repeated])[0]
        self.ridge = ridge
        # b needs Q @ mean; in the dual form Q = R Xc, so keep Xc @ mean.
        self._dual_mean = (
            centred @ self.mean if isinstance(self.inner, DualRidge) else None
        )

    def solve(self, T):
        """Return ``(fitted, state)`` with ``fitted = Q X^T + b 1^T``."""
        offset = T.mean(axis=1)
        fitted, inner_state = self.inner.solve(T - offset[:, None])
        fitted += offset[:, None]
        return fitted, (inner_state, offset)

    def coef(self, state):
        return self.inner.coef(state[0])

    def intercept(self, state):
        inner_state, offset = state
        if self._dual_mean is None:
            return offset - inner_state @ self.mean
        return offset - inner_state @ self._dual_mean

    def sq_norm(self, state, fitted):
        """``||Q||_F^2`` from the pair returned by :meth:`solve` (or differences)."""
        inner_state, offset = state
        return self.inner.sq_norm(inner_state, fitted - offset[:, None])


def inner(a, b):
    """Frobenius inner product ``<a, b>`` as a Python float, in any namespace."""
    if isinstance(a, np.ndarray):
        return float(np.vdot(a, b))
    xp, _ = get_namespace(a)
    if a is b:  # one reduction (vecdot may be a batched product in an adapter)
        return float(xp.linalg.vector_norm(a)) ** 2
    return float(xp.sum(xp.vecdot(a, b)))  # no temporary of a's size


def sq_norm_on_device(a, xp, high):
    """``||a||_F^2`` as a 0-d array of dtype ``high`` on ``a``'s device: one reduction
    (``vecdot`` is a batched product of vectors in some namespaces' adapters), left
    on the device so that sums of many pieces synchronise with the host once."""
    return xp.astype(xp.linalg.vector_norm(a), high) ** 2


def sq_distance(a, b, piece=None):
    """``||a - b||_F^2`` as a Python float, the difference formed a few rows at a
    time so that no temporary as large as ``a`` is needed, in any namespace.

    NumPy takes pieces of about 2^20 numbers (cache-sized). Other namespaces take
    pieces of 2^24 numbers and sum them on the array's device in its highest
    precision, converting once at the end: a conversion per piece is a host
    synchronisation, and with a million columns a piece is one row. ``piece``
    overrides the number of numbers per piece.
    """
    if isinstance(a, np.ndarray):
        rows = max(1, (piece or 2**20) // a.shape[-1])
        total = 0.0
        for start in range(0, a.shape[0], rows):
            diff = a[start : start + rows] - b[start : start + rows]
            total += float(np.vdot(diff, diff))
        return total
    xp, _, dev = get_namespace_and_device(a)
    high = _max_precision_float_dtype(xp, dev)
    total = xp.zeros((), dtype=high, device=dev)
    rows = max(1, (piece or 2**24) // a.shape[-1])
    for start in range(0, a.shape[0], rows):
        r = slice(start, min(start + rows, a.shape[0]))  # in bounds (array API)
        total += sq_norm_on_device(a[r, ...] - b[r, ...], xp, high)
    return float(total)


# Bytes of the rows normalize_rows scales at a time, beside its result: a few
# temporary arrays of that size, whatever the size of X.
NORMALIZE_BLOCK_BYTES = 2**24


def normalize_rows(X, dtype=None):
    """Rows scaled to unit L2 norm, at any finite scale; a zero row stays zero. Any
    array namespace.

    Each row is first divided by its largest absolute entry, so that its norm is
    computed from numbers in [-1, 1]: squaring the raw entries, as
    :func:`sklearn.preprocessing.normalize` does, overflows above about 1e154 (the
    rows become zero) and underflows below about 1e-154 (they stay unscaled). This
    is the package's one unit normalisation: of the protocol's samples, of the model
    ``fdlsr fit`` saves (:class:`~fdlsr._common.normalizer.UnitNormalizer`), of the
    decision rules' projections and of the representation methods' dictionaries.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
        The rows; not modified.
    dtype : NumPy dtype, optional
        NumPy arrays only: the result's (the protocol asks for float64); default
        ``X``'s floating type, float64 for integers.

    Returns
    -------
    array of shape (n_samples, n_features)
        A copy of ``X`` scaled in place, a block of rows at a time
        (:data:`NORMALIZE_BLOCK_BYTES`), so that it holds one copy of ``X`` and
        little more.
    """
    if isinstance(X, np.ndarray):
        if dtype is None:
            dtype = X.dtype if X.dtype.kind == "f" else np.float64
        X = np.array(X, dtype=dtype)
        rows = max(1, NORMALIZE_BLOCK_BYTES // max(1, X.itemsize * X.shape[1]))
        for start in range(0, X.shape[0], rows):
            block = X[start : start + rows]
            largest = np.max(np.abs(block), axis=1, keepdims=True, initial=0.0)
            largest[largest == 0] = 1.0
            block /= largest
            norms = np.linalg.norm(block, axis=1, keepdims=True)
            norms[norms == 0] = 1.0
            block /= norms
        return X
    xp, _ = get_namespace(X)
    largest = xp.max(xp.abs(X), axis=1, keepdims=True)
    X = X / xp.where(largest == 0, xp.ones_like(largest), largest)
    norms = xp.linalg.vector_norm(X, axis=1, keepdims=True)
    return X / xp.where(norms == 0, xp.ones_like(norms), norms)


def row_norms(X):
    """The L2 norm of each row, at any finite scale, as a NumPy float64 array. Any
    array namespace.

    As in :func:`normalize_rows`, each row is divided by its largest absolute entry
    before its entries are squared, so that norms above about 1e154 do not overflow
    and norms below about 1e-154 do not underflow to 0 (as ``sqrt(sum(x**2))``
    does); a block of rows at a time (:data:`NORMALIZE_BLOCK_BYTES`) for NumPy.
    """
    if not isinstance(X, np.ndarray):
        xp, _ = get_namespace(X)
        largest = xp.max(xp.abs(X), axis=1, keepdims=True)
        scaled = X / xp.where(largest == 0, xp.ones_like(largest), largest)
        norms = xp.linalg.vector_norm(scaled, axis=1, keepdims=True) * largest
        return np.asarray(_convert_to_numpy(norms[:, 0], xp), dtype=np.float64)
    norms = np.empty(X.shape[0])
    rows = max(1, NORMALIZE_BLOCK_BYTES // max(1, X.itemsize * X.shape[1]))
    for start in range(0, X.shape[0], rows):
        block = np.asarray(X[start : start + rows], dtype=np.float64)
        largest = np.max(np.abs(block), axis=1, initial=0.0)
        safe = np.where(largest == 0, 1.0, largest)
        norms[start : start + rows] = np.linalg.norm(block / safe[:, None], axis=1)
        norms[start : start + rows] *= largest
    return norms
