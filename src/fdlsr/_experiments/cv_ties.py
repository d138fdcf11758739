"""Ties in cross-validation: how many candidates of a search shared the best mean
score, recorded in the row of a tuned run and said in the reports.

Every search of ``fdlsr run --cv`` takes the first of the tied candidates in grid
order (``GridSearchCV``'s rule: the first of rank 1). A tie is an exactly equal mean
validation score, means computed alike over the same folds (:class:`~fdlsr.FDLSRCV`'s
``n_tied_best_`` says why). A run records ``n_tied_best`` (the tied candidates, the
chosen one included) and ``n_candidates`` (those searched: the last round's of a
halving search); a run whose search does not expose its scores records neither.
"""

import numpy as np

#: The row's fields (optional: stores written before them stay readable).
FIELDS = ("n_tied_best", "n_candidates")


def search_ties(search):
    """``{"n_tied_best": .., "n_candidates": ..}`` of a fitted search, or ``{}`` if
    it does not say its scores.

    :class:`~fdlsr.FDLSRCV` counts its own (``n_tied_best_``); ``GridSearchCV``'s
    tied candidates are those of ``rank_test_score`` 1; a search that keeps
    ``cv_scores_`` (candidates x folds, the C searches of the baselines) ties on
    their equal means.
    """
    if hasattr(search, "n_tied_best_"):
        n_last = getattr(search, "n_candidates_", [len(search.cv_results_["params"])])
        return {
            "n_tied_best": int(search.n_tied_best_),
            "n_candidates": int(n_last[-1]),
        }
    results = getattr(search, "cv_results_", None)
    if isinstance(results, dict) and "rank_test_score" in results:
        rank = np.asarray(results["rank_test_score"])
        return {"n_tied_best": int(np.sum(rank == 1)), "n_candidates": int(rank.size)}
    scores = getattr(search, "cv_scores_", None)
    if scores is not None:
        means = np.asarray(scores).mean(axis=1)
        best = np.nanmax(means)
        return {"n_tied_best": int(np.sum(means == best)), "n_candidates": means.size}
    return {}


def ties_text(counts):
    """What the reports say of a cell's ties: ``counts`` is ``[(n_tied_best,
    n_candidates), ...]``, one per split (None where the run did not record them).

    ``"250 of 864 settings tie; the first in grid order was taken"`` for one split,
    ``"ties in 7 of 10 splits (2-250 of 864 settings); the first in grid order was
    taken"`` for several; ``""`` when no split recorded a tie.
    """
    recorded = [(int(t), int(n)) for t, n in counts if _known(t) and _known(n)]
    tied = [(t, n) for t, n in recorded if t > 1]
    if not tied:
        return ""
    low, high = min(t for t, _ in tied), max(t for t, _ in tied)
    of = sorted({n for _, n in tied})
    of = " or ".join(map(str, of))
    taken = "the first in grid order was taken"
    if len(recorded) == 1:
        return f"{high} of {of} settings tie; {taken}"
    span = str(low) if low == high else f"{low}-{high}"
    return (
        f"ties in {len(tied)} of {len(recorded)} splits ({span} of {of} settings); "
        f"{taken}"
    )


def _known(value):
    """A count, not a missing value (None, or NaN/NA from a DataFrame)."""
    try:
        return value is not None and value == value and int(value) >= 0
    except (TypeError, ValueError):
        return False
