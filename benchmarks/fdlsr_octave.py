"""FDLSR.fit against the authors' ``FDLSR.m`` under GNU Octave, same split, one run.

Issue 13 asks for the fit at 7.5x the authors' code. This script trains both on the
same data, FERET with 5 images per person (split 0, unit-normalised, sorted by class
as their code needs) with the paper's FERET parameters, times each (best of
``--repeats`` after a warm-up) and compares their projections ``Q``. Two settings,
each run on its own: BLAS on one thread with CPU time (Octave's ``cputime``, Python's
``process_time``), and each library's default threads with wall time. Octave's BLAS
is named in the output (``version -blas``).

Needs ``octave-cli`` (``apt-get install -y octave``) and a checkout of the authors'
code (``../shared/ORIGINAL_CODE.md``: chenzhe207/FDLSR); it runs their file in place
and copies nothing. The authors' ``FDLSR.m`` is a plain function of the data: its
time is the fit alone, as is ``FDLSR.fit``'s here (which also keeps the training
projections for the 1-NN rule).

    FDLSR_DATA_DIR=../shared/data python benchmarks/fdlsr_octave.py \
        --authors-code /path/to/FDLSR [--repeats 5]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.io
from threadpoolctl import threadpool_limits

from bench_fit import FERET_PARAMS as PARAMS
from bench_fit import feret_training
from fdlsr import FDLSR

OCTAVE = """
addpath('{code}');
load('{data}');
printf('octave %s, %s\\n', version(), version('-blas'));
[Q, ~, ~] = FDLSR(X, c, H, train_num, alpha, beta, lambda);  % warm-up
wall = zeros(1, repeats); cpu = zeros(1, repeats);
for r = 1:repeats
  t = tic; c0 = cputime;
  [Q, ~, ~] = FDLSR(X, c, H, train_num, alpha, beta, lambda);
  wall(r) = toc(t); cpu(r) = cputime - c0;
end
save('-v7', '{out}', 'Q', 'wall', 'cpu');
"""


def run_octave(code, X, y, repeats, threads, folder):
    """The authors' fit under Octave: its Q and best wall and CPU seconds."""
    classes, counts = np.unique(y, return_counts=True)
    H = (y[None, :] == classes[:, None]).astype(float)
    data, out = folder / "data.mat", folder / "out.mat"
    scipy.io.savemat(
        data,
        {
            "X": X.T,  # d x n, columns sorted by class
            "H": H,
            "c": float(classes.size),
            "train_num": np.concatenate([[0], counts]).astype(float),
            "alpha": PARAMS["alpha"],
            "beta": PARAMS["beta"],
            "lambda": PARAMS["lam"],
            "repeats": float(repeats),
        },
    )
    script = OCTAVE.format(code=code, data=data, out=out)
    env = dict(os.environ)
    if threads == 1:
        env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    result = subprocess.run(
        ["octave-cli", "--quiet", "--eval", script],
        check=True,
        env=env,
        capture_output=True,
        text=True,
    )
    found = scipy.io.loadmat(out)
    return found["Q"], found["wall"].min(), found["cpu"].min(), result.stdout.strip()


def best_fit(X, y, repeats, clock):
    FDLSR(**PARAMS).fit(X, y)  # warm-up
    times = []
    for _ in range(repeats):
        start = clock()
        model = FDLSR(**PARAMS).fit(X, y)
        times.append(clock() - start)
    return model.coef_, min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--authors-code", type=Path, required=True)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if not (args.authors_code / "FDLSR.m").is_file():
        sys.exit(
            f"no FDLSR.m in {args.authors_code}: pass a checkout of chenzhe207/FDLSR"
        )
    X, y = feret_training()
    print(f"FERET k=5, split 0: n={X.shape[0]}, d={X.shape[1]}, {PARAMS}")
    print(f"load average at start: {os.getloadavg()}")
    settings = (
        ("1 thread, CPU time", 1, time.process_time, "cpu"),
        ("default threads, wall time", None, time.perf_counter, "wall"),
    )
    with tempfile.TemporaryDirectory() as folder:
        for label, threads, clock, kind in settings:
            Q_oct, wall, cpu, about = run_octave(
                args.authors_code.resolve(), X, y, args.repeats, threads, Path(folder)
            )
            with threadpool_limits(threads):
                coef, ours = best_fit(X, y, args.repeats, clock)
            theirs = cpu if kind == "cpu" else wall
            rel = np.linalg.norm(coef - Q_oct) / np.linalg.norm(Q_oct)
            print(about)
            print(
                f"  {label:26s} authors' FDLSR.m {theirs:.3f} s | FDLSR.fit"
                f" {ours:.3f} s | ratio {theirs / ours:.2f}x | rel. diff of Q {rel:.1e}",
                flush=True,
            )
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
