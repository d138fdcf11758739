"""What cross-validation chose: the runner's search for ``--cv FDLSR`` is the paper's
(its grid, its 1-NN rule), and every report says what each split chose."""

import csv
import io
import json

from fdlsr._experiments.cli import build_parser, main
from fdlsr._experiments.commands.run import run_request
from fdlsr._experiments.cv_choices import cell_choices, choices_text, value_text
from fdlsr._experiments.notes import chosen_parameters_notes
from fdlsr._experiments.planning import experiment_runs
from fdlsr._experiments.registry import PAPER_GRID
from fdlsr._experiments.report import render, summarise
from fdlsr._experiments.results_frame import frame_of
from fdlsr._experiments.splits import NO_INNER_CV
from fdlsr._experiments.store_folder import make_store
from fdlsr._testing import cli, cli_error

GRID = {"alpha": [0.001, 0.01, 0.1], "lam": [0.1, 1.0]}
SETTING = json.dumps({"cv": {"folds": 3, "grid": GRID}, "params": {"alpha": 1.0}})


def tuned_rows(k, chosen, method="LSR", setting=SETTING, note=""):
    """One row per split, split ``i`` having chosen ``chosen[i]``."""
    return [
        {
            "dataset": "d",
            "method": method,
            "family": "relaxed",
            "k": k,
            "split": i,
            "seed": 0,
            "setting": setting,
            "tuning": "cv",
            "accuracy": 0.5,
            "fit_time": 0.1,
            "predict_time": 0.1,
            "params": params,
            "note": note,
        }
        for i, params in enumerate(chosen)
    ]


def test_the_most_chosen_value_and_how_many_splits_chose_it():
    chosen = [{"alpha": 0.01, "lam": 0.1}] * 7 + [{"alpha": 0.1, "lam": 1.0}] * 3
    rows = tuned_rows(3, chosen) + tuned_rows(
        1, [{"alpha": 1.0}] * 10, note=NO_INNER_CV
    )
    by_k = cell_choices(frame_of(rows))["LSR"]
    assert choices_text(by_k[3]) == "alpha=0.01 (7/10), lam=0.1 (7/10)"
    assert choices_text(by_k[1]) == (
        "fixed values alpha=1 (one sample per class: nothing to validate on)"
    )
    tie = tuned_rows(2, [{"alpha": 0.001, "lam": 0.1}, {"alpha": 0.1, "lam": 0.1}])
    assert choices_text(cell_choices(frame_of(tie))["LSR"][2]) == (
        "alpha=0.001 or 0.1 (1/2 each), lam=0.1 (2/2)"
    )


def test_values_are_written_short():
    assert [value_text(v) for v in (1e-5, 0.01, 1e4, 1.0, 5, "knn", True)] == [
        "1e-5", "0.01", "1e4", "1", "5", "knn", "True",
    ]  # fmt: skip


def test_every_format_shows_the_choice_and_csv_every_split():
    chosen = [{"alpha": 0.01, "lam": 0.1}] * 2 + [{"alpha": 0.1, "lam": 1.0}]
    rows = tuned_rows(2, chosen)
    summary = summarise(frame_of(rows))
    (note,) = chosen_parameters_notes(frame_of(rows))
    assert note.startswith("LSR: parameters chosen by cross-validation")
    assert "k=2: alpha=0.01 (2/3), lam=0.1 (2/3)." in note
    for fmt in ("md", "latex"):
        assert "alpha=0.01 (2/3)" in render(summary, fmt, notes=[note])
    (line,) = csv.DictReader(io.StringIO(render(summary, "csv")))
    assert line["chosen"] == "alpha=0.01 (2/3), lam=0.1 (2/3)"
    assert json.loads(line["chosen_per_split"]) == [
        {"seed": 0, "split": 0, "alpha": 0.01, "lam": 0.1},
        {"seed": 0, "split": 1, "alpha": 0.01, "lam": 0.1},
        {"seed": 0, "split": 2, "alpha": 0.1, "lam": 1.0},
    ]


def test_a_report_of_a_store_names_the_choices_per_k(tmp_path, capsys):
    store = tmp_path / "store"
    make_store(store)
    chosen = [{"alpha": 0.01, "lam": 0.1}] * 2
    rows = tuned_rows(2, chosen) + tuned_rows(
        3, chosen[:1] + [{"alpha": 0.1, "lam": 1}]
    )
    (store / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    status, out, err = cli(["report", str(store)])
    assert status == 0, err
    assert (
        "k=2: alpha=0.01 (2/2), lam=0.1 (2/2); k=3: alpha=0.01 or 0.1 (1/2 each)" in out
    )


def plan(argv):
    args = build_parser().parse_args(["run", *argv])
    return run_request(args).config.experiment


def test_cv_fdlsr_searches_the_papers_grid_with_its_rule_over_the_configs_values():
    """`fdlsr run --config orl --cv FDLSR`: the config fixes FDLSR's values for the
    paper's fixed-parameter rows; the search asked for replaces them, over the
    paper's grid {1e-5, ..., 1} of alpha, beta and lambda, with the 1-NN rule (on
    main, the config's values stayed fixed and only the decision rule was searched)."""
    from fdlsr.datasets import load_dataset

    experiment = plan(["--config", "faces", "--methods", "FDLSR", "--cv", "FDLSR"])
    experiment.ks, experiment.splits = [3], 1
    (unit,) = experiment_runs(experiment, load_dataset("faces"))
    grid = json.loads(unit.setting)["cv"]["grid"]
    assert unit.tuned and unit.tuning == "cv"
    assert grid == {"alpha": PAPER_GRID, "beta": PAPER_GRID, "lam": PAPER_GRID}
    # --params still fixes a parameter during the search; --cv-rules adds the rule
    experiment = plan(
        ["--config", "faces", "--methods", "FDLSR", "--cv", "FDLSR", "--cv-rules"]
        + ["--params", "FDLSR.beta=0.01"]
    )
    experiment.ks, experiment.splits = [3], 1
    (unit,) = experiment_runs(experiment, load_dataset("faces"))
    grid = json.loads(unit.setting)["cv"]["grid"]
    assert sorted(grid) == ["alpha", "decision_rule", "lam"]
    assert unit.params == {"beta": 0.01}


def test_cv_fdlsr_runs_choose_with_the_1nn_rule_and_the_table_says_what(
    tmp_path, capsys
):
    out = tmp_path / "cv"
    argv = ["run", "--config", "faces", "--methods", "FDLSR", "--cv", "FDLSR"]
    assert main([*argv, "-k", "3", "--splits", "1", "--out", str(out)]) == 0
    table = capsys.readouterr().out
    (row,) = [json.loads(line) for line in (out / "results.jsonl").open()]
    assert (
        row["tuning"] == "cv" and row["params"]["decision_rule"] == "nearest_neighbor"
    )
    assert {row["params"][name] for name in ("alpha", "beta", "lam")} <= set(PAPER_GRID)
    assert "FDLSR: parameters chosen by cross-validation" in table
    assert "k=3: alpha=" in table and "decision" not in table.split("FDLSR:")[1][:300]


def test_cv_rules_needs_a_tuned_method_with_rules(capsys):
    line = cli_error(
        capsys,
        ["run", "--dataset", "faces", "--methods", "LSR", "--cv-rules", "-k", "2"],
    )
    assert "--cv-rules" in line and "--cv FDLSR" in line


def test_the_fixed_values_of_runs_with_nothing_to_validate_on_are_named():
    """k=1 under --cv: the values the runs kept are said, not only that they were
    fixed; a cell with some such splits says theirs too."""
    fixed = [{"alpha": 1.0, "lam": 1.0}] * 3
    rows = tuned_rows(1, fixed, note=NO_INNER_CV)
    (note,) = chosen_parameters_notes(frame_of(rows))
    assert "k=1: fixed values alpha=1, lam=1 (one sample per class" in note
    mixed = tuned_rows(2, [{"alpha": 0.01, "lam": 0.1}] * 2 + fixed[:1])
    mixed[2]["note"] = NO_INNER_CV
    assert choices_text(cell_choices(frame_of(mixed))["LSR"][2]) == (
        "alpha=0.01 (2/3), lam=0.1 (2/3), 1 split with nothing to validate on "
        "(fixed values alpha=1, lam=1)"
    )


def test_cv_rules_with_a_fixed_rule_is_refused(capsys):
    """--cv-rules asks for the rule to be chosen; --params fixing it would take it
    out of the search in silence."""
    argv = ["run", "--dataset", "faces", "--methods", "FDLSR", "--cv", "FDLSR"]
    argv += ["--cv-rules", "--params", "FDLSR.decision_rule=knn", "-k", "2"]
    line = cli_error(capsys, argv)
    assert "--cv-rules" in line and "FDLSR.decision_rule=knn" in line
    assert "drop one of the two" in line


def test_cv_naming_a_method_with_nothing_to_choose_is_refused(tmp_path, capsys):
    """``--cv 1-NN`` was ignored (the rows said 'fixed'): an option that does not
    apply is refused; ``--cv`` alone tunes the methods with a grid, and is refused
    when none has one."""
    out = tmp_path / "res"
    base = ["run", "--dataset", "faces", "-k", "2", "--splits", "1", "--out", str(out)]
    line = cli_error(capsys, [*base, "--methods", "1-NN", "LSR", "--cv", "1-NN"])
    assert "--cv 1-NN: 1-NN has no parameters for cross-validation" in line
    assert not out.exists()
    line = cli_error(capsys, [*base, "--methods", "1-NN", "--cv"])
    assert "--cv applies when cross-validation chooses a parameter" in line
    assert not out.exists()
    assert cli([*base, "--methods", "1-NN", "LSR", "--cv"])[0] == 0
