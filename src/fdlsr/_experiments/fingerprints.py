"""What identifies a run: a fingerprint of everything that determines its result.

The dataset's name says what was asked for; the fingerprint says what was computed.
Two files with one base name, another variable of a file (``--x``/``--y``), a file
fixed in place or another preprocessing give other fingerprints, so the results store
can refuse to take one for the other (``ResultStore.stored_runs``).
"""

import hashlib
import json
import re
from dataclasses import dataclass

import numpy as np


def data_fingerprint(dataset):
    """SHA-256 (hex) of the arrays a run uses: the samples as loaded (after the choice
    of variables and orientation, before normalisation), the labels and any fixed
    train/test split; with their dtypes and shapes."""
    y = np.asarray(dataset.y)
    parts = [
        ("X", np.asarray(dataset.X, dtype=np.float64)),
        ("y", y.astype(str) if y.dtype.kind == "O" else y),
    ]
    fixed = getattr(dataset, "fixed_split", None)
    if fixed is not None:
        parts += [
            (name, np.asarray(part, dtype=np.int64))
            for name, part in zip(("train", "test"), fixed, strict=True)
        ]
    digest = hashlib.sha256()
    for name, array in parts:
        array = np.ascontiguousarray(array)
        digest.update(f"{name} {array.dtype.str} {array.shape}\n".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def data_facts(dataset):
    """What a row records of its data (checked against rows without a fingerprint)."""
    X = np.asarray(dataset.X)
    return {
        "n_samples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "n_classes": int(np.unique(np.asarray(dataset.y)).size),
    }


def run_fingerprints(experiment, dataset, units):
    """``(data_sha256, {key: fingerprint})`` for the units of ``experiment_runs``.

    A run's fingerprint is the SHA-256 of everything that determines its result: the
    data (:func:`data_fingerprint`), the preprocessing, the method with every parameter
    of its estimator (defaults included, so a changed default shows), the setting (the
    grid and folds when tuned), ``k``, the split and the seed.
    """
    data = data_fingerprint(dataset)
    estimators = {}
    out = {}
    for unit in units:
        name = unit.method.name
        if (name, unit.setting) not in estimators:
            built = unit.method.build(**{**unit.method.params, **unit.params})
            estimators[name, unit.setting] = built.get_params()
        spec = {
            "data": data,
            # the stored spelling of the key, kept so that old fingerprints match
            "preprocessing": {"normalise": experiment.normalize},
            "method": name,
            "estimator": estimators[name, unit.setting],
            "setting": unit.setting,
            "k": unit.k,
            "split": unit.split,
            "seed": experiment.seed,
        }
        text = json.dumps(spec, sort_keys=True, default=_plain_repr)
        out[unit.key] = hashlib.sha256(text.encode()).hexdigest()
    return data, out


def _plain_repr(value):
    """A value JSON cannot hold, named the same in every process (a default
    ``repr``'s memory address left out)."""
    if isinstance(value, np.generic):
        return value.item()
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))


@dataclass(frozen=True)
class StoredRuns:
    """Which runs of a plan a store holds: ``done``, the keys already there;
    ``data_sha256`` of the data; ``fingerprints``, ``{key: fingerprint}`` of every run."""

    done: frozenset
    data_sha256: str
    fingerprints: dict


def stored_runs(experiment, dataset, units, store):
    """The :class:`StoredRuns` of ``units`` in ``store``.

    Raises :class:`ConfigError` when the store holds rows of other data under the
    dataset's name, or one of these runs computed differently (see
    ``ResultStore.stored_runs``).
    """
    data, fingerprints = run_fingerprints(experiment, dataset, units)
    done = store.stored_runs(dataset.name, data, fingerprints, data_facts(dataset))
    return StoredRuns(frozenset(done), data, fingerprints)
