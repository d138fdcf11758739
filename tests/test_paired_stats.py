"""fdlsr.results.paired_comparison and rank_comparison against computations written
here from the stored rows: the shipped FERET store read with plain json, and random
small frames (hypothesis)."""

import csv
import io
import json
import math
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from fdlsr.errors import ConfigError
from fdlsr.results import (
    paired_comparison,
    plot_critical_difference,
    rank_comparison,
    read_results,
)

FERET = Path(__file__).resolve().parents[1] / "docs" / "results" / "feret"


@pytest.fixture(scope="module")
def feret():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every shipped row has its fingerprint
        frame = read_results(FERET)
    rows = [
        json.loads(line) for line in (FERET / "results.jsonl").open() if line.strip()
    ]
    # the label the tables give each stored setting (the frame's naming, not its math)
    label = {
        (m, s): lab
        for m, s, lab in frame[["method", "setting", "label"]]
        .astype(str)
        .drop_duplicates()
        .itertuples(index=False)
    }
    return frame, rows, label


def wilcoxon_by_hand(pairs):
    """Wins, ties, losses and scipy's p of ``pairs`` ({key: (method, reference)})."""
    d = np.round([a - b for a, b in pairs.values()], 12)
    wins, ties, losses = int(np.sum(d > 0)), int(np.sum(d == 0)), int(np.sum(d < 0))
    p = math.nan
    if wins + losses:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = stats.wilcoxon(d).pvalue
    return wins, ties, losses, p


def holm_by_hand(pvalues):
    """Holm (1979), step by step: the i-th smallest of m p-values times (m - i + 1),
    never below the one before, at most 1."""
    valid = [(p, i) for i, p in enumerate(pvalues) if not math.isnan(p)]
    valid.sort()
    m = len(valid)
    out = [math.nan] * len(pvalues)
    running = 0.0
    for step, (p, i) in enumerate(valid):
        running = max(running, min(1.0, (m - step) * p))
        out[i] = running
    return out


def test_feret_pairs_wilcoxon_and_holm_equal_scipy_on_the_stored_rows(feret):
    frame, rows, label = feret
    acc = defaultdict(dict)  # (k, label) -> {(seed, split): accuracy}
    for r in rows:
        if r["accuracy"] is not None:
            acc[r["k"], label[r["method"], r["setting"]]][r["seed"], r["split"]] = r[
                "accuracy"
            ]
    got = paired_comparison(frame, reference="FDLSR")
    ks = sorted({k for k, _ in acc})
    labels = sorted({lab for _, lab in label.items()} - {"FDLSR"})
    assert len(got) == len(ks) * len(labels) == 5 * 23  # 24 labels, FDLSR aside
    for k in ks:
        table = got[got["k"] == k].set_index("method")
        expected_p = {}
        for lab in labels:
            ref, mine = acc[k, "FDLSR"], acc.get((k, lab), {})
            pairs = {key: (mine[key], ref[key]) for key in ref if key in mine}
            row = table.loc[lab]
            assert row["n_pairs"] == len(pairs)
            assert bool(row["paired"]) == bool(pairs)
            wins, ties, losses, p = wilcoxon_by_hand(pairs)
            assert (row["wins"], row["ties"], row["losses"]) == (wins, ties, losses)
            assert row["wilcoxon_p"] == p or (
                math.isnan(p) and math.isnan(row["wilcoxon_p"])
            )
            if pairs:
                d = [100 * (a - b) for a, b in pairs.values()]
                assert row["mean_difference_pp"] == pytest.approx(np.mean(d), abs=1e-9)
                assert row["std_difference_pp"] == pytest.approx(
                    np.std(d, ddof=1), abs=1e-9
                )
            expected_p[lab] = p
        holm = dict(
            zip(expected_p, holm_by_hand(list(expected_p.values())), strict=True)
        )
        for lab, p in holm.items():
            assert table.loc[lab, "holm_p"] == pytest.approx(p, nan_ok=True, rel=1e-12)
    # the shipped store: LDA fails at k=1 (one sample per class), so is not paired there
    lda = got[(got["method"] == "LDA") & (got["k"] == 1)].iloc[0]
    assert not lda["paired"] and lda["n_pairs"] == 0 and "not paired" in lda["note"]


def test_feret_average_ranks_equal_a_ranking_by_hand(feret):
    frame, rows, label = feret
    values = defaultdict(list)
    for r in rows:
        values[r["k"], label[r["method"], r["setting"]]].append(r["accuracy"])
    ks = sorted({k for k, _ in values})
    labels = sorted({lab for _, lab in values})
    # a method is ranked only with a mean in every table (LDA fails at k=1)
    ranked = [lab for lab in labels if all(None not in values[k, lab] for k in ks)]
    assert "LDA" not in ranked and len(ranked) == 23
    total = defaultdict(float)
    for k in ks:
        means = {lab: sum(values[k, lab]) / len(values[k, lab]) for lab in ranked}
        for lab, m in means.items():
            better = sum(other > m for other in means.values())
            equal = sum(other == m for other in means.values())
            total[lab] += 1 + better + (equal - 1) / 2
    expected = {lab: total[lab] / len(ks) for lab in ranked}
    got = rank_comparison(frame)
    assert dict(got.average_ranks) == pytest.approx(expected, rel=1e-12)
    assert list(got.average_ranks) == sorted(got.average_ranks)
    n, k = len(ks), len(ranked)
    chi2 = (
        12
        * n
        / (k * (k + 1))
        * (sum(r**2 for r in expected.values()) - k * (k + 1) ** 2 / 4)
    )
    assert got.friedman_chi2 == pytest.approx(chi2, rel=1e-12)
    f = (n - 1) * chi2 / (n * (k - 1) - chi2)
    assert got.iman_davenport_f == pytest.approx(f, rel=1e-12)
    assert got.iman_davenport_p == pytest.approx(
        stats.f.sf(f, k - 1, (k - 1) * (n - 1)), rel=1e-9
    )
    assert any("LDA" in note for note in got.notes)


def test_friedman_statistic_is_scipys_without_ties():
    rng = np.random.default_rng(0)
    accuracy = rng.random((6, 5))  # 6 tables, 5 methods, no ties
    frame = pd.DataFrame(
        [
            {
                "dataset": f"d{b}",
                "data_sha256": None,
                "k": 2,
                "label": f"m{j}",
                "method": f"m{j}",
                "seed": 0,
                "split": 0,
                "accuracy": accuracy[b, j],
            }
            for b in range(6)
            for j in range(5)
        ]  # fmt: skip
    )
    got = rank_comparison(frame)
    want = stats.friedmanchisquare(*accuracy.T)
    assert got.friedman_chi2 == pytest.approx(want.statistic, rel=1e-12)
    assert got.friedman_p == pytest.approx(want.pvalue, rel=1e-9)
    # Demšar's critical difference for 5 methods and 6 tables: 2.728 sqrt(30 / 36)
    assert got.critical_difference == pytest.approx(2.728 * math.sqrt(30 / 36))
    fig = plot_critical_difference(got)
    assert fig.axes and any("CD = " in t.get_text() for t in fig.axes[0].texts)


def test_demsar_q_table_is_the_studentized_range():
    from fdlsr._experiments.paired_stats import Q_05, q_alpha

    for k, q in enumerate(Q_05, start=2):
        exact = stats.studentized_range.ppf(0.95, k, np.inf) / math.sqrt(2)
        assert q == pytest.approx(exact, abs=1.5e-3)  # the table's 3 decimals
        assert q_alpha(k) == q
    assert q_alpha(27) == pytest.approx(
        stats.studentized_range.ppf(0.95, 27, np.inf) / math.sqrt(2)
    )


def test_unknown_reference_is_one_line_naming_the_methods(feret):
    frame, _, _ = feret
    with pytest.raises(ConfigError, match=r"'XX' is not a method.*FDLSR"):
        paired_comparison(frame, reference="XX")


# -- random small frames ------------------------------------------------------------


@st.composite
def frames(draw):
    """Runs of 3 methods (the reference R, A, B) at k in {1, 2}, seeds {0, 1},
    splits 0-3, each run present or not, some failed (NaN), accuracies on a grid of
    tenths so that ties and zero differences happen."""
    records = []
    for method in ("R", "A", "B"):
        seeds = draw(st.sampled_from([(0,), (1,), (0, 1)]))
        for k in (1, 2):
            for seed in seeds:
                for split in range(4):
                    if not draw(st.booleans()):
                        continue
                    value = draw(st.one_of(st.none(), st.integers(0, 10)))
                    records.append(
                        {"dataset": "d", "data_sha256": None, "k": k, "label": method,
                         "method": method, "seed": seed, "split": split,
                         "accuracy": math.nan if value is None else value / 10}
                    )  # fmt: skip
    order = draw(st.permutations(range(len(records))))
    columns = ["dataset", "data_sha256", "k", "label", "method", "seed", "split",
               "accuracy"]  # fmt: skip
    return pd.DataFrame([records[i] for i in order], columns=columns)


@settings(max_examples=60, deadline=None)
@given(frames())
def test_random_frames_pair_only_the_same_seed_and_split(frame):
    if frame.empty:  # nothing to compare: no rows, no error
        assert paired_comparison(frame, reference="R").empty
        return
    if not (frame["label"] == "R").any():
        with pytest.raises(ConfigError):
            paired_comparison(frame, reference="R")
        return
    got = paired_comparison(frame, reference="R")
    for row in got.itertuples(index=False):
        runs = frame[frame["k"] == row.k]

        def accuracies(label, runs=runs):
            mine = runs[(runs["label"] == label) & runs["accuracy"].notna()]
            return {
                (s, p): a
                for s, p, a in zip(mine.seed, mine.split, mine.accuracy, strict=True)
            }

        ref, mine = accuracies("R"), accuracies(row.method)
        pairs = {key: (mine[key], ref[key]) for key in mine if key in ref}
        assert row.n_pairs == len(pairs) and row.paired == bool(pairs)
        wins, ties, losses, p = wilcoxon_by_hand(pairs)
        assert (row.wins, row.ties, row.losses) == (wins, ties, losses)
        assert row.wilcoxon_p == p or (math.isnan(p) and math.isnan(row.wilcoxon_p))
        if not pairs:  # other seeds or splits: said, not paired anyway
            assert "not paired" in row.note and math.isnan(row.mean_difference_pp)
        elif wins + losses == 0:
            assert "all" in row.note and "zero" in row.note
        if not math.isnan(row.wilcoxon_p):
            assert row.wilcoxon_p <= row.holm_p <= 1
    for _, table in got.groupby("k"):
        assert list(table["holm_p"]) == pytest.approx(
            holm_by_hand(list(table["wilcoxon_p"])), nan_ok=True
        )
    # the order of the runs does not matter
    again = paired_comparison(frame.iloc[::-1], reference="R")
    key = ["k", "method"]
    pd.testing.assert_frame_equal(
        got.sort_values(key).reset_index(drop=True),
        again.sort_values(key).reset_index(drop=True),
    )


def test_report_stats_csv_is_the_function_and_html_is_refused(tmp_path):
    from fdlsr._testing import cli

    status, out, err = cli(["report", str(FERET), "--stats", "--format", "csv"])
    assert status == 0, err
    table = list(csv.DictReader(io.StringIO(out)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = paired_comparison(read_results(FERET))
    assert len(table) == len(want)
    for got, row in zip(table, want.itertuples(index=False), strict=True):
        assert (got["method"], got["wins"], got["losses"]) == (
            row.method,
            str(row.wins),
            str(row.losses),
        )
        assert float(got["wilcoxon_p"] or "nan") == pytest.approx(
            row.wilcoxon_p, nan_ok=True
        )
    status, out, err = cli(["report", str(FERET), "--stats"])
    assert status == 0 and "Friedman (Demšar 2006)" in out and "| DLSR | 10 |" in out
    status, _, err = cli(["report", str(FERET), "--stats", "--format", "html"])
    assert status == 2 and "--format md or --format csv" in err


def test_report_reference_without_stats_is_refused():
    """--reference applies to --stats only: refused in one line, not ignored."""
    from fdlsr._testing import cli

    status, out, err = cli(["report", str(FERET), "--reference", "LSR"])
    assert status == 2 and out == ""
    assert "add --stats, or drop --reference" in err and len(err.splitlines()) == 1
    status, out, err = cli(["report", str(FERET), "--stats", "--reference", "LSR"])
    assert status == 0, err


def test_methods_on_other_seeds_are_said_to_be_unpaired_not_paired():
    records = [
        {"dataset": "d", "data_sha256": None, "k": 2, "label": label,
         "method": label, "seed": seed, "split": split, "accuracy": 0.5 + split / 10}
        for label, seed in (("R", 0), ("A", 1), ("B", 0))
        for split in range(3)
    ]  # fmt: skip
    got = paired_comparison(pd.DataFrame(records), reference="R").set_index("method")
    assert not got.loc["A", "paired"] and got.loc["A", "n_pairs"] == 0
    assert got.loc["A", "note"] == (
        "not paired: no seed and split in common with R (A: 3 runs of seed 1; "
        "R: 3 runs of seed 0)"
    )
    assert math.isnan(got.loc["A", "wilcoxon_p"]) and math.isnan(got.loc["A", "holm_p"])
    # B ran the same splits: paired, every difference zero, so no p-value
    assert got.loc["B", "n_pairs"] == 3 and got.loc["B", "ties"] == 3
    assert got.loc["B", "note"] == "no p-value: all 3 differences are zero"
