"""Makespan of each shipped table on W workers: plan order against longest first,
from the per-row times in docs/results/*/results.jsonl (nothing is rerun).

A unit's time is its row's ``fit_time + predict_time + tune_time`` (measured in the
tables' own runs, one BLAS thread each on the 2-core machine); warm-ups and process
start-up are left out. Each order is scheduled greedily, as ``fdlsr run --jobs`` and
a dask scheduler do: the next unit goes to the worker that is free first. Orders:

* plan: the order of ``experiment_runs`` (each k, each split, each method of the
  config), as ``fdlsr run --order plan``;
* model: longest first by the scheduler's expected costs in a fresh store (the cost
  model, ``scheduler.expected_costs`` without rows), as ``fdlsr run`` into an empty
  folder;
* measured: longest first by the rows' own times, as a rerun into a store that holds
  them.

The bound is ``max(total / W, longest unit)``: no order does better; the longest
unit is the critical one once ``W`` exceeds ``total / longest``. The unit that
finishes last in plan order is what plan order loses to.

    python benchmarks/makespan.py [--workers 2 8 16 64] [--tables feret orl]
        [--methods FDDL LRSDL ...] [--splits 3]
"""

import argparse
import heapq
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from fdlsr._experiments.config import load_config
from fdlsr._experiments.registry import get_method
from fdlsr._experiments.scheduler import expected_costs, longest_first

ROOT = Path(__file__).resolve().parent.parent


def units_of(table, methods=None, splits=None):
    """The table's units in plan order (those of ``methods`` and the first ``splits``
    splits, when given), their measured seconds, and the data facts the cost model
    reads."""
    rows = [
        json.loads(line)
        for line in (ROOT / "docs" / "results" / table / "results.jsonl")
        .read_text()
        .splitlines()
    ]
    ex = load_config(table).experiment
    ks = list(ex.ks)
    methods = methods or list(ex.methods)
    chosen = {m.lower() for m in methods}
    rows = [
        r
        for r in rows
        if r.get("accuracy") is not None
        and r["method"].lower() in chosen
        and (splits is None or r["split"] < splits)
    ]
    rank = {m.lower(): i for i, m in enumerate(methods)}

    def plan_position(row):
        k = ks.index(row["k"]) if row["k"] in ks else len(ks)
        return (k, row["split"], rank.get(row["method"].lower(), len(methods)))

    rows.sort(key=plan_position)
    splits = {(r["k"], r["split"]): (np.empty(r["n_train"]), None) for r in rows}
    data = SimpleNamespace(X=np.empty((0, rows[0]["n_features"])), splits=splits)
    units = [
        SimpleNamespace(
            method=get_method(r["method"]), k=r["k"], split=r["split"], setting=""
        )
        for r in rows
    ]
    seconds = [r["fit_time"] + r["predict_time"] + r["tune_time"] for r in rows]
    return units, seconds, data


def makespan(times, workers):
    """Greedy list scheduling of ``times`` in order on ``workers``: the makespan and
    the index of the unit that finishes last."""
    free = [(0.0, w) for w in range(workers)]
    end, last = 0.0, None
    for index, t in enumerate(times):
        start, w = heapq.heappop(free)
        heapq.heappush(free, (start + t, w))
        if start + t >= end:
            end, last = start + t, index
    return end, last


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[2, 8, 16, 64])
    parser.add_argument("--tables", nargs="+")
    parser.add_argument("--methods", nargs="+", help="only these methods' units")
    parser.add_argument("--splits", type=int, help="only the first SPLITS splits")
    args = parser.parse_args()
    tables = args.tables or sorted(
        p.parent.name for p in (ROOT / "docs" / "results").glob("*/results.jsonl")
    )
    print(
        "| table | units | CPU s | longest unit | W | plan | longest first (model) | "
        "longest first (measured) | bound | last to finish in plan order |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    near = {"plan": 0, "model": 0, "measured": 0}
    cases = 0
    for table in tables:
        units, seconds, data = units_of(table, args.methods, args.splits)
        costs = expected_costs(units, data)
        position = {id(u): i for i, u in enumerate(units)}
        by_model = [position[id(u)] for u in longest_first(units, costs)]
        by_time = [position[id(u)] for u in longest_first(units, seconds)]
        total, longest = sum(seconds), int(np.argmax(seconds))
        for w in args.workers:
            plan, last = makespan(seconds, w)
            model, _ = makespan([seconds[i] for i in by_model], w)
            measured, _ = makespan([seconds[i] for i in by_time], w)
            bound = max(total / w, seconds[longest])
            cases += 1
            for order, span in (
                ("plan", plan),
                ("model", model),
                ("measured", measured),
            ):
                near[order] += span <= 1.01 * bound
            print(
                f"| {table} | {len(units)} | {total:.0f} | {name(units[longest])} "
                f"({seconds[longest]:.0f} s) | {w} | {plan:.0f} | {model:.0f} | "
                f"{measured:.0f} | {bound:.0f} | {name(units[last])} "
                f"({seconds[last]:.0f} s, ends at {plan:.0f} s) |"
            )
    print(
        f"\nWithin 1% of the bound, of {cases}: plan order {near['plan']}, longest "
        f"first by the model {near['model']}, by the measured times {near['measured']}."
    )


def name(unit):
    return f"{unit.method.name} k={unit.k} split {unit.split}"


if __name__ == "__main__":
    main()
