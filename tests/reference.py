"""Plain transcriptions of the authors' MATLAB code, for tests and benchmarks.

Written to be read against ``FDLSR.m`` line by line, not to be fast: samples are
columns, the d x d systems are inverted explicitly, the class means come from slicing
class-sorted columns, and the loop always runs ``max_iter`` times.
"""

import numpy as np


def fdlsr_transcription(X, labels, alpha, beta, lam, max_iter=30, init_ridge=1e-4):
    """FDLSR.m: ``X`` is d x n with columns sorted by class; returns Q (c x d).

    ``labels`` are integer class codes 0..c-1, non-decreasing.
    """
    d, n = X.shape
    classes, train_num = np.unique(labels, return_counts=True)
    c = classes.size
    assert np.all(np.diff(labels) >= 0), "the transcription needs class-sorted columns"
    H = np.zeros((c, n))
    H[labels, np.arange(n)] = 1
    Q = H @ X.T @ np.linalg.inv(X @ X.T + init_ridge * np.eye(d))
    S = np.zeros((c, n))
    B = 2 * H - np.ones((c, n))
    T = H + B * S
    temp = X.T @ np.linalg.inv(X @ X.T + beta * np.eye(d))
    bounds = np.concatenate(([0], np.cumsum(train_num)))
    for _ in range(max_iter):
        Tk, Qk, Sk = T, Q, S
        M_hat = np.hstack(
            [
                np.tile(
                    Tk[:, bounds[i] : bounds[i + 1]].sum(axis=1, keepdims=True)
                    / train_num[i],
                    (1, train_num[i]),
                )
                for i in range(c)
            ]
        )
        M = np.tile(Tk.sum(axis=1, keepdims=True) / n, (1, n))
        T = (Qk @ X + alpha * (H + B * Sk) - lam * M + lam * 2 * M_hat) / (
            1 + alpha + 2 * lam
        )
        Q = T @ temp
        S = np.maximum((T - H) * B, 0)
    return Q
