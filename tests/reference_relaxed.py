"""Plain transcriptions of the authors' MATLAB code for DLSR and LRDLSR, for tests.

Written to be read against the MATLAB line by line, not to be fast: samples are
columns, inverses are explicit, and classes are consecutive equal-sized blocks where
the original code assumes it.
"""

import numpy as np


def least_squares_regression(X, Y, gamma):
    """Xiang & Nie's ``least_squares_regression.m``: ridge with intercept.

    ``X`` is d x N (columns are samples), ``Y`` is c x N; returns ``W`` (d x c) and
    ``b`` (c,) of the model ``y = W^T x + b``.
    """
    dim, N = X.shape
    XX = X - X.mean(axis=1, keepdims=True)
    if dim < N:
        W = np.linalg.solve(XX @ XX.T + gamma * np.eye(dim), XX @ Y.T)
    else:
        W = XX @ np.linalg.solve(XX.T @ XX + gamma * np.eye(N), Y.T)
    b = (Y - W.T @ X).mean(axis=1)
    return W, b


def dlsr_transcription(X, class_id, lam, iters=30, epsilon=1e-4):
    """The DLSR training loop of the authors' code (classification variant).

    ``X`` is d x N, ``class_id`` holds codes 0..c-1. Returns ``W`` (d x c), ``b``.
    """
    dim, N = X.shape
    num_class = class_id.max() + 1
    Y = np.zeros((num_class, N))
    B = -np.ones((N, num_class))
    Y[class_id, np.arange(N)] = 1.0
    B[np.arange(N), class_id] = 1.0
    W0, b0 = least_squares_regression(X, Y, lam)
    W, b = W0, b0
    for _ in range(iters):
        P = X.T @ W0 + np.ones((N, 1)) @ b0[None, :] - Y.T
        M = np.maximum(B * P, 0)
        R = Y.T + B * M
        W, b = least_squares_regression(X, R.T, lam)
        if np.trace((W - W0).T @ (W - W0)) + (b - b0) @ (b - b0) < epsilon:
            break
        W0, b0 = W, b
    return W, b


def lrdlsr_transcription(X, c, H, train_num, alpha, beta, gamma, lam):
    """``LRDLSR.m``: ``X`` is d x n with classes in consecutive blocks of ``train_num``.

    Returns ``Q`` (c x d) and the number of iterations.
    """
    rho, tol, max_mu, mu, max_iter = 1.1, 1e-6, 1e8, 1e-5, 1000
    d, n = X.shape
    Q = np.zeros((c, d))
    T = H.copy()
    P = H.copy()
    M = np.ones((c, n))
    B = 2 * H - np.ones((c, n))
    Y1 = np.zeros((c, n))
    it = 0
    inverse = np.linalg.inv(X @ X.T + lam * np.eye(d))
    while it < max_iter:
        it += 1
        Qk, Mk = Q, M
        R = H + B * Mk
        T = (Qk @ X + alpha * R + mu * P - Y1) / (1 + alpha + gamma + mu)
        for i in range(c):
            cols = slice(i * train_num, (i + 1) * train_num)
            U, s, Vt = np.linalg.svd(T[:, cols] + Y1[:, cols] / mu, full_matrices=False)
            svp = int(np.sum(s > beta / mu))
            if svp >= 1:
                s = s[:svp] - beta / mu
            else:
                svp, s = 1, np.zeros(1)
            P[:, cols] = U[:, :svp] @ np.diag(s) @ Vt[:svp, :]
        Q = T @ X.T @ inverse
        M = np.maximum(B * (T - H), 0)
        leq1 = T - P
        if np.max(np.abs(leq1)) < tol or it >= max_iter:
            break
        Y1 = Y1 + mu * leq1
        mu = min(max_mu, mu * rho)
    return Q, it
