"""FDLSRCV's candidates scored on its validation folds, in rounds.

A candidate is a grid point (alpha, beta, decision rule, lambda). Each round runs the
remaining candidates to a number of iterations and scores them on every fold: the
exact grid is one round at ``max_iter``; successive halving
(:mod:`fdlsr._core.halving`) is several, each continuing from where the previous one
stopped. On a fold, the (alpha, lambda) pairs of one beta that are still in the
search are stacked and iterated together (:mod:`fdlsr._core.grid`), and the decision
rules share each fitted projection, so a pair is iterated once for all its rules.

Between rounds each pair keeps its relaxed labels T and their ``T P_beta`` per fold
(the S-step's target and the class means follow from T), so no iteration is run
twice. Memory: in a search of several rounds, after the first round, two
c x n_train arrays per (alpha, beta, lambda) point and fold, until the next round
keeps only the best of them; the single round of the exact grid holds only those of
the beta being iterated.

Nothing here knows about the estimator's parameters' validation or its results: the
search is handed the candidates (:class:`SearchGrid`) and FDLSR's parameters that it
keeps fixed (:class:`FixedParams`).
"""

import time
from dataclasses import dataclass

import numpy as np

from .._common.class_means import one_hot
from .._common.classifiers import NEIGHBOR_RULES
from .._common.compat import device, get_namespace
from .._common.neighbors import NearestProjection, centroid_scores, class_centroids
from .estimator import FDLSR
from .grid import HatOperators, search_grid


@dataclass(frozen=True)
class SearchGrid:
    """The candidates: values of alpha, beta (> 0) and lambda, and decision rules.

    A candidate is numbered in ParameterGrid's order (its keys sorted): alpha
    slowest, then beta, decision rule, lambda fastest.
    """

    alphas: np.ndarray
    betas: np.ndarray
    rules: list
    lams: np.ndarray

    @property
    def shape(self):
        """(alphas, betas, rules, lams): the candidates as a 4-d grid."""
        return len(self.alphas), len(self.betas), len(self.rules), len(self.lams)


@dataclass(frozen=True)
class FixedParams:
    """FDLSR's parameters that every fit of a search shares (see :class:`FDLSR`)."""

    max_iter: int
    init_ridge: float
    t_step: str
    n_neighbors: int
    weights: str
    solver: str


def search_rounds(make_fold, n_folds, grid_shape, n_resources, select, report=None):
    """Score candidates on every fold in rounds, continuing the ones ``select`` keeps.

    ``make_fold(f)`` returns fold ``f``'s :class:`FoldSearch`; ``grid_shape`` is
    (alphas, betas, rules, lams), the candidates numbered in that (ParameterGrid)
    order; ``n_resources[i]`` is the number of iterations after round ``i``;
    ``select(scores, candidates)`` returns the candidates (sorted) that continue.
    ``report``, if given, is told of the progress: ``report.round(i, candidates)``
    as round ``i`` starts, ``report.scored(i, f, b, scores)`` after fold ``f`` has
    scored the candidates of beta ``b`` (``scores`` of shape (alphas, rules, lams),
    NaN for those not in the round).

    Returns, per round, ``(candidates, scores)``: the candidates scored (sorted) and
    their scores, shape (n_folds, n_candidates).
    """
    n_alphas, n_betas, n_rules, n_lams = grid_shape
    candidates = np.arange(np.prod(grid_shape))
    folds = [None] * n_folds
    states = [{} for _ in range(n_folds)]  # per fold: beta -> (pairs, T, fitted)
    done, rounds = 0, []
    for i, n_iter in enumerate(n_resources):
        last = i == len(n_resources) - 1
        alive = np.zeros(int(np.prod(grid_shape)), dtype=bool)
        alive[candidates] = True
        # (alpha, lambda) pairs, numbered alpha-major, with a rule still searched
        pairs_alive = alive.reshape(grid_shape).any(axis=2).transpose(1, 0, 2)
        scores = np.full((n_folds, *grid_shape), np.nan)
        if report is not None:
            report.round(i, candidates)
        for f in range(n_folds):
            fold = folds[f] if folds[f] is not None else make_fold(f)
            for b in range(n_betas):
                pairs = np.flatnonzero(pairs_alive[b])
                start = _subset(states[f].pop(b, None), pairs)
                if not pairs.size:
                    continue
                T, fitted = fold.advance(b, pairs, n_iter - done, start)
                a, lam = np.divmod(pairs, n_lams)
                scores[f, a, b, :, lam] = fold.score(b, pairs, T, fitted, n_iter)
                if report is not None:
                    in_round = alive.reshape(grid_shape)[:, b]
                    report.scored(i, f, b, np.where(in_round, scores[f, :, b], np.nan))
                if not last:
                    states[f][b] = (pairs, T, fitted)
            folds[f] = None if last else fold  # the last round frees each fold
        rounds.append((candidates, scores.reshape(n_folds, -1)[:, candidates]))
        if not last:
            candidates = np.sort(select(rounds[-1][1], candidates))
        done = n_iter
    return rounds


def _subset(state, pairs):
    """The ``(T, fitted)`` of ``pairs`` from a stored ``(pairs, T, fitted)``."""
    if state is None:
        return None
    kept, T, fitted = state
    if kept.size == pairs.size:
        return T, fitted
    rows = np.searchsorted(kept, pairs)
    if isinstance(T, np.ndarray):
        return T[rows, ...], fitted[rows, ...]
    xp, _ = get_namespace(T)
    rows = xp.asarray(rows, device=device(T))
    return xp.take(T, rows, axis=0), xp.take(fitted, rows, axis=0)


class FoldSearch:
    """One training/validation fold: the eigendecomposition of its Gram matrix, the
    ridge operators of each beta (kept between rounds), and the steps that advance
    and score a stack of (alpha, lambda) pairs of one beta.

    ``X`` and ``codes`` are all the training samples and their class codes (host
    integers); ``train`` and ``test`` index the fold. ``grid`` holds the candidates
    (:class:`SearchGrid`) and ``fixed`` FDLSR's other parameters
    (:class:`FixedParams`). ``scorer`` is a scikit-learn scorer or None (accuracy of
    each rule, without building models); for a scorer, ``y`` are the labels given to
    ``fit`` and ``classes`` the labels of the codes.
    """

    def __init__(self, X, codes, train, test, *, grid, fixed, scorer, y, classes):
        xp, _ = get_namespace(X)
        fold_classes, y_train = np.unique(codes[train], return_inverse=True)
        order = np.argsort(y_train, kind="stable")  # class-sorted: reshape-based means
        train, y_train = train[order], y_train[order]
        c = fold_classes.size
        # Validation labels as codes of this fold's classes (-1: unseen, always wrong).
        position = np.searchsorted(fold_classes, codes[test]).clip(max=c - 1)
        y_test = np.where(fold_classes[position] == codes[test], position, -1)
        if not isinstance(X, np.ndarray):
            dev = device(X)
            train, test, y_train, y_test = (
                xp.asarray(a, device=dev) for a in (train, test, y_train, y_test)
            )
        self.X_train, self.X_test = xp.take(X, train, axis=0), xp.take(X, test, axis=0)
        self.n_features = self.X_train.shape[1]
        n = self.X_train.shape[0]
        form = fixed.solver
        if form == "auto":
            form = "dual" if self.n_features > n else "primal"
        self.hats = HatOperators(self.X_train, form)
        self.init_fitted = self.hats.fitted(fixed.init_ridge)(
            one_hot(y_train, c, X.dtype)
        )
        self.y_train, self.y_test, self.n_classes = y_train, y_test, c
        self.fold_classes, self.test = fold_classes, test
        self.grid, self.fixed = grid, fixed
        self.scorer, self.y, self.classes = scorer, y, classes
        self._ops, self._readouts = {}, {}
        self.pairs = np.array(
            np.meshgrid(grid.alphas, grid.lams, indexing="ij")
        ).reshape(2, -1)

    def advance(self, b, pairs, n_iter, start=None):
        """``(T, fitted)`` of ``pairs`` (indices of :attr:`pairs`) with ``betas[b]``
        after ``n_iter`` more iterations from ``start`` (None: from the labels)."""
        if b not in self._ops:
            self._ops[b] = self.hats.fitted(self.grid.betas[b])
        return search_grid(
            self._ops[b],
            self.init_fitted,
            self.y_train,
            self.n_classes,
            self.pairs[0][pairs],
            self.pairs[1][pairs],
            max_iter=n_iter,
            t_step=self.fixed.t_step,
            start=start,
        )

    def score(self, b, pairs, T, fitted, n_iter):
        """Validation scores of ``pairs`` with ``betas[b]`` after ``n_iter``
        iterations in total, shape (n_pairs, n_rules)."""
        fixed, rules = self.fixed, self.grid.rules
        beta = self.grid.betas[b]
        ridge = beta if n_iter else fixed.init_ridge
        y_train, c = self.y_train, self.n_classes
        if self.scorer is None:
            if ridge not in self._readouts:
                self._readouts[ridge] = self.hats.readout(ridge, self.X_test)
            projected = T @ self._readouts[ridge]  # (pairs, c, n_test): Q X_test^T
            y_test = self.y_test
            return np.array(
                [
                    _accuracies(rules, fitted[j, ...], projected[j, ...], y_train,
                                y_test, c, n_neighbors=fixed.n_neighbors,
                                weights=fixed.weights)
                    for j in range(len(pairs))
                ]
            )  # fmt: skip
        xp, _ = get_namespace(self.X_test)
        C = self.hats.coef(ridge)
        y_test = xp.take(self.y, self.test, axis=0)
        values = []
        for j, (alpha, lam) in enumerate(self.pairs[:, pairs].T):
            models = _fitted_models(
                fixed, rules, alpha, beta, lam, T[j, ...] @ C, fitted[j, ...],
                y_train, _take_classes(self.classes, self.fold_classes),
                self.n_features, n_iter,
            )  # fmt: skip
            values.append([self.scorer(est, self.X_test, y_test) for est in models])
        return np.array(values)


def _rule_state(rules, fitted, y_train, n_classes):
    """What the rules need from the training projections ``fitted`` (c x n)."""
    neighbors = centroids = None
    if NEIGHBOR_RULES.intersection(rules):
        neighbors = NearestProjection(fitted.T, y_train, n_classes)
    if "nearest_mean" in rules:
        centroids = class_centroids(fitted.T, y_train, n_classes)
    return neighbors, centroids


def _accuracies(
    rules, fitted, projected, y_train, y_test, n_classes, *, n_neighbors, weights
):
    """Accuracy of each rule from training (c x n) and test (c x n_test) projections,
    as ``FDLSR.predict`` computes them (``n_neighbors`` and ``weights``: the k-NN
    vote's)."""
    xp, _ = get_namespace(projected)
    neighbors, centroids = _rule_state(rules, fitted, y_train, n_classes)
    out = []
    for rule in rules:
        if rule == "nearest_neighbor":
            pred = neighbors.predict(projected.T)
        elif rule == "knn":
            scores = neighbors.knn_scores(projected.T, n_neighbors, weights)
            pred = xp.argmax(scores, axis=1)
        elif rule == "nearest_mean":
            pred = xp.argmax(centroid_scores(projected.T, centroids), axis=1)
        else:
            pred = xp.argmax(projected, axis=0)
        out.append(float(xp.mean(xp.astype(pred == y_test, projected.dtype))))
    return out


def _fitted_models(
    fixed, rules, alpha, beta, lam, coef, fitted, y_train, classes, n_features, n_iter
):
    """An FDLSR per rule at one grid point, without refitting, for a generic scorer
    (``classes``: the labels of the fold's classes)."""
    n_classes = classes.shape[0]
    neighbors, _ = _rule_state(rules, fitted, y_train, n_classes)
    centroids = class_centroids(fitted.T, y_train, n_classes)
    models = []
    for rule in rules:
        est = FDLSR(
            alpha=alpha,
            beta=beta,
            lam=lam,
            max_iter=fixed.max_iter,
            init_ridge=fixed.init_ridge,
            t_step=fixed.t_step,
            decision_rule=rule,
            n_neighbors=fixed.n_neighbors,
            weights=fixed.weights,
            solver=fixed.solver,
        )
        est.classes_ = classes
        est.coef_ = coef
        est.centroids_ = centroids
        if rule in NEIGHBOR_RULES:
            est.neighbors_ = neighbors
        est.n_features_in_ = n_features
        est.n_iter_ = n_iter
        est._n_features_out = n_classes
        models.append(est)
    return models


def _take_classes(classes, codes):
    """``classes[codes]`` for host ``codes``, whatever the namespace of ``classes``."""
    if isinstance(classes, np.ndarray):
        return classes[codes]
    xp, _ = get_namespace(classes)
    return xp.take(classes, xp.asarray(codes, device=device(classes)), axis=0)


class SearchLog:
    """The progress lines of ``FDLSRCV(verbose=...)``, given to
    :func:`search_rounds`."""

    def __init__(self, grid, n_folds, schedule, verbose=1):
        self.grid, self.n_folds, self.schedule = grid, n_folds, schedule
        self.verbose = verbose
        self.started = time.perf_counter()

    def round(self, i, candidates):
        n = candidates.size
        if self.schedule is not None:
            print(
                f"----------\niter: {i}\nn_candidates: {n}\n"
                f"n_resources: {self.schedule.n_resources[i]}"
            )
        print(
            f"Fitting {self.n_folds} folds for each of {n} candidates, totalling "
            f"{self.n_folds * n} fits",
            flush=True,
        )
        self.started = time.perf_counter()

    def scored(self, i, f, b, scores):
        grid, fold = self.grid, f"[CV {f + 1}/{self.n_folds}]"
        beta = float(grid.betas[b])
        scored = np.argwhere(~np.isnan(scores))  # (alpha, rule, lam) in grid order
        now = time.perf_counter()
        if self.verbose > 1:
            for a, r, v in scored:
                params = dict(
                    alpha=float(grid.alphas[a]),
                    beta=beta,
                    decision_rule=grid.rules[r],
                    lam=float(grid.lams[v]),
                )
                print(f"{fold} END {params_text(params)}; score={scores[a, r, v]:.3f}")
        print(
            f"{fold} beta={beta:g} ({b + 1}/{len(grid.betas)}): {len(scored)} "
            f"candidates, best score {np.nanmax(scores):.3f}; "
            f"{now - self.started:.1f} s",
            flush=True,
        )
        self.started = now


def params_text(params):
    return ", ".join(f"{key}={value}" for key, value in sorted(params.items()))
