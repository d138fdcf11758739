"""Signals at random moments of ``fdlsr run --scheduler local:2``: how many runs end
clean (docs/cluster.md, "Addresses, deadlines, Ctrl-C and what is left behind").

Each run computes LC-KSVD2 and RidgeClassifier on 20 noisy classes x 20 samples
(k = 5, 3 splits) in a session of its own, with a fresh ``$TMPDIR`` and working
folder, and gets the signal a random number of seconds after its start (uniform
between LOW and HIGH). Clean: exit 130 with ``fdlsr: interrupted ...`` as its last
line (exit 0 when the signal came after the end), no line but fdlsr's own, no
process of the run left 10 s after it ended, nothing in ``$TMPDIR`` or the working
folder. For SIGKILL only the processes are checked (a killed run cannot clean).

    python benchmarks/cluster_signals.py SIGINT group 40 0.3 9 [--seed 11]
    python benchmarks/cluster_signals.py SIGTERM parent 20 0.3 9
    python benchmarks/cluster_signals.py SIGKILL parent 15 0.3 9

``group`` sends the signal to the run's process group, as Ctrl-C on a terminal does;
``parent`` to the command alone. One JSON line per run, then the count.
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

from fdlsr._testing import save_noisy_classes


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


def one_run(data, how, to_group, delay):
    folder = Path(tempfile.mkdtemp(prefix="cluster-signals-"))
    tmp, cwd, log = folder / "tmp", folder / "cwd", folder / "log"
    tmp.mkdir()
    cwd.mkdir()
    command = [
        sys.executable, "-m", "fdlsr", "run", "--dataset", str(data),
        "--methods", "LC-KSVD2", "RidgeClassifier", "-k", "5", "--splits", "3",
        "--no-table", "--out", str(folder / "out"), "--scheduler", "local:2",
    ]  # fmt: skip
    with open(log, "w") as handle:
        process = subprocess.Popen(
            command,
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
    deadline = time.monotonic() + 10
    while session(process.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = session(process.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    lines = log.read_text().strip().splitlines()
    files = [str(p) for p in [*tmp.rglob("*"), *cwd.rglob("*")]]
    own = all(
        line.startswith("fdlsr: ") or " runs computed, " in line for line in lines
    )
    if how == signal.SIGKILL:
        clean = not left
    elif code == 130:
        clean = own and lines[-1].startswith("fdlsr: interrupted") and not left
        clean = clean and not files
    else:
        clean = code == 0 and own and not left and not files
    shutil.rmtree(folder, ignore_errors=True)
    return {"delay": round(delay, 2), "exit": code, "clean": clean,
            "processes_left": left, "files_left": files, "last_lines": lines[-3:]}  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("signal", choices=["SIGINT", "SIGTERM", "SIGKILL"])
    parser.add_argument("to", choices=["group", "parent"])
    parser.add_argument("count", type=int)
    parser.add_argument("low", type=float)
    parser.add_argument("high", type=float)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    data = save_noisy_classes(Path(tempfile.mkdtemp()) / "noisy.npz")
    how = getattr(signal, args.signal)
    clean = 0
    for _ in range(args.count):
        result = one_run(
            data, how, args.to == "group", rng.uniform(args.low, args.high)
        )
        clean += result["clean"]
        print(json.dumps(result), flush=True)
    print(f"{args.signal} to the {args.to}: {clean} of {args.count} clean")


if __name__ == "__main__":
    main()
