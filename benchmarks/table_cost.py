"""What one data set's table costs, per method, from results stores: before and after.

A table is the runs of a shipped config (``--config``, default ``feret``: every
method, k = 1..5, 10 splits). For each results store given (a folder ``fdlsr run
--out`` wrote, or its ``results.jsonl``), the rows of those runs (as the config sets
them now; rows of other settings are left out) are summed per method: tuning + fit +
predict seconds, as each row measured them (one run's own time, not the wall time
of the whole command). With two stores the sums are printed side by side, with the
ratio before / after of each method and of the whole table, and each method's share
of the first store's total, then in how many runs both stores hold the two accuracies
are equal (and, per method, where not): a speed-up that changes results shows there.
Runs are matched without the name of the search that tuned them (a changed search is
another setting to ``fdlsr run``, here the same run computed otherwise).
Runs the config plans that a store lacks, and rows that record an error (no times),
are counted per method: a sum over fewer runs is not a
comparison, and the lines say so. ``--workers W ...`` adds, per store, the makespan
of its runs on W workers scheduled longest first (as ``fdlsr run`` orders a fresh
store's runs by their expected cost, here by their measured times), against the
bound ``max(total / W, longest run)``: a prediction of the wall time from the run
times, without warm-ups or process start-up.

    python benchmarks/table_cost.py docs/results/feret            # one store
    python benchmarks/table_cost.py docs/results/feret /tmp/feret_after
    python benchmarks/table_cost.py BEFORE AFTER --config orl --sort name
    python benchmarks/table_cost.py BEFORE AFTER --workers 2 16
    python benchmarks/table_cost.py docs/results/feret --speedup LDA:fit=42 \
        LinearSVC:tune=2.9 FDDL=1.05

``--speedup METHOD[:PART]=RATIO ...`` predicts the table after a change from one
store: each named method's seconds (or only its ``tune``, ``fit`` or ``predict``
seconds) divided by the ratio a one-process benchmark measured, printed as a second
column beside the store's (a prediction, not a measurement: say so where it is used).

Compare stores measured on the same machine, one after the other, with the same
``--jobs`` (runs that share a machine take longer each).
"""

import argparse
import dataclasses
import heapq
import json
from collections import defaultdict

from fdlsr._experiments.config import load_config
from fdlsr._experiments.planning import experiment_runs
from fdlsr._experiments.rows import row_key as stored_key
from fdlsr._experiments.store_folder import read_store
from fdlsr.datasets import load_dataset


def planned_runs(config, data_dir):
    """``{RunKey: method name}`` of every run the config plans."""
    experiment = load_config(config).experiment
    dataset = load_dataset(experiment.dataset, data_dir=data_dir)
    return {
        run_key(unit.key): unit.method.name
        for unit in experiment_runs(experiment, dataset)
    }


def run_key(key):
    """``key`` with the search that tuned the run left out of its setting, so that
    a store written before a method's search changed compares run for run."""
    setting = json.loads(key.setting)
    setting.get("cv", {}).pop("search", None)
    return dataclasses.replace(
        key, setting=json.dumps(setting, sort_keys=True, default=str)
    )


def row_key(row):
    """The run of a stored row, as :func:`run_key` names it."""
    return run_key(stored_key(row))


def run_seconds(store, plan):
    """The seconds of every planned run the store holds with times."""
    return [
        sum(float(row.get(p) or 0.0) for p in ("tune_time", "fit_time", "predict_time"))
        for row in read_store(store).rows
        if row_key(row) in plan and not row.get("error")
    ]


def longest_first_makespan(seconds, workers):
    """When the last of ``workers`` finishes, each taking the longest run left."""
    free = [0.0] * workers
    for s in sorted(seconds, reverse=True):
        heapq.heapreplace(free, free[0] + s)
    return max(free)


def method_costs(store, plan):
    """Per method of the plan: ``seconds`` (tune + fit + predict over its stored
    runs), ``runs`` (rows with times), ``errors`` and ``missing`` (planned runs the
    store lacks)."""
    costs = defaultdict(lambda: dict(seconds=0.0, runs=0, errors=0, missing=0))
    found = set()
    for row in read_store(store).rows:
        key = row_key(row)
        if key not in plan:
            continue
        found.add(key)
        cost = costs[plan[key]]
        if row.get("error"):
            cost["errors"] += 1
            continue
        cost["runs"] += 1
        cost["seconds"] += sum(
            float(row.get(part) or 0.0)
            for part in ("tune_time", "fit_time", "predict_time")
        )
    for key, method in plan.items():
        costs[method]  # every planned method gets a line
        if key not in found:
            costs[method]["missing"] += 1
    return dict(costs)


def accuracy_agreement(before, after, plan):
    """Per method: how many runs both stores hold with an accuracy, and how many of
    those have the same accuracy; a change of speed should not change results."""
    accuracies = [
        {
            row_key(row): row.get("accuracy")
            for row in read_store(store).rows
            if row_key(row) in plan and not row.get("error")
        }
        for store in (before, after)
    ]
    agreement = defaultdict(lambda: [0, 0])
    for key in accuracies[0].keys() & accuracies[1].keys():
        counts = agreement[plan[key]]
        counts[0] += 1
        counts[1] += accuracies[0][key] == accuracies[1][key]
    return dict(agreement)


def parse_speedups(specs):
    """``["LDA:fit=42", "FDDL=1.05"]`` -> ``{("LDA", "fit"): 42.0, ("FDDL", None): 1.05}``."""
    speedups = {}
    for spec in specs:
        target, _, ratio = spec.partition("=")
        method, _, part = target.partition(":")
        if not ratio or part not in ("", *_PARTS):
            raise SystemExit(
                f"--speedup {spec!r}: give METHOD=RATIO or METHOD:PART=RATIO, PART one "
                f"of {', '.join(_PARTS)}"
            )
        speedups[method, part or None] = float(ratio)
    return speedups


def predicted_costs(store, plan, speedups):
    """:func:`method_costs` of ``store`` with the named parts divided by their ratios."""
    costs = {m: dict(c, seconds=0.0) for m, c in method_costs(store, plan).items()}
    for row in read_store(store).rows:
        key = row_key(row)
        if key not in plan or row.get("error"):
            continue
        method = plan[key]
        for part in _PARTS:
            ratio = speedups.get((method, part), speedups.get((method, None), 1.0))
            costs[method]["seconds"] += float(row.get(f"{part}_time") or 0.0) / ratio
    return costs


_PARTS = ("tune", "fit", "predict")


def _runs(cost):
    """``"50"``, or ``"45 (3 missing, 2 errors)"``."""
    extra = [f"{cost[w]} {w}" for w in ("missing", "errors") if cost[w]]
    return f"{cost['runs']}" + (f" ({', '.join(extra)})" if extra else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="+", help="one or two results stores")
    parser.add_argument("--config", default="feret")
    parser.add_argument("--data-dir")
    parser.add_argument("--sort", choices=["cost", "name"], default="cost")
    parser.add_argument("--workers", type=int, nargs="*", default=[])
    parser.add_argument("--speedup", nargs="+", default=[], metavar="METHOD[:PART]=R")
    args = parser.parse_args()
    if len(args.stores) > 2 or (args.speedup and len(args.stores) != 1):
        parser.error("give one store, or two to compare (before, after)")
    plan = planned_runs(args.config, args.data_dir)
    costs = [method_costs(store, plan) for store in args.stores]
    if args.speedup:
        costs.append(
            predicted_costs(args.stores[0], plan, parse_speedups(args.speedup))
        )
        args.stores = [args.stores[0], "predicted (--speedup)"]
    first = costs[0]
    total = [sum(c["seconds"] for c in cost.values()) for cost in costs]
    methods = sorted(
        first, key=(lambda m: -first[m]["seconds"]) if args.sort == "cost" else str
    )
    print(
        f"table of config {args.config!r}: {len(plan)} runs; seconds = tune + fit + predict"
    )
    header = f"{'method':20s} {'share':>6s}"
    for store in args.stores:
        header += f" | {str(store)[-28:]:>28s} {'runs':>20s}"
    if len(costs) == 2:
        header += f" | {'before/after':>12s}"
    print(header)
    for method in methods:
        line = f"{method:20s} {100 * first[method]['seconds'] / max(total[0], 1e-12):5.1f}%"
        for cost in costs:
            c = cost.get(method, dict(seconds=0.0, runs=0, errors=0, missing=0))
            line += f" | {c['seconds']:26.1f} s {_runs(c):>20s}"
        if len(costs) == 2:
            after = costs[1].get(method, {}).get("seconds", 0.0)
            ratio = first[method]["seconds"] / after if after else float("nan")
            line += f" | {ratio:11.2f}x"
        print(line)
    line = f"{'whole table':20s} {'100.0%':>6s}"
    for t, cost in zip(total, costs, strict=True):
        runs = sum(c["runs"] for c in cost.values())
        missing = sum(c["missing"] + c["errors"] for c in cost.values())
        line += f" | {t:26.1f} s {f'{runs} (+{missing} w/o times)':>20s}"
    if len(costs) == 2:
        line += f" | {total[0] / total[1]:11.2f}x  (after = {100 * total[1] / total[0]:.0f}% of before)"
    print(line)
    if len(args.stores) == 2 and not args.speedup:
        agreement = accuracy_agreement(*args.stores, plan)
        both = sum(n for n, _ in agreement.values())
        same = sum(k for _, k in agreement.values())
        differ = ", ".join(
            f"{m} {n - k} of {n}" for m, (n, k) in sorted(agreement.items()) if k < n
        )
        print(
            f"same accuracy in {same} of the {both} runs both stores hold"
            + (f"; differing: {differ}" if differ else "")
        )
    for store in args.stores[:1] if args.speedup else args.stores:
        seconds = run_seconds(store, plan)
        for w in args.workers:
            span = longest_first_makespan(seconds, w)
            bound = max(sum(seconds) / w, max(seconds, default=0.0))
            print(
                f"{store}: {w} workers, longest first: {span:.0f} s "
                f"({span / 60:.1f} min; bound {bound:.0f} s)"
            )


if __name__ == "__main__":
    main()
