"""Training of LRSDL (Vu & Monga 2017), with FDDL as its zero-shared-atom case.

Samples are the columns of ``Y`` (n_features x n_samples), sorted by class; codes are
``X`` (class-specific atoms x samples) and ``X0`` (shared atoms x samples). The cost is

    J = 1/2 f(Y, D, D0, X, X0) + lambda1 ||[X; X0]||_1 + lambda2/2 g(X, X0)
        + eta ||D0||_*,
    f = sum_c ||Ybar_c - D X_c||^2 + ||Ybar_c - D_c X^c_c||^2 + sum_{j != c} ||D_j X^j_c||^2,
    g = fisher_term(X) + ||X0 - M0||^2,          Ybar = Y - D0 X0,

Eq. (7)-(8) of Vu & Monga; with no shared atoms it is FDDL's cost (Yang et al. 2014,
Eq. 3-5) with their lambda1 halved. Each iteration updates the codes ``[X; X0]`` by
FISTA, drops shared atoms no sample uses, then ``D`` by block coordinate descent and
``D0`` by ADMM (see :mod:`._dictionary_update`).

The matrix identities that make every step a few products over all samples at once:
with ``dbl(.)`` doubling the own-class blocks and ``M(.)`` the diagonal class blocks,

* ``grad_X f/2 = M(D^T D) X - dbl(D^T Ybar)``;
* ``grad_X0 f/2 = 2 D0^T D0 X0 + D0^T D dbl(X) - 2 D0^T Y``;
* in ``D``: ``f/2 = 1/2 [tr(D F D^T) - 2 tr(E D^T)] + c``, ``F = M(X X^T)``,
  ``E = Ybar dbl(X)^T``;
* in ``D0``: ``f/2 = ||L - D0 X0||^2 + c`` with ``L = Y - D dbl(X) / 2``.
"""

from dataclasses import dataclass

import numpy as np

from ._class_blocks import centred, fisher_term
from ._dictionary_update import (
    ball_bcd,
    low_rank_ball_dictionary,
    nuclear_norm,
    quadratic_value,
)
from ._fista import fista, top_eigenvalue, top_eigenvalues

# DICTOL's settings (LRSDL.m, DL_smallIntraCoeff.m, LRSDL_initD0X0.m, min_rank_dict.m).
INIT_CODING_ITER = 30  # FISTA iterations per initial coding step (20 for D0)
INIT_SHARED_CODING_ITER = 20
# Sweeps of the dictionary step. DICTOL's MATLAB code asks for 300 (and then drops
# the result, see FDDL's Notes), its Python port for 100; on FERET a sweep costs as
# much as a FISTA iteration and gains less, so the budget goes to the codes.
DICT_MAX_ITER = 20
SHARED_ADMM_ITER = 200
SHARED_ADMM_TOL = 1e-5
INIT_SHARED_ADMM_ITER = 20
UNUSED_SHARED_ATOM = 1e-5  # a shared atom whose codes sum below this is dropped
SPAN_REDUCTION = True  # solve in a basis of the samples' span when d > n (see fit)


@dataclass
class LRSDLModel:
    """What :func:`fit_lrsdl` returns."""

    D: np.ndarray
    D0: np.ndarray
    X: np.ndarray
    X0: np.ndarray
    objective: np.ndarray
    n_iter: int


@dataclass
class Penalties:
    """The weights of the cost ``J`` (see the module notes)."""

    lambda1: float
    lambda2: float
    eta: float


def objective(Y, blocks, D, D0, X, X0, pen, gram=None):
    """The cost ``J`` above, evaluated directly (``gram``: ``D.T @ D`` if known)."""
    Ybar = Y - D0 @ X0
    R = Ybar - D @ X
    own = blocks.own_reconstruction(D, X)
    R_own = Ybar - own
    G = D.T @ D if gram is None else gram
    f = (
        float(np.vdot(R, R))
        + float(np.vdot(R_own, R_own))
        + blocks.block_quadratic(G, X)
        - float(np.vdot(own, own))
    )
    C0 = centred(X0)
    g = fisher_term(blocks, X) + float(np.vdot(C0, C0))
    l1 = float(np.abs(X).sum() + np.abs(X0).sum())
    return (
        0.5 * f + pen.lambda1 * l1 + 0.5 * pen.lambda2 * g + pen.eta * nuclear_norm(D0)
    )


def code_lipschitz(blocks, D, D0, lambda2, gram=None):
    """Lipschitz bound of the gradient of the smooth part in ``[X; X0]``.

    Without shared atoms, ``lambda_max(M(D^T D)) + 2 lambda2`` (the Fisher Hessian
    ``2I - 2P_c + P_1`` has norm at most 2). With them, the per-sample data Hessian
    depends on the class; its form ``||D x + D0 x0||^2 + ||D_c x^c + D0 x0||^2 +
    sum_{j != c} ||D_j x^j||^2`` is bounded by ``||[D D0]||^2 + max_c ||[D_c D0]||^2``.
    """
    if D0.shape[1] == 0:
        G = D.T @ D if gram is None else gram
        return top_eigenvalue(blocks.double_diagonal(G)) + 2.0 * lambda2
    full = np.hstack([D, D0])
    worst = max(
        top_eigenvalue(
            np.hstack([D[:, blocks.atoms(c)], D0]).T
            @ np.hstack([D[:, blocks.atoms(c)], D0])
        )
        for c in range(blocks.n_classes)
    )
    return top_eigenvalue(full.T @ full) + worst + 2.0 * lambda2


def update_codes(Y, blocks, D, D0, X, X0, pen, *, max_iter, tol, gram=None):
    """FISTA on ``[X; X0]`` with ``D, D0`` fixed (Vu & Monga Sec. III-B).

    ``gram`` is ``D.T @ D`` when the caller has it (the same product either way).
    """
    K, k0 = D.shape[1], D0.shape[1]
    lambda2 = pen.lambda2
    G = D.T @ D if gram is None else gram
    # The Fisher gradient lambda2 X (2I - 2P_c + P_1): its 2 lambda2 X part is folded
    # into the Gram matrix, the mean parts are formed from the K x C class means.
    H = blocks.double_diagonal(G)
    H.flat[:: K + 1] += 2.0 * lambda2
    dbl_DtY = blocks.double_own(D.T @ Y, overwrite=True)
    DtD0 = D.T @ D0
    D0tD0x2 = 2.0 * (D0.T @ D0)
    D0tYx2 = 2.0 * (D0.T @ Y)
    counts = blocks.sample_counts

    def grad(V):
        Xv, X0v = V[:K], V[K:]
        out = np.empty_like(V)
        GX = out[:K]
        np.matmul(H, Xv, out=GX)
        GX -= dbl_DtY
        if k0:
            GX += blocks.double_own(DtD0 @ X0v, overwrite=True)
        means = blocks.class_means(Xv)
        overall = means @ counts / blocks.n_samples
        means *= 2.0 * lambda2
        means -= lambda2 * overall[:, None]
        blocks.subtract_spread(GX, means)
        if k0:
            G0 = out[K:]
            np.matmul(D0tD0x2, X0v, out=G0)
            G0 += DtD0.T @ blocks.double_own(Xv)
            G0 -= D0tYx2
            G0 += lambda2 * centred(X0v)
        return out

    lipschitz = code_lipschitz(blocks, D, D0, lambda2, G)
    V, _ = fista(
        grad, np.vstack([X, X0]), lipschitz, pen.lambda1, max_iter=max_iter, tol=tol
    )
    return V[:K], V[K:]


def update_dictionary(Y, blocks, D, D0, X, X0, *, tol, n_features=None):
    """Block coordinate descent on ``D`` (Vu & Monga Sec. III-C)."""
    Ybar = Y - D0 @ X0 if D0.shape[1] else Y
    E = Ybar @ blocks.double_own(X).T
    F = blocks.double_diagonal(X @ X.T, overwrite=True)
    size = (n_features or D.shape[0]) * D.shape[1]
    return ball_bcd(D, E, F, max_iter=DICT_MAX_ITER, tol=tol, size=size)[0]


def update_shared_dictionary(Y, blocks, D, D0, X, X0, eta, n_features=None):
    """ADMM on ``D0`` (Vu & Monga Sec. III-D); the old ``D0`` is kept unless improved."""
    L = Y - 0.5 * (D @ blocks.double_own(X))
    E = L @ X0.T
    F = X0 @ X0.T
    new = low_rank_ball_dictionary(
        D0,
        E,
        F,
        eta,
        max_iter=SHARED_ADMM_ITER,
        tol=SHARED_ADMM_TOL,
        size=(n_features or D0.shape[0]) * D0.shape[1],
    )

    def cost(A):
        return quadratic_value(A, E, F) + eta * nuclear_norm(A)

    return new if cost(new) <= cost(D0) else D0


def intra_small_dictionary(
    Y, n_atoms, lambda1, lambda2, n_iter, coding_iter, rng, n_features=None
):
    """DICTOL's initial learner (DL_smallIntraCoeff.m), for a stack of sample sets.

    Alternates FISTA on ``1/2||Y - DX||^2 + lambda2/2 ||X - M||^2 + lambda1 ||X||_1``
    (``M``: the mean code) and the unit-ball dictionary step, from ``n_atoms`` of the
    samples chosen at random (all of them, in order, when ``n_atoms`` equals their
    number). ``Y`` has shape (n_sets, n_features, n_samples); every set is learnt
    independently.
    """
    n_sets, d, n = Y.shape
    if n < d and SPAN_REDUCTION:
        # Every iterate stays in the span of the samples: solve in an orthonormal
        # basis of it (all norms and inner products are preserved).
        Q, R = np.linalg.qr(Y)
        D, X = intra_small_dictionary(
            R, n_atoms, lambda1, lambda2, n_iter, coding_iter, rng, n_features or d
        )
        return Q @ D, X
    if n_atoms == n:
        D = Y.copy()
    else:
        picks = np.stack([np.sort(rng.choice(n, n_atoms, False)) for _ in Y])
        D = np.take_along_axis(Y, picks[:, None, :], axis=2)
    D /= np.maximum(np.linalg.norm(D, axis=1, keepdims=True), 1.0)
    X = np.zeros((n_sets, n_atoms, n))
    for _ in range(n_iter):
        Dt = D.transpose(0, 2, 1)
        G = Dt @ D
        DtY = Dt @ Y

        def grad(Z, G=G, DtY=DtY):
            return G @ Z - DtY + lambda2 * centred(Z)

        # The Hessian is G + lambda2 (I - 11^T / n): lambda_max(G) + lambda2 bounds it
        # (DICTOL's myLassoWIntrasmall_fista.m uses lambda_max(G) + 2 lambda2).
        lipschitz = (top_eigenvalues(G) + lambda2)[:, None, None]
        X, _ = fista(
            grad,
            X,
            lipschitz,
            lambda1,
            max_iter=coding_iter,
            tol=1e-8,
            per_problem=True,
        )
        # Each set stops on its own change, measured against its size in the original
        # feature space (DICTOL learns one class at a time, on the full samples).
        D, _ = ball_bcd(
            D,
            Y @ X.transpose(0, 2, 1),
            X @ X.transpose(0, 2, 1),
            max_iter=n_iter,
            tol=1e-8,
            size=(n_features or d) * n_atoms,
        )
    return D, X


def initialise(Y, blocks, shared, pen, rng, n_iter, n_features=None):
    """DICTOL's 'normal' initialisation (LRSDL_init.m).

    Each class's dictionary and own-class codes come from :func:`intra_small_dictionary`
    on that class's samples (codes on other classes' atoms start at zero); classes of
    the same size are learnt together. The shared dictionary is learnt from all
    samples by alternating FISTA on ``1/2||Y - D0 X0||^2 + lambda2/2 ||X0 - M0||^2 +
    lambda1 ||X0||_1`` and the low-rank step with weight ``2 eta`` (LRSDL_initD0X0.m),
    from the samples (columns of ``Y``) indexed by ``shared``.
    """
    n_shared = len(shared)
    d = Y.shape[0]
    D = np.empty((d, blocks.n_atoms))
    X = np.zeros((blocks.n_atoms, blocks.n_samples))
    shapes = list(zip(blocks.sample_counts, blocks.atom_counts, strict=True))
    for shape in sorted(set(shapes)):
        group = [c for c in range(blocks.n_classes) if shapes[c] == shape]
        Ys = np.stack([Y[:, blocks.samples(c)] for c in group])
        Ds, Xs = intra_small_dictionary(
            Ys,
            shape[1],
            pen.lambda1,
            pen.lambda2,
            n_iter,
            INIT_CODING_ITER,
            rng,
            n_features=n_features,
        )
        for c, Dc, Xc in zip(group, Ds, Xs, strict=True):
            D[:, blocks.atoms(c)] = Dc
            X[blocks.atoms(c), blocks.samples(c)] = Xc
    D0 = Y[:, shared] / np.maximum(np.linalg.norm(Y[:, shared], axis=0), 1.0)
    X0 = np.zeros((n_shared, blocks.n_samples))
    for _ in range(n_iter if n_shared else 0):
        G0 = D0.T @ D0
        D0tY = D0.T @ Y

        def grad0(Z, G0=G0, D0tY=D0tY):
            return G0 @ Z - D0tY + pen.lambda2 * centred(Z)

        lipschitz = top_eigenvalue(G0) + pen.lambda2
        X0, _ = fista(
            grad0,
            X0,
            lipschitz,
            pen.lambda1,
            max_iter=INIT_SHARED_CODING_ITER,
            tol=1e-8,
        )
        D0 = low_rank_ball_dictionary(
            D0,
            Y @ X0.T,
            X0 @ X0.T,
            2.0 * pen.eta,
            max_iter=INIT_SHARED_ADMM_ITER,
            tol=SHARED_ADMM_TOL,
            size=(n_features or d) * n_shared,
        )
    return D, D0, X, X0


def fit_lrsdl(
    Y,
    blocks,
    shared,
    pen,
    *,
    max_iter,
    coding_iter,
    tol,
    rng,
    init_iter,
    final_coding_iter,
    n_features=None,
):
    """Learn ``D, D0`` and the training codes (DICTOL's ``LRSDL.m``).

    ``objective`` holds ``J`` after initialisation and after every iteration; it never
    increases: the code step keeps the previous codes if FISTA ended higher, the
    dictionary step is exact coordinate descent, the shared step keeps the previous
    ``D0`` unless ADMM improved its sub-problem, and dropping unused shared atoms
    cannot raise the nuclear norm.

    Parameters
    ----------
    Y : ndarray of shape (n_features, n_samples)
        Training samples as columns, sorted by class as ``blocks`` says.
    blocks : ClassBlocks
        The samples and the class-specific atoms of each class.
    shared : ndarray of int
        The samples (columns of ``Y``) the shared atoms start from; empty for FDDL.
    pen : Penalties
    max_iter : int
        Iterations (code step, dictionary step, shared-dictionary step) after the
        initialisation.
    coding_iter : int
        FISTA iterations of each code step.
    tol : float
        Stopping threshold of the FISTA runs and dictionary updates (DICTOL's rules).
    rng : numpy.random.RandomState
        Draws the initial atoms when a class has more samples than atoms.
    init_iter : int
        Alternations of the initial learning of each dictionary.
    final_coding_iter : int
        FISTA iterations of one more coding of the training samples with the final
        dictionaries, from the current codes (``LRSDL.m``: 300, before the class
        means are taken); the result is kept as it is and ``objective`` does not
        include it. ``0`` skips it.
    n_features : int or None, default=None
        The number of features when ``Y`` holds the samples' coordinates in a basis
        of their span (the tolerances are measured against the original size); set
        by the span reduction itself.

    Returns
    -------
    model : LRSDLModel
        ``D`` and ``D0`` (atoms as columns), the training codes ``X`` and ``X0``,
        ``objective`` and ``n_iter``.
    """
    d, n = Y.shape
    if n < d and SPAN_REDUCTION:
        # All dictionaries stay in the span of the samples (they start as samples and
        # every update combines samples and atoms): learn them in an orthonormal basis
        # ``Q`` of that span, where ``Y = Q R``; norms and inner products are unchanged.
        Q, Y = np.linalg.qr(Y)
        model = fit_lrsdl(
            Y,
            blocks,
            shared,
            pen,
            max_iter=max_iter,
            coding_iter=coding_iter,
            tol=tol,
            rng=rng,
            init_iter=init_iter,
            final_coding_iter=final_coding_iter,
            n_features=d,
        )
        model.D, model.D0 = Q @ model.D, Q @ model.D0
        return model
    D, D0, X, X0 = initialise(Y, blocks, shared, pen, rng, init_iter, n_features)
    # D^T D of the current D, shared by the cost and the code step (one product per D).
    G = D.T @ D
    history = [objective(Y, blocks, D, D0, X, X0, pen, G)]
    n_iter = 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007 (n_iter is returned)
        X_new, X0_new = update_codes(
            Y, blocks, D, D0, X, X0, pen, max_iter=coding_iter, tol=tol, gram=G
        )
        if objective(Y, blocks, D, D0, X_new, X0_new, pen, G) <= history[-1]:
            X, X0 = X_new, X0_new
        if D0.shape[1]:
            used = np.abs(X0).sum(axis=1) >= UNUSED_SHARED_ATOM
            D0, X0 = D0[:, used], X0[used]
        D = update_dictionary(Y, blocks, D, D0, X, X0, tol=tol, n_features=n_features)
        G = D.T @ D
        if D0.shape[1]:
            D0 = update_shared_dictionary(
                Y, blocks, D, D0, X, X0, pen.eta, n_features=n_features
            )
        history.append(objective(Y, blocks, D, D0, X, X0, pen, G))
    if final_coding_iter:
        X, X0 = update_codes(
            Y, blocks, D, D0, X, X0, pen, max_iter=final_coding_iter, tol=tol, gram=G
        )
    return LRSDLModel(D, D0, X, X0, np.asarray(history), n_iter)
