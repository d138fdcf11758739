"""The four methods on a slice of the paper's FERET data (40 people, 3 images each).

A quick end-to-end check on real faces; the full protocol and the comparison with
Table III are in ``benchmarks/bench_dictionary.py``. On this slice the methods
reach 0.72-0.79 (chance: 0.025), so a broken method fails the 0.6 bar.
"""

import numpy as np
import pytest

from fdlsr.dictionary import DPL, DRADPL, LCKSVD2, LCLE
from fdlsr.model_selection._split import per_class_split


@pytest.mark.parametrize(
    "model",
    [
        DPL(random_state=0),
        DRADPL(random_state=0),
        LCKSVD2(max_iter=5, init_iter=2),
        LCLE(max_iter=3),
    ],
    ids=lambda m: type(m).__name__,
)
def test_faces_of_forty_people(feret, model):
    X, y = feret
    keep = np.isin(y, np.unique(y)[:40])
    X, y = X[keep], y[keep]
    train, test = per_class_split(y, 3, 0, index=0)
    assert model.fit(X[train], y[train]).score(X[test], y[test]) > 0.6
