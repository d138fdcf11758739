"""The numbers behind the figures agree with plain FDLSR fits; figures are written."""

import json

import numpy as np
import pytest
from sklearn.datasets import load_digits

from fdlsr import FDLSR
from fdlsr._experiments import figure_data, figures


class Digits:
    name = "digits"

    def __init__(self):
        self.X, self.y = load_digits(return_X_y=True)


PARAMS = {"alpha": 1e-2, "beta": 1e-3, "lam": 1e-1}


@pytest.fixture(scope="module")
def split():
    return figure_data.split_data(Digits(), 4, seed=0)


def score(params, split, **extra):
    X, codes, train, test = split
    return (
        FDLSR(**{**params, **extra})
        .fit(X[train], codes[train])
        .score(X[test], codes[test])
    )


def test_convergence_matches_fits_stopped_at_each_iteration(split):
    X, codes, train, test = split
    data = figure_data.convergence(X, codes, train, test, PARAMS, max_iter=12)
    assert data["iteration"] == list(range(1, 13))
    full = FDLSR(**PARAMS, max_iter=12).fit(X[train], codes[train])
    np.testing.assert_allclose(data["objective"], full.objective_)
    for it in (1, 5, 12):
        assert data["accuracy"][it - 1] == pytest.approx(
            score(PARAMS, split, max_iter=it)
        )


def test_sensitivity_and_lambda_cells_match_plain_fits(split):
    X, codes, train, test = split
    data = figure_data.sensitivity(
        X, codes, train, test, PARAMS, alphas=[1e-3, 1.0], lams=[0.0, 0.5]
    )
    for i, alpha in enumerate([1e-3, 1.0]):
        for j, lam in enumerate([0.0, 0.5]):
            assert data["accuracy"][i][j] == pytest.approx(
                score(PARAMS, split, alpha=alpha, lam=lam)
            )
    curve = figure_data.lambda_curve(Digits(), 4, PARAMS, lams=[1e-2, 1.0])
    assert curve["lam"] == [0.0, 1e-2, 1.0]
    expected = [score(PARAMS, split, lam=lam) for lam in curve["lam"]]
    np.testing.assert_allclose(curve["accuracy"][0], expected)


def test_projection_panels_show_the_first_classes(split):
    X, codes, train, test = split
    panels, y_train, y_test, skipped = figure_data.projections(
        X, codes, train, test, PARAMS, ["1-NN"], 3, most=5
    )
    assert list(panels) == ["Original features", "FDLSR"] and skipped == ["1-NN"]
    assert set(y_train) == {0, 1, 2} and np.bincount(y_train).tolist() == [4, 4, 4]
    assert np.bincount(y_test).tolist() == [5, 5, 5]
    assert panels["FDLSR"][0].shape == (12, 10) and panels["Original features"][
        1
    ].shape == (15, 64)


def test_figure_files(tmp_path, split):
    paths = figures.make(
        "lambda", Digits(), k=3, params=PARAMS, out=tmp_path, lambda_splits=2
    )
    assert sorted(p.suffix for p in paths) == [".json", ".pdf", ".png"]
    data = json.loads((tmp_path / "digits_fig4_lambda.json").read_text())
    assert len(data["accuracy"]) == 2 and data["seeds"] == [0, 1]
    X, codes, train, test = split
    grid = figure_data.sensitivity(
        X, codes, train, test, PARAMS, alphas=[1e-2, 1.0], lams=[1e-2, 1.0]
    )
    fig = figures.draw_sensitivity(grid, "small grid")
    paths = figures.save_figure(fig, tmp_path, "grid", grid)
    assert all(p.stat().st_size > 100 for p in paths)


def test_file_names_drop_the_data_files_extension(tmp_path):
    assert figures.paths("convergence", "pie10.mat", tmp_path)[0].name == (
        "pie10_fig1_convergence.png"
    )
    assert (
        figures.paths("tsne", "faces.npz", tmp_path)[2].name == "faces_fig2_tsne.json"
    )
    assert (
        figures.paths("lambda", "coil20", tmp_path)[1].name == "coil20_fig4_lambda.pdf"
    )


def test_every_figure_reports_its_steps(tmp_path):
    """The long steps (fits, iterations, embeddings) are counted up to their total."""
    seen = {}
    for kind in ("convergence", "sensitivity", "lambda"):
        calls = []
        figures.make(
            kind, Digits(), k=3, params={**PARAMS, "max_iter": 4}, out=tmp_path,
            progress=lambda *step, calls=calls: calls.append(step),
        )  # fmt: skip
        seen[kind] = calls
    assert seen["convergence"][-1] == (30, 30, "iterations")  # Fig. 1: 30
    assert seen["sensitivity"][-1] == (121, 121, "fits")
    assert [done for done, _, _ in seen["sensitivity"]] == list(range(1, 122))
    assert seen["lambda"][-1] == (12, 12, "fits")
