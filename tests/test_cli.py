"""The ``fdlsr`` command end to end on small data, including the user's mistakes."""

import csv
import io
import json
import re
import subprocess
import sys

import numpy as np
import pytest

from fdlsr._experiments.cli import main
from fdlsr._testing import cli_error

SMALL = [
    "--dataset",
    "digits",
    "--methods",
    "FDLSR",
    "1-NN",
    "-k",
    "2",
    "3",
    "--splits",
    "2",
]


def test_run_report_and_paper_columns(tmp_path, capsys):
    out = tmp_path / "res"
    assert main(["run", *SMALL, "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert (
        "4 runs computed" not in captured.err
        and "8 runs computed, 0 already" in captured.err
    )
    assert "| FDLSR |" in captured.out and "| 1-NN |" in captured.out
    rows = [
        json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()
    ]
    assert len(rows) == 8
    assert json.loads((out / "environment.json").read_text())["sessions"][0][
        "command"
    ].startswith("fdlsr")

    assert main(["run", *SMALL, "--out", str(out), "--no-table"]) == 0
    assert "0 runs computed, 8 already" in capsys.readouterr().err

    assert main(["report", str(out), "--format", "latex", "--paper", "III"]) == 0
    latex = capsys.readouterr().out
    assert (
        r"\begin{tabular}" in latex
        and r"FDLSR (paper)" in latex
        and "67.80$\\pm$1.10" in latex
    )
    assert (
        main(["report", str(out), "--format", "csv", "-o", str(tmp_path / "t.csv")])
        == 0
    )
    table = list(csv.DictReader(io.StringIO((tmp_path / "t.csv").read_text())))
    assert {(r["method"], r["k"]) for r in table} == {
        (m, k) for m in ("FDLSR", "1-NN") for k in ("2", "3")
    }
    assert main(["report", str(out)]) == 0
    assert "| k=2 | k=3 |" in capsys.readouterr().out


def test_plot_figures(tmp_path, capsys):
    out = tmp_path / "fig"
    for kind in ("convergence", "tsne"):
        argv = [
            "plot",
            kind,
            "--dataset",
            "digits",
            "-k",
            "3",
            "--classes",
            "3",
            "--out",
            str(out),
        ]
        assert main(argv) == 0
    for stem in ("fig1_convergence", "fig2_tsne"):
        for ext in ("png", "pdf", "json"):
            assert (out / f"digits_{stem}.{ext}").stat().st_size > 100
    assert (out / "digits_fig1_convergence.png").read_bytes()[:4] == b"\x89PNG"
    assert "digits_fig2_tsne.pdf" in capsys.readouterr().err


def test_methods_datasets_and_help(capsys):
    assert main(["datasets"]) == 0
    assert "digits" in capsys.readouterr().out
    assert main(["methods"]) == 0
    assert "LinearSVC (scikit-learn)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    assert "fdlsr run --config feret" in capsys.readouterr().out


def test_user_mistakes_are_one_line_errors(tmp_path, capsys):
    assert "k=500" in cli_error(
        capsys, ["run", "--dataset", "digits", "-k", "500", "--out", str(tmp_path)]
    )
    assert "which has" in cli_error(
        capsys, ["run", "--dataset", "digits", "-k", "500", "--out", str(tmp_path)]
    )
    assert "unknown method 'Nope'" in cli_error(
        capsys, ["run", *SMALL[:2], "--methods", "Nope", "-k", "2"]
    )
    assert "no parameter 'gamma'" in cli_error(
        capsys, ["run", *SMALL, "--params", "FDLSR.gamma=1"]
    )
    assert "METHOD.alpha" in cli_error(capsys, ["run", *SMALL, "--params", "alpha=1"])
    assert "not found" in cli_error(
        capsys, ["run", "--config", str(tmp_path / "missing.toml")]
    )
    bad = tmp_path / "bad.toml"
    bad.write_text("dataset = [unclosed\n")
    assert "not valid TOML" in cli_error(capsys, ["run", "--config", str(bad)])
    bad.write_text('dataset = "digits"\nsplitz = 3\n')
    assert "unknown setting 'splitz'" in cli_error(
        capsys, ["run", "--config", str(bad)]
    )
    assert "run an experiment first" in cli_error(
        capsys, ["report", str(tmp_path / "none")]
    )
    assert "say what to run" in cli_error(capsys, ["run"])
    assert "no table" in cli_error(
        capsys, ["run", *SMALL, "--out", str(tmp_path / "r"), "--paper"]
    )
    # the dataset problems are detected by fdlsr.datasets; the CLI must show them as one line
    assert "no_such_dataset" in cli_error(
        capsys, ["run", "--dataset", "no_such_dataset", "-k", "1"]
    )
    missing = str(tmp_path / "missing.mat")
    assert "not found" in cli_error(capsys, ["run", "--dataset", missing, "-k", "1"])
    garbage = tmp_path / "garbage.mat"
    garbage.write_bytes(b"not a mat file")
    assert "garbage.mat" in cli_error(
        capsys, ["run", "--dataset", str(garbage), "-k", "1"]
    )
    mismatch = tmp_path / "mismatch.npz"
    np.savez(mismatch, X=np.ones((10, 4)), y=np.arange(7))
    cli_error(capsys, ["run", "--dataset", str(mismatch), "-k", "1"])
    ambiguous = tmp_path / "ambiguous.npz"
    np.savez(ambiguous, A=np.ones((6, 4)), B=np.ones((6, 5)), y=np.arange(6) % 2)
    cli_error(capsys, ["run", "--dataset", str(ambiguous), "-k", "1"])


def test_entry_point_prints_no_traceback(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "fdlsr",
            "run",
            "--dataset",
            "digits",
            "-k",
            "999",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert (
        result.stderr.startswith("fdlsr: error: k=999")
        and "Traceback" not in result.stderr
    )


def test_no_arguments_runs_the_faces_demo(monkeypatch):
    from fdlsr._experiments.cli import build_parser
    from fdlsr._experiments.commands import run
    from fdlsr._experiments.commands.run import run_request

    seen = {}
    monkeypatch.setattr(run, "main", lambda args: seen.setdefault("args", args) and 0)
    main([])
    args = seen["args"]
    assert args.command == "run" and args.config == "faces" and args.out is None
    demo = run_request(args).config.experiment
    assert demo.dataset == "faces" and "FDLSR" in demo.methods
    assert demo.params["FDLSR"] == {"alpha": 0.1, "beta": 0.01, "lam": 0.1}
    assert demo.paper_params == ["FDLSR"]
    digits = build_parser().parse_args(["run", "--config", "digits"])
    assert run_request(digits).config.experiment.dataset == "digits"


def test_off_a_terminal_each_method_and_k_prints_a_line(tmp_path, capsys):
    out = tmp_path / "res"
    assert main(["run", *SMALL, "--out", str(out), "--no-table"]) == 0
    err = capsys.readouterr().err.splitlines()  # capsys: not a terminal
    assert "8 runs to compute" in err[0]
    done = [line for line in err if "mean accuracy over 2 splits" in line]
    assert len(done) == 4  # FDLSR and 1-NN at k = 2 and 3
    assert any(line.startswith("fdlsr: digits: 1-NN k=3: ") for line in done)
    assert main(["run", *SMALL, "--out", str(out), "--no-table"]) == 0
    assert "runs to compute" not in capsys.readouterr().err  # nothing left to do


def test_table_marks_how_parameters_were_chosen(tmp_path, capsys):
    config = tmp_path / "c.toml"
    config.write_text(
        'dataset = "digits"\nk = [3]\nsplits = 1\n'
        'methods = ["FDLSR", "RidgeClassifier", "1-NN"]\n'
        'cv = ["RidgeClassifier"]\npaper_params = ["FDLSR"]\n'
        "[params.FDLSR]\nalpha = 1e-2\nbeta = 1e-3\nlam = 1e-1\n"
    )
    out = tmp_path / "res"
    assert main(["run", "--config", str(config), "--out", str(out)]) == 0
    table = capsys.readouterr().out
    header = next(line for line in table.splitlines() if line.startswith("| Method"))
    assert header.rstrip(" |").endswith("Parameters")

    def marker(method):
        line = next(x for x in table.splitlines() if x.startswith(f"| {method} |"))
        return line.split(" | ")[-1].rstrip(" |")

    assert [marker(m) for m in ("FDLSR", "RidgeClassifier", "1-NN")] == [
        "paper",
        "CV",
        "ours",
    ]
    assert "Parameters column: paper = fixed at values the paper states" in table
    # values changed on the command line are not the paper's
    changed = tmp_path / "changed"
    argv = ["run", "--config", str(config), "--out", str(changed)]
    assert main([*argv, "--params", "FDLSR.alpha=0.5"]) == 0
    table = capsys.readouterr().out
    assert marker("FDLSR") == "ours"
    # a method in cv whose every grid parameter is fixed is not searched
    fixed = tmp_path / "fixed"
    argv = ["run", "--config", str(config), "--out", str(fixed)]
    assert main([*argv, "--params", "RidgeClassifier.alpha=0.1"]) == 0
    table = capsys.readouterr().out
    assert marker("RidgeClassifier") == "ours"


def test_paper_configs_tune_the_baselines():
    from fdlsr._experiments.config import load_config, shipped_configs

    for name in shipped_configs():
        ex = load_config(name).experiment
        assert ex.paper_params == ["FDLSR"], name
        if name not in ("faces", "digits"):  # the quick demos
            assert set(ex.cv) == {"LinearSVC", "LogisticRegression", "CRC", "ProCRC"}


def test_datasets_and_methods_help_describe_them(capsys):
    for command in ("datasets", "methods"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = capsys.readouterr().out
        assert len(text.split("\n\n")[1].split()) > 10, text  # a description


def test_missing_files_name_the_data_folder_options(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("FDLSR_DATA_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert "missing" in out and "FDLSR_DATA_DIR" in out and "--data-dir" in out
    assert next(x for x in out.splitlines() if x.startswith("faces ")).split()[1] == (
        "embedded"
    )
    monkeypatch.setenv("FDLSR_DATA_DIR", str(tmp_path))
    assert main(["datasets"]) == 0
    assert f"{tmp_path} (from FDLSR_DATA_DIR)" in capsys.readouterr().out


def test_table_of_several_runs_names_each_command(tmp_path, capsys):
    """Methods added to a store by a second command: the report names both."""
    out = tmp_path / "res"
    first = ["run", "--dataset", "digits", "--methods", "FDLSR", "-k", "2"]
    first += ["--params", "alpha=0.5"]
    second = ["run", "--dataset", "digits", "--methods", "1-NN", "-k", "2"]
    for argv in (first, second, first):
        assert main([*argv, "--splits", "1", "--out", str(out), "--no-table"]) == 0
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    table = capsys.readouterr().out
    assert "| FDLSR |" in table and "| 1-NN |" in table
    notes = [line for line in table.splitlines() if "results written by" in line]
    assert len(notes) == 1
    assert notes[0].count("`fdlsr run") == 2  # each distinct command once
    assert "--methods FDLSR" in notes[0] and "--methods 1-NN" in notes[0]
    assert "FDLSR parameters: alpha=0.5" in table  # kept through the 1-NN run


def test_methods_all_selects_every_registered_method():
    from fdlsr._experiments.cli import build_parser
    from fdlsr._experiments.commands.run import run_request
    from fdlsr._experiments.registry import METHODS

    args = build_parser().parse_args(["run", "--config", "digits", "--methods", "ALL"])
    assert run_request(args).config.experiment.methods == list(METHODS)
    demo = run_request(build_parser().parse_args(["run", "--config", "digits"])).config
    assert "FDLSR" in demo.experiment.methods and "SRC" not in demo.experiment.methods


def test_cv_rules_chooses_the_decision_rule_and_says_which(tmp_path, capsys):
    out = tmp_path / "cv"
    argv = ["run", "--dataset", "digits", "--methods", "FDLSR", "-k", "5", "--cv-rules"]
    assert main([*argv, "--splits", "2", "--cv", "FDLSR", "--out", str(out)]) == 0
    table = capsys.readouterr().out
    rows = [
        json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()
    ]
    chosen = [row["params"]["decision_rule"] for row in rows]
    assert set(chosen) <= {"nearest_neighbor", "nearest_mean", "knn", "linear"}
    assert "FDLSR: parameters chosen by cross-validation" in table
    assert re.search(r"k=5: alpha=.+, beta=.+, decision\\_rule=.+, lam=.+\(", table)


def test_fdlsr_search_is_fdlsrcv_unless_a_fixed_parameter_needs_gridsearchcv():
    from sklearn.model_selection import GridSearchCV

    from fdlsr import FDLSRCV
    from fdlsr._experiments.registry import fdlsr_search

    grid = {"alpha": [0.1, 1.0], "decision_rule": ["knn", "linear"]}
    search = fdlsr_search(grid=grid, cv=3, alpha=1.0, beta=1e-3, lam=0.5, max_iter=5)
    assert isinstance(search, FDLSRCV)
    assert search.alphas == [0.1, 1.0] and search.betas == [1e-3]
    assert search.lams == [0.5] and search.decision_rules == ["knn", "linear"]
    assert search.max_iter == 5
    assert isinstance(fdlsr_search(grid=grid, cv=3, tol=1e-4), GridSearchCV)


def test_report_names_the_methods_asked_for_but_not_computed(tmp_path, capsys):
    """A run stopped before a method's first split leaves no row of it: the table
    says so instead of leaving the method out without a word."""
    out = tmp_path / "res"
    small = ["--dataset", "digits", "-k", "2", "--splits", "1", "--out", str(out)]
    argv = ["run", *small, "--methods", "1-NN", "RidgeClassifier", "--no-table"]
    assert main(argv) == 0
    store = out / "results.jsonl"
    kept = [
        line for line in store.read_text().splitlines() if "RidgeClassifier" not in line
    ]
    store.write_text("\n".join(kept) + "\n")  # as if stopped before RidgeClassifier
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    table = capsys.readouterr().out
    assert (
        "Not computed yet: RidgeClassifier" in table
        and "| RidgeClassifier |" not in table
    )
    assert main(["run", *small, "--methods", "RidgeClassifier", "--no-table"]) == 0
    assert main(["report", str(out)]) == 0
    assert "Not computed yet" not in capsys.readouterr().out


# -- what a first-time user meets -----------------------------------------------------


def test_plot_reports_the_progress_of_each_figure(tmp_path, monkeypatch, capsys):
    """A line per tenth of each figure's steps, once it has taken QUIET_SECONDS."""
    from fdlsr._experiments import progress

    monkeypatch.setattr(progress, "QUIET_SECONDS", 0.0)
    argv = ["plot", "convergence", "--dataset", "digits", "-k", "3"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "fdlsr: convergence figure of digits [" in err
    assert "30/30 iterations" in err


def test_plot_tsne_methods_keep_the_configs_fdlsr_parameters(tmp_path):
    """``plot --methods`` names t-SNE's other methods: the figures still draw FDLSR
    with the config's parameters."""
    config = tmp_path / "c.toml"
    config.write_text(
        'dataset = "digits"\nk = 2\n[params.FDLSR]\nalpha = 0.5\nlam = 0.25\n'
    )
    argv = ["plot", "convergence", "--config", str(config), "--out", str(tmp_path)]
    for methods in ([], ["--methods", "DLSR"]):
        assert main([*argv, *methods]) == 0
        data = json.loads((tmp_path / "digits_fig1_convergence.json").read_text())
        assert (data["params"]["alpha"], data["params"]["lam"]) == (0.5, 0.25)


def test_scikit_learn_sets_say_whether_they_are_cached(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path))
    assert main(["datasets"]) == 0
    status = {line.split()[0]: line.split()[1] for line in capsys.readouterr().out.splitlines()[1:] if line}  # fmt: skip
    assert status["olivetti"] == "download" and status["digits"] == "embedded"
    (tmp_path / "olivetti_py3.pkz").write_bytes(b"")
    assert main(["datasets"]) == 0
    assert "\nolivetti           cached " in capsys.readouterr().out


def mixed_size_folder(root):
    from image_layouts import write_image

    for c in range(2):
        for i in range(3):
            write_image(root / f"c{c}" / f"{i}.png", 10 * c + i, size=8 + 4 * (i == 0))
    return root


def test_mixed_image_sizes_name_the_option_where_they_are_met(tmp_path, capsys):
    """--resize H W on the command line (run, datasets info), resize= in Python."""
    pytest.importorskip("PIL")
    from fdlsr.datasets import load_dataset

    folder = mixed_size_folder(tmp_path / "photos")
    out = ["--out", str(tmp_path / "res"), "--no-table"]
    run = ["run", "--dataset", str(folder), "--methods", "1-NN", "-k", "2", *out]
    assert "pass --resize H W to bring them" in cli_error(capsys, run)
    info = ["datasets", "info", str(folder)]
    assert "pass --resize H W to bring them" in cli_error(capsys, info)
    with pytest.raises(ValueError, match=r"pass resize=\(h, w\) to bring them"):
        load_dataset(folder)
    assert main([*run, "--resize", "8", "8"]) == 0
    assert main([*info, "--resize", "8", "8"]) == 0
    assert "image_shape: (8, 8)" in capsys.readouterr().out


def test_a_missing_file_names_the_data_dir_option(tmp_path, capsys):
    from fdlsr.datasets import load_dataset

    argv = ["run", "--config", "orl", "--data-dir", str(tmp_path), "--out", str(tmp_path / "r")]  # fmt: skip
    assert "(data folder given by --data-dir)" in cli_error(capsys, argv)
    with pytest.raises(ValueError, match=r"\(data folder given by data_dir=\)"):
        load_dataset("orl", data_dir=tmp_path)


def wine_csv(path):
    from sklearn.datasets import load_wine

    wine = load_wine()
    table = np.column_stack([wine.data, wine.target])
    np.savetxt(path, table, delimiter=",", header=",".join([*wine.feature_names, "label"]), comments="")  # fmt: skip
    return path


def test_columns_on_other_scales_warn_and_standardize_helps(tmp_path, capsys):
    """scikit-learn's wine: a warning naming --standardize, which the runs then use
    (a row of its own, labelled, and far more accurate here)."""
    data = wine_csv(tmp_path / "wine.csv")
    argv = ["run", "--dataset", str(data), "--y", "label", "--methods", "FDLSR", "-k", "10"]  # fmt: skip
    argv += ["--splits", "2", "--out", str(tmp_path / "res")]
    assert main(argv) == 0
    plain = capsys.readouterr()
    warning = [line for line in plain.err.splitlines() if "scales differ" in line]
    assert len(warning) == 1 and warning[0].endswith("pass --standardize to bring the columns to one scale first")  # fmt: skip
    assert main([*argv, "--standardize"]) == 0
    scaled = capsys.readouterr()
    assert "scales differ" not in scaled.err
    rows = [json.loads(line) for line in (tmp_path / "res" / "results.jsonl").read_text().splitlines()]  # fmt: skip
    by_setting = {}
    for row in rows:
        key = json.loads(row["setting"]).get("standardize", False)
        by_setting.setdefault(key, []).append(row["accuracy"])
    assert np.mean(by_setting[True]) > np.mean(by_setting[False]) + 0.1
    assert "| FDLSR (standardized) |" in scaled.out


def test_standardize_fits_on_the_training_rows_only():
    from fdlsr._experiments.samples import standardize_columns

    X = np.random.default_rng(0).normal(5, [1, 100], (20, 2))
    train = np.arange(0, 20, 2)
    Z = standardize_columns(X, train)
    np.testing.assert_allclose(Z[train].mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(Z[train].std(axis=0), 1)
    assert abs(Z.mean(axis=0)).max() > 1e-3  # the test rows were not looked at


def test_nothing_follows_the_interruption_line():
    """After the command's one line an interrupted run prints nothing more: what a
    library prints as Python stops (dask's exit hooks, an asyncio task of a cluster
    stopped while it started) goes nowhere."""
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('late noise', file=sys.stderr))\n"
        "from fdlsr._experiments import cli\n"
        "cli._interrupted(True, ['run'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 130
    assert done.stderr == (
        "fdlsr: interrupted; finished runs are saved: run the same command again "
        "to resume\n"
    )
