"""Tables rendered from result rows, and the transcription of the paper's tables."""

import csv
import io
import re

import numpy as np
import pytest

from fdlsr._experiments.report import METHOD_HEAD, paper_results, render, summarise
from fdlsr._experiments.results_frame import frame_of
from fdlsr.errors import ConfigError


def rows_for(method, family, k, accuracies, setting="s", **extra):
    return [
        {
            "dataset": "d",
            "method": method,
            "family": family,
            "k": k,
            "split": i,
            "seed": 0,
            "setting": setting,
            "accuracy": a,
            "fit_time": 0.5 + i,
            "predict_time": 0.1,
            **extra,
        }
        for i, a in enumerate(accuracies)
    ]


def test_summary_is_mean_and_sample_std_in_percent():
    rows = rows_for("FDLSR", "proposed", 2, [0.5, 0.6, 0.7])
    (s,) = summarise(frame_of(rows))
    assert s["mean"] == pytest.approx(60.0)
    assert s["std"] == pytest.approx(np.std([50, 60, 70], ddof=1))
    assert s["train_time"] == pytest.approx(1.5) and s["n_splits"] == 3


def test_markdown_layout_groups_families_in_the_papers_order():
    rows = (
        rows_for("1-NN", "scikit-learn", 2, [0.4, 0.5])
        + rows_for("FDLSR", "proposed", 2, [0.6, 0.7])
        + rows_for("FDLSR", "proposed", 3, [0.8, 0.9])
    )
    text = render(summarise(frame_of(rows)), "md", title="T")
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("| Method"))
    assert header.split(" | ")[1:3] == ["k=2", "k=3"]
    assert (
        text.index("*Proposed*")
        < text.index("| FDLSR |")
        < text.index("*scikit-learn baselines*")
    )
    fdlsr = next(line for line in lines if line.startswith("| FDLSR |"))
    assert "**65.00 ± 7.07**" in fdlsr and "85.00 ± 7.07" in fdlsr
    nn = next(line for line in lines if line.startswith("| 1-NN |"))
    assert "45.00 ± 7.07" in nn and "| — |" in nn  # no k=3 run


def test_paper_rows_beside_ours_and_paper_only_methods():
    ours = rows_for("FDLSR", "proposed", 2, [0.68, 0.67])
    text = render(summarise(frame_of(ours)), "md", paper=paper_results("III"))
    assert "*FDLSR (paper)*" in text and "*SRC (paper only)*" in text
    paper_line = next(line for line in text.splitlines() if "FDLSR (paper)" in line)
    assert "67.80 ± 1.10" in paper_line and "0.5985" in paper_line
    assert (
        text.index("SRC (paper only)")
        < text.index("| FDLSR |")
        < text.index("FDLSR (paper)")
    )


def test_two_settings_of_one_method_get_labels():
    rows = rows_for(
        "FDLSR", "proposed", 2, [0.5, 0.6], setting='{"params": {"lam": 0.1}}'
    )
    rows += rows_for(
        "FDLSR", "proposed", 2, [0.7, 0.8], setting='{"params": {"lam": 1.0}}'
    )
    labels = {s["label"] for s in summarise(frame_of(rows))}
    assert labels == {"FDLSR (lam=0.1)", "FDLSR (lam=1)"}


def test_only_cells_over_the_most_splits_can_be_best():
    rows = rows_for("FDLSR", "proposed", 2, [0.6, 0.7, 0.8])
    rows += rows_for("LSR", "relaxed", 2, [0.9])  # higher, but one split
    rows += rows_for("DLSR", "relaxed", 2, [0.5, 0.6, 0.7])
    text = render(summarise(frame_of(rows)), "md")
    assert "**70.00 ± 10.00**" in text and "**90.00" not in text


def test_failed_runs_are_reported_not_averaged():
    rows = rows_for("LDA", "scikit-learn", 1, [None, None], error="ValueError: too few")
    rows += rows_for("LDA", "scikit-learn", 2, [0.5, None], error="x")
    text = render(summarise(frame_of(rows)), "md")
    line = next(line for line in text.splitlines() if line.startswith("| LDA"))
    assert "failed" in line and "50.00 (n=1)" in line
    assert "LDA, k=1: failed in every split (ValueError: too few)" in text


def test_cells_whose_runs_warned_unreliable_are_marked_and_explained():
    doubt = (
        "UnreliableResultWarning: LCLE with more atoms (1360) than features (1024) "
        "collapses; use n_atoms <= 15."
    )
    rows = rows_for("LCLE", "dictionary", 10, [0.99, 1.0])
    rows += rows_for("LCLE", "dictionary", 20, [0.1, 0.09], warnings=[doubt])
    rows += rows_for("LCLE", "dictionary", 30, [0.6], warnings=[doubt])
    rows += rows_for("LCLE", "dictionary", 30, [0.7], warnings=["UserWarning: other"])
    summary = summarise(frame_of(rows))
    text = render(summary, "md")
    line = next(line for line in text.splitlines() if line.startswith("| LCLE"))
    cells = line.split(" | ")[1:4]
    assert cells[0].endswith("0.71") and cells[1].endswith("0.71\u2020")
    assert "\u2020" in cells[2]
    note = "\u2020 LCLE, k=20 (2 of 2 splits), k=30 (1 of 2 splits): LCLE with more"
    assert note in text
    latex = render(summary, "latex")
    assert r"$^\dagger$" in latex and "<=" not in latex
    table = list(csv.DictReader(io.StringIO(render(summary, "csv"))))
    assert [r["n_unreliable"] for r in table] == ["0", "2", "1"]
    # Rows without such a warning leave the table as it was.
    assert "\u2020" not in render(summarise(frame_of(rows[:2])), "md")


def test_latex_and_csv():
    rows = rows_for("RLR_x", "relaxed", 2, [0.5, 0.6])
    latex = render(summarise(frame_of(rows)), "latex", title="50% of 100_x")
    assert (
        r"RLR\_x" in latex and r"50\% of 100\_x" in latex and r"55.00$\pm$7.07" in latex
    )
    table = list(
        csv.DictReader(
            io.StringIO(
                render(summarise(frame_of(rows)), "csv", paper=paper_results("I"))
            )
        )
    )
    assert {r["source"] for r in table} == {"ours", "paper"}
    assert float(
        next(r for r in table if r["source"] == "ours")["accuracy_mean_pct"]
    ) == pytest.approx(55.0)


@pytest.mark.parametrize(
    "table, method, k, mean, std",
    [
        ("III", "FDLSR", 2, 67.80, 1.10),
        ("III", "FDLSR", 5, 91.43, 0.91),
        ("III", "LC-KSVD2", 1, 24.46, 1.03),  # printed "1,03" in the paper
        ("II", "GReLSR", 2, 47.61, 1.96),  # printed "47,61"
        ("I", "LRDLSR", 2, 64.84, 1.65),
        ("IV", "DLSR", 9, 38.81, 1.91),
        ("V", "DPL", 30, 94.89, 0.31),  # the paper's PDPL
    ],
)
def test_paper_transcription_spot_checks(table, method, k, mean, std):
    (row,) = [r for r in paper_results(table) if r["method"] == method and r["k"] == k]
    assert (row["mean"], row["std"]) == (mean, std)


def test_paper_tables_are_complete():
    ks = {"I": 6, "II": 6, "III": 5, "IV": 6, "V": 6}
    for table, n in ks.items():
        rows = paper_results(table)
        assert len(rows) == 16 * n  # 15 compared methods and FDLSR
        src = [r for r in rows if r["method"] == "SRC"]
        assert all(r["train_time"] is None for r in src)  # "None" in the paper
    with pytest.raises(ConfigError, match="unknown paper table"):
        paper_results("VII")


def test_every_registered_family_has_a_title_and_a_place():
    """A registered family missing from the paper's order would sort last, untitled."""
    from fdlsr._experiments.registry import FAMILIES, METHODS
    from fdlsr._experiments.report import FAMILY_TITLES

    for name, method in METHODS.items():
        assert method.family in FAMILIES and method.family in FAMILY_TITLES, name


def test_stored_family_names_follow_the_registry():
    rows = rows_for("DLSR", "lsr", 2, [0.5, 0.6])  # a store from before a rename
    (summary,) = summarise(frame_of(rows))
    assert summary["family"] == "relaxed"
    assert "Least squares regression" in render(summarise(frame_of(rows)))


def test_missing_times_are_a_dash_not_none():
    rows = rows_for("LDA", "scikit-learn", 1, [None, None], error="ValueError: too few")
    rows += rows_for("FDLSR", "proposed", 1, [0.3, 0.4])
    for fmt, dash in (("md", "| — |"), ("latex", "& -- &")):
        text = render(summarise(frame_of(rows)), fmt, paper=paper_results("III"))
        assert "None" not in text
        src = next(line for line in text.splitlines() if "SRC (paper" in line)
        assert dash in src  # the paper prints no training time for SRC
        lda = next(
            line for line in text.splitlines() if line.startswith(("| LDA", "LDA"))
        )
        assert dash in lda


def test_parameters_column_says_how_each_row_was_chosen():
    rows = rows_for("FDLSR", "proposed", 2, [0.6, 0.7], tuning="paper")
    rows += rows_for(
        "CRC", "representation", 2, [0.5, 0.6], tuning="fixed", fingerprint="f"
    )
    rows += rows_for(
        "1-NN", "scikit-learn", 2, [0.4, 0.5], tuning="cv", setting='{"cv": {}}'
    )
    # fixed values stored before fdlsr told the paper's from its own (no fingerprint)
    rows += rows_for("LSR", "relaxed", 2, [0.3, 0.4], tuning="fixed")
    text = render(summarise(frame_of(rows)), "md", paper=paper_results("III"))
    marks = {
        line.split(" | ")[0][2:]: line.rstrip(" |").split(" | ")[-1]
        for line in text.splitlines()
        if line.startswith("| ") and " | " in line
    }
    assert marks["FDLSR"] == "paper" and marks["CRC"] == "ours"
    assert marks["1-NN"] == "CV" and marks["*FDLSR (paper)*"] == "—"
    assert marks["LSR"] == "fixed"
    assert "Parameters column: paper = fixed at values the paper states" in text
    assert "; fixed = fixed values in rows stored before" in text
    unlabelled = [r for r in rows if r["method"] != "LSR"]
    text = render(summarise(frame_of(unlabelled)), "md", paper=paper_results("III"))
    assert "Parameters column: paper = " in text and "fixed = " not in text
    latex = render(summarise(frame_of(rows)), "latex")
    assert "Parameters" in latex and r"\\" in latex and "CV" in latex
    table = list(csv.DictReader(io.StringIO(render(summarise(frame_of(rows)), "csv"))))
    assert {r["method"]: r["tuning"] for r in table} == {
        "FDLSR": "paper",
        "CRC": "fixed",
        "1-NN": "cv",
        "LSR": "unrecorded",
    }


# -- text from the store, escaped; cells compared only where fair -------------------


def markdown_cells(line):
    """The cells of a Markdown table row, split at the pipes that are not escaped."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def test_markdown_escapes_what_would_break_the_table():
    name = "my|method *x* <b>\nnew"
    rows = rows_for(name, "proposed", 2, [0.5, 0.6])
    rows += rows_for("1-NN", "scikit-learn", 2, [0.4, 0.5])
    text = render(summarise(frame_of(rows)), "md", title="a | title\nline two")
    lines = text.splitlines()
    assert lines[0] == r"### a \| title line two"
    header = next(line for line in lines if line.startswith("| Method"))
    row = next(line for line in lines if line.startswith("| my"))
    assert len(markdown_cells(row)) == len(markdown_cells(header))
    assert markdown_cells(row)[0] == r"my\|method \*x\* \<b\> new"


def test_latex_escapes_every_special_character():
    rows = rows_for("a$b^c{d}e_f&g%h#i~j\\k", "proposed", 2, [0.5, 0.6])
    latex = render(
        summarise(frame_of(rows)), "latex", title="50% of {x} <= 1\n\nand more"
    )
    label = r"a\$b\^{}c\{d\}e\_f\&g\%h\#i\textasciitilde{}j\textbackslash{}k"
    assert f"\n{label} & " in latex
    assert r"\caption{50\% of \{x\} $\le$ 1  and more}" in latex


def test_two_searches_of_one_method_never_share_a_label():
    grid = '{"cv": {"folds": %d, "grid": {"lam": [1]}}, "params": {}}'
    rows = rows_for("LSR", "relaxed", 2, [0.5, 0.6], setting=grid % 2)
    rows += rows_for("LSR", "relaxed", 2, [0.7, 0.8], setting=grid % 3)
    labels = sorted(s["label"] for s in summarise(frame_of(rows)))
    assert labels == ["LSR (cv, folds=2)", "LSR (cv, folds=3)"]
    text = render(summarise(frame_of(rows)))
    assert "55.00" in text and "75.00" in text


def test_cells_over_other_splits_or_samples_are_not_compared_and_say_why():
    raw = '{"normalise": false, "params": {}}'
    rows = rows_for("FDLSR", "proposed", 2, [0.6, 0.7], setting="{}")
    rows += rows_for("FDLSR", "proposed", 2, [0.9, 0.9], setting=raw)
    rows += rows_for("LSR", "relaxed", 2, [0.5, 0.6], setting="{}")
    other = rows_for("DLSR", "relaxed", 2, [0.95, 0.95], setting="{}")
    rows += [{**r, "seed": 3} for r in other]
    summary = summarise(frame_of(rows))
    assert {s["label"] for s in summary} == {
        "FDLSR", "FDLSR (raw)", "LSR", "DLSR (seed 3)",
    }  # fmt: skip
    text = render(summary, "md")
    bold = [line.split(" | ")[0] for line in text.splitlines() if "**" in line]
    assert bold == ["| FDLSR"]  # 65 beats 55; 90 and 95 are over other samples/splits
    assert (
        "not compared: FDLSR (raw) at k=2 (raw samples); DLSR (seed 3) at k=2 "
        "(other random splits (seed 3))." in text
    )


def test_bold_waits_when_no_group_of_cells_is_the_columns_own():
    """Two cells over as many splits, but other ones: neither is the reference, so
    nothing is bold and the note names both."""
    rows = rows_for("FDLSR", "proposed", 2, [0.6, 0.7])
    rows += [
        {**r, "split": r["split"] + 2}
        for r in rows_for("LSR", "relaxed", 2, [0.5, 0.6])
    ]
    text = render(summarise(frame_of(rows)), "md")
    assert "**" not in text
    assert (
        "not compared: FDLSR at k=2 (as many splits as other cells, but other "
        "ones); LSR at k=2 (as many splits as other cells, but other ones)." in text
    )


# -- every statement of the table true of its rows: failures, times -----------------


def test_a_split_that_failed_is_said_not_dropped():
    rows = rows_for("LSR", "relaxed", 2, [0.7, None, 0.8], error="E: singular")
    text = render(summarise(frame_of(rows)), "md")
    assert "75.00 ± 7.07 (n=2)" in text
    assert (
        "LSR, k=2: failed in 1 of 3 splits (E: singular); the cell is the mean of "
        "the 2 that ran." in text
    )
    (cell,) = csv.DictReader(io.StringIO(render(summarise(frame_of(rows)), "csv")))
    assert (cell["n_splits"], cell["n_failed"], cell["error"]) == (
        "2",
        "1",
        "E: singular",
    )


def table_times(text):
    """``{label: training time cell}`` of a Markdown table."""
    lines = text.splitlines()
    header = markdown_cells(next(line for line in lines if line.startswith("| Method")))
    at = header.index("Training time (s)")
    return {
        cells[0]: cells[at]
        for cells in map(markdown_cells, lines)
        if len(cells) == len(header)
        and cells[0] not in (METHOD_HEAD, "---")
        and not cells[0].startswith("*")
    }


def test_times_are_at_one_k_named_and_a_row_without_it_says_its_own():
    rows = rows_for("FDLSR", "proposed", 1, [0.5, 0.6]) + rows_for(
        "FDLSR", "proposed", 2, [0.7, 0.8]
    )
    rows += rows_for("LSR", "relaxed", 1, [0.4, 0.5])  # stopped at k=1
    for r in rows:
        r["fit_time"] += 10 * r["k"]  # each k its own times
    text = render(summarise(frame_of(rows)), "md")
    times = table_times(text)
    assert times == {"LSR": "11.0000 (k=1)", "FDLSR": "21.0000"}
    from fdlsr._experiments.notes import protocol_note

    note = protocol_note(frame_of(rows))
    assert "times in seconds are means at k=2 (a time measured at another k" in note
    assert "largest k" not in note
    # beside the paper's columns (k up to 5), ours are still at k=2, and said so
    paper = render(summarise(frame_of(rows)), "md", paper=paper_results("III"))
    assert table_times(paper)["FDLSR"] == "21.0000"
    assert "Times of the rows marked (paper): the one training and test time" in paper
    latex = render(summarise(frame_of(rows)), "latex")
    assert "11.0000 (k=1)" in latex


def test_the_table_and_the_time_figure_take_their_times_at_one_k():
    from fdlsr._experiments.result_plots import accuracy_by_time_data

    rows = rows_for("FDLSR", "proposed", 1, [0.5, 0.6])
    rows += rows_for("FDLSR", "proposed", "fixed", [0.9], fit_time=99.0)
    rows += rows_for("LSR", "relaxed", 1, [0.4, 0.5])
    rows += rows_for("LSR", "relaxed", "fixed", [0.8], fit_time=77.0)
    times = table_times(render(summarise(frame_of(rows)), "md"))
    figure = accuracy_by_time_data(frame_of(rows))
    assert figure["k"] == 1
    assert {p["label"]: f"{p['train_time_s']:.4f}" for p in figure["points"]} == times
    assert times == {"FDLSR": "1.0000", "LSR": "1.0000"}


def test_a_time_no_run_takes_is_written_short():
    from fdlsr._experiments.report import time_text

    assert time_text(1e300) == "1e+300" and time_text(123.456) == "123.5"
    assert time_text(0.5, k=1) == "0.5000 (k=1)"


def test_the_csv_of_several_data_sets_is_one_table(tmp_path, capsys):
    """One header row; the columns table and data_sha256 tell data sets apart, even
    two of one name."""
    from fdlsr._testing import cli
    from result_stores import row, write_store

    rows = [row("faces", "LSR", 2, split, data_sha256="ab" * 32) for split in (0, 1)]
    rows += [row("faces", "LSR", 2, split, accuracy=0.9, data_sha256="cd" * 32)
             for split in (0, 1)]  # fmt: skip
    rows += [row("digits", "LSR", 2, 0, data_sha256="ef" * 32)]
    store = write_store(tmp_path / "store", rows)
    status, out, err = cli(["report", str(store), "--format", "csv"])
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("source,table,method,label,family,k,n_splits,")
    assert sum(line.startswith("source,") for line in lines) == 1
    assert "" not in lines
    table = list(csv.DictReader(io.StringIO(out)))
    assert len(table) == 3
    by_data = {
        r["data_sha256"]: (r["dataset"], r["accuracy_mean_pct"], r["table"])
        for r in table
    }
    assert by_data["ab" * 32][:2] == ("faces", "50.0")
    assert by_data["cd" * 32][:2] == ("faces", "90.0")
    assert by_data["ab" * 32][2] != by_data["cd" * 32][2]  # titled apart
    assert by_data["ef" * 32] == ("digits", "50.0", "digits")
