"""What the safe model file costs against pickle: size, save time and load time.

Each model is fitted on all of FERET (1400 samples, 1600 features, 200 classes), then
saved and loaded with ``fdlsr.save``/``fdlsr.load`` and with ``pickle`` (to a file, the
same disk), alternating, best of ``--repeats`` in CPU time with BLAS pinned to one
thread. Only the ratios mean something on a shared machine; the load average is
printed.

    python benchmarks/bench_model_files.py --repeats 5
"""

import argparse
import os
import pickle
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

import fdlsr
from fdlsr._experiments.registry import get_method
from fdlsr.datasets import load_dataset


def timed(function):
    """CPU seconds of one call."""
    start = time.process_time()
    function()
    return time.process_time() - start


def pickle_save(model, path):
    with open(path, "wb") as handle:
        pickle.dump(model, handle, protocol=pickle.HIGHEST_PROTOCOL)


def pickle_load(path):
    with open(path, "rb") as handle:
        return pickle.load(handle)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--methods", nargs="+", default=["FDLSR", "LSR", "SRC", "FDDL"])
    args = parser.parse_args()
    data_dir = os.environ.get("FDLSR_DATA_DIR", "../shared/data")
    dataset = load_dataset("feret", data_dir=data_dir)
    X = dataset.X / np.linalg.norm(dataset.X, axis=1, keepdims=True)
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    print(
        "| model | fdlsr file | pickle | save: fdlsr / pickle | load: fdlsr / pickle |"
    )
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder, threadpool_limits(1):
        ours, theirs = Path(folder) / "model.fdlsr", Path(folder) / "model.pkl"
        for name in args.methods:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = get_method(name).build().fit(X, dataset.y)
            steps = {
                "save_ours": lambda model=model: fdlsr.save(model, ours),
                "save_pickle": lambda model=model: pickle_save(model, theirs),
                "load_ours": lambda: fdlsr.load(ours),
                "load_pickle": lambda: pickle_load(theirs),
            }
            # alternated, best of the repeats: a drift of the load hits both sides
            runs = [
                {k: timed(f) for k, f in steps.items()} for _ in range(args.repeats)
            ]
            t = {k: min(run[k] for run in runs) for k in steps}
            save_ours, save_pickle = t["save_ours"], t["save_pickle"]
            load_ours, load_pickle = t["load_ours"], t["load_pickle"]
            same = np.array_equal(
                fdlsr.load(ours).predict(X[:200]), model.predict(X[:200])
            )
            assert same, name
            print(
                f"| {name} | {ours.stat().st_size / 2**20:.1f} MiB | "
                f"{theirs.stat().st_size / 2**20:.1f} MiB | "
                f"{save_ours:.3f} / {save_pickle:.3f} s ({save_ours / save_pickle:.1f}x) | "
                f"{load_ours:.3f} / {load_pickle:.3f} s ({load_ours / load_pickle:.1f}x) |"
            )
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
