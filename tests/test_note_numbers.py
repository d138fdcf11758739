"""Every statement under a table is derived from the rows the table shows.

The cases the issue found, each with its own test, then a property test: random
stores (data sets, settings, seeds, splits with gaps, tuning, failed and unreliable
runs, method names with markup) rendered by ``fdlsr report``; every number that a
note or a cell states is checked against the rows.
"""

import json
import re
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from hypothesis import given, settings

from fdlsr._experiments.escape import markdown
from fdlsr._experiments.notes import fdlsr_parameters_note, protocol_note
from fdlsr._experiments.report import render, summarise
from fdlsr._experiments.results_frame import frame_of
from fdlsr._experiments.splits import NO_INNER_CV
from fdlsr._experiments.variants import row_labels, variant
from fdlsr._testing import cli
from result_stores import LSR, NAME, UNRELIABLE, row, stores, write_store

FDLSR_PAPER = '{"params": {"alpha": 0.01, "beta": 0.001, "lam": 0.1}}'
FDLSR_OURS = '{"params": {"alpha": 0.5, "beta": 0.01, "lam": 1.0}}'
FDLSR_CV = json.dumps(
    {"cv": {"folds": 3, "grid": {"alpha": [0.01, 0.1]}}, "params": {"alpha": 1.0}}
)


def tables(text):
    """``{title: markdown}`` of a Markdown report."""
    return {part.splitlines()[0]: part for part in text.split("### ")[1:]}


def notes_of(table):
    return [unescape(line[2:]) for line in table.splitlines() if line.startswith("> ")]


def unescape(text):
    """Markdown text as it reads: backslash escapes and code fences removed."""
    return re.sub(r"\\(.)", r"\1", text)


def cells(line):
    """The cells of a Markdown table row, split at the pipes that are not escaped."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


# -- the three cases of the issue ------------------------------------------------------


def test_a_each_table_names_the_fdlsr_parameters_of_its_own_rows(tmp_path):
    """(a) Yale rows run with --params FDLSR.alpha=0.5 FDLSR.lam=1.0, FERET rows with
    the paper's values, in one store: each table names its own."""
    rows = [row("yale", "FDLSR", 2, i, setting=FDLSR_OURS) for i in range(2)]
    rows += [row("feret", "FDLSR", 2, i, setting=FDLSR_PAPER) for i in range(2)]
    status, out, err = cli(["report", str(write_store(tmp_path / "s", rows))])
    assert status == 0, err
    found = tables(out)
    assert "FDLSR parameters: alpha=0.5, beta=0.01, lam=1.0." in notes_of(found["yale"])
    assert "FDLSR parameters: alpha=0.01, beta=0.001, lam=0.1." in notes_of(
        found["feret"]
    )


def test_a_fdlsr_parameters_name_the_rows_they_are_of():
    """A table with FDLSR tuned and fixed: the fixed values are those of the fixed
    rows only (on main the sentence spoke of every FDLSR row)."""
    rows = [row("d", "FDLSR", 2, i, setting=FDLSR_OURS) for i in range(2)]
    rows += [row("d", "FDLSR", 2, i, setting=FDLSR_CV) for i in range(2)]
    labels = row_labels(rows)
    fixed = labels["FDLSR", FDLSR_OURS, 0]
    assert fixed != "FDLSR" and labels["FDLSR", FDLSR_CV, 0] == "FDLSR (cv)"
    assert fdlsr_parameters_note(frame_of(rows)) == (
        f"FDLSR parameters: {fixed}: alpha=0.5, beta=0.01, lam=1.0."
    )


def test_b_two_seeds_are_told_apart_and_each_cell_is_over_its_own_splits(tmp_path):
    """(b) LSR from --seed 0 and --seed 1, two splits each: two rows of two splits,
    never one cell averaging four runs."""
    rows = [row("d", "LSR", 2, i, seed=0, accuracy=0.5 + i / 10) for i in range(2)]
    rows += [row("d", "LSR", 2, i, seed=1, accuracy=0.8 + i / 10) for i in range(2)]
    status, out, _ = cli(["report", str(write_store(tmp_path / "s", rows))])
    assert status == 0
    table = tables(out)["d"]
    assert cells(next(ln for ln in table.splitlines() if ln.startswith("| LSR |")))[
        1
    ] == ("55.00 ± 7.07")
    assert cells(
        next(ln for ln in table.splitlines() if ln.startswith("| LSR (seed 1) |"))
    )[1] == ("85.00 ± 7.07")
    assert "over 2 random splits" in notes_of(table)[0]
    assert "seed 0 unless the row says another" in notes_of(table)[0]


def test_b_the_number_of_splits_is_that_of_the_cells():
    """Splits 0 and 2 of a run (an interrupted one, or a hand-edited store): the
    cells average 2 runs, and the note says 2 (on main: 3, from the split numbers)."""
    rows = [row("d", "LSR", 2, i) for i in (0, 2)]
    assert "over 2 random splits" in protocol_note(frame_of(rows))
    assert "(n=" not in render(summarise(frame_of(rows)))


def test_b_the_usual_seed_of_the_note_is_the_one_labels_leave_unsaid():
    """Rows of the data set's own split under seed 1 outnumber the random splits
    under seed 0: the labels mark seed 0 as the other one, and so does the note (on
    main the note called seed 0 the usual one while the rows said 'seed 0')."""
    rows = [row("d", "LSR", 2, i, seed=0) for i in range(2)]
    other = '{"params": {"lam": 1.0}}'
    rows += [row("d", "DLSR", "fixed", 0, seed=1, setting=s) for s in (other, LSR)]
    rows += [row("d", "ReLSR", "fixed", 0, seed=1)]
    labels = set(row_labels(rows).values())
    assert "LSR (seed 0)" in labels
    assert "seed 1 unless the row says another" in protocol_note(frame_of(rows))


def test_c_names_with_markup_print_as_written_in_every_format(tmp_path):
    """(c) A foreign method name with '|', HTML and LaTeX specials, in a cell and in
    the notes (a run that failed, with an error message holding them too)."""
    rows = [row("d", NAME, 2, i, accuracy=0.5) for i in range(2)]
    rows += [
        row("d", NAME + "2", 2, i, accuracy=None, error="E: <b>|x|</b> $y$")
        for i in range(2)
    ]
    store = write_store(tmp_path / "s", rows)
    status, md, _ = cli(["report", str(store)])
    assert status == 0
    table = tables(md)["d"]
    head = next(ln for ln in table.splitlines() if ln.startswith("| Method"))
    for line in (ln for ln in table.splitlines() if ln.startswith("| a")):
        assert len(cells(line)) == len(cells(head))
        assert unescape(cells(line)[0]).startswith(NAME)
    note = next(ln for ln in table.splitlines() if "failed in every split" in ln)
    assert "<b>" not in note and "|x|" not in note.replace("\\|", "")
    assert unescape(note[2:]) == (
        f"{NAME}2, k=2: failed in every split (E: <b>|x|</b> $y$)."
    )
    status, latex, _ = cli(["report", str(store), "--format", "latex"])
    assert status == 0
    label = r"a\textbar{}b\textless{}i\textgreater{}\$x\^{}\{2\}\$\_c\&d"
    assert f"\n{label} & " in latex
    failed = next(ln for ln in latex.splitlines() if "failed in every split" in ln)
    assert "|" not in failed and "<" not in failed and "$y$" not in failed


# -- any store: the numbers of the notes against the rows -------------------------------


def fmt_mean(values):
    return f"{100 * np.mean(values):.2f}"


def check_table(table, rows):
    """Every number of the Markdown ``table`` against ``rows``, its rows."""
    labels = row_labels(rows)
    cell_rows = defaultdict(list)
    for r in rows:
        cell_rows[labels[variant(r)], r["k"]].append(r)
    ran = {
        key: [r for r in runs if r["accuracy"] is not None]
        for key, runs in cell_rows.items()
    }
    n_max = max(len(runs) for runs in cell_rows.values())
    drawn = [len(runs) for (_, k), runs in cell_rows.items() if k != "fixed"]
    notes = notes_of(table)
    # the protocol: splits, seed
    protocol = notes[0]
    if drawn:
        n = int(re.search(r"over (\d+) random split", protocol).group(1))
        assert n == max(drawn)
        assert ("mean ± sample std" in protocol) == (n > 1)
    seeds = Counter(r["seed"] for r in rows)
    said = re.search(r"seed (\d+) unless the row says another", protocol)
    if drawn and len(seeds) > 1:
        usual = min(seeds, key=lambda s: (-seeds[s], s))
        assert said and int(said.group(1)) == usual
        assert not any(f"seed {usual})" in label for label in labels.values())
    else:
        assert said is None
    # the cells: mean, and (n=) where fewer runs than the most
    lines = table.splitlines()
    head = next(ln for ln in lines if ln.startswith("| Method"))
    ks = [unescape(c)[2:] for c in cells(head)[1:-3]]
    shown = {}
    for line in lines:
        if line.startswith("| ") and not line.startswith(("| Method", "| *")):
            parts = cells(line)
            assert len(parts) == len(cells(head)), line
            shown[unescape(parts[0])] = dict(zip(ks, parts[1:], strict=False))
    for (label, k), runs in ran.items():
        text = shown[label][str(k)].replace("**", "")  # bold: the best of a column
        if not runs:
            assert text == "failed"
            continue
        accuracies = [r["accuracy"] for r in runs]
        assert text.startswith(fmt_mean(accuracies)), (text, runs)
        assert ("(n=" in text) == (len(runs) < n_max)
        if len(runs) < n_max:
            assert f"(n={len(runs)})" in text
    # the notes that state numbers
    for note in notes:
        for label, k, error in re.findall(
            r"^(.*), k=(\w+): failed in every split \((.*)\)\.$", note
        ):
            runs = cell_rows[label, int(k) if k.isdigit() else k]
            assert runs and all(r["accuracy"] is None for r in runs)
            assert error == runs[0]["error"]
        if note.startswith("† "):
            label, rest = note[2:].split(", k=", 1)
            for k, a, b in re.findall(r"(\w+) \((\d+) of (\d+) splits\)", rest):
                runs = ran[label, int(k) if k.isdigit() else k]
                assert int(b) == len(runs)
                assert int(a) == sum(UNRELIABLE in r["warnings"] for r in runs)
        if ": parameters chosen by cross-validation" in note:
            label = note.split(": parameters chosen")[0]
            for k, text in re.findall(
                r"k=(\w+): ([^;]*?)(?:;|\.$)", note.split("): ", 1)[1]
            ):
                runs = ran[label, int(k) if k.isdigit() else k]
                if text.startswith("fixed values"):
                    assert all(r.get("note") == NO_INNER_CV for r in runs)
                    continue
                for name, values, count, total in re.findall(
                    r"(\w+)=(.+?) \((\d+)/(\d+)(?: each)?\)", text
                ):
                    assert int(total) == len(runs)
                    chosen = Counter(
                        f"{r['params'][name]:.4g}"
                        for r in runs
                        if r.get("note") != NO_INNER_CV
                    )
                    assert max(chosen.values()) == int(count)
                    for value in values.split(" or "):
                        assert chosen[value] == int(count)
        for label, ks_text, m, _ in re.findall(
            r"(?:: |; )([^;:]+?) at k=([\w, ]+) \((\d+) of (\d+) splits\)", note
        ):
            for k in ks_text.split(", "):
                runs = ran[label, int(k) if k.isdigit() else k]
                assert int(m) == len(runs)


@settings(max_examples=80, deadline=None)
@given(rows=stores())
def test_every_number_a_note_states_is_that_of_the_rows(rows):
    with tempfile.TemporaryDirectory() as folder:
        store = write_store(Path(folder) / "s", rows)
        status, out, err = cli(["report", str(store)])
        assert status == 0, err
        found = tables(out)
        for dataset in {r["dataset"] for r in rows}:
            table = found[markdown(dataset)]
            check_table(table, [r for r in rows if r["dataset"] == dataset])
        for fmt in ("latex", "csv"):
            status, _, err = cli(["report", str(store), "--format", fmt])
            assert status == 0, err
