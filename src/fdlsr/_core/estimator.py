"""FDLSR as a scikit-learn classifier and transformer."""

from numbers import Integral

import numpy as np
from sklearn import get_config

from .._common.classifiers import RULE_CONSTRAINTS, ProjectionClassifier, on_device
from .._common.compat import (
    Interval,
    StrOptions,
    _fit_context,
    _max_precision_float_dtype,
    get_namespace_and_device,
)
from .._common.neighbors import NearestProjection, centroids_from_features
from .._common.validation import NON_NEGATIVE, POSITIVE, encode_labels, is_dask_array
from .blocked import fit_blocked
from .dense import fit_fdlsr


class FDLSR(ProjectionClassifier):
    """Fisher Discriminative Least Squares Regression (Chen, Wu & Kittler).

    Learns a projection ``Q`` of the features onto ``n_classes`` dimensions by regressing
    on relaxed labels ``T`` that are dragged away from the one-hot targets
    (epsilon-draggings) and pulled together within each class by a Fisher criterion.
    Samples are classified as in the paper by default: the label of the nearest
    training sample after projecting and L2-normalising (1-NN on cosine similarity);
    ``decision_rule`` offers a k-NN vote, the nearest class centroid and the largest
    projection, which scale to large training sets (see Notes).

    The paper normalises every sample to unit length first; the full pipeline is
    ``make_pipeline(Normalizer(), FDLSR(...))``.

    Which ``alpha``, ``beta`` and ``lam``: the paper chooses all three by
    cross-validation on {1e-5, ..., 1} for each data set, and that is what to do on new
    data: :class:`FDLSRCV` searches the paper's grid, sharing one factorisation per fold.
    Without a search, the defaults are the paper's values for AR (Sec. IV-A-1, also
    those of the authors' published script); the values it states for its other data
    sets are in the shipped experiment configs (``fdlsr run --config NAME``), e.g.
    ``alpha=0.1, beta=0.01, lam=0.1`` for its 32x32 face sets and deep features.

    Assumes unit-norm samples, as the paper (and ``fdlsr run``) gives them: ``fit``
    warns of samples far from unit norm (:class:`~fdlsr.errors.DataScaleWarning`)
    and refuses a scale its arithmetic cannot hold
    (:class:`~fdlsr.errors.DataScaleError`).

    Parameters
    ----------
    alpha : float, default=1.0
        Weight of the relaxed-label term ``||T - (H + B.S)||^2`` (paper's alpha).
    beta : float, default=1e-2
        Ridge penalty on the projection ``||Q||^2`` (paper's beta). Must be > 0.
    lam : float, default=1.0
        Weight of the Fisher term on the relaxed labels (the paper's lambda; ``lambda``
        is a Python keyword). ``lam=0`` drops the Fisher term.
    max_iter : int, default=30
        Number of iterations; the authors always run 30. ``0`` returns the initial ridge
        solution.
    tol : float or None, default=None
        If given, stop once ``||Q - Q_prev||_F^2 < tol`` (Algorithm 1, step 4; the paper
        states 1e-4). ``None`` runs all ``max_iter`` iterations, as the authors' code.
    init_ridge : float, default=1e-4
        Ridge of the initial ``Q = H X (X^T X + init_ridge I)^-1`` (authors' code).
    t_step : {"paper", "exact"}, default="paper"
        ``"paper"`` is Eq. (14), with the class means taken from the previous ``T``, as in
        the authors' code. ``"exact"`` minimises the T-subproblem (12) exactly; with it
        the objective decreases monotonically (see Notes).
    decision_rule : {"nearest_neighbor", "nearest_mean", "knn", "linear"}, \
            default="nearest_neighbor"
        How a projected sample ``Q x`` is labelled. ``"nearest_neighbor"`` (the
        paper's rule): the class of the nearest L2-normalised training projection.
        ``"knn"``: a vote of the ``n_neighbors`` nearest. ``"nearest_mean"``: the
        largest cosine to a class centroid (the normalised mean of the class's
        normalised training projections). ``"linear"``: ``argmax(Q x)``. Can be
        changed after fitting without refitting (see Notes).
    n_neighbors : int, default=5
        Number of neighbours that vote under ``decision_rule="knn"``. If there are
        fewer training samples, all of them vote and ``predict`` warns
        (``UserWarning``): the vote is then the training set's class sizes.
    weights : {"uniform", "distance"}, default="uniform"
        Votes under ``decision_rule="knn"``: one per neighbour, or the inverse of its
        distance (neighbours at distance zero then take all the votes).
    solver : {"auto", "primal", "dual", "blocked"}, default="auto"
        Form of the ridge solves: ``"primal"`` factorises ``X^T X`` (d x d), ``"dual"``
        factorises ``X X^T`` (n x n); ``"blocked"`` is the primal form run over blocks
        of samples, holding no c x n array but the relaxed target (for large training
        sets, on a GPU in particular). ``"auto"`` picks dual when there are more
        features than samples, and blocked when the in-memory iteration's c x n arrays
        would exceed scikit-learn's ``working_memory``. All give the same ``Q``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    coef_ : ndarray of shape (n_classes, n_features)
        The projection matrix ``Q``.
    neighbors_ : NearestProjection
        Normalised training projections grouped by class, used by the
        ``"nearest_neighbor"`` and ``"knn"`` rules; kept only when fitted with one
        of them.
    centroids_ : ndarray of shape (n_classes, n_classes)
        Unit class centroids of the normalised training projections, used by
        ``"nearest_mean"``; always kept (c x c numbers).
    n_iter_ : int
        Number of iterations run.
    objective_ : ndarray of shape (`n_iter_`,)
        Value of Eq. (10) after each iteration, with the Fisher term weighted by ``lam``.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Defined only when ``X`` has feature names that are all strings.

    See Also
    --------
    sklearn.discriminant_analysis.LinearDiscriminantAnalysis : Fisher's criterion on the
        features rather than on regression targets.
    sklearn.linear_model.RidgeClassifier : ``FDLSR(max_iter=0, decision_rule="linear")``
        with ``init_ridge`` as its ``alpha`` and no intercept.

    Notes
    -----
    Objective (Eq. 10), with ``X`` the n x d samples and ``H`` the c x n one-hot labels::

        ||Q X^T - T||^2 + alpha ||T - (H + B.S)||^2 + beta ||Q||^2 + lam Fisher(T),
        Fisher(T) = sum_i (||T_i - M_i||^2 - ||M_i - M||^2) + ||T||^2          (11)

    Each iteration updates T (Eq. 14 or the exact step), then
    ``Q = T X (X^T X + beta I)^-1`` (Eq. 16) and ``S = max(B.(T - H), 0)`` (Eq. 21).
    ``objective_`` weights the Fisher term by ``lam`` because that is the weight whose
    gradient, Eq. (13), gives the update (14); the authors' commented-out objective uses
    ``0.5 * lam``, which does not match their update.

    *The exact T-step.* Let ``P_c`` project a row vector over samples onto the class
    indicators (``T P_c = Mhat``, the class means) and ``P_1`` onto the constant vector
    (``T P_1 = M``). Both are orthogonal projectors and ``P_1 P_c = P_1``, so
    ``Fisher(T) = tr(T (2I - 2P_c + P_1) T^T)``. Setting the gradient of (12) to zero:
    ``T [(1 + alpha) I + lam (2I - 2P_c + P_1)] = V`` with ``V = Q X^T + alpha (H+B.S)``.
    On the orthogonal pieces ``I - P_c``, ``P_c - P_1`` and ``P_1`` the bracket is
    ``1 + alpha + 2 lam``, ``1 + alpha`` and ``1 + alpha + lam``, so

        T = (V - Vhat) / (1+alpha+2lam) + (Vhat - Vbar) / (1+alpha) + Vbar / (1+alpha+lam)

    with ``Vhat``, ``Vbar`` the class and global means of ``V``: O(c n) work. The
    paper's step (14) is one fixed-point sweep of the same condition with the means
    frozen at the previous ``T``. With the exact step every update is a block
    minimiser, so ``objective_`` never increases.

    *Cost.* The data are factorised once (Cholesky of the d x d or n x n Gram matrix)
    and every iteration costs two triangular solves against ``c`` right-hand sides
    plus O(c n) elementwise work; class means use a sparse indicator, so training
    samples need not be sorted by class.

    *Decision rules.* All four rules share the fitted ``Q``, so changing the rule
    with ``set_params(decision_rule=...)`` (or ``n_neighbors``, ``weights``) needs
    no refit; only a model fitted with ``"nearest_mean"`` or ``"linear"`` lacks the
    training projections the neighbour rules need, and says so (``NotFittedError``,
    refit with the neighbour rule). After projecting (O(c d) per test sample), the
    1-NN and k-NN rules compare it with every training projection (O(n c), n x c
    numbers kept); ``"nearest_mean"`` adds O(c^2) and ``"linear"`` nothing, and both
    keep only c x c numbers beside ``Q``. On large or noisy training sets they are
    much faster and often more accurate (docs/performance.md); ``FDLSRCV`` can
    choose the rule.

    *Scale.* When the c x n arrays of the iteration would exceed scikit-learn's
    ``working_memory`` (primal form), or with ``solver="blocked"``, each iteration
    is one pass over blocks of samples and the relaxed target is the only
    per-sample state (:mod:`fdlsr._core.blocked`), in NumPy or on the arrays' device.
    A Dask array is fitted by the same blocked iteration as a Dask graph
    (:mod:`fdlsr._core.dask_graph`); PyTorch, CuPy or array-api-strict arrays are
    fitted on their device under ``sklearn.set_config(array_api_dispatch=True)``.
    See docs/performance.md.

    References
    ----------
    Z. Chen, X.-J. Wu and J. Kittler, "Fisher Discriminative Least Squares Regression
    for Image Classification". Authors' MATLAB code:
    https://github.com/chenzhe207/FDLSR

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import Normalizer
    >>> from fdlsr import FDLSR
    >>> X, y = load_digits(return_X_y=True)
    >>> model = make_pipeline(Normalizer(), FDLSR())
    >>> model.fit(X[:1000], y[:1000]).score(X[1000:], y[1000:]) > 0.9
    True
    """

    _parameter_constraints: dict = {
        "alpha": [NON_NEGATIVE],
        "beta": [POSITIVE],
        "lam": [NON_NEGATIVE],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "tol": [NON_NEGATIVE, None],
        "init_ridge": [POSITIVE],
        "t_step": [StrOptions({"paper", "exact"})],
        **RULE_CONSTRAINTS,
        "solver": [StrOptions({"auto", "primal", "dual", "blocked"})],
    }
    _array_api = True

    def __init__(
        self,
        alpha=1.0,
        beta=1e-2,
        lam=1.0,
        *,
        max_iter=30,
        tol=None,
        init_ridge=1e-4,
        t_step="paper",
        decision_rule="nearest_neighbor",
        n_neighbors=5,
        weights="uniform",
        solver="auto",
    ):
        self.alpha = alpha
        self.beta = beta
        self.lam = lam
        self.max_iter = max_iter
        self.tol = tol
        self.init_ridge = init_ridge
        self.t_step = t_step
        self.decision_rule = decision_rule
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.solver = solver

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Learn the projection from training samples ``X`` and labels ``y``.

        Parameters
        ----------
        X : array-like, Dask array or array-API array of shape (n_samples, n_features)
            A Dask array is fitted chunk by chunk (see Notes).
        y : array-like of shape (n_samples,)
            Labels of any hashable, sortable type.

        Returns
        -------
        self : FDLSR
        """
        if is_dask_array(X):
            return self._fit_dask(X, y)
        return super().fit(X, y)

    def _training_data(self, X, y):
        # Any array namespace; float32 stays float32, the codes go to X's device.
        xp = get_namespace_and_device(X)[0]
        X, codes = super()._training_data(X, y, dtype=[xp.float64, xp.float32])
        return X, on_device(codes, X)

    def _fit_encoded(self, X, codes, n_classes):
        if _needs_blocks(X, n_classes, self.solver):
            return self._fit_blocked(X, codes, n_classes)
        result = fit_fdlsr(
            X,
            codes,
            n_classes,
            alpha=self.alpha,
            beta=self.beta,
            lam=self.lam,
            max_iter=self.max_iter,
            tol=self.tol,
            init_ridge=self.init_ridge,
            t_step=self.t_step,
            solver=self.solver,
        )
        self._set_fitted(result.coef, result.objective, result.n_iter)
        fitted = result.fitted
        del result  # frees T and the relaxed target before the rule's copies
        return self._fit_rule(fitted.T, codes, n_classes)

    def _set_fitted(self, coef, objective, n_iter):
        """Keep ``Q`` and the iterations; ``objective_`` in the highest precision of
        Q's namespace, on its device."""
        xp, _, dev = get_namespace_and_device(coef)
        high = _max_precision_float_dtype(xp, dev)
        self.objective_ = xp.asarray(objective, dtype=high, device=dev)
        self.coef_, self.n_iter_ = coef, n_iter
        self._n_features_out = coef.shape[0]
        return self

    def _fit_blocked(self, X, codes, n_classes):
        """Many samples: one pass over blocks of samples per iteration (primal form,
        see :mod:`fdlsr._core.blocked`); same result, bounded memory. The decision
        rules' state is formed a block at a time too."""
        coef, objective, n_iter = fit_blocked(
            X,
            codes,
            n_classes,
            alpha=self.alpha,
            beta=self.beta,
            lam=self.lam,
            max_iter=self.max_iter,
            tol=self.tol,
            init_ridge=self.init_ridge,
            t_step=self.t_step,
        )
        self._set_fitted(coef, objective, n_iter)
        self.centroids_ = centroids_from_features(X, coef, codes, n_classes)
        self._set_neighbors(
            lambda: NearestProjection.from_features(X, coef, codes, n_classes)
        )
        return self

    def _fit_dask(self, X, y):
        """A Dask array: the blocked primal iteration as a Dask graph
        (:mod:`fdlsr._core.dask_graph`)."""
        from .dask_graph import fit_fdlsr_dask, projections

        if self.solver == "dual":
            raise ValueError(
                "FDLSR on a Dask array uses the primal form (a d x d system); "
                "solver='dual' needs all samples at once. Use solver='auto' or "
                "'primal', or pass a NumPy array."
            )
        if X.ndim != 2:
            raise ValueError(f"Expected a 2-d Dask array, got {X.ndim} dimensions.")
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        y = np.asarray(y.compute() if is_dask_array(y) else y)
        if y.shape[0] != X.shape[0]:
            raise ValueError(
                "Found input variables with inconsistent numbers of samples: "
                f"[{X.shape[0]}, {y.shape[0]}]."
            )
        codes = encode_labels(self, y)
        n_classes = self.classes_.shape[0]
        self.n_features_in_ = X.shape[1]
        coef, objective, n_iter = fit_fdlsr_dask(
            X,
            codes,
            n_classes,
            alpha=self.alpha,
            beta=self.beta,
            lam=self.lam,
            max_iter=self.max_iter,
            tol=self.tol,
            init_ridge=self.init_ridge,
            t_step=self.t_step,
        )
        self._set_fitted(coef, objective, n_iter)
        return self._fit_rule(projections(X, coef), codes, n_classes)

    def transform(self, X):
        """Project ``X`` with ``Q``: the regression features ``Q x``.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)
            The samples; a Dask array is projected block by block, lazily.

        Returns
        -------
        X_new : ndarray or dask array of shape (n_samples, n_classes)
            ``Q x`` for each sample ``x``.
        """
        if is_dask_array(X):
            X = X.rechunk({1: -1})
            chunks = (X.chunks[0], (self.coef_.shape[0],))
            return X.map_blocks(self.transform, chunks=chunks, dtype=X.dtype)
        return super().transform(X)

    def predict(self, X):
        """Predict class labels (the paper's 1-NN rule by default).

        With the 1-NN, k-NN and nearest-mean rules, classes whose scores are within ``sqrt(eps)`` of the best
        count as tied and the first of them wins (``decision_function`` reports them
        equal), so that rounding noise does not decide exact ties (duplicate images
        filed under two people, say).

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)
            The samples; a Dask array is labelled block by block on its workers.

        Returns
        -------
        y_pred : ndarray or dask array of shape (n_samples,)
            A label of ``classes_`` for each sample.
        """
        if is_dask_array(X):  # chunk by chunk, on the workers
            X = X.rechunk({1: -1})
            return X.map_blocks(self.predict, drop_axis=1, dtype=self.classes_.dtype)
        return super().predict(X)


def _needs_blocks(X, n_classes, solver):
    """``solver="blocked"``, or ``"auto"`` in the primal form when the in-memory
    iteration's c x n arrays (four of them) would exceed scikit-learn's
    ``working_memory``: then iterate over blocks of samples."""
    if solver == "blocked":
        return True
    n, d = X.shape
    if solver == "dual" or (solver == "auto" and d > n):
        return False
    xp = get_namespace_and_device(X)[0]
    state_bytes = 4 * n * n_classes * xp.finfo(X.dtype).bits // 8
    return state_bytes > get_config()["working_memory"] * 2**20
