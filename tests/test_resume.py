"""An experiment killed partway (kill -9, Ctrl-C) resumes without losing or redoing rows."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

# 2 methods x 1 k x 10 splits = 20 rows on digits: a few seconds of work
COMMAND = [
    "run",
    "--dataset",
    "digits",
    "--methods",
    "FDLSR",
    "RidgeClassifier",
    "-k",
    "5",
    "--splits",
    "10",
    "--no-table",
]
TOTAL = 20


def start(out):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "fdlsr", *COMMAND, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        # pytest-xdist workers may ignore SIGINT, and an ignored signal is inherited
        # across exec: the run would then never see the Ctrl-C this test sends.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def wait_for_rows(path, n, process, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= n:
            return
        if process.poll() is not None:
            pytest.fail(f"run ended before {n} rows: {process.stderr.read()}")
        time.sleep(0.02)
    pytest.fail(f"fewer than {n} rows after {timeout} s")


def keys(lines):
    rows = [json.loads(line) for line in lines]
    return [(r["method"], r["k"], r["split"], r["setting"]) for r in rows]


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT])
def test_interrupted_run_resumes_where_it_stopped(tmp_path, how):
    out = tmp_path / "res"
    results = out / "results.jsonl"
    process = start(out)
    wait_for_rows(results, 3, process)
    process.send_signal(how)
    _, err = process.communicate(timeout=60)
    if how == signal.SIGKILL:
        assert process.returncode == -signal.SIGKILL
        # as if the kill had landed in the middle of a write
        with open(results, "a") as handle:
            handle.write('{"dataset": "digits", "method": "FD')
    else:
        assert process.returncode == 130, err
        assert err.strip().splitlines()[-1].startswith("fdlsr: interrupted"), err
    before = [line for line in results.read_text().split("\n")[:-1]]
    assert 3 <= len(before) < TOTAL, err

    process = start(out)
    _, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    assert f"{TOTAL - len(before)} runs computed, {len(before)} already" in err
    after = results.read_text().split("\n")
    assert after[-1] == ""  # the torn line is gone, every line is complete
    after = after[:-1]
    assert after[: len(before)] == before  # finished rows kept byte for byte
    assert len(after) == TOTAL and len(set(keys(after))) == TOTAL
