"""``fdlsr predict``: a saved model's labels for new samples, as CSV."""

import csv
import io
import sys
from pathlib import Path

import numpy as np

from ...common.validation import label_repr
from ...errors import ConfigError, DatasetError
from ..datasets import label_text, load_dataset, npy_samples
from ..outputs import check_output
from ..persistence import load as load_model
from .shared import data_options, dataset_file, emit


def main(args):
    """``fdlsr predict``: a saved model's labels for the samples of a dataset."""
    if args.output:
        check_output(
            args.output, inputs=[args.model, dataset_file(args.data, args.data_dir)]
        )
    model = load_model(args.model)
    X, y, name = _prediction_data(args)
    _check_samples(X, name)
    expected = getattr(model, "n_features_in_", None)
    if expected is not None and X.shape[1] != expected:
        raise ConfigError(
            f"{args.model} was fitted on samples of {expected} features; {name} has "
            f"{X.shape[1]}: give data of the same kind (or --samples columns if its "
            "samples are columns)"
        )
    predicted = model.predict(X)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["index", "prediction"] + (["label"] if y is not None else []))
    for i, label in enumerate(predicted.tolist()):
        writer.writerow([i, label] + ([y[i].item()] if y is not None else []))
    emit(text.getvalue(), args.output, "the predictions")
    if y is not None:  # compared as text: label 7 of one file is "7" of another
        truth = label_text(y)
        if not set(truth.tolist()) & set(label_text(model.classes_).tolist()):
            print(
                f"fdlsr: warning: no label of {name} ({_some(np.unique(y))}) is a class "
                f"of the model ({_some(model.classes_)}): every prediction counts as "
                "wrong; give data labelled as the model's training data was",
                file=sys.stderr,
            )
        right = int(np.sum(label_text(predicted) == truth))
        print(
            f"accuracy {100 * right / len(y):.2f}% ({right} of {len(y)} samples of "
            f"{name})",
            file=sys.stderr,
        )
    return 0


def _some(labels, shown=4):
    """A short list of labels: the first few and how many there are."""
    text = ", ".join(label_repr(label)[:20] for label in labels[:shown])
    return text + (f", ... ({len(labels)} labels)" if len(labels) > shown else "")


def _check_samples(X, name):
    """Refuse samples that no model can label: none, or not finite numbers."""
    if X.shape[0] == 0:
        raise DatasetError(f"{name} holds no samples; give at least one to label")
    bad = int(np.size(X) - np.count_nonzero(np.isfinite(X)))
    if bad:
        raise DatasetError(
            f"the samples in {name} contain {bad} NaN or infinite values; fill or "
            "remove them before predicting"
        )


def _prediction_data(args):
    """``(X, y or None, name)`` of ``fdlsr predict DATA``: a ``.npy`` file holds
    samples only; anything else is loaded as ``fdlsr run --dataset`` loads it."""
    path, options = Path(args.data), data_options(args)
    if path.suffix.lower() != ".npy":
        dataset = load_dataset(args.data, **options)
        return dataset.X, dataset.y, dataset.name
    return npy_samples(path, **options), None, path.name
