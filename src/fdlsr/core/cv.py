"""FDLSR with its parameters and decision rule chosen by cross-validation, sharing work
across the grid."""

import numpy as np
from scipy.stats import rankdata
from sklearn.metrics import check_scoring, get_scorer_names
from sklearn.model_selection import StratifiedKFold, check_cv
from sklearn.utils.validation import validate_data

from ..common.class_means import one_hot
from ..common.classifiers import NEIGHBOR_RULES, RULES
from ..common.compat import (
    StrOptions,
    _convert_to_numpy,
    _fit_context,
    device,
    get_namespace,
)
from ..common.neighbors import NearestProjection, centroid_scores, class_centroids
from ..common.validation import encode_labels
from .estimator import FDLSR
from .grid import HatOperators, search_grid

#: The grid of the paper (Sec. IV-A) for each of alpha, beta and lambda.
PAPER_GRID = (1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
#: FDLSR's parameters that the search keeps fixed (same meaning and constraints).
_FIXED = ("max_iter", "init_ridge", "t_step", "n_neighbors", "weights", "solver")


class FDLSRCV(FDLSR):
    """FDLSR with alpha, beta, lambda and the decision rule chosen by cross-validation.

    For each training fold the Gram matrix is decomposed once; every beta reuses that
    decomposition and, for each beta, the relaxed labels of all (alpha, lambda) pairs
    are iterated together so that an iteration is one large matrix product. The
    decision rules share each fitted projection, so every rule of ``decision_rules``
    is scored on it without another fit. The best grid point (highest mean validation
    score; the first in grid order on ties) is refitted on the whole training set.
    The selected parameters and scores are those of ``GridSearchCV(FDLSR(...))`` over
    the same grid and folds; only the cost differs.

    Arrays of other array-API libraries (with ``array_api_dispatch=True``) are
    accepted: the search and the refit then run in their namespace, on their device
    (only the labels' fold bookkeeping and the grid's scores go through the host).

    Parameters
    ----------
    alphas, betas, lams : array-like of float, default=PAPER_GRID
        Candidate values of ``alpha``, ``beta`` (> 0) and ``lam``; the default is the
        paper's grid {1e-5, 1e-4, ..., 1}.
    decision_rules : sequence of str, \
            default=("nearest_neighbor", "nearest_mean", "knn", "linear")
        Candidate decision rules (see :class:`~fdlsr.FDLSR`); on equal scores the
        earlier one wins, so by default the paper's 1-NN rule. Pass
        ``["nearest_neighbor"]`` to search the paper's parameters only.
    cv : int, cross-validation generator or iterable, default=None
        As in scikit-learn. ``None`` uses ``StratifiedKFold`` with
        ``min(5, smallest class count)`` folds, which suits training sets of k
        samples per class; an int is a number of stratified folds.
    scoring : str or callable, default=None
        ``None`` scores by accuracy of each candidate rule, computed without building
        a model per grid point. Anything else is a scikit-learn scorer, called on an
        FDLSR fitted at each grid point (one per rule, sharing the projection).
    max_iter, init_ridge, t_step, n_neighbors, weights, solver
        Fixed parameters of every fit, as in :class:`~fdlsr.FDLSR`. The search runs
        ``max_iter`` iterations at every grid point, as the authors' code does.

    Attributes
    ----------
    alpha_, beta_, lam_ : float
        The selected parameters.
    decision_rule_ : str
        The selected decision rule, which ``predict`` applies.
    best_params_ : dict
        The same, keyed ``alpha``, ``beta``, ``decision_rule``, ``lam``.
    best_score_ : float
        Mean validation score of the selected grid point.
    best_index_ : int
        Its row in ``cv_results_``.
    cv_results_ : dict of arrays
        As ``GridSearchCV.cv_results_``: ``params``, ``param_alpha``, ``param_beta``,
        ``param_decision_rule``, ``param_lam``, ``split{i}_test_score``,
        ``mean_test_score``, ``std_test_score``, ``rank_test_score``; rows in
        ParameterGrid order (alpha slowest, then beta, decision_rule, lam fastest).
    n_splits_ : int
    classes_, coef_, centroids_, neighbors_, n_iter_, objective_, n_features_in_
        Of the FDLSR refitted on the whole training set with the best parameters
        (``neighbors_`` only if the chosen rule is a neighbour rule).

    See Also
    --------
    FDLSR : the model with fixed parameters.
    sklearn.model_selection.GridSearchCV : the generic search it is equivalent to.

    Notes
    -----
    With ``P_beta = X (X^T X + beta I)^-1 X^T`` every ridge step (Eq. 16) of Algorithm
    1 is ``Q X^T = T P_beta`` and ``Q = T X (X^T X + beta I)^-1``. From the
    eigendecomposition ``X X^T = U diag(s) U^T`` (or that of ``X^T X`` when there are
    fewer features than samples), ``P_beta = U diag(s / (s + beta)) U^T`` for every
    beta. Per fold and beta, the T-steps (Eq. 14) of all (alpha, lambda) pairs share
    one product ``[T_1; ...; T_g] P_beta`` per iteration. The rules are then applied
    to the same training and validation projections.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.preprocessing import normalize
    >>> from fdlsr import FDLSRCV
    >>> X, y = load_digits(return_X_y=True)
    >>> X = normalize(X)
    >>> model = FDLSRCV(alphas=[1e-2, 1], betas=[1e-3, 1e-1], lams=[1e-1], cv=3)
    >>> model.fit(X[:300], y[:300]).score(X[300:600], y[300:600]) > 0.8
    True
    >>> sorted(model.best_params_)
    ['alpha', 'beta', 'decision_rule', 'lam']
    """

    _parameter_constraints: dict = {
        "alphas": ["array-like"],
        "betas": ["array-like"],
        "lams": ["array-like"],
        "decision_rules": ["array-like"],
        "cv": ["cv_object"],
        "scoring": [StrOptions(set(get_scorer_names())), callable, None],
        **{name: FDLSR._parameter_constraints[name] for name in _FIXED},
    }

    def __init__(
        self,
        alphas=PAPER_GRID,
        betas=PAPER_GRID,
        lams=PAPER_GRID,
        *,
        decision_rules=RULES,
        cv=None,
        scoring=None,
        max_iter=30,
        init_ridge=1e-4,
        t_step="paper",
        n_neighbors=5,
        weights="uniform",
        solver="auto",
    ):
        self.alphas = alphas
        self.betas = betas
        self.lams = lams
        self.decision_rules = decision_rules
        self.cv = cv
        self.scoring = scoring
        self.max_iter = max_iter
        self.init_ridge = init_ridge
        self.t_step = t_step
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.solver = solver

    def _fixed_params(self):
        return {name: getattr(self, name) for name in _FIXED}

    def _decision_rule(self):
        return self.decision_rule_

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Search the grid by cross-validation, then refit the best on all of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : FDLSRCV
        """
        xp, _ = get_namespace(X)
        X, y = validate_data(self, X, y, dtype=[xp.float64, xp.float32])
        codes = encode_labels(self, y)
        # The folds' bookkeeping (sample indices, classes) is done on the host from
        # the labels; the search itself runs in X's namespace, on its device.
        codes = _to_numpy(codes)
        alphas = _grid(self.alphas, "alphas", positive=False)
        betas = _grid(self.betas, "betas", positive=True)
        lams = _grid(self.lams, "lams", positive=False)
        rules = _rules(self.decision_rules)
        # Splitters need only the number of samples from X: a host stand-in spares
        # them device arrays.
        X_split = X if isinstance(X, np.ndarray) else np.empty((X.shape[0], 0))
        folds = list(self._cv(codes).split(X_split, codes))
        scorer = None if self.scoring is None else check_scoring(FDLSR(), self.scoring)

        # scores[fold, a, b, rule, l]: ParameterGrid order (keys sorted)
        scores = np.empty((len(folds), alphas.size, betas.size, len(rules), lams.size))
        for f, (train, test) in enumerate(folds):
            scores[f] = _search_fold(
                X, codes, train, test, alphas, betas, lams, rules, self, scorer, y
            )
        self.n_splits_ = len(folds)
        self._set_results(scores, alphas, betas, rules, lams)

        best = FDLSR(**self.best_params_, **self._fixed_params())
        best.fit(X, y)
        for name in ("coef_", "n_iter_", "objective_", "centroids_", "classes_"):
            setattr(self, name, getattr(best, name))
        self.alpha_, self.beta_, self.lam_, self.decision_rule_ = (
            self.best_params_[k] for k in ("alpha", "beta", "lam", "decision_rule")
        )
        self._set_neighbors(lambda: best.neighbors_)
        self._n_features_out = best._n_features_out
        return self

    def _cv(self, codes):
        if self.cv is not None:
            return check_cv(self.cv, codes, classifier=True)
        smallest = int(np.bincount(codes).min())
        if smallest < 2:
            raise ValueError(
                "FDLSRCV cross-validates within every class, but a class has only "
                f"{smallest} training sample. Give at least 2 samples per class, "
                "pass cv= explicitly, or use FDLSR with fixed parameters."
            )
        return StratifiedKFold(n_splits=min(5, smallest))

    def _set_results(self, scores, alphas, betas, rules, lams):
        n_splits = scores.shape[0]
        # ParameterGrid order: alpha, beta, decision_rule, lam
        flat = scores.reshape(n_splits, -1)
        index = np.indices(scores.shape[1:]).reshape(4, -1)
        alpha, beta, lam = alphas[index[0]], betas[index[1]], lams[index[3]]
        rule = np.array(rules, dtype=object)[index[2]]
        mean, std = flat.mean(axis=0), flat.std(axis=0)
        results = {
            "params": [
                {
                    "alpha": float(a),
                    "beta": float(b),
                    "decision_rule": r,
                    "lam": float(v),
                }
                for a, b, r, v in zip(alpha, beta, rule, lam, strict=True)
            ],
            "param_alpha": alpha,
            "param_beta": beta,
            "param_decision_rule": rule,
            "param_lam": lam,
        }
        for i in range(n_splits):
            results[f"split{i}_test_score"] = flat[i]
        # Ranking as GridSearchCV: ties share the best rank, NaN ranks last.
        filled = np.where(np.isnan(mean), -np.inf, mean)
        rank = rankdata(-filled, method="min").astype(np.int32)
        results.update(mean_test_score=mean, std_test_score=std, rank_test_score=rank)
        self.cv_results_ = results
        self.best_index_ = int(rank.argmin())
        self.best_params_ = results["params"][self.best_index_]
        self.best_score_ = float(mean[self.best_index_])


def _to_numpy(a):
    return a if isinstance(a, np.ndarray) else _convert_to_numpy(a, get_namespace(a)[0])


def _grid(values, name, positive):
    values = np.asarray(values, dtype=np.float64).ravel()
    low_ok = values > 0 if positive else values >= 0
    if values.size == 0 or not np.all(np.isfinite(values) & low_ok):
        bound = "> 0" if positive else ">= 0"
        raise ValueError(
            f"FDLSRCV's {name} must be a non-empty list of finite values {bound}; "
            f"got {values.tolist()}."
        )
    return values


def _rules(values):
    rules = [values] if isinstance(values, str) else list(values)
    unknown = [r for r in rules if r not in RULES]
    if not rules or unknown or len(set(rules)) < len(rules):
        raise ValueError(
            "FDLSRCV's decision_rules must be a non-empty list of distinct rules "
            f"among {list(RULES)}; got {rules}."
        )
    return rules


def _search_fold(X, codes, train, test, alphas, betas, lams, rules, model, scorer, y):
    """Validation scores of every grid point on one fold, shape (alphas, betas, rules,
    lams)."""
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
    X_train, X_test = xp.take(X, train, axis=0), xp.take(X, test, axis=0)
    n, d = X_train.shape
    form = model.solver
    if form == "auto":
        form = "dual" if d > n else "primal"
    hats = HatOperators(X_train, form)
    init_fitted = hats.fitted(model.init_ridge)(one_hot(y_train, c, X.dtype))
    pairs = np.array(np.meshgrid(alphas, lams, indexing="ij")).reshape(2, -1)
    scores = np.empty((alphas.size, betas.size, len(rules), lams.size))
    for b, beta in enumerate(betas):
        ridge = beta if model.max_iter else model.init_ridge
        T, fitted = search_grid(
            hats.fitted(beta),
            init_fitted,
            y_train,
            c,
            pairs[0],
            pairs[1],
            max_iter=model.max_iter,
            t_step=model.t_step,
        )
        if scorer is None:
            readout = hats.readout(ridge, X_test)
            projected = T @ readout  # (pairs, c, n_test): Q X_test^T per pair
            values = [
                _accuracies(
                    rules, model, fitted[j, ...], projected[j, ...], y_train, y_test, c
                )
                for j in range(pairs.shape[1])
            ]
        else:
            C = hats.coef(ridge)
            y_fold_test = xp.take(y, test, axis=0)
            values = [
                [
                    scorer(est, X_test, y_fold_test)
                    for est in _fitted_models(
                        model,
                        rules,
                        a,
                        beta,
                        lam,
                        T[j, ...] @ C,
                        fitted[j, ...],
                        y_train,
                        fold_classes,
                        d,
                    )
                ]
                for j, (a, lam) in enumerate(pairs.T)
            ]
        # values[pair][rule], pairs in (alpha, lam) order
        values = np.reshape(values, (alphas.size, lams.size, len(rules)))
        scores[:, b] = values.transpose(0, 2, 1)
    return scores


def _rule_state(rules, fitted, y_train, n_classes):
    """What the rules need from the training projections ``fitted`` (c x n)."""
    neighbors = centroids = None
    if NEIGHBOR_RULES.intersection(rules):
        neighbors = NearestProjection(fitted.T, y_train, n_classes)
    if "nearest_mean" in rules:
        centroids = class_centroids(fitted.T, y_train, n_classes)
    return neighbors, centroids


def _accuracies(rules, model, fitted, projected, y_train, y_test, n_classes):
    """Accuracy of each rule from training (c x n) and test (c x n_test) projections,
    as ``FDLSR.predict`` computes them."""
    xp, _ = get_namespace(projected)
    neighbors, centroids = _rule_state(rules, fitted, y_train, n_classes)
    out = []
    for rule in rules:
        if rule == "nearest_neighbor":
            pred = neighbors.predict(projected.T)
        elif rule == "knn":
            scores = neighbors.knn_scores(projected.T, model.n_neighbors, model.weights)
            pred = xp.argmax(scores, axis=1)
        elif rule == "nearest_mean":
            pred = xp.argmax(centroid_scores(projected.T, centroids), axis=1)
        else:
            pred = xp.argmax(projected, axis=0)
        out.append(float(xp.mean(xp.astype(pred == y_test, projected.dtype))))
    return out


def _fitted_models(
    model, rules, alpha, beta, lam, coef, fitted, y_train, classes, n_features
):
    """An FDLSR per rule at one grid point, without refitting, for a generic scorer."""
    neighbors, _ = _rule_state(rules, fitted, y_train, classes.size)
    centroids = class_centroids(fitted.T, y_train, classes.size)
    models = []
    for rule in rules:
        est = FDLSR(
            alpha=alpha, beta=beta, lam=lam, decision_rule=rule, **model._fixed_params()
        )
        est.classes_ = _take_classes(model.classes_, classes)
        est.coef_ = coef
        est.centroids_ = centroids
        if rule in NEIGHBOR_RULES:
            est.neighbors_ = neighbors
        est.n_features_in_ = n_features
        est.n_iter_ = model.max_iter
        est._n_features_out = classes.size
        models.append(est)
    return models


def _take_classes(classes, codes):
    """``classes[codes]`` for host ``codes``, whatever the namespace of ``classes``."""
    if isinstance(classes, np.ndarray):
        return classes[codes]
    xp, _ = get_namespace(classes)
    return xp.take(classes, xp.asarray(codes, device=device(classes)), axis=0)
