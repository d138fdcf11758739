"""Helpers shared by the test suite and the benchmarks (private; not a public API).

Like scikit-learn's ``sklearn.utils._testing``: importable from both ``tests/`` and
``benchmarks/``, so neither keeps its own copy and neither puts the other on
``sys.path``. Benchmarks split with the library's own
:func:`fdlsr.model_selection._split.per_class_split`, the one ``fdlsr run`` uses.

* :func:`relative_error`: ``||a - b|| / ||b||``.
* :func:`one_blas_thread`: BLAS on one thread inside a ``with`` block.
* :func:`shared_data_dir`, :func:`load_shared`: the shared benchmark data
  (``FDLSR_DATA_DIR``, else ``../shared/data`` beside the repository) and a dataset
  of it.
* :func:`cli`, :func:`cli_error`: the command line in process, its exit status and
  output.
* :func:`rows_by_key`: a store's rows without what differs between two runs.
* :func:`save_noisy_classes`: a dataset file of 20 overlapping classes.
* :func:`timed_fit_predict`: a fit and a predict, with their wall-clock and CPU seconds.
* :func:`fdlsr_transcription`: the authors' MATLAB code transcribed, as a reference.
"""

import contextlib
import io
import os
import time
from pathlib import Path

import numpy as np
import scipy.io
from threadpoolctl import threadpool_limits

from ._common import strict_json
from ._experiments.cli import main
from ._experiments.rows import row_key
from ._experiments.store_folder import read_rows


def shared_data_dir(here):
    """The shared benchmark data (a ``MANIFEST.json`` and one sub-folder per data
    set) of the test or benchmark file ``here``: ``FDLSR_DATA_DIR``, else
    ``../shared/data`` beside the repository that holds ``here`` (its ``tests/``
    and ``benchmarks/`` lie at the repository's root). Found from the caller's file,
    not from this module's: an installed fdlsr lies elsewhere (a virtual
    environment's ``lib/``)."""
    given = os.environ.get("FDLSR_DATA_DIR")
    if given:
        return Path(given)
    return Path(here).resolve().parents[2] / "shared" / "data"


def relative_error(a, b):
    """``||a - b|| / ||b||`` in the Frobenius norm."""
    return np.linalg.norm(a - b) / np.linalg.norm(b)


@contextlib.contextmanager
def one_blas_thread():
    """BLAS on one thread: small problems gain nothing from more on shared cores."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def load_shared(name, data_dir):
    """Samples as rows (float64, C order) and integer labels of the shared dataset
    ``name`` in ``data_dir`` (:func:`shared_data_dir`).

    Raises
    ------
    FileNotFoundError
        When ``data_dir`` holds no ``MANIFEST.json`` (tests skip on it), naming the
        folder looked in.
    """
    data_dir = Path(data_dir)
    manifest_path = data_dir / "MANIFEST.json"
    if not manifest_path.exists():
        raise FileNotFoundError(data_not_found(data_dir))
    entry = strict_json.loads(manifest_path.read_bytes())[name]
    mat = scipy.io.loadmat(data_dir / entry["file"])
    X = np.asarray(mat[entry["x"]], dtype=np.float64)
    if entry["samples"] == "columns":
        X = X.T
    y = np.asarray(mat[entry["y"]]).ravel().astype(int)
    return np.ascontiguousarray(X), y


def data_not_found(data_dir):
    """What a test or benchmark without the shared data says: the folder it looked
    in, and how to point it at another."""
    return (
        f"real data not found: looked in {data_dir} (../shared/data beside the "
        "repository); set FDLSR_DATA_DIR to the folder that holds MANIFEST.json"
    )


def cli(argv):
    """``(exit status, stdout, stderr)`` of the command line, exit 2 included (for
    hypothesis tests, where pytest's capsys cannot serve every example)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as stop:
            status = stop.code
    return status, out.getvalue(), err.getvalue()


def cli_error(capsys, argv):
    """Run the command line expecting a user error: exit 2 and one line on stderr,
    which is returned (``capsys`` is pytest's fixture)."""
    import pytest  # a test dependency, not a library one

    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fdlsr: error: "), lines
    return lines[0]


#: What may differ between two runs of one experiment: times and bookkeeping.
VOLATILE = {"fit_time", "predict_time", "tune_time", "session", "finished"}


def rows_by_key(out):
    """The rows of the store ``out`` by their key, without the ``VOLATILE`` fields:
    equal for two runs of one experiment. Asserts that no run is stored twice."""
    rows = read_rows(out)
    keyed = {
        row_key(r): {k: v for k, v in r.items() if k not in VOLATILE} for r in rows
    }
    assert len(keyed) == len(rows), "a run stored twice"
    return keyed


def save_noisy_classes(path):
    """Save 20 classes x 20 samples of 500 features, class centres N(0, 1) under
    N(0, 9) noise (seed 0), as the dataset file ``path`` (``.npz``, 1.6 MB): enough
    work that a run of LC-KSVD2 takes about a second. Returns ``path``."""
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(20), 20)
    X = rng.standard_normal((20, 500))[y] + 3 * rng.standard_normal((y.size, 500))
    np.savez(path, X=X, y=y)
    return path


def timed_fit_predict(model, X_train, y_train, X_test):
    """Fit ``model``, then predict ``X_test``: ``(predictions, seconds)``, where
    ``seconds`` holds ``fit_s`` and ``predict_s`` by the wall clock and ``fit_cpu_s``
    and ``predict_cpu_s`` in CPU time of this process (summed over its threads)."""
    start, cpu = time.perf_counter(), time.process_time()
    model.fit(X_train, y_train)
    fit_s, fit_cpu_s = time.perf_counter() - start, time.process_time() - cpu
    start, cpu = time.perf_counter(), time.process_time()
    predicted = model.predict(X_test)
    predict_s, predict_cpu_s = time.perf_counter() - start, time.process_time() - cpu
    return predicted, dict(
        fit_s=fit_s,
        predict_s=predict_s,
        fit_cpu_s=fit_cpu_s,
        predict_cpu_s=predict_cpu_s,
    )


def fdlsr_transcription(X, labels, alpha, beta, lam, max_iter=30, init_ridge=1e-4):
    """The authors' FDLSR.m, transcribed line by line; returns Q (c x d).

    Written to be read against ``FDLSR.m``, not to be fast: samples are columns, the
    d x d systems are inverted explicitly, the class means come from slicing
    class-sorted columns, and the loop always runs ``max_iter`` times.

    Parameters
    ----------
    X : ndarray of shape (d, n)
        Training samples as columns, sorted by class.
    labels : ndarray of shape (n,)
        Integer class codes 0..c-1, non-decreasing.
    alpha, beta, lam : float
        The paper's parameters.
    max_iter : int, default=30
        Iterations, all run.
    init_ridge : float, default=1e-4
        Ridge of the initial least-squares ``Q``.

    Returns
    -------
    Q : ndarray of shape (c, d)
    """
    d, n = X.shape
    classes, train_num = np.unique(labels, return_counts=True)
    c = classes.size
    assert np.all(np.diff(labels) >= 0), "the transcription needs class-sorted columns"
    H = np.zeros((c, n))
    H[labels, np.arange(n)] = 1
    Q = H @ X.T @ np.linalg.inv(X @ X.T + init_ridge * np.eye(d))
    S = np.zeros((c, n))
    B = 2 * H - np.ones((c, n))
    T = H + B * S
    temp = X.T @ np.linalg.inv(X @ X.T + beta * np.eye(d))
    bounds = np.concatenate(([0], np.cumsum(train_num)))
    for _ in range(max_iter):
        Tk, Qk, Sk = T, Q, S
        M_hat = np.hstack(
            [
                np.tile(
                    Tk[:, bounds[i] : bounds[i + 1]].sum(axis=1, keepdims=True)
                    / train_num[i],
                    (1, train_num[i]),
                )
                for i in range(c)
            ]
        )
        M = np.tile(Tk.sum(axis=1, keepdims=True) / n, (1, n))
        T = (Qk @ X + alpha * (H + B * Sk) - lam * M + lam * 2 * M_hat) / (
            1 + alpha + 2 * lam
        )
        Q = T @ temp
        S = np.maximum((T - H) * B, 0)
    return Q
