"""LC-KSVD2, LCLE, DPL and DRA-DPL on the FDLSR paper's FERET protocol.

For every training size k and split seed, k random images per person train each
method (registry defaults, as many atoms as training images) and the rest test it;
samples are unit-normalised first, as in the paper. One tidy row per method x k x
split (accuracy, fit and predict seconds) goes to a CSV, the environment to a JSON
beside it, and a summary with the paper's Table III numbers is printed.

    python benchmarks/bench_dictionary.py --ks 5 --splits 1
    python benchmarks/bench_dictionary.py --ks 2 3 4 5 --splits 10 --out results/x.csv
    python benchmarks/bench_dictionary.py --summary results/x.csv   # table only

Before/after timing of a speed-up (``--compare SRC``): each method is fitted and
predicted on FERET k = 5, split 0 of seed 0 (the protocol's
``per_class_split(y, 5, 0, 0)`` and ``run_random_state(0, 0)``), alternately by
the package under ``SRC`` (an exported older tree, e.g. ``git archive <commit> src |
tar -x -C /tmp/before``, then ``--compare /tmp/before/src``) and by this one, each run
in a fresh process with BLAS on one thread; it prints the best CPU seconds of each
over ``--repeats`` rounds, their ratio, the load average, and the largest relative
difference between the two fitted models and whether their predictions agree.

    python benchmarks/bench_dictionary.py --compare /tmp/before/src --repeats 3 \
        --methods LC-KSVD2 LCLE FDDL LRSDL

Times are wall-clock seconds (``fit_s``, ``predict_s``) and CPU seconds of this process
summed over its threads (``*_cpu_s``; LAPACK runs on one thread, products on the
BLAS default). On a shared machine wall-clock times grow with the others' load, which
is recorded (``os.getloadavg``) before and after; CPU seconds are steadier.
"""

import argparse
import csv
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

import threadpoolctl  # noqa: E402
from sklearn.preprocessing import normalize  # noqa: E402

from fdlsr._experiments.environment import environment  # noqa: E402
from fdlsr._experiments.registry import get_method  # noqa: E402

# Table III of the FDLSR paper (FERET, k = 1..5 images per person for training):
# mean accuracy (%) and training / test seconds.
PAPER = {
    "LC-KSVD2": ([24.46, 39.52, 48.59, 55.90, 64.18], 12.8686, 0.1333),
    "LCLE": ([26.98, 41.79, 53.31, 59.23, 62.28], 5.5991, 0.1944),
    "DPL": ([26.23, 43.78, 54.30, 60.58, 65.30], 33.9260, 0.4165),
    "DRA-DPL": ([22.61, 39.00, 49.49, 55.67, 62.18], 400.7182, 2.7406),
}


def run(methods, ks, splits, out):
    from fdlsr._testing import load_shared, shared_data_dir, timed_fit_predict
    from fdlsr.model_selection._split import per_class_split

    X, y = load_shared("feret", shared_data_dir(__file__))
    X = normalize(X)
    rows = []
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as fh:
        writer = csv.DictWriter(
            fh,
            [
                "method",
                "dataset",
                "k",
                "split",
                "accuracy",
                "fit_s",
                "predict_s",
                "fit_cpu_s",
                "predict_cpu_s",
            ],
        )
        writer.writeheader()
        for k in ks:
            for split in range(splits):
                train, test = per_class_split(y, k, 0, split)
                for name in methods:
                    predicted, seconds = timed_fit_predict(
                        get_method(name).build(), X[train], y[train], X[test]
                    )
                    row = dict(
                        method=name,
                        dataset="feret",
                        k=k,
                        split=split,
                        accuracy=round(100 * float(np.mean(predicted == y[test])), 2),
                        **{key: round(value, 3) for key, value in seconds.items()},
                    )
                    writer.writerow(row)
                    fh.flush()
                    rows.append(row)
                    print(row, flush=True)
    return rows


def summary(rows, methods, ks):
    print(
        "\nmethod    k  ours mean+-std (n)   paper   fit s (paper)  predict s (paper)"
        "  fit cpu s"
    )
    for name in methods:
        acc, fit_paper, test_paper = PAPER[name]
        for k in ks:
            sel = [r for r in rows if r["method"] == name and r["k"] == k]
            if not sel:
                continue
            a = np.array([r["accuracy"] for r in sel])
            std = a.std(ddof=1) if len(a) > 1 else 0.0
            fit = np.median([r["fit_s"] for r in sel])
            pred = np.median([r["predict_s"] for r in sel])
            fit_cpu = np.median([r["fit_cpu_s"] for r in sel])
            print(
                f"{name:9s} {k}  {a.mean():6.2f} +- {std:4.2f} ({len(a)})"
                f"   {acc[k - 1]:6.2f}   {fit:7.1f} ({fit_paper:.1f})"
                f"   {pred:5.2f} ({test_paper:.2f})   {fit_cpu:7.1f}"
            )


COMPARED = ("LC-KSVD2", "LCLE", "FDDL", "LRSDL")


def one_run(name, data, out):
    """Child process of ``--compare``: fit and predict ``name`` on the split the
    parent saved in ``data``, timed here (so the baseline tree needs none of
    ``fdlsr._testing``), save the model."""
    from fdlsr._experiments.splits import run_random_state, seeded

    data = np.load(data)
    X, y, train, test = (data[key] for key in ("X", "y", "train", "test"))
    method = get_method(name)
    params = seeded(method, {}, run_random_state(0, 0))
    with threadpoolctl.threadpool_limits(1):
        model = method.build(**params)
        cpu = time.process_time()
        model.fit(X[train], y[train])
        fit_cpu = time.process_time() - cpu
        cpu = time.process_time()
        predictions = model.predict(X[test])
        predict_cpu = time.process_time() - cpu
    fitted = {
        key: value
        for key, value in vars(model).items()
        if key.endswith("_") and isinstance(value, np.ndarray)
    }
    np.savez(out, predictions=predictions, **fitted)
    import fdlsr

    package = fdlsr.__file__
    print(json.dumps(dict(fit_cpu=fit_cpu, predict_cpu=predict_cpu, package=package)))


def largest_difference(before, after):
    """Largest difference over the fitted arrays, relative to each array's scale."""
    worst = 0.0
    for key in before.files:
        if (
            key == "predictions"
            or before[key].dtype.kind != "f"
            or not before[key].size
        ):
            continue
        scale = max(np.abs(before[key]).max(), np.finfo(float).tiny)
        worst = max(worst, np.abs(before[key] - after[key]).max() / scale)
    return worst


def compare(baseline, methods, repeats):
    """Alternate runs of the baseline tree and of this one; print the best times."""
    import subprocess
    import tempfile

    trees = {"before": str(Path(baseline).resolve()), "after": str(HERE.parent / "src")}
    print(f"load average at start {os.getloadavg()}", flush=True)
    print(
        "method     fit+predict CPU s: before  after  ratio   max rel diff  same predictions"
    )
    from fdlsr._testing import load_shared, shared_data_dir
    from fdlsr.model_selection._split import per_class_split

    X, y = load_shared("feret", shared_data_dir(__file__))
    train, test = per_class_split(y, 5, 0, 0)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data.npz"
        np.savez(data, X=normalize(X), y=y, train=train, test=test)
        for name in methods:
            best = {"before": np.inf, "after": np.inf}
            for _ in range(repeats):
                for label, tree in trees.items():
                    env = {**os.environ, "PYTHONPATH": tree}
                    out = Path(tmp) / f"{label}.npz"
                    done = subprocess.run(
                        [
                            sys.executable,
                            __file__,
                            "--child",
                            name,
                            str(data),
                            str(out),
                        ],
                        env=env,
                        check=True,
                        capture_output=True,
                        text=True,
                    )
                    times = json.loads(done.stdout.strip().splitlines()[-1])
                    if not times["package"].startswith(tree):
                        raise SystemExit(
                            f"{label} imported {times['package']}, not {tree}"
                        )
                    total = times["fit_cpu"] + times["predict_cpu"]
                    best[label] = min(best[label], total)
            before = np.load(Path(tmp) / "before.npz")
            after = np.load(Path(tmp) / "after.npz")
            same = np.array_equal(before["predictions"], after["predictions"])
            print(
                f"{name:9s} {best['before']:27.2f} {best['after']:6.2f}"
                f" {best['before'] / best['after']:6.2f}"
                f"   {largest_difference(before, after):12.1e}  {same}",
                flush=True,
            )
    print(f"load average at end {os.getloadavg()}")


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        one_run(*sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="+", default=list(PAPER))
    parser.add_argument("--ks", nargs="+", type=int, default=[5])
    parser.add_argument("--splits", type=int, default=1)
    parser.add_argument(
        "--out", type=Path, default=Path("results/dictionary_feret.csv")
    )
    parser.add_argument("--summary", type=Path, help="only summarise this CSV")
    parser.add_argument(
        "--compare", metavar="SRC", help="time against the package under SRC"
    )
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.compare:
        methods = args.methods if args.methods != list(PAPER) else list(COMPARED)
        compare(args.compare, methods, args.repeats)
        return
    if args.summary:
        rows = list(csv.DictReader(args.summary.open()))
        for row in rows:
            row["k"] = int(row["k"])
            for key in ("accuracy", "fit_s", "predict_s", "fit_cpu_s", "predict_cpu_s"):
                row[key] = float(row[key])
        ks = sorted({row["k"] for row in rows})
        summary(rows, [m for m in PAPER if any(r["method"] == m for r in rows)], ks)
        return
    env = environment()
    rows = run(args.methods, args.ks, args.splits, args.out)
    env["loadavg_end"] = os.getloadavg()
    args.out.with_suffix(".json").write_text(json.dumps(env, indent=2))
    summary(rows, args.methods, args.ks)


if __name__ == "__main__":
    main()
