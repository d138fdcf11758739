"""FDLSR with its parameters and decision rule chosen by cross-validation, sharing work
across the grid: exhaustively, or by successive halving over the iterations."""

import warnings
from math import ceil
from numbers import Integral, Real

import numpy as np
from scipy.stats import rankdata
from sklearn.exceptions import NotFittedError
from sklearn.metrics import check_scoring, get_scorer_names
from sklearn.model_selection import StratifiedKFold, check_cv
from sklearn.utils.validation import validate_data

from .._common.classifiers import RULES
from .._common.compat import (
    Interval,
    StrOptions,
    _convert_to_numpy,
    _fit_context,
    get_namespace,
)
from .._common.validation import check_sample_scale, encode_labels
from ..errors import DataScaleWarning, TiedScoresWarning
from .estimator import FDLSR
from .halving import best_candidates, halving_schedule
from .search import (
    FixedParams,
    FoldSearch,
    SearchGrid,
    SearchLog,
    params_text,
    search_rounds,
)

#: The grid of the paper (Sec. IV-A) for each of alpha, beta and lambda.
PAPER_GRID = (1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
#: What the refit sets (and ``refit=False`` leaves unset).
_REFITTED = (
    "coef_", "n_iter_", "objective_", "centroids_", "neighbors_", "_n_features_out",
)  # fmt: skip
#: What a halving search sets beside ``cv_results_``.
_HALVING = (
    "n_resources_", "n_candidates_", "n_iterations_", "n_remaining_candidates_",
    "min_resources_", "max_resources_", "n_required_iterations_",
    "n_possible_iterations_",
)  # fmt: skip


class FDLSRCV(FDLSR):
    """FDLSR with alpha, beta, lambda and the decision rule chosen by cross-validation.

    For each training fold the Gram matrix is decomposed once; every beta reuses that
    decomposition and, for each beta, the relaxed labels of all (alpha, lambda) pairs
    are iterated together so that an iteration is one large matrix product. The
    decision rules share each fitted projection, so every rule of ``decision_rules``
    is scored on it without another fit. The best grid point (highest mean validation
    score; the first in grid order on ties, with a
    :class:`~fdlsr.errors.TiedScoresWarning` saying how many tied) is refitted on the
    whole training set.

    By default the search covers the paper's grid (6 values each of alpha, beta and
    lambda: 216 points) times the 4 decision rules: 864 candidates. To search the
    paper's grid alone (its 1-NN rule, 216 candidates), pass
    ``decision_rules=["nearest_neighbor"]``.
    With ``search="grid"`` (the default) the selected parameters and scores are
    those of ``GridSearchCV(FDLSR(...))`` over the same grid and folds; only the cost
    differs. ``search="halving"`` runs successive halving over the iterations
    instead: faster, but not always the grid's choice (see Notes).

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
        earlier one wins, so by default the paper's 1-NN rule. All four by default:
        on new data the best rule is not known, and searching it costs almost
        nothing (every rule is scored on the same fitted projection). Pass
        ``["nearest_neighbor"]`` to search the paper's protocol only, as
        ``fdlsr run --cv FDLSR`` does (``--cv-rules`` adds the other rules).
    cv : int, cross-validation generator or iterable, default=None
        As in scikit-learn. ``None`` uses ``StratifiedKFold`` with
        ``min(5, smallest class count)`` folds, which suits training sets of k
        samples per class; an int is a number of stratified folds.
    scoring : str or callable, default=None
        ``None`` scores by accuracy of each candidate rule, computed without building
        a model per grid point. Anything else is a scikit-learn scorer, called on an
        FDLSR fitted at each grid point (one per rule, sharing the projection).
    search : {"grid", "halving"}, default="grid"
        ``"grid"`` runs ``max_iter`` iterations at every grid point (exact).
        ``"halving"``: successive halving whose resource is the number of
        iterations. Every grid point runs ``min_resources`` iterations and is
        scored; the best ``1 / factor`` of them continue from where they stopped
        to ``factor`` times as many iterations, and so on; the last round runs
        ``max_iter`` iterations and its best point is chosen. The rounds are
        those of ``HalvingGridSearchCV(FDLSR(), resource="max_iter",
        max_resources=max_iter)``, except that the last round always reaches
        ``max_iter`` and ties go to the first point in grid order. See Notes for
        when to use which.
    factor : float > 1, default=3
        ``"halving"`` only: the share ``1 / factor`` of the points that continue
        after each round, and the growth of the iterations between rounds.
    min_resources : int >= 1, "exhaust" or "smallest", default=10
        ``"halving"`` only: the iterations of the first round. The default, with
        ``factor=3`` and 30 iterations, is two rounds: every point runs 10
        iterations, the best third continue to 30 (the setting that agrees most with the
        grid: Notes). ``"exhaust"``
        (scikit-learn's default) is
        the largest number that still lets the rounds end with fewer than
        ``factor`` points, which on the paper's 216 points and 30 iterations is
        1 (four rounds); ``"smallest"`` is 1. A number above ``max_iter`` is one
        round of ``max_iter`` iterations: the grid.
    verbose : int, default=0
        Progress on standard output, as ``GridSearchCV`` prints it: 0 nothing;
        1 the number of fits of each round, a line per fold and beta (its
        candidates, best score and time) and the refit; 2 and more also a line
        per candidate with its score.
    refit : bool, default=True
        Refit FDLSR with the selected parameters on all of ``X``. With False the
        search only chooses: ``best_params_``, ``cv_results_`` and the selected
        ``alpha_``, ... are set, no model is fitted, and ``predict`` raises
        ``NotFittedError`` (as ``GridSearchCV(refit=False)``); ``fdlsr.save``
        refuses such a search, which holds no model to predict with.
    max_iter, init_ridge, t_step, n_neighbors, weights, solver
        Fixed parameters of every fit, as in :class:`~fdlsr.FDLSR`. The grid
        search runs ``max_iter`` iterations at every grid point, as the authors'
        code does.

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
    n_tied_best_ : int
        How many candidates (of the last round, with ``search="halving"``) have
        exactly the best mean validation score, the selected one included: 1 when
        the best is unique. Means are compared exactly, as ``GridSearchCV``'s
        ``rank_test_score`` ranks them (the candidates of rank 1 of a grid search):
        each mean is computed alike over the same folds, so equal per-fold scores
        give equal means; means that differ only in their last bits (the same
        scores in another fold order) count as different, as in scikit-learn.
    cv_results_ : dict of arrays
        As ``GridSearchCV.cv_results_``: ``params``, ``param_alpha``, ``param_beta``,
        ``param_decision_rule``, ``param_lam``, ``split{i}_test_score``,
        ``mean_test_score``, ``std_test_score``, ``rank_test_score``; rows in
        ParameterGrid order (alpha slowest, then beta, decision_rule, lam fastest).
        With ``search="halving"`` one row per point and round in which it was
        scored (rounds in order, grid order within a round; ranks over all rows),
        with ``iter`` (the round), ``n_resources`` (the iterations at which it was
        scored) and ``continued`` (whether it went on to the next round). How it
        differs from ``HalvingGridSearchCV.cv_results_`` is in Notes.
    n_splits_ : int
    n_resources_, n_candidates_ : list of int
        ``"halving"`` only, per round: the iterations run and the points scored;
        as ``HalvingGridSearchCV``'s, but that the last round runs ``max_iter``
        iterations (scikit-learn's may stop at ``factor**k * min_resources_``).
    n_iterations_, n_remaining_candidates_, min_resources_, max_resources_, \
            n_required_iterations_, n_possible_iterations_ : int
        ``"halving"`` only, as ``HalvingGridSearchCV``'s with ``resource="max_iter"``
        and ``max_resources=max_iter``: the rounds run, the points that would go on
        after the last round (``ceil(n_candidates_[-1] / factor)``), the first
        round's iterations and ``max_iter``, and the rounds that the points and
        ``max_iter`` would call for. A ``min_resources`` above ``max_iter`` (which
        scikit-learn refuses) is one round of ``min_resources_ = max_iter``.
    classes_, coef_, centroids_, neighbors_, n_iter_, objective_, n_features_in_
        Of the FDLSR refitted on the whole training set with the best parameters
        (``neighbors_`` only if the chosen rule is a neighbour rule; none of them
        but ``classes_`` and ``n_features_in_`` with ``refit=False``).

    See Also
    --------
    FDLSR : the model with fixed parameters.
    sklearn.model_selection.GridSearchCV : the generic search it is equivalent to.
    sklearn.model_selection.HalvingGridSearchCV : the generic halving search, which
        restarts every point from scratch in every round.

    Notes
    -----
    With ``P_beta = X (X^T X + beta I)^-1 X^T`` every ridge step (Eq. 16) of Algorithm
    1 is ``Q X^T = T P_beta`` and ``Q = T X (X^T X + beta I)^-1``. From the
    eigendecomposition ``X X^T = U diag(s) U^T`` (or that of ``X^T X`` when there are
    fewer features than samples), ``P_beta = U diag(s / (s + beta)) U^T`` for every
    beta. Per fold and beta, the T-steps (Eq. 14) of all (alpha, lambda) pairs share
    one product ``[T_1; ...; T_g] P_beta`` per iteration. The rules are then applied
    to the same training and validation projections.

    Successive halving (``search="halving"``): a point that continues keeps, per
    fold, its relaxed labels T and their ``T P_beta`` (the S-step's target and the
    class means follow from T), so its next round starts where it stopped and no
    iteration is computed twice; the points of one beta that continue are still
    stacked into one product per iteration. A round costs
    ``n_candidates_[i] * (n_resources_[i] - n_resources_[i - 1])`` point-iterations
    per fold (for the paper's 216 points against the grid's 6,480: 3,600 with the
    defaults, 672 with ``min_resources=1``) and a scoring of its points. Memory:
    after the first round, two c x n_train arrays per (alpha, beta, lambda) point
    and fold until the next round keeps its best (FERET with 5 images per person, 5
    folds: 2.8 GB), where the grid holds those of one beta and fold at a time.

    Against ``HalvingGridSearchCV(FDLSR(), param_grid, resource="max_iter",
    max_resources=max_iter, factor=factor, min_resources=min_resources)`` on the
    same grid and folds (``tests/test_halving.py`` checks each attribute): the
    rounds score the same points with the same scores, and every attribute above
    is the same, except that (1) the last round runs ``max_iter`` iterations, so
    its ``n_resources_`` and ``cv_results_["n_resources"]`` are ``max_iter`` where
    scikit-learn's may be fewer (and its scores those of ``max_iter``
    iterations); (2) ``cv_results_`` has no ``mean_fit_time``, ``std_fit_time``,
    ``mean_score_time``, ``std_score_time``, no training scores
    (``return_train_score``) and no ``param_max_iter``, ``params`` do not name
    ``max_iter``, ``param_*`` are arrays rather than masked arrays, and
    ``continued`` is added; (3) within a round the rows are in grid order
    (scikit-learn's in the order its selection left them), so ``best_index_``
    differs; where the last rounds run as many iterations, ``best_params_``
    (without ``max_iter``) and ``best_score_`` are the same; (4) ties go to the
    first point in grid order (scikit-learn's to whichever its unstable sort puts
    last).

    When to use which search: ``"grid"`` to get ``GridSearchCV``'s choice (the
    paper's protocol, reported results); ``"halving"`` where the grid's cost
    matters and a choice that is usually the grid's, or close to it in test
    accuracy, will do. How often each setting of the halving search chooses the
    grid's point, the test accuracy where it does not and its CPU ratio are
    measured by ``benchmarks/bench_halving.py`` and tabulated in
    docs/performance.md ("Successive halving: when to use which search"); the
    default (two rounds, 10 then 30 iterations) is the setting that agreed most
    with the grid there.

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
        "search": [StrOptions({"grid", "halving"})],
        "factor": [Interval(Real, 1, None, closed="neither")],
        "min_resources": [
            Interval(Integral, 1, None, closed="left"),
            StrOptions({"exhaust", "smallest"}),
        ],
        "refit": ["boolean"],
        "verbose": ["verbose"],
        # FDLSR's parameters that the search keeps fixed: FDLSR's constraints.
        "max_iter": FDLSR._parameter_constraints["max_iter"],
        "init_ridge": FDLSR._parameter_constraints["init_ridge"],
        "t_step": FDLSR._parameter_constraints["t_step"],
        "n_neighbors": FDLSR._parameter_constraints["n_neighbors"],
        "weights": FDLSR._parameter_constraints["weights"],
        "solver": FDLSR._parameter_constraints["solver"],
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
        search="grid",
        factor=3,
        min_resources=10,
        refit=True,
        verbose=0,
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
        self.search = search
        self.factor = factor
        self.min_resources = min_resources
        self.refit = refit
        self.verbose = verbose
        self.max_iter = max_iter
        self.init_ridge = init_ridge
        self.t_step = t_step
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.solver = solver

    def _decision_rule(self):
        return self.decision_rule_

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Search the grid by cross-validation, then refit the best on all of ``X``
        (unless ``refit=False``).

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
        check_sample_scale(self, X)
        # The folds' bookkeeping (sample indices, classes) is done on the host from
        # the labels; the search itself runs in X's namespace, on its device.
        codes = _to_numpy(codes)
        grid = SearchGrid(
            alphas=_grid(self.alphas, "alphas", positive=False),
            betas=_grid(self.betas, "betas", positive=True),
            lams=_grid(self.lams, "lams", positive=False),
            rules=_rules(self.decision_rules),
        )
        fixed = FixedParams(
            max_iter=self.max_iter,
            init_ridge=self.init_ridge,
            t_step=self.t_step,
            n_neighbors=self.n_neighbors,
            weights=self.weights,
            solver=self.solver,
        )
        schedule = None
        if self.search == "halving":
            schedule = halving_schedule(
                int(np.prod(grid.shape)),
                max_resources=self.max_iter,
                factor=self.factor,
                min_resources=self.min_resources,
            )
        # Splitters need only the number of samples from X: a host stand-in spares
        # them device arrays.
        X_split = X if isinstance(X, np.ndarray) else np.empty((X.shape[0], 0))
        folds = list(self._cv(codes).split(X_split, codes))
        scorer = None if self.scoring is None else check_scoring(FDLSR(), self.scoring)
        n_kept = iter(() if schedule is None else schedule.n_candidates[1:])

        def select(scores, candidates):
            return candidates[best_candidates(scores, next(n_kept))]

        def make_fold(f):
            train, test = folds[f]
            return FoldSearch(
                X,
                codes,
                train,
                test,
                grid=grid,
                fixed=fixed,
                scorer=scorer,
                y=y,
                classes=self.classes_,
            )

        rounds = search_rounds(
            make_fold,
            len(folds),
            grid.shape,
            n_resources=(self.max_iter,) if schedule is None else schedule.n_resources,
            select=select,
            report=SearchLog(grid, len(folds), schedule, self.verbose)
            if self.verbose > 0
            else None,
        )
        self.n_splits_ = len(folds)
        self._set_results(rounds, grid, schedule)
        if self.n_tied_best_ > 1:
            n_last = rounds[-1][0].size
            warnings.warn(
                f"FDLSRCV: {self.n_tied_best_} of {n_last} candidates tie for the best "
                f"mean validation score ({self.best_score_:.4g}); the first in grid "
                f"order was taken ({params_text(self.best_params_)}). "
                "Their rows of cv_results_ have mean_test_score == best_score_"
                + (" (in the last round)" if self.search == "halving" else "")
                + "; more folds or samples, or a smaller grid, may separate them.",
                TiedScoresWarning,
                stacklevel=3,  # the caller of fit (through scikit-learn's _fit_context)
            )
        self.alpha_, self.beta_, self.lam_, self.decision_rule_ = (
            self.best_params_[k] for k in ("alpha", "beta", "lam", "decision_rule")
        )
        if not self.refit:
            for name in _REFITTED:  # no model of an earlier fit stays behind
                self.__dict__.pop(name, None)
            return self
        best = FDLSR(
            alpha=self.alpha_,
            beta=self.beta_,
            lam=self.lam_,
            max_iter=self.max_iter,
            init_ridge=self.init_ridge,
            t_step=self.t_step,
            decision_rule=self.decision_rule_,
            n_neighbors=self.n_neighbors,
            weights=self.weights,
            solver=self.solver,
        )
        if self.verbose > 0:
            print(
                f"Refitting on all {X.shape[0]} samples: "
                f"{params_text(self.best_params_)}",
                flush=True,
            )
        with warnings.catch_warnings():  # the samples' scale was said above, once
            warnings.simplefilter("ignore", DataScaleWarning)
            best.fit(X, y)
        self.coef_ = best.coef_
        self.n_iter_ = best.n_iter_
        self.objective_ = best.objective_
        self.centroids_ = best.centroids_
        self.classes_ = best.classes_
        self._set_neighbors(lambda: best.neighbors_)
        self._n_features_out = best._n_features_out
        return self

    def _test_data(self, X, method):
        if hasattr(self, "best_params_") and not hasattr(self, "coef_"):
            raise NotFittedError(
                f"This FDLSRCV was fitted with refit=False: it chose best_params_ but "
                f"fitted no model to {method}. Fit it with refit=True, or fit "
                "FDLSR(**best_params_) on the training data."
            )
        return super()._test_data(X, method)

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

    def _set_results(self, rounds, grid, schedule):
        """``cv_results_``, the best candidate and, for halving, the rounds."""
        candidates = np.concatenate([c for c, _ in rounds])
        scores = np.concatenate([s for _, s in rounds], axis=1)
        index = np.unravel_index(candidates, grid.shape)
        alpha, beta = grid.alphas[index[0]], grid.betas[index[1]]
        rule = np.array(grid.rules, dtype=object)[index[2]]
        lam = grid.lams[index[3]]
        mean, std = scores.mean(axis=0), scores.std(axis=0)
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
        for i in range(scores.shape[0]):
            results[f"split{i}_test_score"] = scores[i]
        # Ranking as GridSearchCV (over every row, as HalvingGridSearchCV): ties
        # share the best rank, NaN ranks last.
        filled = np.where(np.isnan(mean), -np.inf, mean)
        rank = rankdata(-filled, method="min").astype(np.int32)
        results.update(mean_test_score=mean, std_test_score=std, rank_test_score=rank)
        # The best of the last round (of all rows for the grid), first in grid order.
        first_of_last = candidates.size - rounds[-1][0].size
        self.best_index_ = first_of_last + int(np.argmax(filled[first_of_last:]))
        # Ties: the candidates of that round whose mean equals the best's exactly
        # (means computed alike, over the same folds), as GridSearchCV ranks them.
        last = filled[first_of_last:]
        self.n_tied_best_ = int(np.count_nonzero(last == last.max()))
        if schedule is not None:
            sizes = [c.size for c, _ in rounds]
            scored_at = np.repeat(schedule.n_resources[: len(rounds)], sizes)
            scored = [c for c, _ in rounds]
            continued = [
                np.isin(c, nxt) for c, nxt in zip(scored, scored[1:], strict=False)
            ]
            results.update(
                iter=np.repeat(np.arange(len(rounds)), sizes),
                n_resources=scored_at,
                continued=np.concatenate(continued + [np.zeros(sizes[-1], bool)]),
            )
            self.n_resources_ = list(schedule.n_resources)
            self.n_candidates_ = sizes
            self.n_iterations_ = len(rounds)
            # the points a further round would keep, as scikit-learn counts them
            self.n_remaining_candidates_ = ceil(sizes[-1] / self.factor)
            self.min_resources_ = schedule.min_resources
            self.max_resources_ = self.max_iter
            self.n_required_iterations_ = schedule.n_required_iterations
            self.n_possible_iterations_ = schedule.n_possible_iterations
        else:
            for name in _HALVING:
                self.__dict__.pop(name, None)
        self.cv_results_ = results
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
