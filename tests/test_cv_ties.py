"""Ties in cross-validation: FDLSRCV counts and says them, ``fdlsr run --cv`` records
them in the row, and the reports' cross-validation choices name them."""

import json
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.preprocessing import normalize

from fdlsr import FDLSR, FDLSRCV
from fdlsr._experiments.cv_choices import cell_choices, choices_text
from fdlsr._experiments.cv_ties import search_ties, ties_text
from fdlsr._experiments.rows import validate_row
from fdlsr._testing import cli
from fdlsr.errors import TiedScoresWarning
from fdlsr.results import read_results

GRID = {"alphas": [1e-2, 1.0], "betas": [1e-3, 1e-1], "lams": [1e-1]}


@pytest.fixture(scope="module")
def separable():
    """Three far-apart blobs: every candidate validates perfectly, so all tie."""
    X, y = make_blobs(60, 20, centers=3, random_state=0, cluster_std=0.5)
    return normalize(X), y


def test_fdlsrcv_counts_ties_as_gridsearchcv_ranks_them_and_warns(separable):
    X, y = separable
    folds = StratifiedKFold(3)
    with pytest.warns(
        TiedScoresWarning, match=r"16 of 16 candidates tie.*first in grid"
    ):
        search = FDLSRCV(**GRID, cv=folds).fit(X, y)
    grid = GridSearchCV(
        FDLSR(),
        {"alpha": GRID["alphas"], "beta": GRID["betas"],
         "decision_rule": list(search.decision_rules), "lam": GRID["lams"]},
        cv=folds,
    ).fit(X, y)  # fmt: skip
    ranks = grid.cv_results_["rank_test_score"]
    assert search.n_tied_best_ == np.sum(ranks == 1) == 16
    assert search.best_index_ == grid.best_index_ == 0  # the first in grid order
    assert search_ties(search) == {"n_tied_best": 16, "n_candidates": 16}
    assert search_ties(grid) == {"n_tied_best": 16, "n_candidates": 16}


def test_a_unique_best_is_not_a_tie(separable):
    X, y = separable
    with warnings.catch_warnings():
        warnings.simplefilter("error", TiedScoresWarning)
        search = FDLSRCV(
            alphas=[1e-2], betas=[1e-3], lams=[1e-1], decision_rules=["linear"], cv=3
        ).fit(X, y)
    assert search.n_tied_best_ == 1


def test_halving_counts_the_ties_of_its_last_round(separable):
    X, y = separable
    with pytest.warns(TiedScoresWarning, match="in the last round"):
        search = FDLSRCV(
            **GRID, cv=3, search="halving", min_resources=3, max_iter=9
        ).fit(X, y)
    last = search.cv_results_["iter"] == search.n_iterations_ - 1
    means = search.cv_results_["mean_test_score"][last]
    assert search.n_tied_best_ == np.sum(means == search.best_score_) > 1
    assert search_ties(search)["n_candidates"] == search.n_candidates_[-1]


def test_c_searches_tie_on_equal_mean_scores():
    class Fitted:
        cv_scores_ = np.array([[1.0, 0.5], [0.75, 0.75], [0.5, 0.5]])

    assert search_ties(Fitted()) == {"n_tied_best": 2, "n_candidates": 3}
    assert search_ties(object()) == {}


def test_the_reports_say_how_many_settings_tied():
    assert ties_text([(250, 864)]) == (
        "250 of 864 settings tie; the first in grid order was taken"
    )
    assert ties_text([(4, 216), (1, 216), (5, 216)]) == (
        "ties in 2 of 3 splits (4-5 of 216 settings); the first in grid order was taken"
    )
    assert ties_text([(1, 216)]) == ""  # a unique best
    assert ties_text([(None, None), (float("nan"), 3)]) == ""  # not recorded


def test_old_rows_without_ties_stay_readable_and_new_ones_are_checked():
    row = {
        "dataset": "d", "method": "LSR", "family": "relaxed", "k": 2, "split": 0,
        "seed": 0, "setting": '{"params": {}}', "accuracy": 0.5, "fit_time": 0.1,
        "predict_time": 0.1,
    }  # fmt: skip
    assert validate_row(row) is None
    assert validate_row({**row, "n_tied_best": 3, "n_candidates": 9}) is None
    assert validate_row({**row, "n_tied_best": -1}) == "'n_tied_best' of the wrong type"


def test_cv_choices_name_the_ties_of_a_cell():
    setting = json.dumps(
        {"cv": {"folds": 3, "grid": {"lam": [0.1, 1.0]}}, "params": {}}
    )
    rows = [
        {"dataset": "d", "method": "LSR", "family": "relaxed", "k": 3, "split": i,
         "seed": 0, "setting": setting, "tuning": "cv", "accuracy": 0.5,
         "fit_time": 0.1, "predict_time": 0.1, "params": {"lam": 0.1},
         "n_tied_best": tied, "n_candidates": 2}
        for i, tied in enumerate([2, 1])
    ]  # fmt: skip
    text = choices_text(cell_choices(rows)["LSR"][3])
    assert text == (
        "lam=0.1 (2/2), ties in 1 of 2 splits (2 of 2 settings); the first in grid "
        "order was taken"
    )


def test_fdlsr_run_cv_records_the_ties_and_the_report_says_them(tmp_path):
    """On the bundled faces at k=2 (one validation sample per class and fold) several
    of FDLSR's 216 grid points tie in each split."""
    out = tmp_path / "cv"
    argv = ["run", "--config", "faces", "--methods", "FDLSR", "--cv", "FDLSR"]
    status, table, err = cli([*argv, "-k", "2", "--splits", "2", "--out", str(out)])
    assert status == 0, err
    rows = [json.loads(line) for line in (out / "results.jsonl").open()]
    assert all(r["n_candidates"] == 216 and r["n_tied_best"] >= 1 for r in rows)
    assert not any("TiedScoresWarning" in w for r in rows for w in r["warnings"])
    tied = [r["n_tied_best"] for r in rows]
    assert max(tied) > 1  # the data of this test: a tie to be said
    assert ties_text([(t, 216) for t in tied]) in table
    frame = read_results(out)
    assert list(frame["n_tied_best"]) == tied
    assert list(frame["n_candidates"]) == [216, 216]
