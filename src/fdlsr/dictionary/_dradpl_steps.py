"""The update steps of DRA-DPL, for all classes at once (see :mod:`.dradpl`).

Arrays are stacked over classes and zero-padded (:class:`PaddedClasses`): samples of
class c are the first n_c columns of ``Xs[c]`` (n_features x width), its codes the
first m_c rows and n_c columns of ``PX[c]`` / ``S[c]``. Column-wise l2,1 terms are
reweighted by ``1 / (2 ||e_i|| + tau)`` (the code's ``L21Parameter``), computed from
the current iterate; padded columns get weight 0.
"""

from dataclasses import dataclass

import numpy as np


def _t(A):
    return np.swapaxes(A, -1, -2)


def _reweight(E, blocks, tau):
    """``1 / (2 ||column|| + tau)`` per sample column of E (C, rows, width)."""
    w = 1.0 / (2 * np.sqrt(np.sum(E * E, axis=1)) + tau)
    return w * _sample_mask(blocks)


def _sample_mask(blocks):
    return (np.arange(blocks.width)[None, :] < blocks.sizes[:, None]).astype(float)


def _atom_mask(blocks):
    return (np.arange(blocks.atom_width)[None, :] < blocks.atoms[:, None]).astype(float)


def adaptive_weights(XtX, PX, tau, blocks):
    """W step (UpdateW.m): ``W = (G + (1 + tau) I)^-1 G``, diagonal set to zero.

    ``G = X_c^T X_c + (P_c X_c)^T (P_c X_c)``: the ridge minimiser of
    ``||X_c - X_c W||^2 + ||P_c X_c - P_c X_c W||^2 + (1 + tau) ||W||^2``.
    """
    G = XtX + _t(PX) @ PX
    system = G + (1 + tau) * np.eye(G.shape[1])
    W = np.linalg.solve(system, G)
    idx = np.arange(W.shape[1])
    W[:, idx, idx] = 0.0
    return W


def discriminative_targets(PX, blocks):
    """Targets ``L_c`` and ``M_c`` of the discriminative term (see DRADPL Notes).

    ``L_c``: for each sample, the mean of its code entries, repeated over the atoms
    (the code's ``repmat(mean(P*X), K, 1)``). ``M_c``: the mean code of the other
    classes in every column (the average, over all pairings, of the code's
    sample-by-sample mean of the other classes' codes).
    """
    atoms = _atom_mask(blocks)[:, :, None]
    mask = blocks.code_mask
    per_sample = PX.sum(axis=1, keepdims=True) / blocks.atoms[:, None, None]
    L = per_sample * mask
    class_means = PX.sum(axis=2) / blocks.sizes[:, None]  # (C, m), padded atoms 0
    C = PX.shape[0]
    others = (class_means.sum(axis=0)[None, :] - class_means) / (C - 1)
    M = others[:, :, None] * atoms * mask
    return L, M


@dataclass
class SharedBase:
    """``Base^-1 X`` pieces for ``Base = 2 alpha X X^T + 4 alpha 1 1^T + tau I``.

    ``Y = Base^-1 X`` (n_features x n_samples, columns are samples) and
    ``G = X^T Base^-1 X``; ``Gcc`` holds its diagonal class blocks, padded.
    """

    Y: np.ndarray
    G: np.ndarray
    Gcc: np.ndarray
    index: list
    sizes: np.ndarray
    atoms: np.ndarray
    alpha: float

    def dense_analysis(self, R):
        """``P_c = R_c Y_c^T`` from the reduced representation of the P step."""
        return [
            R[c, : self.atoms[c], : idx.size] @ self.Y[:, idx].T
            for c, idx in enumerate(self.index)
        ]


def shared_base_solve(X, blocks, tau, alpha):
    """Factor the part of the P-step system that all classes share (code variant).

    ``Base = tau I + Z Z^T`` with ``Z = [sqrt(2 alpha) X^T, 2 sqrt(alpha) 1]``, so
    ``Base^-1 Z = Z (tau I + Z^T Z)^-1`` (push-through), which needs only an
    (n + 1) x (n + 1) solve and involves no cancellation.
    """
    n, d = X.shape
    if alpha == 0:
        Y = X.T / tau
    else:
        Z = np.hstack([np.sqrt(2 * alpha) * X.T, 2 * np.sqrt(alpha) * np.ones((d, 1))])
        small = Z.T @ Z
        small.flat[:: n + 2] += tau
        Y = (Z @ np.linalg.inv(small)[:, :n]) / np.sqrt(2 * alpha)
    G = X @ Y
    G = (G + G.T) / 2
    return SharedBase(
        Y, G, blocks.diag(G), blocks.index, blocks.sizes, blocks.atoms, alpha
    )


def _p_step_pieces(S, W, PX, targets, blocks, tau, beta, lam):
    """Right-hand side F (P = F X_c^T A^-1) and the sample-space part of A."""
    U = _reweight(S - PX, blocks, tau)  # coding-error weights
    L, M = targets
    n = blocks.sizes[:, None, None].astype(float)
    F = 4 * S * U[:, None, :] + 2 * lam * L - 2 * lam * n * M
    eye = np.eye(W.shape[1])
    Q = (eye - W) @ _t(eye - W)
    coupling = (4 + 2 * lam * (n - 1)) * (U[:, :, None] * eye) + 2 * beta * Q
    return F * blocks.code_mask, coupling


def analysis_step_shared(S, W, PX, targets, shared, blocks, tau, beta, lam):
    """P step (UpdateP.m, code variant) through the shared base.

    ``A_c = Base + X_c (coupling - 2 alpha I) X_c^T`` and
    ``X_c^T A_c^-1 = (I + G_cc K_c)^-1 X_c^T Base^-1`` with ``K_c`` the bracket, so
    ``P_c = R_c Y_c^T`` with ``R_c = F_c (I + G_cc K_c)^-1``, and ``P_c X_c = R_c G_cc``.
    Returns ``(R, P X)``.
    """
    F, coupling = _p_step_pieces(S, W, PX, targets, blocks, tau, beta, lam)
    K = coupling - 2 * shared.alpha * np.eye(coupling.shape[1])
    system = np.eye(K.shape[1]) + shared.Gcc @ K
    R = _t(np.linalg.solve(_t(system), _t(F))) * blocks.code_mask
    return R, R @ shared.Gcc


def analysis_step_direct(
    X, Xs, S, W, PX, targets, analysis, blocks, tau, alpha, beta, lam, full_gram
):
    """P step with the reweighted l2,1 norm of the columns of ``P_c`` (paper).

    One n_features x n_features system per class. Returns ``(list of P_c, P X)``.
    """
    F, coupling = _p_step_pieces(S, W, PX, targets, blocks, tau, beta, lam)
    d = X.shape[1]
    new, codes = [], np.zeros_like(PX)
    for c, idx in enumerate(blocks.index):
        nc, m = idx.size, blocks.atoms[c]
        Xc = Xs[c, :, :nc]
        h = 1.0 / (2 * np.sqrt(np.sum(analysis[c] ** 2, axis=0)) + tau)
        A = 2 * alpha * (full_gram - Xc @ Xc.T) + Xc @ coupling[c, :nc, :nc] @ Xc.T
        A.flat[:: d + 1] += 4 * alpha * h + tau
        P = np.linalg.solve(A, Xc @ F[c, :m, :nc].T).T
        new.append(P)
        codes[c, :m, :nc] = P @ Xc
    return new, codes


def code_step(S, Dd, Xd, PX, tau, blocks, mode):
    """S step: ``min ||X - D S||_{2,1} + 2 ||S - P X||_{2,1}`` for fixed weights.

    ``"multiplicative"`` is UpdateS.m, ``S .* (D^T X V + P X M) ./ (D^T D S V + S M)``
    (entries with a zero denominator become 0); ``"exact"`` solves
    ``(v_i D^T D + m_i I) s_i = v_i D^T x_i + m_i P x_i`` for every sample.
    """
    M = _reweight(S - PX, blocks, tau)
    V = _reweight(Xd - Dd @ S, blocks, tau)
    Dt = _t(Dd)
    DtX = Dt @ Xd
    DtD = Dt @ Dd
    if mode == "exact":
        eye = np.eye(S.shape[1])
        system = V[:, :, None, None] * DtD[:, None] + M[:, :, None, None] * eye
        system += (1 - _sample_mask(blocks))[:, :, None, None] * eye  # padded samples
        rhs = _t(DtX * V[:, None, :] + PX * M[:, None, :])[..., None]
        return _t(np.linalg.solve(system, rhs)[..., 0]) * blocks.code_mask
    num = DtX * V[:, None, :] + PX * M[:, None, :]
    den = (DtD @ S) * V[:, None, :] + S * M[:, None, :]
    ratio = np.divide(num, den, out=np.zeros_like(num), where=den != 0)
    return S * ratio * blocks.code_mask


def dictionary_step(Dd, S, Xd, tau, blocks):
    """D step (UpdateD.m): ``D = X V S^T (S V S^T + tau I)^-1``, V from the old D."""
    V = _reweight(Xd - Dd @ S, blocks, tau)
    SV = S * V[:, None, :]
    system = SV @ _t(S) + tau * np.eye(S.shape[1])
    return _t(np.linalg.solve(system, _t(Xd @ _t(SV))))


def objective_value(X, Xd, Dd, PX, W, XtX, analysis, blocks, alpha, beta, lam, shared):
    """The authors' ``objectfunvalue.m``: the mean over classes of their terms."""
    total = 0.0
    L, M = discriminative_targets(PX, blocks)
    dense = shared.dense_analysis(analysis) if shared is not None else analysis
    eye = np.eye(W.shape[1])
    XT = X.T if shared is None else None
    for c, idx in enumerate(blocks.index):
        nc, m = idx.size, blocks.atoms[c]
        codes = PX[c, :m, :nc]
        recon = Xd[c, :, :nc] - Dd[c, :, :m] @ codes
        one = np.sum(np.sqrt(np.sum(recon**2, axis=0)))
        P = dense[c]
        if shared is None:
            whole = P @ XT
        else:  # P_c X = R_c G[idx_c, :] without the n_features-sized product
            whole = analysis[c, :m, :nc] @ shared.G[idx]
        outside = max(np.sum(whole**2) - np.sum(codes**2), 0.0)
        p21 = np.sum(np.sqrt(np.sum(P**2, axis=0)))
        two = alpha * (np.sqrt(outside) + p21)
        Wc = W[c, :nc, :nc]
        IW = eye[:nc, :nc] - Wc
        x_part = np.sqrt(max(np.trace(IW.T @ XtX[c, :nc, :nc] @ IW), 0.0))
        three = beta * (x_part + np.linalg.norm(codes @ IW) + np.linalg.norm(Wc))
        four = lam * (
            np.linalg.norm(codes - L[c, :m, :nc])
            - nc * np.linalg.norm(codes - M[c, :m, :nc])
        )
        total += one + two + three + four
    return total / len(blocks.index)
