"""The scheduler (``fdlsr._experiments.scheduler``): longest expected work first, from the
store's own times or the cost model, deterministically; the workers' use reported."""

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.datasets import load_digits

from fdlsr._experiments.config import Config
from fdlsr._experiments.evaluation import shared_data
from fdlsr._experiments.planning import Experiment, experiment_runs
from fdlsr._experiments.registry import METHODS, get_method
from fdlsr._experiments.run import RunRequest, run
from fdlsr._experiments.scheduler import Usage, expected_costs, longest_first
from fdlsr._experiments.store import ResultStore
from fdlsr._experiments.store_folder import read_rows
from fdlsr.datasets import Dataset

RESULTS = Path(__file__).parents[1] / "docs" / "results"


def digits():
    X, y = load_digits(return_X_y=True)
    keep = np.concatenate([np.flatnonzero(y == c)[:12] for c in range(6)])
    return Dataset(X[keep], y[keep], "mini")


def computed(out, experiment, dataset, progress=None, **options):
    """The runs of ``experiment`` on ``dataset`` computed into the store ``out``."""
    request = RunRequest(Config(experiment), out=out, table=False, **options)
    return run(request, dataset=dataset, progress=progress).computed


def plan(methods=("FDDL", "FDLSR", "1-NN", "LRSDL"), ks=(2, 4)):
    data = digits()
    ex = Experiment("mini", list(ks), list(methods), splits=3)
    units = experiment_runs(ex, data)
    return ex, data, units, shared_data(ex, data, units)


def test_without_stored_rows_the_model_puts_the_long_methods_and_large_k_first():
    _, _, units, data = plan()
    ordered = longest_first(units, expected_costs(units, data))
    first = [(u.method.name, u.k) for u in ordered[:6]]
    assert first == [("LRSDL", 4)] * 3 + [("FDDL", 4)] * 3
    assert [(u.method.name, u.k) for u in ordered[-3:]] == [("1-NN", 2)] * 3
    # equal costs keep the plan's order: the splits of one method and k in turn
    assert [u.split for u in ordered[:3]] == [0, 1, 2]


def test_stored_times_of_a_method_and_k_override_the_model():
    _, _, units, data = plan()
    setting = next(u.setting for u in units if u.method.name == "1-NN")
    rows = [
        {
            "method": "1-NN",
            "k": 2,
            "setting": setting,
            "accuracy": 0.9,
            "fit_time": 500.0,
            "predict_time": 1.0,
            "tune_time": 0.0,
        }
    ]
    costs = expected_costs(units, data, rows)
    nn2 = [
        c
        for u, c in zip(units, costs, strict=True)
        if (u.method.name, u.k) == ("1-NN", 2)
    ]
    assert nn2 == [501.0] * 3
    assert longest_first(units, costs)[0].method.name == "1-NN"
    # a failed row says nothing of the time
    failed = [{**rows[0], "accuracy": None}]
    assert expected_costs(units, data, failed) == expected_costs(units, data)


def test_the_order_is_the_same_for_the_same_store_and_plan(tmp_path):
    ex, dataset, units, data = plan(ks=(2, 3))
    partial = Experiment("mini", [2], ["FDLSR", "1-NN"], splits=2)
    computed(tmp_path, partial, dataset)
    orders = []
    for _ in range(2):
        with ResultStore(tmp_path) as store:
            costs = expected_costs(units, data, store.rows)
        orders.append([u.key for u in longest_first(units, costs)])
    assert orders[0] == orders[1]
    assert len(set(orders[0])) == len(units)


def test_the_cost_model_orders_the_shipped_tables_like_their_times():
    # The model's constants are FERET's (k = 5); its growth with n_train and
    # n_features is checked on the other tables: rank correlation of the expected and
    # measured mean time of each method and k (0.54 on USPS, where SRC's test time
    # over 10,000 samples dominates; 0.78 to 0.96 on the others).
    checked = 0
    for path in sorted(RESULTS.glob("*/results.jsonl")):
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        times, n_train = {}, {}
        for row in rows:
            if row.get("accuracy") is None:
                continue
            key = (row["method"], row["k"])
            seconds = row["fit_time"] + row["predict_time"] + row["tune_time"]
            times.setdefault(key, []).append(seconds)
            n_train[key] = row["n_train"]
            n_features = row["n_features"]
        measured = [np.mean(times[key]) for key in times]

        class Data:
            X = np.empty((0, n_features))
            splits = {}

        units = []
        for method, k in times:
            Data.splits[k, 0] = (np.arange(n_train[method, k]), None)
            units.append(_Unit(method, k))
        expected = expected_costs(units, Data)
        assert spearmanr(measured, expected).statistic > 0.5, path.parent.name
        checked += 1
    assert checked >= 8
    # every method has its time in its registry entry; the long ones above FDLSR's
    assert all(method.seconds > 0 for method in METHODS.values())
    for name in ("FDDL", "LRSDL", "LC-KSVD2"):
        assert METHODS[name].seconds > 10 * METHODS["FDLSR"].seconds


class _Unit:
    """What the cost model reads of a unit."""

    def __init__(self, method, k):
        self.method = get_method(method)
        self.k, self.split, self.setting = k, 0, ""


def test_several_workers_report_their_use(tmp_path):
    ex = Experiment("mini", [2], ["FDLSR", "1-NN"], splits=2)
    events = []
    assert computed(tmp_path, ex, digits(), events.append, jobs=2) == 4
    usage = events[-1].usage
    assert isinstance(usage, Usage) and usage.workers == 2
    assert 0 < usage.busy <= usage.workers * usage.wall
    assert usage.idle == pytest.approx(usage.workers * usage.wall - usage.busy)
    assert "2 workers for" in str(usage) and "idle" in str(usage)
    # every row but the last gets the time expected to be left
    assert all(event.eta is not None for event in events[1:-1])
    assert len(read_rows(tmp_path)) == 4


def test_plan_order_and_one_job_keep_the_plan(tmp_path):
    ex = Experiment("mini", [2, 3], ["1-NN", "FDDL"], splits=1)
    computed(tmp_path / "one", ex, digits())
    rows = read_rows(tmp_path / "one")
    assert [(r["method"], r["k"]) for r in rows] == [
        ("1-NN", 2),
        ("FDDL", 2),
        ("1-NN", 3),
        ("FDDL", 3),
    ]
    with pytest.raises(ValueError, match="--order"):
        computed(tmp_path / "bad", ex, digits(), order="shortest")
    assert not (tmp_path / "bad").exists()


@pytest.mark.parametrize("order", ["plan", "longest"])
def test_order_with_one_run_at_a_time_is_refused(tmp_path, capsys, order):
    """One run at a time runs in the plan's order whatever --order says: refused,
    not ignored; with several at once it applies."""
    from fdlsr._testing import cli_error

    out = tmp_path / "res"
    line = cli_error(
        capsys,
        ["run", "--dataset", "digits", "--methods", "1-NN", "-k", "2", "--splits", "1",
         "--no-table", "--out", str(out), "--order", order],
    )  # fmt: skip
    assert f"--order {order} applies when several runs are computed at once" in line
    assert not out.exists()
    ex = Experiment("mini", [2], ["1-NN"], splits=2)
    assert computed(tmp_path / "two", ex, digits(), jobs=2, order=order) == 2


def test_time_left_uses_the_times_of_units_done_then_the_scaled_model():
    from fdlsr._experiments.scheduler import _time_left

    _, _, units, _ = plan(methods=("FDLSR", "1-NN"), ks=(2,))
    costs = {u.key: 1.0 for u in units[2:]}  # two units done, four left
    took = {("FDLSR", 2): [3.0, 5.0]}  # FDLSR at k=2 takes 4 s here
    left = _time_left(units, costs, took, scale=2.0, workers=2)
    # two FDLSR units at 4 s, two 1-NN units at 1.0 expected x 2.0 so far
    assert left == pytest.approx((2 * 4.0 + 2 * 2.0) / 2)
