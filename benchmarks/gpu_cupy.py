"""FDLSR with CuPy arrays: the same models and choices as NumPy's, on FERET k = 5.

``array_api_dispatch=True`` with CuPy arrays on the GPU: FDLSR in-memory (float64,
float32) and blocked (``solver="blocked"``, float64), each against the NumPy float64
fit (relative difference of ``Q``, test accuracy); then FDLSRCV on the paper's alpha x
lambda grid with beta = 0.01 (36 points, 3 folds, the 1-NN rule): the same choice and
scores. ``--xp array_api_strict`` runs the same on the CPU (a check of the script).
Exits cleanly (one line) without CuPy or a GPU.

    FDLSR_DATA_DIR=../shared/data python benchmarks/gpu_cupy.py [--xp cupy]
"""

import argparse
import importlib
import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # read when SciPy is first imported

import numpy as np  # noqa: E402
import sklearn  # noqa: E402

from fdlsr import FDLSR, FDLSRCV  # noqa: E402
from fdlsr._common.compat import _convert_to_numpy  # noqa: E402
from gpu_check import PARAMS, load_feret, timed  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xp", default="cupy", help="array namespace (module name)")
    args = parser.parse_args()
    try:
        xp = importlib.import_module(args.xp)
        if args.xp == "cupy":
            xp.cuda.runtime.getDeviceCount()
    except Exception as error:  # no module, or no driver / device
        print(f"gpu_cupy: {args.xp} unavailable ({error}); nothing to check.")
        return
    sync = xp.cuda.Device().synchronize if args.xp == "cupy" else (lambda: None)
    print(f"{args.xp} {getattr(xp, '__version__', '')}", flush=True)
    feret = load_feret()
    if feret is None:
        return
    X_train, y_train, X_test, y_test = feret
    reference = FDLSR(**PARAMS).fit(X_train, y_train)
    ref_acc = reference.score(X_test, y_test)
    print(f"NumPy float64: accuracy {ref_acc:.4f}", flush=True)

    def host(a):
        return _convert_to_numpy(a, xp)

    with sklearn.config_context(array_api_dispatch=True):
        cases = [("float64", "auto"), ("float32", "auto"), ("float64", "blocked")]
        for dtype, solver in cases:
            Xd = xp.asarray(X_train.astype(dtype))
            yd = xp.asarray(y_train)
            model = FDLSR(**PARAMS, solver=solver)
            model.fit(Xd, yd)  # warm-up
            _, seconds = timed(sync, model.fit, Xd, yd)
            coef = host(model.coef_).astype(np.float64)
            rel = np.linalg.norm(coef - reference.coef_) / np.linalg.norm(
                reference.coef_
            )
            predicted = host(model.predict(xp.asarray(X_test.astype(dtype))))
            print(
                f"{dtype} solver={solver:8s} fit {seconds:.3f} s, rel. diff of Q"
                f" {rel:.1e}, accuracy {np.mean(predicted == y_test):.4f}",
                flush=True,
            )
        grid = dict(betas=[1e-2], decision_rules=["nearest_neighbor"], cv=3)
        host_cv = FDLSRCV(**grid).fit(X_train, y_train)
        device_cv, seconds = timed(  # the copies to the device included
            sync, lambda: FDLSRCV(**grid).fit(xp.asarray(X_train), xp.asarray(y_train))
        )
        a = np.asarray(host_cv.cv_results_["mean_test_score"])
        b = np.asarray(device_cv.cv_results_["mean_test_score"], dtype=np.float64)
        print(
            f"FDLSRCV 36 points x 3 folds on {args.xp}: {seconds:.1f} s; best"
            f" {device_cv.best_params_} (NumPy {host_cv.best_params_}); largest"
            f" difference of the mean scores {np.max(np.abs(a - b)):.1e}",
            flush=True,
        )


if __name__ == "__main__":
    main()
