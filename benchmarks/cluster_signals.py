"""Signals at random moments of ``fdlsr run --jobs 2`` or ``--scheduler local:2``:
what each run leaves (docs/cluster.md, "What is left behind").

Each run computes LC-KSVD2 and RidgeClassifier on 20 noisy classes x 20 samples
(k = 5, 3 splits) into a fresh store, in a session of its own with a fresh
``$TMPDIR`` and working folder, and gets the signal a random number of seconds after
its start (uniform between LOW and HIGH, by default 1.2 times the time of an
uninterrupted run, measured first). Then, per run: its exit status; the rows
kept; rows stored twice; rows that differ from those of an uninterrupted run of the
same command (times aside); the processes of its session still there 5 s after it
ended; the files left in ``$TMPDIR``, the working folder and ``/dev/shm`` (named
after its process id); and whether its output
is fdlsr's own lines only, the last ``fdlsr: interrupted`` after exit 130.

    python benchmarks/cluster_signals.py SIGKILL parent 12 0.3 --runner jobs
    python benchmarks/cluster_signals.py SIGINT group 6 0.3 --runner local [--seed 11]

``group`` sends the signal to the run's process group, as Ctrl-C on a terminal does;
``parent`` to the command alone. One JSON line per run, then the totals.
"""

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fdlsr._experiments.rows import row_key
from fdlsr._experiments.store_folder import read_rows
from fdlsr._testing import VOLATILE, save_noisy_classes

RUNNERS = {"jobs": ["--jobs", "2"], "local": ["--scheduler", "local:2"]}
LEFT_AFTER = 5  # seconds after the run's end


def session(sid):
    """The processes of session ``sid`` that have not ended."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                text = (entry / "stat").read_text()
            except OSError:
                continue
            fields = text[text.rindex(")") + 2 :].split()
            if int(fields[3]) == sid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def command(data, out, runner):
    return [
        sys.executable, "-m", "fdlsr", "run", "--dataset", str(data),
        "--methods", "LC-KSVD2", "RidgeClassifier", "-k", "5", "--splits", "3",
        "--no-table", "--out", str(out), *RUNNERS[runner],
    ]  # fmt: skip


def stable(row):
    return {k: v for k, v in row.items() if k not in VOLATILE}


def one_run(data, runner, how, to_group, delay, reference):
    folder = Path(tempfile.mkdtemp(prefix="cluster-signals-"))
    tmp, cwd, log, out = folder / "tmp", folder / "cwd", folder / "log", folder / "out"
    tmp.mkdir()
    cwd.mkdir()
    with open(log, "w") as handle:
        process = subprocess.Popen(
            command(data, out, runner),
            stdout=handle,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            env={**os.environ, "TMPDIR": str(tmp), "PYTHONUNBUFFERED": "1"},
            start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
    time.sleep(delay)
    if process.poll() is None:
        (os.killpg if to_group else os.kill)(process.pid, how)
    try:
        code = process.wait(timeout=120)
    except subprocess.TimeoutExpired:
        code = "no end"
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    time.sleep(LEFT_AFTER)
    left = session(process.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    rows = read_rows(out) if (out / "results.jsonl").exists() else []
    keys = [row_key(row) for row in rows]
    different = sum(
        stable(row) != reference.get(key) for key, row in zip(keys, rows, strict=True)
    )
    lines = log.read_text().strip().splitlines()
    files = [str(p.relative_to(folder)) for p in [*tmp.rglob("*"), *cwd.rglob("*")]]
    shm = [name for name in os.listdir("/dev/shm") if f"-{process.pid}-" in name
           or f"_{process.pid}_" in name]  # fmt: skip
    own = all(
        line.startswith("fdlsr: ") or " runs computed, " in line for line in lines
    )
    if code == 130:
        own = own and lines[-1].startswith("fdlsr: interrupted")
    shutil.rmtree(folder, ignore_errors=True)
    return {"delay": round(delay, 2), "exit": code, "rows": len(rows),
            "twice": len(keys) - len(set(keys)), "different": different,
            "processes_left": len(left), "files_left": files, "shm_left": shm,
            "own_lines": own, "last_line": lines[-1] if lines else ""}  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("signal", choices=["SIGINT", "SIGTERM", "SIGKILL"])
    parser.add_argument("to", choices=["group", "parent"])
    parser.add_argument("count", type=int)
    parser.add_argument("low", type=float)
    parser.add_argument(
        "high", type=float, nargs="?", help="default: 1.2 x an uninterrupted run's time"
    )
    parser.add_argument("--runner", choices=sorted(RUNNERS), default="local")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="cluster-signals-data-"))
    data = save_noisy_classes(folder / "noisy.npz")
    start = time.monotonic()
    done = subprocess.run(
        command(data, folder / "reference", args.runner), capture_output=True
    )
    assert done.returncode == 0, done.stderr
    high = args.high or 1.2 * (time.monotonic() - start)
    print(f"an uninterrupted run: {time.monotonic() - start:.1f} s", flush=True)
    reference = {row_key(r): stable(r) for r in read_rows(folder / "reference")}
    how = getattr(signal, args.signal)
    results = []
    for _ in range(args.count):
        delay = rng.uniform(args.low, high)
        result = one_run(data, args.runner, how, args.to == "group", delay, reference)
        results.append(result)
        print(json.dumps(result), flush=True)
    shutil.rmtree(folder, ignore_errors=True)
    codes = sorted({str(r["exit"]) for r in results})
    exits = ", ".join(
        f"{c}: {sum(str(r['exit']) == c for r in results)}" for c in codes
    )
    print(
        f"{args.signal} to the {args.to}, --{args.runner}: {len(results)} runs; exits "
        f"{exits}; rows kept {sum(r['rows'] for r in results)} (of "
        f"{len(results) * len(reference)}); twice {sum(r['twice'] for r in results)}; "
        f"different {sum(r['different'] for r in results)}; runs with processes left "
        f"after {LEFT_AFTER} s: {sum(bool(r['processes_left']) for r in results)}; "
        f"with files left: {sum(bool(r['files_left']) for r in results)}; with "
        f"/dev/shm entries left: {sum(bool(r['shm_left']) for r in results)}; with other "
        f"lines: {sum(not r['own_lines'] for r in results)}"
    )


if __name__ == "__main__":
    main()
