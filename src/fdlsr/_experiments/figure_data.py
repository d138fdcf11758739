"""The numbers behind the paper's figures, computed on one random split.

* Fig. 1: objective (Eq. 10) and test accuracy after every iteration, from one run of
  :func:`fdlsr._core.dense.fit_fdlsr` with a callback (no refitting per iteration).
* Fig. 2: raw and projected features (training and test) of the first classes, for
  t-SNE.
* Fig. 3: accuracy over an alpha x lambda grid with beta fixed.
* Fig. 4: accuracy against lambda with alpha and beta fixed.

Every function returns plain lists and dicts (saved as JSON beside the figures), and
reports its progress, if given ``progress``, as ``progress(done, total)`` steps (fits,
iterations or embeddings).
"""

import numpy as np
from sklearn.preprocessing import LabelEncoder

from .._common.docstrings import fill_doc
from .._common.neighbors import NearestProjection
from .._core.dense import fit_fdlsr
from .._core.estimator import FDLSR
from ..model_selection._split import per_class_split
from .registry import get_method
from .samples import prepare

# The paper's sensitivity grid {1e-5, 5e-5, ..., 1e-1, 5e-1, 1} (Sec. IV-D).
SENSITIVITY_GRID = [1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 1e-2, 5e-2, 1e-1, 5e-1, 1.0]

# The parameters of one split, shared by the figures computed on it.
SPLIT_PARAMETERS = """
X : ndarray of shape (n_samples, n_features)
    The samples (unit-normalised, as :func:`split_data` gives them).
codes : ndarray of shape (n_samples,)
    Integer labels ``0 .. n_classes - 1``.
train, test : ndarray of int
    Indices of the training and the test samples.
params : dict
    FDLSR's parameters (``alpha``, ``beta``, ``lam``, ...).
"""

# The data set and the size of its split, for the figures that draw a split.
DATASET_K = """
dataset : Dataset
    A data set from :func:`fdlsr.datasets.load_dataset`.
k : int
    Training samples per class.
"""


@fill_doc(dataset_k=DATASET_K)
def split_data(dataset, k, seed, normalize=True):
    """Unit-normalised samples, integer labels and split 0 of ``seed`` with ``k`` per class.

    Parameters
    ----------
    %(dataset_k)s
    seed : int
        The seed of the series of splits (as ``fdlsr run --seed``).
    normalize : bool, default=True
        Unit-normalise every sample, as the paper does.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The samples.
    codes : ndarray of shape (n_samples,)
        The labels as integers ``0 .. n_classes - 1``.
    train, test : ndarray of int
        Indices of the training and the test samples.
    """
    X = prepare(dataset, normalize)
    codes = LabelEncoder().fit_transform(dataset.y)
    train, test = per_class_split(codes, k, seed, 0)
    return X, codes, train, test


def _solver_params(params):
    """The parameters of :func:`fit_fdlsr` among FDLSR's ``params``, FDLSR's defaults
    for those not given (the others, such as the decision rule, play no part)."""
    default = FDLSR()
    return {
        "alpha": params.get("alpha", default.alpha),
        "beta": params.get("beta", default.beta),
        "init_ridge": params.get("init_ridge", default.init_ridge),
        "lam": params.get("lam", default.lam),
        "max_iter": params.get("max_iter", default.max_iter),
        "solver": params.get("solver", default.solver),
        "t_step": params.get("t_step", default.t_step),
        "tol": params.get("tol", default.tol),
    }


def _fit(X, codes, n_classes, solver, callback=None):
    """:func:`fit_fdlsr` with the parameters ``solver`` (of :func:`_solver_params`)."""
    return fit_fdlsr(
        X,
        codes,
        n_classes,
        alpha=solver["alpha"],
        beta=solver["beta"],
        lam=solver["lam"],
        max_iter=solver["max_iter"],
        tol=solver["tol"],
        init_ridge=solver["init_ridge"],
        t_step=solver["t_step"],
        solver=solver["solver"],
        callback=callback,
    )


def nn_accuracy(Q, X, codes, train, test, n_classes):
    """The paper's 1-NN accuracy of projection ``Q`` on the split."""
    reference = NearestProjection(X[train] @ Q.T, codes[train], n_classes)
    predicted = np.argmax(reference.scores(X[test] @ Q.T), axis=1)
    return float(np.mean(predicted == codes[test]))


@fill_doc(split_parameters=SPLIT_PARAMETERS)
def convergence(X, codes, train, test, params, max_iter=30, progress=None):
    """Objective and test accuracy after each iteration of one FDLSR fit (Fig. 1).

    Parameters
    ----------
    %(split_parameters)s
    max_iter : int, default=30
        Iterations to run.
    progress : callable, optional
        Called as ``progress(done, total)`` after each step (a progress bar).

    Returns
    -------
    curve : dict
        ``iteration``, ``objective`` (Eq. 10) and ``accuracy`` (1-NN test accuracy)
        as lists, one entry per iteration, and the solver's ``params``.
    """
    n_classes = int(codes.max()) + 1
    accuracy = []

    def record(iteration, coef):
        accuracy.append(nn_accuracy(coef(), X, codes, train, test, n_classes))
        _tell(progress, len(accuracy), max_iter)

    solver = {**_solver_params(params), "max_iter": max_iter}
    result = _fit(X[train], codes[train], n_classes, solver, callback=record)
    return {
        "iteration": list(range(1, result.n_iter + 1)),
        "objective": result.objective.tolist(),
        "accuracy": accuracy,
        "params": solver,
    }


def _first_of_each_class(indices, codes, n_show, most, seed):
    """Indices of the first ``n_show`` classes, at most ``most`` random ones per class."""
    rng = np.random.default_rng(seed)
    keep = []
    for c in range(n_show):
        members = indices[codes[indices] == c]
        if members.size > most:
            members = np.sort(rng.choice(members, most, replace=False))
        keep.append(members)
    return np.concatenate(keep)


@fill_doc(split_parameters=SPLIT_PARAMETERS)
def projections(
    X, codes, train, test, params, methods=(), n_show=20, most=30, seed=0, progress=None
):
    """Raw and projected features of the first ``n_show`` classes (Fig. 2).

    Every model is trained on the whole training split; only the display is limited to
    the first classes, as in the paper, and to at most ``most`` random samples per class
    and part (t-SNE's cost grows fast; the paper's sets have at most 12 test samples
    per class). Methods without ``transform`` are skipped.

    Parameters
    ----------
    %(split_parameters)s
    methods : sequence of str, default=()
        Other methods (names of ``fdlsr methods``) whose ``transform`` is shown too.
    n_show : int, default=20
        Classes shown.
    most : int, default=30
        Samples shown at most per class, in each of the training and test parts.
    seed : int, default=0
        Seed of the choice of the samples shown.
    progress : callable, optional
        Called as ``progress(done, total)`` after each step (a progress bar).

    Returns
    -------
    panels : dict
        Per panel title (``"Original features"``, ``"FDLSR"``, ...), the shown
        training and test features.
    y_train, y_test : ndarray
        The labels of the shown training and test samples.
    skipped : list of str
        The methods left out for having no ``transform``.
    """
    show_train = _first_of_each_class(train, codes, n_show, most, seed)
    show_test = _first_of_each_class(test, codes, n_show, most, seed)
    panels = {"Original features": (X[show_train], X[show_test])}
    models = {"FDLSR": FDLSR(**{k: v for k, v in params.items()})}
    for name in methods:
        method = get_method(name)
        models[method.name] = method.build()
    skipped = []
    for done, (name, model) in enumerate(models.items(), 1):
        if not hasattr(model, "transform"):
            skipped.append(name)
            continue
        model.fit(X[train], codes[train])
        panels[name] = (model.transform(X[show_train]), model.transform(X[show_test]))
        _tell(progress, done, len(models))
    return panels, codes[show_train], codes[show_test], skipped


@fill_doc(split_parameters=SPLIT_PARAMETERS)
def sensitivity(
    X,
    codes,
    train,
    test,
    params,
    alphas=SENSITIVITY_GRID,
    lams=SENSITIVITY_GRID,
    progress=None,
):
    """Test accuracy for every (alpha, lambda) with the other parameters fixed (Fig. 3).

    Parameters
    ----------
    %(split_parameters)s
    alphas, lams : sequence of float, default=SENSITIVITY_GRID
        The values of alpha and lambda; the paper's grid {1e-5, 5e-5, ..., 1} by
        default.
    progress : callable, optional
        Called as ``progress(done, total)`` after each step (a progress bar).

    Returns
    -------
    surface : dict
        ``alpha``, ``lam``, ``accuracy`` (a ``len(alphas) x len(lams)`` nested list)
        and the solver's ``params``.
    """
    n_classes = int(codes.max()) + 1
    base = _solver_params(params)
    grid = np.empty((len(alphas), len(lams)))
    for i, alpha in enumerate(alphas):
        for j, lam in enumerate(lams):
            fitted = _fit(
                X[train], codes[train], n_classes, {**base, "alpha": alpha, "lam": lam}
            )
            grid[i, j] = nn_accuracy(fitted.coef, X, codes, train, test, n_classes)
            _tell(progress, i * len(lams) + j + 1, grid.size)
    return {
        "alpha": list(alphas),
        "lam": list(lams),
        "accuracy": grid.tolist(),
        "params": base,
    }


@fill_doc(dataset_k=DATASET_K)
def lambda_curve(
    dataset,
    k,
    params,
    lams=SENSITIVITY_GRID,
    seeds=(0,),
    normalize=True,
    progress=None,
):
    """Test accuracy against lambda, and at lambda = 0, over the splits of ``seeds`` (Fig. 4).

    Parameters
    ----------
    %(dataset_k)s
    params : dict
        FDLSR's parameters (``alpha``, ``beta``, ...); ``lam`` is varied.
    lams : sequence of float, default=SENSITIVITY_GRID
        The values of lambda besides 0.
    seeds : sequence of int, default=(0,)
        One split (the first) of each seed's series.
    normalize : bool, default=True
        Unit-normalise every sample, as the paper does.
    progress : callable, optional
        Called as ``progress(done, total)`` after each step (a progress bar).

    Returns
    -------
    curve : dict
        ``lam`` (0 then ``lams``), ``accuracy`` (one list per seed), ``seeds`` and
        the solver's ``params``.
    """
    base = _solver_params(params)
    values = [0.0, *lams]
    acc = np.empty((len(seeds), len(values)))
    for s, seed in enumerate(seeds):
        X, codes, train, test = split_data(dataset, k, seed, normalize)
        n_classes = int(codes.max()) + 1
        for j, lam in enumerate(values):
            fitted = _fit(X[train], codes[train], n_classes, {**base, "lam": lam})
            acc[s, j] = nn_accuracy(fitted.coef, X, codes, train, test, n_classes)
            _tell(progress, s * len(values) + j + 1, acc.size)
    return {
        "lam": values,
        "accuracy": acc.tolist(),
        "seeds": list(seeds),
        "params": base,
    }


def _tell(progress, done, total):
    if progress is not None:
        progress(done, total)
