"""Result rows and stores made up for tests: one row by hand, or random stores
(hypothesis) of several data sets, settings, seeds, splits with gaps, tuning, failed
and unreliable runs and method names holding markup."""

import json

from hypothesis import strategies as st

from fdlsr._experiments.splits import NO_INNER_CV
from fdlsr._experiments.store_folder import make_store

LSR = '{"params": {"lam": 0.1}}'
# A foreign method name: a Markdown cell separator, HTML and LaTeX specials.
NAME = "a|b<i>$x^{2}$_c&d"


def row(dataset, method, k, split, seed=0, setting=LSR, accuracy=0.5, **extra):
    return {
        "dataset": dataset,
        "method": method,
        "family": "relaxed",
        "k": k,
        "split": split,
        "seed": seed,
        "setting": setting,
        "accuracy": accuracy,
        "fit_time": 0.1,
        "predict_time": 0.01,
        **extra,
    }


def write_store(folder, rows):
    make_store(folder)
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


METHODS = ["FDLSR", "LSR", NAME, "x_y*z", "<script>alert(1)</script>"]
SETTINGS = [
    '{"params": {"lam": 0.1}}',
    '{"params": {"lam": 1.0}}',
    '{"normalise": false, "params": {"lam": 0.1}}',
    json.dumps({"cv": {"folds": 3, "grid": {"lam": [0.1, 1.0]}}, "params": {}}),
]
UNRELIABLE = "UnreliableResultWarning: the codes lost rank"


@st.composite
def stores(draw):
    """Rows of a random store (valid rows, each run once)."""
    keys = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["d1", "d2|x", "../up/d3"]),
                st.sampled_from(METHODS),
                st.sampled_from([1, 2, "fixed"]),
                st.integers(0, 3),
                st.sampled_from([0, 1]),
                st.sampled_from(SETTINGS),
            ),
            min_size=1,
            max_size=25,
            unique=True,
        )
    )
    rows = []
    for dataset, method, k, split, seed, setting in keys:
        accuracy = draw(st.sampled_from([None, 0.25, 0.5, 0.75, 1.0]))
        tuned = '"cv"' in setting
        extra = {"tuning": "cv" if tuned else draw(st.sampled_from(["paper", "fixed"]))}
        if accuracy is None:
            extra["error"] = draw(st.sampled_from(["E: boom", "E: <b>|$x$</b>"]))
        else:
            extra["warnings"] = draw(st.sampled_from([[], [UNRELIABLE]]))
            lam = draw(st.sampled_from([0.1, 1.0]))
            extra["params"] = {"lam": lam}
            if tuned and k == 1:
                extra["note"] = NO_INNER_CV
        extra["fit_time"] = draw(st.sampled_from([0.1, 0.25, 3.0]))
        if tuned:  # a search's time, recorded apart from the final fit
            extra["tune_time"] = draw(st.sampled_from([0.5, 2.0, 40.0]))
        rows.append(row(dataset, method, k, split, seed, setting, accuracy, **extra))
    return rows
