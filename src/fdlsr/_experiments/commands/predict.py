"""``fdlsr predict``: a saved model's labels for new samples, as CSV."""

import csv
import io
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..._common.validation import label_repr
from ...datasets import load_dataset
from ...datasets._labels import label_text
from ...datasets._load import CSV, csv_samples
from ...datasets._numpy import npy_samples
from ...errors import DatasetError
from ...persistence import read_model_file
from ...persistence._contract import label_kind
from ..outputs import check_output
from ..planning import DataOptions, dataset_file
from .shared import data_options, emit


@dataclass(frozen=True)
class _Samples:
    """The samples of ``fdlsr predict DATA`` and what the data says of them."""

    X: np.ndarray
    y: np.ndarray | None
    name: str
    feature_names: tuple | None = None
    image_shape: tuple | None = None
    order: str | None = None
    resizable: bool = False  # images read from files, which --resize applies to
    hint: str = ""  # how to give other columns, for this kind of data
    notes: tuple = ()  # what was done to the samples for the model


@dataclass(frozen=True)
class PredictRequest:
    """What ``fdlsr predict`` is asked for: the ``model`` file, the ``data`` to label
    (a dataset name, a file or folder, a ``.npy`` file), read with ``options``
    (registry names in ``data_dir``), and the CSV file to write (None: stdout),
    which replaces an existing file only if it is a predictions CSV or ``force``."""

    model: str
    data: str
    options: DataOptions = DataOptions()
    data_dir: str | None = None
    output: str | None = None
    force: bool = False


def main(args):
    """``fdlsr predict``: a saved model's labels for the samples of a dataset."""
    request = PredictRequest(
        model=args.model,
        data=args.data,
        options=data_options(args),
        data_dir=args.data_dir,
        output=args.output,
        force=args.force,
    )
    predict(request)
    return 0


def predict(request):
    """Label the samples of ``request.data`` with its model; write the CSV."""
    if request.output:
        source = dataset_file(request.data, request.data_dir)
        check_output(
            request.output,
            inputs=[request.model, source],
            force=request.force,
        )
    saved = read_model_file(request.model)
    model, contract = saved.model, saved.input
    samples = _prediction_data(request, contract)
    _check_samples(samples.X, samples.name)
    # the model's input contract, in one place: columns by name, pixel order, width
    X, notes = contract.conform(
        samples.X,
        where=samples.name,
        model_name=request.model,
        feature_names=samples.feature_names,
        image_shape=samples.image_shape,
        order=samples.order,
        resizable=samples.resizable,
        hint=samples.hint,
    )
    with warnings.catch_warnings():
        # the columns are the model's, taken by name above: scikit-learn's note that
        # an array has no column names is answered
        warnings.filterwarnings("ignore", message="X does not have valid feature names")
        predicted = model.predict(X)
    y, name = samples.y, samples.name
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["index", "prediction"] + (["label"] if y is not None else []))
    for i, label in enumerate(predicted.tolist()):
        writer.writerow([i, label] + ([y[i].item()] if y is not None else []))
    emit(text.getvalue(), request.output, "the predictions")
    for note in [*samples.notes, *notes]:  # after the output: an error stays one line
        print(f"fdlsr: note: {note}", file=sys.stderr)
    if y is not None:  # compared as text: label 7 of one file is "7" of another
        truth = label_text(y)
        _warn_unknown_labels(y, truth, model.classes_, contract.labels, name)
        right = int(np.sum(label_text(predicted) == truth))
        print(
            f"accuracy {100 * right / len(y):.2f}% ({right} of {len(y)} samples of "
            f"{name})",
            file=sys.stderr,
        )


def _warn_unknown_labels(y, truth, classes, model_kind, name):
    """Whenever a sample's label (``y``, as text ``truth``) is not a class of the
    model, say how many samples carry such labels, which, and the kinds of the
    model's labels and of these: those samples count as wrong."""
    unknown = ~np.isin(truth, label_text(classes))
    if not unknown.any():
        return
    count = int(unknown.sum())
    some = f"all {count}" if count == len(y) else f"{count} of the {len(y)}"
    print(
        f"fdlsr: warning: {some} samples of {name} carry a label that is not a "
        f"class of the model ({_some(np.unique(y[unknown]))}; its classes: "
        f"{_some(classes)}); the model's labels are {_KINDS[model_kind]}, these "
        f"{_KINDS[label_kind(y)]}: such samples count as wrong; give data labelled "
        "as the model's training data was",
        file=sys.stderr,
    )


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


def _prediction_data(request, contract):
    """The :class:`_Samples` of ``fdlsr predict DATA``: a ``.npy`` file holds samples
    only; anything else is loaded as ``fdlsr run --dataset`` loads it, an image
    folder at the size the model's images were resized to and in colour where
    they were colour (``contract``)."""
    path = Path(request.data)
    options = dict(request.options.given())
    if request.data_dir is not None:
        options["data_dir"] = request.data_dir
    if path.suffix.lower() == ".npy":  # the loader refuses options that do not apply
        return _Samples(
            npy_samples(path, **options), None, path.name, hint=_COLUMNS_HINT
        )
    if path.suffix.lower() in CSV and path.is_file():
        # a label column only where the table has one: named, or one column more
        # than the model's features
        X, y, names, _ = csv_samples(path, contract.n_features, **options)
        hint = "the label column is chosen with --y NAME" if names is not None else ""
        return _Samples(X, y, path.name, feature_names=names, hint=hint)
    source = dataset_file(request.data, request.data_dir)
    folder = source is not None and source.is_dir()
    given = request.options.resize
    resize = contract.resize_for(given, request.model)
    if resize is not None and given is None and not folder:
        resize = None  # the model's images came resized; these samples are no images
    if resize is not None:
        options["resize"] = resize
    if folder and contract.colour:
        options["grey"] = False
    dataset = load_dataset(request.data, **options)
    notes = ()
    if resize is not None and given is None:
        notes = (
            f"the images of {dataset.name} are resized to {resize[0]} x {resize[1]} "
            "pixels, as the model's were",
        )
    if folder and contract.colour:
        notes += (
            f"the images of {dataset.name} are read in colour, as the model's were",
        )
    arrays = source is not None and source.suffix.lower() in (".mat", ".npz")
    hint = _COLUMNS_HINT if arrays else ""
    if dataset.feature_names is not None:
        hint = "the label column is chosen with --y NAME"
    return _Samples(
        dataset.X,
        dataset.y,
        dataset.name,
        feature_names=dataset.feature_names,
        image_shape=dataset.image_shape,
        order=dataset.order,
        resizable=folder,
        hint=hint,
        notes=notes,
    )


_COLUMNS_HINT = "or --samples columns if its samples are columns"
_KINDS = {"integer": "integers", "text": "text", "other": "other values"}
