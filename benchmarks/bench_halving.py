"""FDLSRCV's successive halving against its exact grid and scikit-learn's halving.

**Agreement** (default). For every data set of the data folder that has a shipped
config, each k >= 2 of that config (k = 1 leaves nothing to cross-validate) and
splits 0 .. ``--splits``-1 (``protocol.per_class_split`` with the config's seed), the
unit-normalised training split (``protocol.prepare``) is searched over the paper's
216-point grid (alpha, beta, lambda in {1e-5, ..., 1}, the paper's 1-NN rule) with
min(k, 5) stratified folds (``protocol.inner_cv``) by

* ``grid``: ``FDLSRCV(search="grid")``, the exact choice (GridSearchCV's);
* ``halving F:M``: ``FDLSRCV(search="halving", factor=F, min_resources=M)``, for
  each ``--settings`` entry (M an int, ``exhaust`` or ``smallest``);
* ``sklearn F:M``: ``HalvingGridSearchCV(FDLSR(), resource="max_iter",
  max_resources=30, factor=F, min_resources=M)`` for each ``--peer`` entry;

all with ``refit=False``, one after the other in one process, BLAS on
``--blas-threads`` threads (default 1, so that every search does its work on one
core and CPU seconds compare work); CPU (``time.process_time``) and wall seconds of
each search. The chosen parameters are then fitted on the training split and scored
on the test split: an outcome, never used to choose. The grid's row keeps the mean
validation score of every grid point (in the grid's order, alpha slowest), so the
tables can say how much validation score a different choice gives up.

One JSON line per (data set, k, split, search) is appended to ``--out`` as soon as it
is done, with the load average before and after; a rerun skips what is there, so the
run can be stopped and resumed. The cases run split by split (every data set's
split 0 first).

    python benchmarks/bench_halving.py [--splits 3] [--datasets feret orl ...] [--ks 2 3]
        [--settings 3:exhaust 2:exhaust ...] [--peer 3:exhaust]
        [--out docs/halving-results/results.jsonl]
    python benchmarks/bench_halving.py --table [--out ...]   # tables from the file
        [--settings 3:5 3:10 --peer]   # only these searches (default all in the file)

**Timing** (``--timing``): FERET k = 5, split 0 (n = 1000, d = 1600, c = 200, 5 folds):
the exact grid, every ``--settings`` entry and every ``--peer`` entry alternate
``--repeats`` times in one process; the best CPU and wall seconds of each and their
ratios to the grid (a peer's also to the halving setting of the same rounds and to
the first one) are printed (BLAS threads: the library's default unless
``--blas-threads`` is given; on a shared machine the CPU seconds are the figure to
compare). ``--memory`` then runs the grid and the first halving search once more
each under ``tracemalloc`` and prints their peaks.

    python benchmarks/bench_halving.py --timing [--settings 3:10 3:5 ...]
        [--peer 3:exhaust] [--repeats 2] [--blas-threads 1] [--memory]
"""

import argparse
import contextlib
import fcntl
import json
import os
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import HalvingGridSearchCV
from threadpoolctl import threadpool_limits

from fdlsr import FDLSR, FDLSRCV
from fdlsr._core.cv import PAPER_GRID
from fdlsr._experiments.config import load_config, shipped_configs
from fdlsr._experiments.environment import environment
from fdlsr._experiments.samples import prepare
from fdlsr._experiments.splits import inner_cv
from fdlsr.datasets import load_dataset
from fdlsr.errors import DatasetError
from fdlsr.model_selection._split import per_class_split

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "docs" / "halving-results" / "results.jsonl"
FOLDS = 5
PARAMS = ("alpha", "beta", "lam")


def setting(text):
    """``"3:exhaust"`` -> ``(3, "exhaust")``; the factor may be a float."""
    factor, _, low = text.partition(":")
    low = low or "exhaust"
    factor = float(factor) if "." in factor else int(factor)
    return factor, (low if low in ("exhaust", "smallest") else int(low))


def searches(settings, peers):
    """``{label: make(cv) -> unfitted search}`` in the order they run."""
    grid = dict(alphas=PAPER_GRID, betas=PAPER_GRID, lams=PAPER_GRID)
    common = dict(decision_rules=["nearest_neighbor"], refit=False, **grid)
    out = {"grid": lambda cv: FDLSRCV(cv=cv, **common)}
    for factor, low in settings:
        out[f"halving {factor}:{low}"] = lambda cv, f=factor, m=low: FDLSRCV(
            cv=cv, search="halving", factor=f, min_resources=m, **common
        )
    for factor, low in peers:
        out[f"sklearn {factor}:{low}"] = lambda cv, f=factor, m=low: (
            HalvingGridSearchCV(
                FDLSR(),
                {"alpha": PAPER_GRID, "beta": PAPER_GRID, "lam": PAPER_GRID},
                resource="max_iter",
                max_resources=FDLSR().max_iter,
                factor=f,
                min_resources=m,
                cv=cv,
                refit=False,
            )
        )
    return out


def cases(names, n_splits):
    """``(dataset name, config seed, k)`` of every shipped config whose data set is
    in the data folder, with its Dataset; data sets not found are reported."""
    found = []
    for config_name in shipped_configs():
        experiment = load_config(config_name).experiment
        if names and experiment.dataset not in names:
            continue
        try:
            dataset = load_dataset(experiment.dataset)
        except DatasetError as error:
            print(f"skipped {experiment.dataset}: {str(error)[:100]}", file=sys.stderr)
            continue
        ks = [k for k in experiment.ks if isinstance(k, int) and k >= 2]
        found.append((dataset, experiment.seed, ks))
    return found


def timed(search, X, y):
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        # Inner folds of small k hold more classes than half their samples, which
        # scikit-learn's target check flags as "could be a regression"; they are
        # classes.
        warnings.filterwarnings("ignore", "The number of unique classes")
        search.fit(X, y)
    return search, time.perf_counter() - wall, time.process_time() - cpu


def test_accuracy(params, X, y, train, test, cache):
    key = json.dumps(params, sort_keys=True)
    if key not in cache:
        model = FDLSR(**params).fit(X[train], y[train])
        cache[key] = float(np.mean(model.predict(X[test]) == y[test]))
    return cache[key]


def run_case(dataset, X, seed, k, index, labels, make, out):
    y = np.asarray(dataset.y)
    train, test = per_class_split(y, k, seed, index)
    cv = inner_cv(k, seed, FOLDS)
    cache = {}
    for label in labels:
        load = os.getloadavg()
        search, wall, cpu = timed(make[label](cv), X[train], y[train])
        chosen = {key: float(search.best_params_[key]) for key in PARAMS}
        if "max_iter" in search.best_params_:  # scikit-learn's resource
            chosen["max_iter"] = int(search.best_params_["max_iter"])
        row = {
            "dataset": dataset.name,
            "k": k,
            "split": index,
            "search": label,
            "n_train": int(train.size),
            "n_test": int(test.size),
            "n_features": int(X.shape[1]),
            "n_classes": int(np.unique(y).size),
            "folds": cv.get_n_splits(),
            "params": chosen,
            "best_score": float(search.best_score_),
            "cpu_s": cpu,
            "wall_s": wall,
            "test_accuracy": test_accuracy(chosen, X, y, train, test, cache),
            "load_before": load,
            "load_after": os.getloadavg(),
        }
        if hasattr(search, "n_candidates_"):
            row["n_candidates"] = [int(n) for n in search.n_candidates_]
            row["n_resources"] = [int(n) for n in search.n_resources_]
        if label == "grid":
            # in the grid's order (``grid_position``), which the file leaves out
            assert [grid_position(p) for p in search.cv_results_["params"]] == list(
                range(len(PAPER_GRID) ** 3)
            )
            row["mean_scores"] = search.cv_results_["mean_test_score"].tolist()
        with out.open("a") as f:  # whole lines, also with two runs on one file
            fcntl.flock(f, fcntl.LOCK_EX)
            f.write(json.dumps(row) + "\n")
        print(
            f"{dataset.name} k={k} split {index} {label}: {cpu:.1f} s CPU,"
            f" {wall:.1f} s wall, {chosen}, test {row['test_accuracy']:.4f},"
            f" load {load[0]:.1f}",
            flush=True,
        )


def done_rows(out):
    if not out.exists():
        return []
    rows = []
    for line in out.read_text().splitlines():
        if line.strip():
            rows.append(json.loads(line))
    return rows


def agreement(args, make):
    out = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    env = out.with_name("environment.json")
    if not env.exists():
        env.write_text(
            json.dumps({**environment(), "blas_threads": args.blas_threads}, indent=1)
            + "\n"
        )
    done = {(r["dataset"], r["k"], r["split"], r["search"]) for r in done_rows(out)}
    # Split by split; within a split the cheapest cases first (the grid's products
    # grow with c n^2 per fold), so that a stopped run has covered every data set.
    todo = sorted(
        (index, grid_cost(dataset, k), dataset.name, k, dataset, seed)
        for dataset, seed, ks in cases(args.datasets, args.splits)
        for k in ks
        if not args.ks or k in args.ks
        for index in range(args.splits)
    )
    prepared = {}
    with threadpool_limits(args.blas_threads):
        for index, _, name, k, dataset, seed in todo:
            labels = [label for label in make if (name, k, index, label) not in done]
            if labels:
                if name not in prepared:
                    prepared[name] = prepare(dataset)
                run_case(dataset, prepared[name], seed, k, index, labels, make, out)


def grid_cost(dataset, k):
    """The grid's products at ``k`` per class, up to a constant: folds x c x n^2."""
    c = np.unique(dataset.y).size
    folds = min(k, FOLDS)
    n = c * k * (folds - 1) // folds
    return folds * c * n * min(n, 2 * dataset.X.shape[1])


def timing(args, make):
    dataset = load_dataset("feret")
    X, y = prepare(dataset), np.asarray(dataset.y)
    k, seed = 5, load_config("feret").experiment.seed
    train, _ = per_class_split(y, k, seed, 0)
    cv = inner_cv(k, seed, FOLDS)
    labels = list(make)  # the grid, the halving settings, the peers
    limit = (
        contextlib.nullcontext()
        if args.blas_threads_given is None
        else threadpool_limits(args.blas_threads_given)
    )
    print(
        f"FERET k=5 split 0: n={train.size}, d={X.shape[1]}, {cv.get_n_splits()} "
        f"folds, 216 grid points, BLAS threads {args.blas_threads_given or 'default'}"
        f"; load average {os.getloadavg()}",
        flush=True,
    )
    times = {label: [] for label in labels}
    chosen = {}
    with limit:
        for _ in range(args.repeats):
            for label in labels:
                search, wall, cpu = timed(make[label](cv), X[train], y[train])
                times[label].append((wall, cpu))
                chosen[label] = {key: search.best_params_[key] for key in PARAMS}
                print(
                    f"  {label}: {wall:.1f} s wall, {cpu:.1f} s CPU, {chosen[label]},"
                    f" load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
    best = {label: [min(t[i] for t in times[label]) for i in (0, 1)] for label in times}
    grid = labels[0]
    for what, i in (("wall", 0), ("CPU", 1)):
        print(f"best of {args.repeats}, {what}: grid {best[grid][i]:.1f} s")
        for label in labels[1:]:
            line = f"  {label} {best[label][i]:.1f} s: grid / it"
            line += f" {best[grid][i] / best[label][i]:.2f}x"
            for halving in peer_halvings(label, labels):
                line += f", it / {halving} {best[label][i] / best[halving][i]:.2f}x"
            print(line)
    for label in labels[1:]:
        print(f"same choice as the grid: {label} {chosen[label] == chosen[grid]}")
    print(f"load average at end: {os.getloadavg()}")
    if args.memory:  # untimed runs: tracemalloc slows every allocation
        with limit:
            for label in (grid, halving):
                tracemalloc.start()
                timed(make[label](cv), X[train], y[train])
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
                print(f"peak memory of {label} (tracemalloc): {peak / 2**30:.2f} GiB")


def peer_halvings(label, labels):
    """For a peer, the halving settings to compare it with: the one of the same
    factor and min_resources (the same rounds) and the first."""
    if not label.startswith("sklearn"):
        return []
    halvings = [other for other in labels if other.startswith("halving")]
    same = label.replace("sklearn", "halving")
    return list(dict.fromkeys(([same] if same in halvings else []) + halvings[:1]))


def compared(rows):
    """Each search's rows joined with the grid's row of the same case: ``{search:
    [(row, grid_row), ...]}``, the grid left out; cases without a grid row skipped."""
    grids = {
        (r["dataset"], r["k"], r["split"]): r for r in rows if r["search"] == "grid"
    }
    out = {}
    for row in rows:
        grid = grids.get((row["dataset"], row["k"], row["split"]))
        if row["search"] != "grid" and grid is not None:
            out.setdefault(row["search"], []).append((row, grid))
    return out


def summary(pairs):
    """Agreement, validation score given up, test accuracy and time of one search
    against the grid over ``pairs``."""
    same, tied, regret, diffs, work = [], [], [], [], []
    grid_cpu = cpu = 0.0
    for row, grid in pairs:
        point = {key: row["params"][key] for key in PARAMS}
        grid_point = {key: grid["params"][key] for key in PARAMS}
        scores = grid["mean_scores"]
        score = scores[grid_position(point)]
        same.append(point == grid_point)
        tied.append(score == max(scores))
        regret.append(100 * (max(scores) - score))
        diffs.append(100 * (row["test_accuracy"] - grid["test_accuracy"]))
        grid_cpu += grid["cpu_s"]
        cpu += row["cpu_s"]
        work.append(iterations(row))
    differing = [d for d, s in zip(diffs, same, strict=True) if not s]
    return {
        "cases": len(pairs),
        "same": 100 * np.mean(same),
        "tied": 100 * np.mean(tied),
        "regret": np.mean(regret),
        "n_diff": len(differing),
        "diff_mean": np.mean(differing) if differing else 0.0,
        "diff_worst": min(differing) if differing else 0.0,
        "diff_all": np.mean(diffs),
        "ratio": grid_cpu / cpu,
        "work": len(PAPER_GRID) ** 3 * FDLSR().max_iter / np.mean(work),
    }


def grid_position(point):
    """The row of ``point`` (alpha, beta, lam) in the grid's ``cv_results_``:
    ParameterGrid order, alpha slowest."""
    position = 0
    for key in PARAMS:
        position = position * len(PAPER_GRID) + PAPER_GRID.index(point[key])
    return position


def iterations(row):
    """Point-iterations per fold of a search: continued (halving) or from scratch
    in every round (scikit-learn's)."""
    done, total = 0, 0
    for n, r in zip(row["n_candidates"], row["n_resources"], strict=True):
        total += n * (r if row["search"].startswith("sklearn") else r - done)
        done = r
    return total


def print_tables(rows, labels=None):
    """Markdown tables: per data set and search; overall per search (the trade-off
    curve), with the FERET k = 5 time ratio; and the cases that ran. ``labels``:
    the searches to show (default all in ``rows``)."""
    if labels is not None:
        rows = [r for r in rows if r["search"] in labels]
    by_search = compared(rows)
    columns = (
        "| data set | k | cases | search | same point | a best point |"
        " val. score given up | test diff. where different (mean / worst) |"
        " test diff., all cases | grid CPU / search CPU |"
    )
    print(columns)
    print("|---" * 10 + "|")
    for dataset in sorted({r["dataset"] for r in rows}):
        for label, pairs in by_search.items():
            part = [p for p in pairs if p[0]["dataset"] == dataset]
            if part:
                print(_line(dataset, sorted({p[0]["k"] for p in part}), label, part))
    # The curve: every search on the cases that all of them ran.
    keys = [{_case(p[0]) for p in pairs} for pairs in by_search.values()]
    common = set.intersection(*keys) if keys else set()
    print(f"\nAll searches on the {len(common)} cases that every one of them ran:\n")
    print(columns.replace("| data set | k |", "|").replace(
        "grid CPU / search CPU |",
        "grid CPU / search CPU | FERET k=5 | grid / search point-iterations |",
    ))  # fmt: skip
    print("|---" * 10 + "|")
    for label, pairs in by_search.items():
        pairs = [p for p in pairs if _case(p[0]) in common]
        feret = [p for p in pairs if (p[0]["dataset"], p[0]["k"]) == ("feret", 5)]
        ratio = f" {summary(feret)['ratio']:.2f}x |" if feret else " |"
        work = f" {summary(pairs)['work']:.2f}x |"
        print("|" + _line(None, None, label, pairs)[len("|  |  |") :] + ratio + work)
    print()
    for dataset in sorted({r["dataset"] for r in rows}):
        grids = [r for r in rows if r["dataset"] == dataset and r["search"] == "grid"]
        ks = sorted({r["k"] for r in grids})
        print(
            f"{dataset}: "
            + "; ".join(
                f"k={k} splits "
                + ",".join(str(r["split"]) for r in grids if r["k"] == k)
                for k in ks
            )
        )


def _case(row):
    return row["dataset"], row["k"], row["split"]


def _line(dataset, ks, label, pairs):
    s = summary(pairs)
    k = "" if ks is None else ", ".join(str(k) for k in ks)
    return (
        f"| {dataset or ''} | {k} | {s['cases']} | {label} | {s['same']:.0f}% |"
        f" {s['tied']:.0f}% | {s['regret']:.2f} pt | {s['diff_mean']:+.2f} /"
        f" {s['diff_worst']:+.2f} pt ({s['n_diff']}) | {s['diff_all']:+.2f} pt |"
        f" {s['ratio']:.2f}x |"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--datasets", nargs="*", default=[])
    parser.add_argument("--ks", nargs="*", type=int, default=[], help="only these k")
    parser.add_argument("--settings", nargs="+", type=setting)
    parser.add_argument("--peer", nargs="*", type=setting)
    parser.add_argument("--blas-threads", type=int, default=None)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--timing", action="store_true")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--memory", action="store_true", help="--timing: peaks too")
    args = parser.parse_args()
    chosen = args.settings is not None or args.peer is not None
    make = searches(
        [(3, "exhaust")] if args.settings is None else args.settings,
        [(3, "exhaust")] if args.peer is None else args.peer,
    )
    args.blas_threads_given = args.blas_threads
    if args.table:
        print_tables(done_rows(args.out), list(make) if chosen else None)
    elif args.timing:
        timing(args, make)
    else:
        args.blas_threads = args.blas_threads or 1
        agreement(args, make)


if __name__ == "__main__":
    main()
