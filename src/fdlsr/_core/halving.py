"""Successive halving over FDLSR's iterations: how many candidates run how far.

Every candidate runs a few iterations and is scored; the best ``1 / factor`` of them
continue to ``factor`` times as many iterations, and so on; the last round runs
``max_iter`` iterations. The schedule is that of scikit-learn's
``HalvingGridSearchCV(FDLSR(), resource="max_iter", max_resources=max_iter)`` with
the same ``factor`` and ``min_resources``, except that the last round always runs
``max_iter`` iterations (the model that is refitted), where scikit-learn's may stop
at ``factor**k * min_resources``; and a round keeps its best candidates with ties
going to the first in grid order (scikit-learn's are broken by an unstable sort).

Nothing here knows about FDLSR: the numbers of candidates and iterations only.
"""

from dataclasses import dataclass
from math import ceil, floor, log

import numpy as np


@dataclass(frozen=True)
class Schedule:
    """The rounds of a successive-halving search.

    ``n_resources[i]`` iterations have been run after round ``i``, in which
    ``n_candidates[i]`` candidates are scored. ``min_resources`` is the first
    round's iterations; ``n_required_iterations`` the rounds that would leave fewer
    than ``factor`` candidates, ``n_possible_iterations`` those that
    ``max_resources`` allows (scikit-learn's names).
    """

    n_resources: tuple
    n_candidates: tuple
    min_resources: int
    n_required_iterations: int
    n_possible_iterations: int


def halving_schedule(n_candidates, max_resources, factor, min_resources="exhaust"):
    """The rounds for ``n_candidates`` candidates and ``max_resources`` iterations.

    ``min_resources`` is the first round's iterations, ``"smallest"`` (1) or
    ``"exhaust"`` (the largest that still lets the rounds reach fewer than
    ``factor`` candidates), as in ``HalvingGridSearchCV``; a number above
    ``max_resources`` is one round of ``max_resources`` iterations (where
    scikit-learn raises), so that a default suited to 30 iterations also serves a
    search of fewer.
    """
    n_required = 1 + floor(log(n_candidates, factor))
    if max_resources == 0:  # nothing to halve: one round, no iteration
        return Schedule((0,), (n_candidates,), 0, n_required, 1)
    if min_resources == "exhaust":
        low = max(1, int(max_resources // factor ** (n_required - 1)))
    elif min_resources == "smallest":
        low = 1
    else:
        low = min(int(min_resources), max_resources)
    n_possible = 1 + floor(log(max_resources // low, factor))
    n_rounds = min(n_required, n_possible)
    resources = [int(factor**i * low) for i in range(n_rounds - 1)]
    candidates = [n_candidates]
    for _ in range(n_rounds - 1):
        candidates.append(ceil(candidates[-1] / factor))
    return Schedule(
        tuple(resources + [max_resources]),
        tuple(candidates),
        low,
        n_required,
        n_possible,
    )


def best_candidates(scores, n_keep):
    """Positions of the ``n_keep`` best mean scores (columns of ``scores``, shape
    (n_folds, n_candidates)), sorted; on ties the first columns, NaN last."""
    mean = scores.mean(axis=0)
    filled = np.where(np.isnan(mean), -np.inf, mean)
    return np.sort(np.argsort(-filled, kind="stable")[:n_keep])
