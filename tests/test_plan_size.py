"""A plan is sized before it runs: its runs, memory and expected time are computed
from the request, and a plan beyond the machine or the stated bound is refused in one
line with the numbers, before anything of it is made."""

import resource
import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import load_digits

from fdlsr._experiments.config import Config
from fdlsr._experiments.plan_size import MAX_RUNS, check_plan_size, plan_size
from fdlsr._experiments.planning import Experiment
from fdlsr._experiments.run import RunRequest, run
from fdlsr.datasets import Dataset
from fdlsr.errors import ConfigError


def Data():
    X, y = load_digits(return_X_y=True)
    return Dataset(X[:200], y[:200], "mini")


def limited_memory():
    """The child's address space: 2 GiB, so a plan that grows is stopped early."""
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.mark.parametrize("where", ["command line", "config"])
def test_a_plan_of_a_trillion_splits_is_refused_at_once(tmp_path, where):
    """Was: the plan grew to GBs (24 GB without a limit) before memory ran out."""
    argv = ["--dataset", "digits", "--methods", "LSR", "1-NN", "-k", "2"]
    if where == "command line":
        argv += ["--splits", "1000000000000"]
    else:
        config = tmp_path / "big.toml"
        config.write_text(
            'dataset = "digits"\nk = [2]\nsplits = 1000000000000\n'
            'methods = ["LSR", "1-NN"]\n'
        )
        argv = ["--config", str(config)]
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "fdlsr", "run", *argv, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limited_memory,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "the plan holds 2e12 runs (2 methods x 1e12 splits" in lines[0]
    assert f"more than the {MAX_RUNS:,} runs one command plans" in lines[0]
    assert "split indices take" in lines[0] and "registry's costs put them" in lines[0]
    assert not out.exists()


def test_the_size_is_computed_from_the_request():
    data = Data()
    ex = Experiment(dataset="mini", ks=[2, 3], methods=["LSR", "1-NN"], splits=7)
    size = plan_size(ex, data, ex.resolved())
    assert (size.runs, size.methods, size.draws) == (28, 2, 14)
    assert size.split_bytes == 14 * 200 * 8  # each split indexes every sample once
    assert size.data_bytes == 2 * 200 * 64 * 8  # the 2 copies a run makes
    assert size.seconds > 0


def test_a_plan_beyond_the_memory_left_is_refused_with_its_numbers():
    data = Data()
    ex = Experiment(dataset="mini", ks=[2], methods=["LSR"], splits=1000)
    methods = ex.resolved()
    need = plan_size(ex, data, methods).memory
    assert check_plan_size(ex, data, methods, available=need).runs == 1000
    with pytest.raises(ConfigError, match="the plan holds 1,000 runs") as refused:
        check_plan_size(ex, data, methods, available=need - 1)
    assert "of memory left" in str(refused.value)
    assert "give fewer --splits" in str(refused.value)


def test_run_refuses_before_the_store_is_written(tmp_path):
    ex = Experiment(dataset="mini", ks=[2], methods=["LSR"], splits=MAX_RUNS + 1)
    request = RunRequest(Config(ex), out=tmp_path / "out", table=False)
    with pytest.raises(ConfigError, match="more than the 1,000,000 runs"):
        run(request, dataset=Data())
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_a_fixed_split_is_one_draw():
    X, y = load_digits(return_X_y=True)
    data = Dataset(
        X[:100], y[:100], "own", fixed_split=(np.arange(60), np.arange(60, 100))
    )
    ex = Experiment(dataset="own", ks=[], methods=["LSR"], splits=10**12)
    size = plan_size(ex, data, ex.resolved())
    assert (size.runs, size.split_bytes) == (1, 0)
