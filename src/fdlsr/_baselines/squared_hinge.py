"""One-vs-rest linear SVMs (squared hinge, L2 penalty) by liblinear's trust-region
Newton method, all problems at once, on the samples' Gram matrix.

scikit-learn's ``LinearSVC(dual=False)`` solves, for every class ``j`` of the
one-vs-rest scheme, ``min_w 1/2 ||w||^2 + C sum_i max(0, 1 - s_ji w.x_i)^2``
(``s_ji = +1`` for the class's samples, else ``-1``; the intercept is the weight of a
constant feature) with liblinear's TRON (Lin, Weng & Keerthi, JMLR 2008):
trust-region Newton steps, each solved by conjugate gradients on
``H = I + 2 X_I^T diag(C) X_I`` (``I``: the samples inside the margin). liblinear
runs the classes one after another, one sample at a time, far below the machine's
matrix-product rate.

Here every problem takes the steps of liblinear's ``tron.cpp`` (the same
trust-region rules, conjugate-gradient stopping and boundary steps, and tests to
stop), but in the coordinates of the samples: every vector TRON forms (``w``, the
gradient, the conjugate-gradient directions) is ``X^T a`` for some ``a`` (it starts
at zero and every step adds samples), so with the Gram matrix ``K = X X^T`` each
inner product is ``a.(K b)``, ``X w`` is ``K a`` and a Hessian product is
``a + 2 C_I (K a)_I``. The problems advance together: each conjugate-gradient
iteration of the problems still iterating is one product with ``K``, whatever the
number of features. The problems may differ in ``C`` (a grid of ``C`` for every
class is one batch). In exact arithmetic the iterates are liblinear's; in floating
point they differ by rounding, which matters only as far as liblinear's stopping
rule (a gradient ``tol * max(min(pos, neg), 1) / n`` times the first one) leaves
the result free: both are points within that tolerance of the same optimum.
"""

import numpy as np

# tron.cpp: acceptance thresholds of the actual/predicted reduction, and the factors
# that shrink or grow the trust region.
_ETA0, _ETA1, _ETA2 = 1e-4, 0.25, 0.75
_SIGMA1, _SIGMA2, _SIGMA3 = 0.25, 0.5, 4.0
# A conjugate-gradient run stops once its residual is this fraction of the gradient.
_CG_TOL = 0.1


def fit_squared_hinge(K, signs, C, *, tol, max_iter):
    """Solve ``min_w 1/2 ||w||^2 + C_j sum_i max(0, 1 - s_ji w.x_i)^2`` for every
    problem ``j``, with ``w = X^T a_j``.

    Parameters
    ----------
    K : ndarray of shape (n_samples, n_samples)
        The samples' Gram matrix ``X X^T`` (plus ``intercept_scaling^2`` everywhere
        for an intercept: liblinear's constant feature).
    signs : ndarray of shape (n_problems, n_samples)
        The label of every sample in every problem, +1 or -1.
    C : ndarray of shape (n_problems,)
        The weight of each problem's loss.
    tol : float
        liblinear's ``eps``: a problem stops once its gradient norm is at most
        ``tol * max(min(pos, neg), 1) / n_samples`` times its first one.
    max_iter : int
        Most accepted Newton steps per problem.

    Returns
    -------
    A : ndarray of shape (n_problems, n_samples)
        The coefficients of the samples: ``w_j = X^T A[j]``.
    n_iter : ndarray of int of shape (n_problems,)
        Accepted steps of each problem (liblinear's ``n_iter_``).
    """
    K = np.ascontiguousarray(K, dtype=np.float64)
    signs = np.asarray(signs, dtype=np.float64)
    C = np.asarray(C, dtype=np.float64)
    n_problems, n = signs.shape
    positive = np.count_nonzero(signs > 0, axis=1)
    eps = tol * np.maximum(np.minimum(positive, n - positive), 1) / n
    A = np.zeros((n_problems, n))
    KA = np.zeros((n_problems, n))  # X w of every problem
    f = _objective(A, KA, signs, C)
    grad = _Gradient(K, A, KA, signs, C)
    delta = np.sqrt(grad.gg)
    gnorm1 = delta.copy()
    n_iter = np.ones(n_problems, dtype=int)  # tron.cpp's iter: accepted steps + 1
    running = ~(delta <= eps * gnorm1)
    while True:
        P = np.flatnonzero(running & (n_iter <= max_iter))
        if P.size == 0:
            break
        g = grad.take(P)
        S, gs, sr, ss = _truncated_cg(K, delta[P], g)
        prered = -0.5 * (gs - sr)
        snorm = np.sqrt(np.maximum(ss, 0.0))
        A_new = A[P] + S
        KA_new = A_new @ K
        f_new = _objective(A_new, KA_new, signs[P], C[P])
        actred = f[P] - f_new
        first = n_iter[P] == 1
        delta[P] = np.where(first, np.minimum(delta[P], snorm), delta[P])
        delta[P] = _new_radius(delta[P], snorm, f[P], f_new, gs, actred, prered)
        accepted = actred > _ETA0 * prered
        Q = P[accepted]
        n_iter[Q] += 1
        A[Q], KA[Q], f[Q] = A_new[accepted], KA_new[accepted], f_new[accepted]
        grad.update(Q, K, A[Q], KA[Q], signs[Q], C[Q])
        converged = np.zeros(P.size, dtype=bool)
        converged[accepted] = np.sqrt(grad.gg[Q]) <= eps[Q] * gnorm1[Q]
        fp = f[P]
        stalled = (
            (fp < -1.0e32)
            | ((np.abs(actred) <= 0) & (prered <= 0))
            | (
                (np.abs(actred) <= 1e-12 * np.abs(fp))
                & (np.abs(prered) <= 1e-12 * np.abs(fp))
            )
        )
        running[P[converged | stalled]] = False
    return A, n_iter - 1


def _dot(U, V):
    """Row-wise inner products."""
    return np.einsum("ij,ij->i", U, V)


def _objective(A, KA, signs, C):
    """``1/2 ||w_j||^2 + C_j sum_i max(0, 1 - s_ji w_j.x_i)^2`` for every problem."""
    slack = np.maximum(1.0 - signs * KA, 0.0)
    return 0.5 * _dot(A, KA) + C * _dot(slack, slack)


class _Gradient:
    """The gradient ``g = X^T v`` of every problem at its current point: ``v``, ``Kv``
    (``= X g``), ``gg = ||g||^2`` and the Hessian's sample weights ``c`` (``C_j``
    inside the margin, else 0), updated when a problem accepts a step."""

    def __init__(self, K, A, KA, signs, C):
        self.v, self.Kv, self.gg, self.c = self._at(K, A, KA, signs, C)

    @staticmethod
    def _at(K, A, KA, signs, C):
        margins = signs * KA
        c = np.where(margins < 1.0, C[:, None], 0.0)
        u = c * signs * (margins - 1.0)  # g = w + 2 X^T u
        v = A + 2.0 * u
        Kv = KA + 2.0 * (u @ K)
        return v, Kv, _dot(v, Kv), c

    def update(self, rows, K, A, KA, signs, C):
        if rows.size:
            new = self._at(K, A, KA, signs, C)
            for array, value in zip(
                (self.v, self.Kv, self.gg, self.c), new, strict=True
            ):
                array[rows] = value

    def take(self, rows):
        part = object.__new__(_Gradient)
        part.v, part.Kv, part.gg, part.c = (
            self.v[rows],
            self.Kv[rows],
            self.gg[rows],
            self.c[rows],
        )
        return part


def _truncated_cg(K, delta, g):
    """tron.cpp's ``trcg`` for every problem: conjugate gradients on ``H s = -g``
    inside the trust region ``||s|| <= delta``.

    Every conjugate-gradient vector lies in ``span(g) + span(x_i, i in I)``, ``I``
    the samples inside the margin (``H = I + 2 X_I^T diag(C) X_I``): it is kept as
    ``gamma g + X_I^T b`` with its images ``u = g.x`` and ``t = X_I x``, so that
    ``<x, y> = gamma_y u_x + b_y.t_x`` and a Hessian product is one product with
    ``K_II``. Problems with few samples inside the margin gather their own
    ``K_II``; the others share ``K`` (``I``: every sample, with weight 0 outside the
    margin), one matrix product for all of them per iteration.

    Returns ``s`` as sample coefficients, ``g.s``, ``s.r`` (``r``: the residual) and
    ``||s||^2``.
    """
    m, n = g.v.shape
    inside = np.count_nonzero(g.c, axis=1)
    S = g.v * 0.0
    gs, sr, ss = np.empty(m), np.empty(m), np.empty(m)
    shared = inside > max(_SMALL_MARGIN, n * _SMALL_FRACTION)
    groups = [np.flatnonzero(shared)]
    by_size = np.flatnonzero(~shared)[np.argsort(inside[~shared], kind="stable")]
    start = 0
    while (
        start < by_size.size
    ):  # problems of similar sizes, K_II stacks of bounded size
        stop = start + 1
        while (
            stop < by_size.size
            and inside[by_size[stop]] ** 2 * (stop + 1 - start) <= _STACK_WORDS
        ):
            stop += 1
        groups.append(by_size[start:stop])
        start = stop
    for rows in groups:
        if rows.size == 0:
            continue
        if shared[rows[0]]:
            gamma, b, gs[rows], sr[rows], ss[rows] = _cg(
                K, g.Kv[rows], g.c[rows], g.gg[rows], delta[rows]
            )
            S[rows] = gamma[:, None] * g.v[rows] + b
            continue
        width = int(inside[rows].max())
        # The samples inside the margin first (then pads, whose weight is zero).
        order = np.argsort(g.c[rows] == 0, axis=1, kind="stable")[:, :width]
        KII = np.empty((rows.size, width, width))
        for j, samples in enumerate(order):
            KII[j] = K.take(samples, axis=0).take(samples, axis=1)
        c = np.take_along_axis(g.c[rows], order, axis=1)
        kg = np.take_along_axis(g.Kv[rows], order, axis=1)
        gamma, b, gs[rows], sr[rows], ss[rows] = _cg(
            KII, kg, c, g.gg[rows], delta[rows]
        )
        part = gamma[:, None] * g.v[rows]
        np.put_along_axis(part, order, np.take_along_axis(part, order, 1) + b, 1)
        S[rows] = part
    return S, gs, sr, ss


# Problems with at most this many (or this fraction) of their samples inside the
# margin gather their own K_II (in stacks of at most _STACK_WORDS numbers); the
# others share K. Gathering costs about 10 ns a number, a shared product 1/60 ns.
_SMALL_MARGIN = 64
_SMALL_FRACTION = 1.0 / 8.0
_STACK_WORDS = 2**22


def _cg(KII, kg, c, gg, delta):
    """The conjugate-gradient runs of a group of problems (see
    :func:`_truncated_cg`): ``KII`` is one matrix shared by all or a stack,
    ``kg = X_I g``, ``c`` the Hessian's weights on ``I``, ``gg = ||g||^2``.
    Returns each problem's ``gamma`` and ``b`` of ``s``, ``g.s``, ``s.r`` and
    ``||s||^2``.

    The rows of finished problems are left in place (their results saved) until
    half the rows have finished; then the running ones are packed at the top, so
    that iterations are whole-array passes over at most twice the running rows.
    """
    m = len(kg)
    stacked = KII.ndim == 3
    # Each vector: gamma (m,), b (m, |I|), u = g.x (m,), t = X_I x (m, |I|).
    r = [np.full(m, -1.0), np.zeros_like(kg), -gg, -kg]
    d = [a.copy() for a in r]
    s = [np.zeros(m), np.zeros_like(kg), np.zeros(m), np.zeros_like(kg)]
    cgtol = _CG_TOL * np.sqrt(np.maximum(gg, 0.0))
    rTr = gg.copy()
    order = np.arange(m)  # problem of each row
    live = np.ones(m, dtype=bool)
    out_gamma, out_b = np.empty(m), np.empty_like(kg)
    out = np.empty((3, m))  # g.s, s.r, ||s||^2
    arrays = [*r, *d, *s, kg, c, cgtol, rTr, delta, order, live]
    if stacked:
        arrays.append(KII)

    def finish(done):
        done = np.flatnonzero(done & live)
        gam, b, u, t = s
        rows = order[done]
        out_gamma[rows], out_b[rows] = gam[done], b[done]
        out[0, rows] = u[done]
        out[1, rows] = r[0][done] * u[done] + _dot(r[1][done], t[done])
        out[2, rows] = gam[done] * u[done] + _dot(b[done], t[done])
        live[done] = False

    finish(np.sqrt(np.maximum(rTr, 0.0)) <= cgtol)
    with np.errstate(all="ignore"):  # finished rows may compute anything
        while live.any():
            if 2 * np.count_nonzero(live) <= len(live):
                keep = np.flatnonzero(live)
                arrays = [a[keep] for a in arrays]
                r, d, s = arrays[0:4], arrays[4:8], arrays[8:12]
                kg, c, cgtol, rTr, delta, order, live = arrays[12:19]
                if stacked:
                    KII = arrays[19]
            rg, rb, ru, rt = r
            dg, db, du, dt = d
            sg, sb, su, st = s
            ctd = c * dt
            if stacked:
                q = np.matmul(KII, ctd[:, :, None])[:, :, 0]
            else:
                q = ctd @ KII
            # H d: gamma_d, b_d + 2 c t_d; images u_d + 2 kg.(c t_d), t_d + 2 K_II c t_d.
            hb = db + 2.0 * ctd
            hu = du + 2.0 * _dot(kg, ctd)
            ht = dt + 2.0 * q
            alpha = rTr / (dg * du + _dot(db, dt) + 2.0 * _dot(ctd, dt))
            ng, nb = sg + alpha * dg, sb + alpha[:, None] * db
            nu, nt = su + alpha * du, st + alpha[:, None] * dt
            outside = np.sqrt(np.maximum(ng * nu + _dot(nb, nt), 0.0)) > delta
            if outside.any():
                # Past the boundary: the step to the boundary along d from s, and stop.
                o = np.flatnonzero(outside)
                std = dg[o] * su[o] + _dot(db[o], st[o])
                sts = sg[o] * su[o] + _dot(sb[o], st[o])
                dtd = dg[o] * du[o] + _dot(db[o], dt[o])
                dsq = delta[o] ** 2
                rad = np.sqrt(std * std + dtd * (dsq - sts))
                step = np.where(std >= 0, (dsq - sts) / (std + rad), (rad - std) / dtd)
                alpha[o] = step
                ng[o], nb[o] = sg[o] + step * dg[o], sb[o] + step[:, None] * db[o]
                nu[o], nt[o] = su[o] + step * du[o], st[o] + step[:, None] * dt[o]
            sg[:], sb[:], su[:], st[:] = ng, nb, nu, nt
            rg -= alpha * dg
            rb -= alpha[:, None] * hb
            ru -= alpha * hu
            rt -= alpha[:, None] * ht
            rnew = rg * ru + _dot(rb, rt)
            beta = rnew / rTr
            for dv, rv in ((dg, rg), (du, ru)):
                dv *= beta
                dv += rv
            for dv, rv in ((db, rb), (dt, rt)):
                dv *= beta[:, None]
                dv += rv
            rTr[:] = rnew
            finish(outside | (np.sqrt(np.maximum(rnew, 0.0)) <= cgtol))
    return out_gamma, out_b, out[0], out[1], out[2]


def _new_radius(delta, snorm, f, f_new, gs, actred, prered):
    """tron.cpp's update of the trust-region radius after a trial step."""
    curvature = f_new - f - gs
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = np.where(
            curvature <= 0, _SIGMA3, np.maximum(_SIGMA1, -0.5 * (gs / curvature))
        )
    return np.select(
        [actred < _ETA0 * prered, actred < _ETA1 * prered, actred < _ETA2 * prered],
        [
            np.minimum(np.maximum(alpha, _SIGMA1) * snorm, _SIGMA2 * delta),
            np.maximum(_SIGMA1 * delta, np.minimum(alpha * snorm, _SIGMA2 * delta)),
            np.maximum(_SIGMA1 * delta, np.minimum(alpha * snorm, _SIGMA3 * delta)),
        ],
        np.maximum(delta, np.minimum(alpha * snorm, _SIGMA3 * delta)),
    )
