"""FDLSRCV against GridSearchCV(FDLSR()) on FERET, same grid and folds, in one process.

FERET with 5 training images per person (n = 1000, d = 1600, c = 200), unit-normalised
as in the paper, stratified folds (3 by default) and the paper's grid: alpha and lambda
in {1e-5, ..., 1} with beta fixed (``--beta``, 36 grid points), or with ``--full`` the
whole 6 x 6 x 6 grid. Both searches score the paper's 1-NN rule only
(``FDLSR()``'s default; FDLSRCV with ``decision_rules=["nearest_neighbor"]``).

The two searches alternate ``--repeats`` times and the best wall and CPU time
(``time.process_time``: all threads of the process) of each is kept; the script prints
both ratios, whether the choices are the same, and how many grid points have different
mean validation scores. By default each library uses its default threads (FDLSRCV one
Python thread per BLAS thread, GridSearchCV sequential fits with multi-threaded BLAS);
``--blas-threads 1`` pins BLAS to one thread for both, which compares work on one core.

    python benchmarks/bench_cv.py [--beta 0.01] [--full] [--folds 3] [--repeats 2]
                                  [--blas-threads N] [--seed 0] [--json out.json]

``--stages`` instead runs FDLSRCV alone, ``--repeats`` times, and prints the wall and
CPU seconds of its stages (the eigendecompositions, the iterations of all grid points,
the 1-NN scoring, the refit), of the best run.
"""

import argparse
import contextlib
import functools
import json
import os
import time
from pathlib import Path

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.preprocessing import normalize
from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
from fdlsr import FDLSR, FDLSRCV  # noqa: E402
from fdlsr._core import search as search_module  # noqa: E402
from fdlsr._core.cv import PAPER_GRID  # noqa: E402
from fdlsr._testing import load_shared, shared_data_dir  # noqa: E402
from fdlsr.model_selection._split import per_class_split  # noqa: E402

# FDLSRCV's stages, as the names under which fdlsr._core.search calls them.
STAGES = {
    "HatOperators": "eigendecompositions (HatOperators)",
    "search_grid": "iterations of all grid points (search_grid)",
    "_accuracies": "1-NN scoring (_accuracies)",
}


def timed(fit):
    wall, cpu = time.perf_counter(), time.process_time()
    model = fit()
    return model, time.perf_counter() - wall, time.process_time() - cpu


def _timed_stage(f, label, spent):
    """``f`` adding its wall and CPU seconds to ``spent[label]``."""

    @functools.wraps(f)
    def run(*args, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return f(*args, **kwargs)
        finally:
            w, c = spent.get(label, (0.0, 0.0))
            spent[label] = (
                w + time.perf_counter() - wall,
                c + time.process_time() - cpu,
            )

    return run


def stage_times(fit, repeats):
    """Run ``fit`` ``repeats`` times with FDLSRCV's stages timed; the stages' wall and
    CPU seconds of the run with the least wall time, and that run's totals."""
    runs = []
    originals = {name: getattr(search_module, name) for name in STAGES}
    refit = FDLSR.fit
    for _ in range(repeats):
        spent = {}
        for name, label in STAGES.items():
            setattr(search_module, name, _timed_stage(originals[name], label, spent))
        FDLSR.fit = _timed_stage(refit, "refit on all samples (FDLSR.fit)", spent)
        try:
            _, wall, cpu = timed(fit)
        finally:
            for name, f in originals.items():
                setattr(search_module, name, f)
            FDLSR.fit = refit
        runs.append((wall, cpu, spent))
    return min(runs, key=lambda run: run[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beta", type=float, default=1e-2)
    parser.add_argument("--full", action="store_true", help="search beta too")
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--blas-threads", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--stages", action="store_true", help="FDLSRCV's stages only")
    args = parser.parse_args()

    X, y = load_shared("feret", shared_data_dir(__file__))
    train, _ = per_class_split(y, 5, args.seed, 0)
    X, y = normalize(X[train]), y[train]
    cv = StratifiedKFold(args.folds)
    betas = PAPER_GRID if args.full else (args.beta,)
    n_points = len(PAPER_GRID) ** 2 * len(betas)
    print(
        f"FERET k=5: n={X.shape[0]}, d={X.shape[1]}; {n_points} grid points"
        f" (betas {list(betas)}), {args.folds} folds, 1-NN rule,"
        f" BLAS threads {args.blas_threads or 'default'}"
    )
    load_start = os.getloadavg()
    print(f"load average at start: {load_start}", flush=True)

    def fast():
        return FDLSRCV(betas=betas, decision_rules=["nearest_neighbor"], cv=cv).fit(
            X, y
        )

    def slow():
        grid = {"alpha": PAPER_GRID, "beta": betas, "lam": PAPER_GRID}
        return GridSearchCV(FDLSR(), grid, cv=cv).fit(X, y)

    limit = (
        contextlib.nullcontext()
        if args.blas_threads is None
        else threadpool_limits(args.blas_threads)
    )
    if args.stages:
        with limit:
            wall, cpu, spent = stage_times(fast, args.repeats)
        print(f"FDLSRCV, best of {args.repeats}: {wall:.2f} s wall, {cpu:.2f} s CPU")
        for label, (w, c) in spent.items():
            print(f"  {label:46s} {w:6.2f} s wall {c:6.2f} s CPU")
        print(f"load average at end: {os.getloadavg()}")
        return
    times = {"FDLSRCV": [], "GridSearchCV": []}
    models = {}
    with limit:
        for _ in range(args.repeats):  # alternate, keep the best of each
            for name, search in (("FDLSRCV", fast), ("GridSearchCV", slow)):
                model, wall, cpu = timed(search)
                times[name].append((wall, cpu))
                models[name] = model
                print(
                    f"  {name}: {wall:.1f} s wall, {cpu:.1f} s CPU,"
                    f" load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
    fast_model, slow_model = models["FDLSRCV"], models["GridSearchCV"]
    (fast_wall, slow_wall), (fast_cpu, slow_cpu) = (
        [min(t[k] for t in times[name]) for name in times] for k in (0, 1)
    )

    fast_scores = fast_model.cv_results_["mean_test_score"]
    slow_scores = slow_model.cv_results_["mean_test_score"]
    differing = int(np.sum(fast_scores != slow_scores))
    fast_best = {
        k: v for k, v in fast_model.best_params_.items() if k != "decision_rule"
    }
    same = fast_best == slow_model.best_params_
    print(f"FDLSRCV      best {fast_best} score {fast_model.best_score_:.4f}")
    print(
        f"GridSearchCV best {slow_model.best_params_} score {slow_model.best_score_:.4f}"
    )
    print(f"same choice: {same}")
    print(
        f"grid points with different mean scores: {differing} of {fast_scores.size}"
        f" (max |diff| {np.max(np.abs(fast_scores - slow_scores)):.2e})"
    )
    print(
        f"best of {args.repeats}: wall FDLSRCV {fast_wall:.1f} s, GridSearchCV"
        f" {slow_wall:.1f} s, ratio {slow_wall / fast_wall:.2f}x; CPU FDLSRCV"
        f" {fast_cpu:.1f} s, GridSearchCV {slow_cpu:.1f} s, ratio"
        f" {slow_cpu / fast_cpu:.2f}x"
    )
    load_end = os.getloadavg()
    print(f"load average at end: {load_end}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "args": {k: str(v) for k, v in vars(args).items()},
                    "times": times,
                    "same_choice": same,
                    "differing_scores": differing,
                    "loadavg": [load_start, load_end],
                },
                indent=1,
            )
        )
    if not same:
        raise SystemExit("the searches chose differently")


if __name__ == "__main__":
    main()
