"""fdlsr plot results: the comparison figures of results folders, their numbers
those of the tables, one colour per method everywhere, readable at 20+ methods."""

import hashlib
import itertools
import json
import tempfile
from pathlib import Path

import matplotlib
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fdlsr._common.ownership import MANIFEST
from fdlsr._experiments.registry import METHODS
from fdlsr._experiments.report import paper_results, summarise
from fdlsr._experiments.result_plots import method_style, pareto_front
from fdlsr._experiments.results_frame import frame_of
from fdlsr._experiments.store_folder import read_store
from fdlsr._experiments.variants import row_labels
from fdlsr._testing import cli, cli_error
from fdlsr.results import plot_accuracy_by_k, plot_accuracy_by_time
from result_stores import row, stores, write_store

REPO = Path(__file__).resolve().parents[1]
STORE = REPO / "docs" / "results"


@pytest.fixture(scope="module")
def feret_figures(tmp_path_factory):
    out = tmp_path_factory.mktemp("figures")
    status, _, err = cli(
        ["plot", "results", str(STORE / "feret"), "--paper", "--out", str(out)]
    )
    assert status == 0, err
    return out


def test_both_figures_are_written_with_their_numbers(feret_figures):
    names = sorted(p.name for p in feret_figures.iterdir())
    assert names == [
        MANIFEST,  # the record of what fdlsr wrote there
        *(
            f"feret_accuracy_by_{kind}.{ext}"
            for kind in ("k", "time")
            for ext in ("json", "pdf", "png")
        ),
    ]
    by_k = json.loads((feret_figures / "feret_accuracy_by_k.json").read_text())
    summary = {
        (s["label"], s["k"]): s
        for s in summarise(frame_of(read_store(STORE / "feret").rows))
    }
    assert len(by_k["lines"]) == 24 and by_k["ks"] == [1, 2, 3, 4, 5]
    for line in by_k["lines"]:
        for k, mean, n in zip(
            by_k["ks"], line["accuracy_mean_pct"], line["n"], strict=True
        ):
            assert mean == summary[line["label"], k]["mean"]
            assert n == summary[line["label"], k]["n_splits"]
    paper = {(r["method"], r["k"]): r["mean"] for r in paper_results("III")}
    assert {
        (line["method"], k): mean
        for line in by_k["paper"]
        for k, mean in zip(by_k["ks"], line["accuracy_mean_pct"], strict=True)
        if mean is not None
    } == paper


def test_the_time_figure_marks_the_pareto_front_at_the_largest_k(feret_figures):
    data = json.loads((feret_figures / "feret_accuracy_by_time.json").read_text())
    assert data["k"] == 5
    points = data["points"]
    for p in points:
        beaten = any(
            q["train_time_s"] <= p["train_time_s"]
            and q["accuracy_mean_pct"] >= p["accuracy_mean_pct"]
            and (q["train_time_s"], q["accuracy_mean_pct"])
            != (p["train_time_s"], p["accuracy_mean_pct"])
            for q in points
        )
        assert p["pareto"] == (not beaten), p["label"]
    assert {p["label"] for p in points if p["pareto"]} >= {"FDLSR", "1-NN"}


@given(st.lists(st.tuples(st.floats(0, 10), st.floats(0, 100)), max_size=12))
def test_the_pareto_front_is_what_no_point_beats(points):
    front = set(pareto_front(points))
    for i, (t, a) in enumerate(points):
        beaten = any(
            (u <= t and b > a) or (u < t and b >= a)
            for j, (u, b) in enumerate(points)
            if j != i
        )
        assert (i in front) == (not beaten), (i, points)
    # points alike are on the front together; every point is matched by one on it
    assert pareto_front([(1.0, 50.0), (1.0, 50.0), (2.0, 50.0)]) == [0, 1]
    for t, a in points:
        assert any(points[i][0] <= t and points[i][1] >= a for i in front)


def test_each_method_has_one_colour_and_marker_everywhere():
    """One style per method; within a family (a panel) every colour differs."""
    styles = {m.name: method_style(m.name, m.family) for m in METHODS.values()}
    again = {m.name: method_style(m.name, m.family) for m in METHODS.values()}
    assert styles == again
    for family in {m.family for m in METHODS.values()}:
        members = [styles[m.name] for m in METHODS.values() if m.family == family]
        assert len({s.colour for s in members}) == len(members), family
        assert len({s.marker for s in members}) == 1, family  # the family's marker


def test_accuracy_by_k_is_one_panel_per_family_with_fdlsr_in_each(feret_figures):
    """29 series: a panel per family (shared axes), FDLSR in every panel, each
    panel's legend under it with entries that do not overlap."""
    figure = plot_accuracy_by_k(STORE / "feret", paper=True)
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    panels = [ax for ax in figure.axes if ax.get_visible()]
    titles = [ax.get_title(loc="left") for ax in panels]
    assert titles == [
        "Representation-based", "Dictionary learning", "Least squares regression",
        "Scikit-learn baselines",
    ]  # fmt: skip
    shown = set()
    for ax in panels:
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert "FDLSR" in labels
        shown |= set(labels)
        assert ax.get_ylim() == panels[0].get_ylim()
        assert ax.get_xlim() == panels[0].get_xlim()
        texts = [t.get_window_extent(renderer) for t in ax.get_legend().get_texts()]
        for a, b in itertools.combinations(texts, 2):
            assert not a.overlaps(b)
        box = ax.get_legend().get_window_extent(renderer)
        assert box.y0 >= 0 and box.x1 <= figure.bbox.width + 1
    data = json.loads((feret_figures / "feret_accuracy_by_k.json").read_text())
    assert {line["label"] for line in data["lines"]} <= shown
    assert "LRDLSR (alpha=1, gamma=0.01)" in shown  # what sets the row apart
    # a parameter a setting leaves unset is not named, a number as a reader writes it
    svc = [
        {"method": "LinearSVC", "setting": json.dumps(spec), "k": 5, "seed": 0}
        for spec in (
            {"params": {"C": 1.0, "dual": None}},
            {"params": {"C": 10.0, "dual": False}},
            {"cv": {"folds": 3}, "params": {"C": 10.0, "dual": False}},
        )
    ]
    assert sorted(row_labels(svc).values()) == [
        "LinearSVC (C=1)", "LinearSVC (C=10, dual=False)", "LinearSVC (cv)"
    ]  # fmt: skip
    matplotlib.pyplot.close(figure)


def test_the_time_axis_is_labelled_at_every_decade_it_spans():
    figure = plot_accuracy_by_time(STORE / "feret")
    figure.canvas.draw()
    (ax,) = figure.axes
    low, high = ax.get_xlim()
    decades = [
        10.0**e for e in range(-12, 12) if low <= 10.0**e <= high
    ]  # every power of ten inside the axis
    labelled = {
        f"{tick.get_loc():g}": tick.label1.get_text()
        for tick in ax.xaxis.get_major_ticks()
        if low <= tick.get_loc() <= high
    }
    assert len(decades) >= 3
    assert labelled == {f"{decade:g}": f"{decade:g}" for decade in decades}
    matplotlib.pyplot.close(figure)


def test_python_functions_return_figures_and_name_the_data_set():
    figure = plot_accuracy_by_time([STORE / "orl", STORE / "yale"], dataset="orl")
    assert isinstance(figure, matplotlib.figure.Figure)
    matplotlib.pyplot.close(figure)
    from fdlsr.errors import ConfigError

    with pytest.raises(ConfigError, match="several data sets"):
        plot_accuracy_by_k([STORE / "orl", STORE / "yale"])
    with pytest.raises(ConfigError, match="no rows of the data set 'orll'.*'orl'"):
        plot_accuracy_by_k([STORE / "orl"], dataset="orll")


def test_a_data_set_of_a_shared_name_is_named_by_its_data(tmp_path):
    """Two data sets named alike: dataset= takes the sha256 of the data (8 or more
    characters), as the error says."""
    from fdlsr.errors import ConfigError

    rows = [row("faces", "LSR", 2, split, data_sha256="ab" * 32) for split in (0, 1)]
    rows += [row("faces", "LSR", 2, 0, data_sha256="cd" * 32)]
    store = write_store(tmp_path / "store", rows)
    with pytest.raises(ConfigError, match="2 data sets named 'faces'.*'abababababab'"):
        plot_accuracy_by_k(store, "faces")
    for name in ("abababab", "ab" * 32):
        figure = plot_accuracy_by_k(store, name)
        assert "abababababab" in figure.get_suptitle()
        matplotlib.pyplot.close(figure)
    matplotlib.pyplot.close(plot_accuracy_by_time(store, "cdcdcdcd"))


def test_figure_names_from_a_store_stay_in_the_folder_and_apart(tmp_path, capsys):
    """A store's data set names are text anyone can edit: each table's figures get
    names of their own, directly inside --out, whatever the names hold."""
    names = [
        "faces",
        "faces",
        "faces_abababab",
        "../../up",
        "a/b",
        ".hidden",
        "x" * 300,
    ]
    rows = [
        row(name, "LSR", 2, 0, data_sha256=f"{i:02d}" * 32)
        for i, name in enumerate(names)
    ]
    rows[0]["data_sha256"] = "ab" * 32
    store = write_store(tmp_path / "store", rows)
    out = tmp_path / "deep" / "figs"
    out.mkdir(parents=True)
    (out / "a").mkdir()
    status, _, err = cli(["plot", "results", str(store), "--out", str(out)])
    assert status == 0, err
    written = [
        line.removeprefix("wrote ") for line in err.splitlines() if "wrote" in line
    ]
    assert len(written) == len(set(written)) == 6 * len(names)
    assert {Path(path).parent for path in written} == {out}
    files = (p for p in out.iterdir() if p.is_file() and p.name != MANIFEST)
    assert sorted(p.name for p in files) == sorted(Path(path).name for path in written)
    assert not list((out / "a").iterdir()) and not list(tmp_path.glob("*up*"))
    assert not any(Path(path).name.startswith(".") for path in written)
    assert max(len(Path(path).name) for path in written) < 120


def test_pooled_stores_count_a_run_once(tmp_path, capsys):
    out = tmp_path / "figs"
    argv = [
        "plot",
        "results",
        str(STORE / "orl"),
        str(STORE / "orl"),
        "--out",
        str(out),
    ]
    status, _, err = cli(argv)
    assert status == 0
    assert "1150 rows repeat runs of a store named before it" in err
    data = json.loads((out / "orl_accuracy_by_k.json").read_text())
    ran = [
        n
        for line in data["lines"]
        for n, mean in zip(line["n"], line["accuracy_mean_pct"], strict=True)
        if mean is not None
    ]
    assert set(ran) == {10}  # every cell over the 10 splits once, not 20


def test_bad_uses_are_one_line(tmp_path, capsys):
    assert "needs the results folders" in cli_error(
        capsys, ["plot", "results", "--out", str(tmp_path)]
    )
    assert "is for the paper's figures" in cli_error(
        capsys, ["plot", "results", str(STORE / "orl"), "--config", "orl"]
    )
    assert "not from results folders" in cli_error(
        capsys, ["plot", "convergence", str(STORE / "orl"), "--config", "orl"]
    )
    assert "no results in" in cli_error(
        capsys, ["plot", "results", str(tmp_path), "--out", str(tmp_path / "f")]
    )


def digest(folder):
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in Path(folder).iterdir()
    }


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    rows=stores(),
    junk=st.sampled_from([b"", b"{oops\n", b"\xff\n"]),
    where=st.sampled_from(["apart", "inside", "store"]),
    paper=st.sampled_from([[], ["--paper"], ["--paper", "III"]]),
)
def test_any_store_gives_figures_or_one_line_and_nothing_overwritten(
    rows, junk, where, paper
):
    with tempfile.TemporaryDirectory() as folder:
        store = write_store(Path(folder) / "store", rows)
        with open(store / "results.jsonl", "ab") as handle:
            handle.write(junk)
        before = digest(store)
        out = {
            "apart": Path(folder) / "figs",
            "inside": store / "figs",
            "store": store,
        }[where]
        status, _, err = cli(["plot", "results", str(store), *paper, "--out", str(out)])
        assert "Traceback" not in err
        assert digest(store) == before  # nothing of the store changed or added
        if status == 0:
            assert where == "apart"
            pngs = list(out.glob("*.png"))
            datasets = {
                (r["dataset"], r.get("data_sha256")) for r in read_store(store).rows
            }
            assert len(pngs) == 2 * len(datasets)
            # whatever the names, every figure is directly inside --out
            made = {p for p in Path(folder).rglob("*") if p.is_file()}
            assert {p.parent for p in made} == {out, store}
        else:
            assert status == 2 and len(err.strip().splitlines()) == 1, err
            assert not (Path(folder) / "figs").exists()
