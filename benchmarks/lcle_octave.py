"""LCLE's alternation against the authors' ``Learn_D_X.m`` under GNU Octave.

Checks whether LCLE's collapse with more atoms than features (PIE subset, k = 20:
1,360 atoms over 1,024 pixels) is the method's or ours. Both alternations start
from the same LC-KSVD initialisation (ours, on one seeded split of the experiment
protocol), run 10 iterations with the defaults of :class:`fdlsr.dictionary.LCLE`,
and are then scored by the same classifier and OMP test coding; the script prints
both accuracies and how far the two dictionaries and codes are apart.

Needs ``octave-cli`` (``apt-get install -y octave``) and a checkout of the authors'
code (``../shared/ORIGINAL_CODE.md``: mjLi0403/Joint-Dictionary-Learning); it runs
their files in place and copies nothing.

    FDLSR_DATA_DIR=../shared/data python benchmarks/lcle_octave.py \
        --authors-code /path/to/Joint-Dictionary-Learning [--k 20] [--split 0] \
        [--atoms-per-class 15]
"""

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.io

from fdlsr._experiments.samples import prepare
from fdlsr.datasets import load_dataset
from fdlsr.dictionary import LCLE
from fdlsr.dictionary._classifier import unit_columns
from fdlsr.dictionary._ksvd import (
    lcksvd_initialization,
    omp_codes,
    ordered_training_data,
)
from fdlsr.dictionary._lcle import atom_classifier, label_embedding, lcle_iterations
from fdlsr.model_selection._split import per_class_split

DEFAULTS = LCLE().get_params()


def accuracy(D, X, y_train, X_test, y_test, n_classes):
    """LCLE's classifier on unit-column ``D`` (features x atoms) and ``X`` (atoms x
    samples), as ``fit_lcle`` forms it, then OMP coding of the test samples."""
    W = atom_classifier(X, y_train, n_classes)
    codes = omp_codes(D.T, X_test, DEFAULTS["n_nonzero_coefs"]).dense()
    return float(np.mean(np.argmax(codes @ W, axis=1) == y_test))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--authors-code", type=Path, required=True)
    parser.add_argument("--dataset", default="pie_subset")
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--split", type=int, default=0)
    parser.add_argument(
        "--atoms-per-class", type=int, help="default: one per training sample"
    )
    args = parser.parse_args()

    data_dir = os.environ.get("FDLSR_DATA_DIR", "../shared/data")
    ds = load_dataset(args.dataset, data_dir=data_dir)
    X, labels = prepare(ds), np.asarray(ds.y)
    classes, y = np.unique(labels, return_inverse=True)
    train, test = per_class_split(labels, args.k, 0, args.split)
    Y, y_train, n_classes, atoms = ordered_training_data(
        X[train], y[train], len(classes), args.atoms_per_class
    )
    print(
        f"{args.dataset}, k = {args.k}, split {args.split}: {int(atoms.sum())} atoms, "
        f"{X.shape[1]} features, {test.size} test samples"
    )
    D0, atom_labels, X0, _, _ = lcksvd_initialization(
        Y, y_train, n_classes, atoms, DEFAULTS["n_nonzero_coefs"], DEFAULTS["init_iter"]
    )
    Q = label_embedding(atom_labels, n_classes)
    weights = {key: DEFAULTS[key] for key in ("alpha", "beta", "gamma")}
    n_iter, n_neighbors = DEFAULTS["max_iter"], DEFAULTS["n_neighbors"]

    start = time.perf_counter()
    D, codes, _, _ = lcle_iterations(
        Y.T, D0.T, X0.T, Q, n_neighbors=n_neighbors, max_iter=n_iter, **weights
    )
    ours = unit_columns(D), unit_columns(codes)
    print(f"fdlsr's alternation: {time.perf_counter() - start:.1f} s")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        labels_onehot = (np.arange(n_classes)[:, None] == atom_labels).astype(float)
        scipy.io.savemat(
            tmp / "start.mat",
            {"Xinit": X0.T, "Dinit": D0.T, "Dlabel": labels_onehot, "Y": Y},
        )
        # Their script: Q = construct_Q(D_label); Learn_D_X(..., ex_data, knn, iterations)
        # with samples as the rows of ex_data; it returns unit-column D and X.
        script = (
            f"addpath('{args.authors_code.resolve()}'); load('{tmp / 'start.mat'}');"
            "Q = construct_Q(Dlabel);"
            f"[D,X,V] = Learn_D_X(Xinit,Dinit,Q,{weights['alpha']},{weights['beta']},"
            f"{weights['gamma']},Y,{n_neighbors},{n_iter});"
            f"save('-v7','{tmp / 'out.mat'}','D','X','Q');"
        )
        start = time.perf_counter()
        subprocess.run(["octave-cli", "--quiet", "--eval", script], check=True)
        print(f"authors' Learn_D_X.m under Octave: {time.perf_counter() - start:.1f} s")
        theirs = scipy.io.loadmat(tmp / "out.mat")

    print(f"label embedding Q, largest difference: {np.abs(Q - theirs['Q']).max():.1e}")
    for name, (D, C) in [("fdlsr", ours), ("authors", (theirs["D"], theirs["X"]))]:
        acc = accuracy(D, C, y_train, X[test], y[test], n_classes)
        print(f"{name:8s} test accuracy {100 * acc:.2f}%")
    for name, a, b in [("D", ours[0], theirs["D"]), ("X", ours[1], theirs["X"])]:
        rel = np.linalg.norm(a - b) / np.linalg.norm(b)
        print(f"relative difference of the unit-column {name}: {rel:.1e}")


if __name__ == "__main__":
    main()
