"""``fdlsr fit``: one method trained on every sample of a data set, then saved."""

import sys
import time
from dataclasses import dataclass
from pathlib import Path

from sklearn.pipeline import Pipeline

from ..._common.normalizer import UnitNormalizer
from ...errors import ConfigError
from ...persistence import InputContract
from ...persistence._archive import save
from ..config import Config, resolve_config
from ..outputs import check_output
from ..planning import DataOptions, MethodSetting, load_data
from ..samples import data_warnings, warn
from ..splits import run_random_state, seeded
from .shared import data_options, method_refusals


@dataclass(frozen=True)
class FitRequest:
    """What ``fdlsr fit`` is asked for: the ``config`` whose experiment names the
    data set (``--seed``, ``--raw`` applied), the ``method`` with its parameters
    (checked), how to read the data, the model file to write (``out``, checked to
    be writable) and whether it may replace a file that is not a model
    (``force``)."""

    config: Config
    method: MethodSetting
    data: DataOptions
    out: Path
    force: bool = False


def main(args):
    """``fdlsr fit``: one method trained on every sample of a dataset, then saved."""
    config = resolve_config(
        args.config,
        args.dataset,
        data_dir=args.data_dir,
        methods=[args.method],
        seed=args.seed,
        params=args.params,
        raw=args.raw,
    )
    (chosen,) = config.experiment.resolved()  # name and parameters, checked first
    request = FitRequest(
        config,
        method=chosen,
        data=data_options(args),
        out=_model_path(args.out),
        force=args.force,
    )
    fit(request)
    return 0


def fit(request):
    """Fit the method of ``request`` on every sample of its data set; save it."""
    config = request.config
    ex = config.experiment
    chosen = request.method
    method, params = chosen.method, chosen.params
    out = request.out
    dataset = load_data(ex, request.data)
    check_output(
        out,
        inputs=[dataset.path, config.path],
        force=request.force,
    )
    warn(data_warnings(dataset, []), dataset)
    if chosen.tuned:
        print(
            f"fdlsr: note: fit does not cross-validate; {method.name} is fitted with "
            "its fixed settings (choose others with --params)",
            file=sys.stderr,
        )
    estimator = method.build(**seeded(method, params, run_random_state(ex.seed, 0)))
    # The protocol's unit normalisation goes into the model, so that it takes raw
    # samples, normalised as the runs' are (normalize_rows: at any finite scale).
    model = (
        Pipeline([("normalizer", UnitNormalizer()), ("classifier", estimator)])
        if ex.normalize
        else estimator
    )
    started = time.perf_counter()
    with method_refusals(f"{method.name} cannot be fitted on {dataset.name}"):
        model.fit(dataset.X, dataset.y)
    elapsed = time.perf_counter() - started
    save(
        model,
        out,
        input_contract=_input_contract(dataset, request.data.resize),
        overwrite=request.force,
    )
    settings = estimator.get_params(deep=False)
    shown = ", ".join(f"{k}={settings[k]}" for k in {**method.params, **params})
    print(
        f"wrote {out}: {method.name}"
        + (f" ({shown})" if shown else "")
        + f" fitted in {elapsed:.1f} s on all {len(dataset.y)} samples of "
        f"{dataset.name} ({len(set(dataset.y.tolist()))} classes, "
        f"{dataset.X.shape[1]} features"
        + (", unit-normalised by the model)" if ex.normalize else ", raw)"),
        file=sys.stderr,
    )


def _input_contract(dataset, resize):
    """What the model takes, for `fdlsr predict` to apply: the samples' column names
    (a CSV's header), their image size and pixel order, and the size images were
    resized to (``resize``, ``--resize``)."""
    folder = dataset.path is not None and Path(dataset.path).is_dir()
    return InputContract(
        n_features=dataset.X.shape[1],
        feature_names=dataset.feature_names,
        image_shape=dataset.image_shape,
        order=dataset.order if dataset.image_shape is not None else None,
        resize=tuple(resize) if resize is not None and folder else None,
    )


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
