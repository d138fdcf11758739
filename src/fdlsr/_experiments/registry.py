"""The methods the experiments run by name: what describes one, and the list of them.

:class:`Method` describes a classifier the experiments can run; :data:`METHODS` holds
one per name, in the paper's row order: FDLSR, the comparison methods of the paper's
tables in their three families (estimators in :mod:`fdlsr.relaxed`,
:mod:`fdlsr.representation` and :mod:`fdlsr.dictionary`) and the scikit-learn
baselines (``fdlsr._baselines``, whose notes say how their fixed values were chosen);
:func:`get_method` finds one by name. An entry
gives in ``params`` only what differs from the estimator's defaults, saying why;
``grid`` lists the values cross-validation may try. docs/methods-*.md explain the
choices.
"""

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier

from .._baselines.estimators import (
    LinearDiscriminantAnalysis,
    LinearSVC,
    LogisticRegression,
    LogisticRegressionCV,
    RidgeClassifier,
)
from .._common.classifiers import RULES
from .._common.messages import did_you_mean
from .._core import cv
from .._core.cv import FDLSRCV
from .._core.estimator import FDLSR
from ..dictionary import DPL, DRADPL, FDDL, LCKSVD2, LCLE, LRSDL
from ..errors import ConfigError
from ..relaxed import DLSR, DRR, LRDLSR, LSR, RLR, GReLSR, ReLSR
from ..representation import CRC, NRC, SRC, ProCRC

# The paper's grid for every FDLSR parameter, {1e-5, ..., 1}.
PAPER_GRID = list(cv.PAPER_GRID)

# The size of the FERET table's runs at k = 5, which each method's ``seconds`` (its
# entry below: means over the 10 splits of docs/results/feret/results.jsonl, on a
# 2-core machine, one BLAS thread each) were measured at.
REFERENCE_N_TRAIN = 1000
REFERENCE_FEATURES = 1600


@dataclass(frozen=True)
class Method:
    """A named classifier with its settings.

    ``factory(**params)`` returns an unfitted scikit-learn classifier. The experiment
    protocol unit-normalises the samples before fitting (as the paper does for every
    method), so a factory does not add its own normaliser. ``grid`` lists the values
    cross-validation may search for each parameter (empty: nothing to tune).

    The estimator's ``__init__`` holds every default. A registry entry gives in
    ``params`` only the values that differ from those defaults (saying why, in a
    comment), and in ``settings`` the names of the parameters that describe the
    method in ``fdlsr methods``, the reports and the results' setting keys. Once
    built, ``params`` holds those settings: each named parameter at the estimator's
    default, then the given values (in ``settings`` order, then the others).

    ``rules`` names the decision rules that cross-validation may choose among when
    asked to (``fdlsr run --cv-rules``); without that, a tuned method keeps its
    decision rule (FDLSR: the paper's 1-NN), so that ``--cv`` is the paper's protocol.

    ``cv_factory``, when given, replaces scikit-learn's ``GridSearchCV`` for tuning:
    ``cv_factory(grid=..., cv=..., **fixed_params)`` returns an estimator whose
    ``fit(X, y)`` searches ``grid`` with the splitter ``cv`` and sets ``best_params_``
    (a method can then share work between the candidates, e.g. one factorisation per
    ``beta``, or warm-start along a path of ``C``). ``search``, when given, names that
    search in the setting of the method's tuned rows (:func:`.planning.setting_key`):
    rows stored by an earlier search of the method have another setting and are not
    reused. ``rule`` says how the method labels a test sample (for the reports).

    ``source`` is the import path (``module:Class``) of a user's estimator
    (:func:`.user_methods.estimator_method`), recorded in its rows' setting; empty
    for a registered method.

    ``seconds`` is the method's mean time per run (fit, predict and, where the FERET
    config tunes it, the search) in the shipped FERET table at k = 5: 1000 training
    samples of 1600 features, one BLAS thread. :meth:`expected_seconds` scales it to
    a run's size: the scheduler starts the longest runs first while nothing of the
    method is stored yet, and a plan is sized before it runs (default: FDLSR's).
    """

    name: str
    factory: Callable[..., Any]
    family: str
    summary: str
    reference: str = ""
    params: dict = field(default_factory=dict)
    settings: tuple = ()
    grid: dict = field(default_factory=dict)
    cv_factory: Callable[..., Any] | None = None
    search: str = ""
    rule: str = ""
    rules: tuple = ()
    seconds: float = 0.41
    source: str = ""

    def expected_seconds(self, n_train, n_features):
        """The expected seconds of one run on ``n_train`` training samples of
        ``n_features`` features: :attr:`seconds` times ``(n_train / 1000)**2 *
        (n_features / 1600)``, the growth of the dense products of the long
        methods."""
        return (
            self.seconds
            * (n_train / REFERENCE_N_TRAIN) ** 2
            * (n_features / REFERENCE_FEATURES)
        )

    def __post_init__(self):
        defaults = {
            name: p.default
            for name, p in inspect.signature(self.factory).parameters.items()
            if p.default is not inspect.Parameter.empty
        }
        unknown = [n for n in (*self.settings, *self.params) if n not in defaults]
        if unknown:
            raise ValueError(f"{self.name} has no parameter {unknown[0]!r}")
        names = [*self.settings, *(n for n in self.params if n not in self.settings)]
        settings = {n: self.params.get(n, defaults[n]) for n in names}
        object.__setattr__(self, "params", settings)

    def build(self, **overrides):
        return self.factory(**{**self.params, **overrides})

    def check(self, params):
        """Refuse, before anything runs, parameters the estimator would reject.

        Unknown names, booleans where the default is a number, and values outside
        the estimator's ``_parameter_constraints`` (scikit-learn's own validation,
        which otherwise happens only in ``fit``) raise :class:`ConfigError` with a
        one-line message naming ``METHOD.name``.
        """
        defaults = self.build().get_params(deep=False)
        unknown = sorted(set(params) - set(defaults))
        if unknown:
            raise ConfigError(
                f"{self.name} has no parameter {unknown[0]!r}; its parameters are "
                + ", ".join(sorted(defaults))
                + "."
                + did_you_mean(unknown[0], defaults)
            )
        for name, value in params.items():
            where = f"{self.name}.{name}={_show(value)}"
            default = defaults[name]
            # a user's estimator may not check its parameters before fit
            mistyped = self.source and isinstance(value, str)
            if (isinstance(value, bool) or mistyped) and _is_number(default):
                kind = "boolean" if isinstance(value, bool) else "string"
                raise ConfigError(
                    f"{where} is a {kind}; {self.name}.{name} takes a number "
                    f"(default {_show(default)})"
                )
            try:
                estimator = self.build(**{name: value})
                if hasattr(estimator, "_parameter_constraints"):
                    estimator._validate_params()
            except (TypeError, ValueError) as error:
                raise ConfigError(
                    f"{where} is refused: {_one_line(error)} Fix it in --params or "
                    f"the config's [params.{self.name}]"
                ) from None


def _is_number(value):
    return isinstance(value, (int, float, np.number)) and not isinstance(value, bool)


def _show(value):
    """A parameter value for a message: plain Python, never a NumPy repr."""
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def _one_line(error):
    return " ".join(str(error).split())


# Row groups of the paper's tables, in their order; the baselines, then the user's
# own estimators (.user_methods.YOURS), come last.
FAMILIES = [
    "representation",
    "dictionary",
    "relaxed",
    "proposed",
    "scikit-learn",
    "yours",
]

# FDLSR's parameters and their FDLSRCV grid arguments.
_SEARCHED = {
    "alpha": "alphas",
    "beta": "betas",
    "lam": "lams",
    "decision_rule": "decision_rules",
}


def fdlsr_search(*, grid, cv, **fixed):
    """The search behind ``fdlsr run --cv FDLSR``: :class:`~fdlsr.FDLSRCV` over
    ``grid`` (one factorisation per fold and beta; the decision rules share each
    fitted projection), choosing what ``GridSearchCV`` would. A fixed parameter that
    FDLSRCV does not take (``tol``) falls back to ``GridSearchCV``."""
    known = FDLSRCV().get_params()
    extra = {k: v for k, v in fixed.items() if k not in _SEARCHED and k not in known}
    if any(v is not None for v in extra.values()):
        base = FDLSR(**{k: v for k, v in fixed.items() if k not in grid})
        return GridSearchCV(base, grid, cv=cv, scoring="accuracy", refit=False)
    defaults = FDLSR().get_params()
    lists = {
        name: list(grid[key]) if key in grid else [fixed.get(key, defaults[key])]
        for key, name in _SEARCHED.items()
    }
    rest = {k: v for k, v in fixed.items() if k in known and k not in _SEARCHED}
    return FDLSRCV(**lists, cv=cv, refit=False, **rest)


def logistic_regression_cv(*, grid, cv, **fixed):
    """The search behind ``fdlsr run --cv LogisticRegression`` (a registry
    ``cv_factory``): :class:`LogisticRegressionCV` over ``grid["C"]`` with
    :class:`LogisticRegression`'s other parameters ``fixed``, scored by accuracy."""
    if set(grid) != {"C"}:
        raise ValueError(f"LogisticRegressionCV searches C only, not {sorted(grid)}")
    params = LogisticRegression(**fixed).get_params()
    l1_ratio = params["l1_ratio"]
    return LogisticRegressionCV(
        Cs=list(grid["C"]),
        cv=cv,
        scoring="accuracy",
        refit=True,  # the choice as GridSearchCV's (refit=False averages folds' best)
        use_legacy_attributes=False,
        l1_ratios=None if l1_ratio is None else (l1_ratio,),
        penalty=params["penalty"],
        class_weight=params["class_weight"],
        dual=params["dual"],
        fit_intercept=params["fit_intercept"],
        intercept_scaling=params["intercept_scaling"],
        max_iter=params["max_iter"],
        n_jobs=params["n_jobs"],
        random_state=params["random_state"],
        solver=params["solver"],
        tol=params["tol"],
        verbose=params["verbose"],
    )


# Values cross-validation may try (the methods run at their estimators' defaults).
_RIDGE_GRID = [1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0]
_SMALL_GRID = [1e-3, 1e-2, 1e-1, 1.0]
_CODING_GRID = [1e-4, 1e-3, 1e-2, 1e-1, 1.0]
_VU_MONGA = "T. H. Vu and V. Monga, Fast low-rank shared dictionary learning, TIP 2017"

_ENTRIES = [
    Method(
        "FDLSR",
        FDLSR,
        family="proposed",
        summary="Fisher discriminative LSR, paper's T-step, 1-NN on projections",
        reference="Chen, Wu & Kittler, Fisher Discriminative Least Squares Regression",
        settings=("alpha", "beta", "lam"),
        # --cv FDLSR searches the paper's grid with the paper's 1-NN rule (Sec.
        # IV-A); --cv-rules also chooses among the rules (1-NN on ties).
        grid=dict(alpha=PAPER_GRID, beta=PAPER_GRID, lam=PAPER_GRID),
        rules=tuple(RULES),
        cv_factory=fdlsr_search,
        rule="1-NN on L2-normalised projections (--cv --cv-rules: chosen among "
        "1-NN, k-NN, nearest class centroid and argmax)",
        seconds=0.4,
    ),
    Method(
        "LSR",
        LSR,
        family="relaxed",
        summary="ridge regression to one-hot labels, argmax",
        reference="Chen, Wu & Kittler, FDLSR paper, Eq. (1)",
        settings=("lam",),
        grid=dict(lam=_RIDGE_GRID),
        seconds=0.11,
    ),
    Method(
        "DLSR",
        DLSR,
        family="relaxed",
        summary="epsilon-dragged labels with bias, argmax",
        reference="Xiang, Nie, Meng, Pan & Zhang, IEEE TNNLS 23(11), 2012",
        settings=("lam",),
        grid=dict(lam=_RIDGE_GRID),
        seconds=0.41,
    ),
    Method(
        "ReLSR",
        ReLSR,
        family="relaxed",
        summary="targets learnt under a unit margin (exact projection), argmax",
        reference="Zhang, Wang, Xiang & Liu, IEEE TNNLS 26(9), 2015",
        settings=("lam",),
        grid=dict(lam=_RIDGE_GRID),
        seconds=0.49,
    ),
    Method(
        "GReLSR",
        GReLSR,
        family="relaxed",
        summary="ReLSR with class-wise similar translations, argmax",
        reference="Wang & Pan, IEEE TNNLS 29(4), 2018",
        settings=("lam", "group"),
        grid=dict(lam=_SMALL_GRID, group=[1e-2, 1e-1, 1.0, 10.0]),
        seconds=1.0,
    ),
    Method(
        "LRDLSR",
        LRDLSR,
        family="relaxed",
        summary="class-wise low-rank relaxed labels (inexact ALM), 1-NN",
        reference="Chen, Wu & Kittler, Signal Processing 173, 2020",
        settings=("alpha", "beta", "gamma", "lam"),
        grid=dict(beta=[1e-2, 1e-1, 1.0], lam=[1e-3, 1e-2, 1e-1]),
        seconds=2.1,
    ),
    Method(
        "RLR",
        RLR,
        family="relaxed",
        summary="dragged labels, class compactness graph (reconstructed), argmax",
        reference="Fang, Xu, Li, Lai, Wong & Fang, IEEE TNNLS 29(4), 2018",
        settings=("lam", "beta"),
        grid=dict(lam=_SMALL_GRID, beta=[1e-3, 1e-2, 1e-1, 1.0, 10.0]),
        seconds=0.37,
    ),
    Method(
        "DRR",
        DRR,
        family="relaxed",
        summary="dragged labels, two-projection class graph (reconstructed), argmax",
        reference="Han, Wu, Fang, Wen, Zhan, Xie & Li, IEEE TCSVT 30(2), 2020",
        settings=("lam", "beta"),
        grid=dict(lam=_SMALL_GRID, beta=[1e-3, 1e-2, 1e-1, 1.0, 10.0]),
        seconds=0.82,
    ),
    Method(
        "SRC",
        SRC,
        family="representation",
        summary="l1 (lasso) coding over the training samples, class-residual rule",
        reference="Wright, Yang, Ganesh, Sastry & Ma, TPAMI 2009",
        settings=("lam",),
        grid=dict(lam=[1e-2, 3e-2, 1e-1]),  # below 1e-2 coordinate descent stalls
        seconds=1.2,
    ),
    Method(
        "CRC",
        CRC,
        family="representation",
        summary="ridge coding over the training samples, regularised residual rule",
        reference="Zhang, Yang & Feng, ICCV 2011",
        settings=("lam",),
        grid=dict(lam=_CODING_GRID),
        seconds=1.9,  # with its search
    ),
    Method(
        "ProCRC",
        ProCRC,
        family="representation",
        summary="probabilistic collaborative coding, maximum class probability",
        reference="Cai, Zhang, Zuo & Feng, CVPR 2016",
        settings=("lam", "gamma"),
        grid=dict(lam=_CODING_GRID, gamma=[1e-3, 1e-2, 1e-1]),
        seconds=4.9,  # with its search
    ),
    Method(
        "NRC",
        NRC,
        family="representation",
        summary="non-negative coding (authors' ADMM, 5 iterations), residual rule",
        reference="Xu, An, Zhang & Zhang, Pattern Recognition 2019",
        settings=("rho", "max_iter"),
        grid=dict(rho=[1e-2, 1e-1, 1.0], max_iter=[5, 10, 20]),
        seconds=0.2,
    ),
    Method(
        "LC-KSVD2",
        LCKSVD2,
        family="dictionary",
        summary="label-consistent K-SVD, OMP codes, linear classifier of the codes",
        reference="Jiang, Lin & Davis, CVPR 2011 / TPAMI 2013",
        # alpha, beta: LCKSVD2's defaults are the code's YaleB values (16, 4), which
        # suit its unnormalised features; for unit-norm samples these were chosen on
        # held-out *training* images of FERET (see docs/methods-dictionary.md), as
        # the authors' README advises ("determined according to the classification
        # performance for training data").
        params=dict(alpha=1e-3, beta=1e-2),
        settings=("alpha", "beta", "n_nonzero_coefs", "max_iter", "init_iter"),
        grid=dict(alpha=[1e-3, 1e-2, 1e-1], beta=[1e-2, 1e-1, 1.0]),
        seconds=16.0,
    ),
    Method(
        "LCLE",
        LCLE,
        family="dictionary",
        summary="locality-constrained, label-embedding dictionary, OMP + linear",
        reference="Li, Lai, Xu, Yang & Zhang, IEEE TNNLS 2017",
        settings=(
            "alpha",
            "beta",
            "gamma",
            "n_neighbors",
            "n_nonzero_coefs",
            "max_iter",
            "init_iter",
        ),
        grid=dict(alpha=[1e-4, 1e-2], beta=[1e-3, 1e-1], gamma=[1e-3, 1e-1]),
        seconds=6.5,
    ),
    Method(
        "DPL",
        DPL,
        family="dictionary",
        summary="projective dictionary pair learning, class-wise residual",
        reference="Gu, Zhang, Zuo & Feng, NIPS 2014",
        params=dict(random_state=0),  # the same initial dictionaries in every run
        settings=("tau", "lam", "gamma", "max_iter"),
        grid=dict(tau=[0.005, 0.05, 0.5], lam=[3e-4, 3e-3, 3e-2]),
        seconds=0.62,
    ),
    Method(
        "DRA-DPL",
        DRADPL,
        family="dictionary",
        summary="robust adaptive dictionary pair learning (l2,1), class-wise residual",
        reference="Sun, Zhang, Jiang, Zhang, Zhang, Yan & Wang, IEEE TNNLS 2020",
        params=dict(random_state=0),  # the same initial dictionaries in every run
        settings=("tau", "alpha", "beta", "lam", "max_iter"),
        grid=dict(alpha=[1e-5, 1e-4, 1e-3], beta=[5e-4, 5e-3, 5e-2]),
        seconds=0.83,
    ),
    Method(
        "FDDL",
        FDDL,
        family="dictionary",
        summary="Fisher discrimination dictionary learning, global-coding errors",
        reference="M. Yang et al., Fisher discrimination dictionary learning, "
        "ICCV 2011 / IJCV 2014 (solver: " + _VU_MONGA + ")",
        settings=("lambda1", "lambda2", "weight"),
        seconds=29.0,
    ),
    Method(
        "LRSDL",
        LRSDL,
        family="dictionary",
        summary="FDDL plus a low-rank shared dictionary, global-coding errors",
        reference=_VU_MONGA,
        settings=("n_shared_atoms", "lambda1", "lambda2", "eta"),
        seconds=40.0,
    ),
    Method(
        "RidgeClassifier",
        RidgeClassifier,
        family="scikit-learn",
        summary="ridge regression to {-1, 1} targets, argmax",
        params=dict(alpha=1e-2),
        grid=dict(alpha=PAPER_GRID),
        rule="argmax of the regression outputs",
        seconds=0.12,
    ),
    Method(
        "LDA",
        LinearDiscriminantAnalysis,
        family="scikit-learn",
        summary="linear discriminant analysis, shrunk pooled covariance",
        params=dict(solver="lsqr", shrinkage=0.5),
        grid=dict(shrinkage=[0.01, 0.1, 0.3, 0.5, 0.7, 0.9]),
        rule="largest discriminant score",
        seconds=0.15,
    ),
    Method(
        "LinearSVC",
        LinearSVC,
        family="scikit-learn",
        summary="one-vs-rest linear SVM (squared hinge)",
        params=dict(C=10.0, dual=False),
        grid=dict(C=[1.0, 10.0, 100.0, 1e3]),
        search="GridSearchCV",
        rule="largest one-vs-rest margin",
        seconds=32.0,  # with its search over C, as the FERET config runs it
    ),
    Method(
        "LogisticRegression",
        LogisticRegression,
        family="scikit-learn",
        summary="multinomial logistic regression, L2 penalty",
        params=dict(C=1e3, max_iter=1000),
        grid=dict(C=[10.0, 100.0, 1e3, 1e4]),
        cv_factory=logistic_regression_cv,
        search="LogisticRegressionCV",
        rule="largest class probability",
        seconds=18.0,  # with its search over C
    ),
    Method(
        "1-NN",
        KNeighborsClassifier,
        family="scikit-learn",
        summary="nearest neighbour on the (normalised) raw features",
        params=dict(n_neighbors=1),
        rule="1-NN on the unit-normalised samples",
        seconds=0.037,
    ),
]

METHODS = {m.name: m for m in _ENTRIES}


def get_method(name):
    """The :class:`Method` called ``name`` (case-insensitive)."""
    by_lower = {key.lower(): m for key, m in METHODS.items()}
    try:
        return by_lower[name.lower()]
    except KeyError:
        raise ConfigError(
            f"unknown method {name!r}; choose from: {', '.join(METHODS)}."
            + did_you_mean(name, METHODS)
        ) from None


def family_rank(family):
    """Position of a family in the paper's row order (unknown families last)."""
    return FAMILIES.index(family) if family in FAMILIES else len(FAMILIES)
