"""The handlers of ``fdlsr fit`` and ``fdlsr predict``: a model trained on a whole
dataset and saved, and a saved model's labels for new samples."""

import sys
import time
from pathlib import Path

import numpy as np

from ..errors import ConfigError
from .command_support import (
    config_file,
    config_from_args,
    dataset_file,
    emit,
    load,
    method_refusals,
    warn,
)
from .outputs import MODEL_FILE, check_output
from .protocol import data_warnings


def fit(args):
    """``fdlsr fit``: one method trained on every sample of a dataset, then saved."""
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import Normalizer

    from .persistence import save
    from .protocol import run_random_state, seeded

    args.methods = [args.method]
    ex = config_from_args(args).experiment
    ((method, params, tuned),) = ex.resolved()  # name and parameters, checked first
    out = _model_path(args.out)
    dataset = load(args, ex)
    check_output(
        out,
        inputs=[dataset.path, config_file(args)],
        kind=MODEL_FILE,
        force=args.force,
    )
    warn(data_warnings(dataset, []), dataset)
    if tuned:
        print(
            f"fdlsr: note: fit does not cross-validate; {method.name} is fitted with "
            "its fixed settings (choose others with --params)",
            file=sys.stderr,
        )
    estimator = method.build(**seeded(method, params, run_random_state(ex.seed, 0)))
    # The protocol's unit normalisation goes into the model, so that it takes raw
    # samples (scikit-learn's Normalizer: the same up to rounding as protocol.unit_rows).
    model = (
        Pipeline([("normalizer", Normalizer()), ("classifier", estimator)])
        if ex.normalise
        else estimator
    )
    started = time.perf_counter()
    with method_refusals(f"{method.name} cannot be fitted on {dataset.name}"):
        model.fit(dataset.X, dataset.y)
    elapsed = time.perf_counter() - started
    save(model, out)
    settings = estimator.get_params(deep=False)
    shown = ", ".join(f"{k}={settings[k]}" for k in {**method.params, **params})
    print(
        f"wrote {out}: {method.name}"
        + (f" ({shown})" if shown else "")
        + f" fitted in {elapsed:.1f} s on all {len(dataset.y)} samples of "
        f"{dataset.name} ({len(set(dataset.y.tolist()))} classes, "
        f"{dataset.X.shape[1]} features"
        + (", unit-normalised by the model)" if ex.normalise else ", raw)"),
        file=sys.stderr,
    )
    return 0


def _model_path(path):
    """``-o MODEL`` of ``fdlsr fit``, refused before any work if it cannot be written."""
    out = Path(path)
    if out.is_dir():
        raise ConfigError(
            f"-o {out} is a folder; give the path of the model file to write, e.g. "
            f"{out / 'model.fdlsr'}"
        )
    if out.exists() and not out.is_file():
        raise ConfigError(
            f"-o {out} exists and is not a regular file; give the path of a model file"
        )
    if not out.parent.is_dir():
        raise ConfigError(
            f"cannot write the model to {out}: the folder {out.parent} does not exist; "
            "create it or choose another -o"
        )
    return out


def predict(args):
    """``fdlsr predict``: a saved model's labels for the samples of a dataset."""
    import csv
    import io

    from .datasets import label_text
    from .persistence import load as load_model

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
    from ..common.validation import label_repr

    text = ", ".join(label_repr(label)[:20] for label in labels[:shown])
    return text + (f", ... ({len(labels)} labels)" if len(labels) > shown else "")


def _check_samples(X, name):
    """Refuse samples that no model can label: none, or not finite numbers."""
    import numpy as np

    from ..errors import DatasetError

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
    from .datasets import load_dataset, npy_samples

    path = Path(args.data)
    if path.suffix.lower() != ".npy":
        overrides = {"x": args.x_var, "y": args.y_var, "samples": args.samples}
        dataset = load_dataset(
            args.data,
            data_dir=args.data_dir,
            **{k: v for k, v in overrides.items() if v is not None},
        )
        return dataset.X, dataset.y, dataset.name
    return npy_samples(path, args.samples), None, path.name
