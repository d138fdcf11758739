"""fdlsr.save / fdlsr.load and the `fdlsr fit` / `fdlsr predict` commands.

Every registered method (and FDLSRCV, a Pipeline, a k-d tree 1-NN) survives a round
trip with the same predictions, scores and parameters; files that are not models (a
pickle whose loading would create a file, an object array, a PNG, a truncated or
corrupt archive, an unknown format, a class outside the allowlist) give one-line
ModelFileErrors and execute nothing.
"""

import json
import os
import pickle
import tempfile
import threading
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import __version__ as sklearn_version
from sklearn.base import BaseEstimator
from sklearn.datasets import make_classification
from sklearn.decomposition import PCA
from sklearn.metrics import pairwise_distances
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import (
    FunctionTransformer,
    MaxAbsScaler,
    MinMaxScaler,
    Normalizer,
    StandardScaler,
)

import fdlsr
import fdlsr.model_selection._split
from fdlsr._common.classifiers import RULES
from fdlsr._common.normalizer import UnitNormalizer
from fdlsr._common.ownership import MANIFEST
from fdlsr._experiments.cli import main
from fdlsr._experiments.registry import METHODS
from fdlsr._experiments.samples import unit_rows
from fdlsr._testing import cli_error
from fdlsr.errors import FdlsrError, ModelFileError
from fdlsr.persistence import _archive as persistence

# Fewer iterations than the defaults where a method iterates: the round trip, not the
# fit, is under test.
FAST = {
    "LRDLSR": dict(max_iter=10),
    "LC-KSVD2": dict(max_iter=5, init_iter=2, n_nonzero_coefs=5),
    "LCLE": dict(max_iter=3, n_nonzero_coefs=5),
    "DPL": dict(max_iter=5),
    "DRA-DPL": dict(max_iter=5),
}
OUTPUTS = ("predict", "decision_function", "transform", "predict_proba")


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        60, 12, n_informative=8, n_classes=3, random_state=0, class_sep=1.5
    )
    return X, y


def models():
    out = {
        m.name: lambda m=m: m.build(**FAST.get(m.name, {})) for m in METHODS.values()
    }
    out["FDLSRCV"] = lambda: fdlsr.FDLSRCV(
        alphas=[1.0, 0.1], betas=[1e-2], lams=[1.0], cv=2
    )
    out["Pipeline(StandardScaler, FDLSR)"] = lambda: make_pipeline(
        StandardScaler(), fdlsr.FDLSR(alpha=0.1)
    )
    out["Pipeline(Normalizer, LSR)"] = lambda: make_pipeline(
        Normalizer(), METHODS["LSR"].build()
    )
    out["Pipeline(MinMaxScaler, MaxAbsScaler, PCA, LSR)"] = lambda: make_pipeline(
        MinMaxScaler(), MaxAbsScaler(), PCA(5), METHODS["LSR"].build()
    )
    # few features: scikit-learn builds a k-d tree, which the file rebuilds on load
    out["1-NN k-d tree"] = lambda: KNeighborsClassifier(1)
    for rule in ("knn", "nearest_mean", "linear"):
        out[f"FDLSR {rule}"] = lambda rule=rule: fdlsr.FDLSR(decision_rule=rule)
    return out


def outputs(model, X):
    """Every output the fitted model gives on ``X`` (those it can give)."""
    found = {}
    for name in OUTPUTS:
        if hasattr(model, name):
            try:
                found[name] = getattr(model, name)(X)
            except NotImplementedError:  # LDA's lsqr solver has no transform
                pass
    return found


def plain(value):
    """Parameters comparable with ==: estimators as (type, their parameters)."""
    if isinstance(value, BaseEstimator):
        return type(value), plain(value.get_params(deep=False))
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value), [plain(v) for v in value]
    return value


@pytest.mark.parametrize("name", list(models()))
def test_round_trip_gives_the_same_model(name, data, tmp_path):
    X, y = data
    if name == "1-NN k-d tree":
        X = X[:, :4]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence notes of the short fits
        model = models()[name]().fit(X, y)
    path = fdlsr.save(model, tmp_path / "model.fdlsr")
    loaded = fdlsr.load(path)
    assert type(loaded) is type(model) and loaded is not model
    assert plain(loaded.get_params()) == plain(model.get_params())
    before, after = outputs(model, X), outputs(loaded, X)
    assert "predict" in before and before.keys() == after.keys()
    for output in before:
        np.testing.assert_array_equal(after[output], before[output], err_msg=output)
    if name == "1-NN k-d tree":
        assert loaded._fit_method == "kd_tree" and loaded._tree is not None


def test_every_registered_method_is_covered():
    assert set(METHODS) <= set(models())


# FDLSRCV as the searches leave it: grid and halving, refitted or not, other scorers
# and splitters. refit=False fits no model that predicts: save refuses it.
SEARCHES = {
    f"FDLSRCV({search}, refit={refit})": dict(search=search, refit=refit)
    for search in ("grid", "halving")
    for refit in (True, False)
}
SEARCHES["FDLSRCV(halving, exhaust, accuracy)"] = dict(
    search="halving", min_resources="exhaust", scoring="accuracy"
)
SEARCHES["FDLSRCV(PerClassSplit, every rule)"] = dict(
    cv=fdlsr.model_selection._split.PerClassSplit(4, n_splits=2), decision_rules=RULES
)
# Models of another shape, each with its samples: a Pipeline that skips its first
# step (scikit-learn's Pipeline.n_features_in_ asks that step), a k-NN of distances.
SHAPES = {
    "Pipeline(passthrough, FDLSR)": (
        lambda: Pipeline([("skip", "passthrough"), ("fdlsr", fdlsr.FDLSR())]),
        lambda X: X,
    ),
    "Pipeline(None, StandardScaler, LSR)": (
        lambda: Pipeline(
            [
                ("skip", None),
                ("scale", StandardScaler()),
                ("lsr", METHODS["LSR"].build()),
            ]
        ),
        lambda X: X,
    ),
    "1-NN of precomputed distances": (
        lambda: KNeighborsClassifier(1, metric="precomputed"),
        lambda X: pairwise_distances(X),
    ),
}


def check_save_load(model, X, path):
    """Whatever ``fdlsr.save`` accepts, ``fdlsr.load`` loads and the loaded model
    gives the same outputs; what it refuses, it refuses in one line and writes
    nothing. Returns the refusal, or None."""
    try:
        fdlsr.save(model, path)
    except ModelFileError as error:
        assert str(error) and "\n" not in str(error), str(error)
        assert list(path.parent.iterdir()) == []  # nothing written, not even a part
        return str(error)
    loaded = fdlsr.load(path)
    before, after = outputs(model, X), outputs(loaded, X)
    assert "predict" in before and before.keys() == after.keys()
    for output in before:
        np.testing.assert_array_equal(after[output], before[output], err_msg=output)
    return None


@pytest.mark.parametrize("labels", ["integer", "text"])
@pytest.mark.parametrize("name", [*models(), *SEARCHES, *SHAPES])
def test_what_save_accepts_load_loads_and_predicts_the_same(
    name, labels, data, tmp_path
):
    """save runs the checks load runs: over every registered estimator and FDLSRCV
    as each search leaves it, with integer and text labels, a model is either
    refused by save (with the reason) or loaded with the same outputs."""
    X, y = data
    if labels == "text":
        y = np.array(["cat", "dog", "owl"])[y]
    if name == "1-NN k-d tree":
        X = X[:, :4]
    if name in SEARCHES:
        grid = dict(alphas=[1.0, 0.1], betas=[1e-2], lams=[1.0, 0.1], max_iter=6)
        model = fdlsr.FDLSRCV(**{"cv": 2, **grid, **SEARCHES[name]})
    elif name in SHAPES:
        model, samples = SHAPES[name]
        model, X = model(), samples(X)
    else:
        model = models()[name]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence notes of the short fits
        model.fit(X, y)
    folder = tmp_path / "out"
    folder.mkdir()
    refusal = check_save_load(model, X, folder / "model.fdlsr")
    if "refit=False" in name:
        assert refusal is not None and "refit=False" in refusal, refusal
        assert "fdlsr.load would refuse" in refusal
    else:
        assert refusal is None


@settings(max_examples=25, deadline=None)
@given(
    search=st.sampled_from(["grid", "halving"]),
    refit=st.booleans(),
    factor=st.sampled_from([1.5, 2, 3, 10]),
    min_resources=st.sampled_from([1, 2, 4, 50, "exhaust", "smallest"]),
    rules=st.lists(st.sampled_from(RULES), min_size=1, max_size=4, unique=True),
    scoring=st.sampled_from([None, "accuracy"]),
    max_iter=st.integers(0, 6),
    text=st.booleans(),
)
def test_any_fdlsrcv_that_save_accepts_loads_the_same(
    search, refit, factor, min_resources, rules, scoring, max_iter, text
):
    X, y = make_classification(
        40, 6, n_informative=4, n_classes=3, random_state=1, class_sep=1.5
    )
    if text:
        y = np.array(["a", "b", "c"])[y]
    model = fdlsr.FDLSRCV(
        alphas=[1.0, 0.1], betas=[1e-2, 1.0], lams=[1.0], decision_rules=rules,
        cv=2, search=search, refit=refit, factor=factor,
        min_resources=min_resources, scoring=scoring, max_iter=max_iter,
    ).fit(X, y)  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        refusal = check_save_load(model, X, Path(folder) / "model.fdlsr")
    assert (refusal is not None) == (not refit), refusal


def test_a_model_fitted_on_torch_tensors_loads_as_numpy(data, tmp_path):
    torch = pytest.importorskip("torch")
    import sklearn

    X, y = data
    with sklearn.config_context(array_api_dispatch=True):
        model = fdlsr.FDLSR().fit(torch.asarray(X), torch.asarray(y))
        expected = model.predict(torch.asarray(X))
        scores = model.decision_function(torch.asarray(X)).numpy()
    loaded = fdlsr.load(fdlsr.save(model, tmp_path / "torch.fdlsr"))
    assert isinstance(loaded.coef_, np.ndarray)
    np.testing.assert_array_equal(loaded.predict(X), np.asarray(expected))
    # same numbers in another library: equal up to rounding
    np.testing.assert_allclose(loaded.decision_function(X), scores, atol=1e-12)


def test_string_labelled_models_round_trip(data, tmp_path):
    X, y = data
    labels = np.array(["cat", "dog", "owl"])[y]
    model = fdlsr.FDLSR().fit(X, labels)
    loaded = fdlsr.load(fdlsr.save(model, tmp_path / "b"))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert loaded.classes_.dtype == model.classes_.dtype


def test_saving_an_object_without_a_safe_form_is_refused(data, tmp_path):
    X, y = data
    model = make_pipeline(FunctionTransformer(np.abs), fdlsr.FDLSR()).fit(X, y)
    with pytest.raises(ModelFileError, match="FunctionTransformer") as info:
        fdlsr.save(model, tmp_path / "model.fdlsr")
    assert "\n" not in str(info.value)
    assert list(tmp_path.iterdir()) == []  # nothing written, not even a part


def test_a_fitted_search_is_refused_with_its_best_estimator_suggested(data, tmp_path):
    from sklearn.model_selection import GridSearchCV

    X, y = data
    search = GridSearchCV(fdlsr.FDLSR(max_iter=3), {"alpha": [0.1, 1.0]}, cv=2)
    search.fit(X, y)
    with pytest.raises(ModelFileError, match=r"model\.best_estimator_") as info:
        fdlsr.save(search, tmp_path / "model.fdlsr")
    assert "\n" not in str(info.value) and "FDLSRCV" in str(info.value)
    fdlsr.save(search.best_estimator_, tmp_path / "model.fdlsr")  # as suggested


def test_cross_validation_splitters_round_trip(data, tmp_path):
    X, y = data
    cv = StratifiedKFold(2, shuffle=True, random_state=3)
    model = fdlsr.FDLSRCV(alphas=[1.0, 0.1], betas=[1e-2], lams=[1.0], cv=cv)
    loaded = fdlsr.load(fdlsr.save(model.fit(X, y), tmp_path / "cv"))
    assert plain(loaded.get_params()) != plain(fdlsr.FDLSRCV().get_params())
    assert repr(loaded.cv) == repr(cv)
    np.testing.assert_array_equal(
        loaded.decision_function(X), model.decision_function(X)
    )


def test_a_pipeline_with_a_cache_folder_is_neither_saved_nor_loaded(tmp_path):
    cached = make_pipeline(Normalizer(), fdlsr.FDLSR(), memory=str(tmp_path))
    with pytest.raises(ModelFileError, match="cache folder"):
        fdlsr.save(cached, tmp_path / "model.fdlsr")
    state = {"steps": [], "memory": str(tmp_path), "_sklearn_version": sklearn_version}
    write_model_file(
        tmp_path / "crafted",
        manifest({"$object": "sklearn.pipeline.Pipeline", "state": state}),
    )
    one_line_error(tmp_path / "crafted", "cache folder")


# -- files that are not models: one line, nothing executed -------------------------


class Payload:
    """Unpickling this creates the file ``path``: the proof that code ran."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return Path.touch, (Path(self.path),)


def one_line_error(path, *match):
    with pytest.raises(ModelFileError) as info:
        fdlsr.load(path)
    message = str(info.value)
    assert "\n" not in message and message, message
    for text in match:
        assert text in message, message
    return message


def test_a_pickle_is_refused_without_running_it(tmp_path):
    marker = tmp_path / "executed"
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(Payload(marker)))
    pickle.loads(path.read_bytes())  # the payload works: it does create the file...
    assert marker.exists()
    marker.unlink()
    one_line_error(path, "not an fdlsr model file", "pickle")
    assert not marker.exists()  # ...but loading the model file ran nothing


def write_model_file(path, manifest, arrays=()):
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(persistence.MANIFEST, json.dumps(manifest))
        for name, array in arrays:
            with archive.open(name, "w") as member:
                np.lib.format.write_array(member, array, allow_pickle=True)


def manifest(model):
    return {
        "format": persistence.FORMAT,
        "format_version": persistence.FORMAT_VERSION,
        "fdlsr_version": fdlsr.__version__,
        "model": model,
    }


def test_a_pickle_inside_a_model_archive_is_refused_without_running_it(tmp_path):
    marker = tmp_path / "executed"
    path = tmp_path / "model.fdlsr"
    objects = np.empty(1, dtype=object)
    objects[0] = Payload(marker)
    state = {"coef_": {"$array": "arrays/0.npy"}}
    model = {"$object": "fdlsr._core.estimator.FDLSR", "state": state}
    write_model_file(path, manifest(model), [("arrays/0.npy", objects)])
    one_line_error(path, "damaged", "allow_pickle")
    assert not marker.exists()


@pytest.mark.parametrize(
    "name", ["posix.system", "builtins.eval", "pickle.loads", "os.system"]
)
def test_a_class_outside_the_allowlist_is_refused(name, tmp_path):
    path = tmp_path / "model.fdlsr"
    model = {"$object": name, "state": {}}
    write_model_file(path, manifest(model))
    one_line_error(path, "not among the classes fdlsr loads", name)


def test_other_files_give_one_line_each(data, tmp_path):
    X, y = data
    saved = fdlsr.save(fdlsr.FDLSR().fit(X, y), tmp_path / "good.fdlsr")
    content = saved.read_bytes()

    (tmp_path / "truncated").write_bytes(content[: len(content) // 2])
    one_line_error(tmp_path / "truncated", "truncated")

    corrupt = bytearray(content)
    reference = fdlsr.load(saved).neighbors_.reference.tobytes()  # the largest array
    start = content.index(reference) + len(reference) // 2
    corrupt[start : start + 32] = bytes(32)
    (tmp_path / "corrupt").write_bytes(bytes(corrupt))
    one_line_error(tmp_path / "corrupt", "corrupt")

    (tmp_path / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    one_line_error(tmp_path / "image.png", "not an fdlsr model file", "PNG")

    np.savez(tmp_path / "arrays.npz", X=X)
    one_line_error(tmp_path / "arrays.npz", "not an fdlsr model file", "model.json")

    (tmp_path / "empty").write_bytes(b"")
    one_line_error(tmp_path / "empty", "empty")
    one_line_error(tmp_path / "missing", "not found")
    one_line_error(tmp_path, "folder")

    write_model_file(tmp_path / "future", {**manifest(None), "format_version": 99})
    one_line_error(tmp_path / "future", "format version 99")

    with zipfile.ZipFile(tmp_path / "bad-json", "w") as archive:
        archive.writestr(persistence.MANIFEST, "{not json")
    one_line_error(tmp_path / "bad-json", "not valid JSON")

    write_model_file(tmp_path / "missing-array", manifest({"$array": "arrays/9.npy"}))
    one_line_error(tmp_path / "missing-array", "missing")

    # a header that declares 8 TB of data: refused before NumPy allocates it
    with zipfile.ZipFile(tmp_path / "huge", "w") as archive:
        archive.writestr(persistence.MANIFEST, json.dumps(manifest({"$array": "a"})))
        header = {"descr": "<f8", "fortran_order": False, "shape": (10**12,)}
        with archive.open("a", "w") as member:
            np.lib.format.write_array_header_1_0(member, header)
            member.write(bytes(64))
    one_line_error(tmp_path / "huge", "declares 8000000000000 bytes")

    with zipfile.ZipFile(tmp_path / "deflated", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(persistence.MANIFEST, json.dumps(manifest({"$array": "a"})))
        with archive.open("a", "w") as member:
            np.lib.format.write_array(member, np.zeros(3))
    one_line_error(tmp_path / "deflated", "compressed")


def test_another_fdlsr_version_warns_and_loads(data, tmp_path):
    X, y = data
    path = fdlsr.save(fdlsr.FDLSR().fit(X, y), tmp_path / "m")
    with zipfile.ZipFile(path) as archive:
        saved = json.loads(archive.read(persistence.MANIFEST))
        names = [n for n in archive.namelist() if n.endswith(".npy")]
        arrays = [(n, np.lib.format.read_array(archive.open(n))) for n in names]
    saved["fdlsr_version"] = "0.0.1"
    write_model_file(path, saved, arrays)
    with pytest.warns(UserWarning, match="saved by fdlsr 0.0.1"):
        loaded = fdlsr.load(path)
    np.testing.assert_array_equal(loaded.predict(X), fdlsr.FDLSR().fit(X, y).predict(X))


def test_model_file_error_is_a_user_error():
    assert issubclass(ModelFileError, FdlsrError)


# -- the command line --------------------------------------------------------------


@pytest.fixture()
def dataset_file(data, tmp_path):
    X, y = data
    path = tmp_path / "data.npz"
    np.savez(path, X=X * 1e3, y=y)  # raw scale: the model normalises
    return path


def test_fit_then_predict_on_raw_samples(dataset_file, data, tmp_path, capsys):
    X, y = data
    model_path = tmp_path / "model.fdlsr"
    argv = ["fit", "--dataset", str(dataset_file), "--method", "FDLSR"]
    assert main([*argv, "--params", "alpha=0.1", "-o", str(model_path)]) == 0
    assert "wrote" in capsys.readouterr().err
    model = fdlsr.load(model_path)
    assert isinstance(model[0], UnitNormalizer) and model[-1].alpha == 0.1
    # the protocol's, bit for bit: its unit-normalised samples, FDLSR fitted on all
    reference = fdlsr.FDLSR(alpha=0.1).fit(unit_rows(X * 1e3), y)
    np.testing.assert_array_equal(model[-1].coef_, reference.coef_)

    out = tmp_path / "predictions.csv"
    assert main(["predict", str(model_path), str(dataset_file), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    lines = out.read_text().splitlines()
    assert lines[0] == "index,prediction,label" and len(lines) == len(y) + 1
    predicted = np.array([int(line.split(",")[1]) for line in lines[1:]])
    np.testing.assert_array_equal(predicted, reference.predict(unit_rows(X * 1e3)))
    accuracy = np.mean(predicted == y)
    assert f"accuracy {100 * accuracy:.2f}%" in err

    np.save(tmp_path / "samples.npy", X[:5] * 7.0)
    assert main(["predict", str(model_path), str(tmp_path / "samples.npy")]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0] == "index,prediction"
    assert [int(line.split(",")[1]) for line in captured.out.splitlines()[1:]] == list(
        predicted[:5]
    )
    assert "accuracy" not in captured.err

    # a pipe (or /dev/stdout) is written to, never replaced by a file
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    received = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_text()))
    reader.daemon = True  # if the pipe were replaced, nothing would ever write to it
    reader.start()
    assert main(["predict", str(model_path), str(dataset_file), "-o", str(pipe)]) == 0
    reader.join(timeout=60)
    assert pipe.is_fifo() and received == [out.read_text()]
    with pytest.raises(ModelFileError, match="not a regular file"):
        fdlsr.save(model, pipe)
    assert pipe.is_fifo()


def test_predict_says_when_no_label_is_a_class_of_the_model(
    dataset_file, data, tmp_path, capsys
):
    X, y = data
    model_path = tmp_path / "model.fdlsr"
    fit = ["fit", "--dataset", str(dataset_file), "--method", "LSR"]
    assert main([*fit, "-o", str(model_path)]) == 0
    other = tmp_path / "other.npz"
    np.savez(other, X=X, y=np.array(["cat", "dog", "owl"])[y])
    capsys.readouterr()
    assert main(["predict", str(model_path), str(other), "-o", os.devnull]) == 0
    err = capsys.readouterr().err
    assert "accuracy 0.00%" in err
    (warning,) = [line for line in err.splitlines() if "warning" in line]
    assert "'cat', 'dog', 'owl'" in warning and "0, 1, 2" in warning, warning
    # labels the model knows: no warning, whatever the accuracy
    assert main(["predict", str(model_path), str(dataset_file), "-o", os.devnull]) == 0
    assert "warning" not in capsys.readouterr().err


def test_predict_refuses_samples_it_cannot_label(dataset_file, tmp_path, capsys):
    model_path = tmp_path / "model.fdlsr"
    fit = ["fit", "--dataset", str(dataset_file), "--method", "LSR"]
    assert main([*fit, "-o", str(model_path)]) == 0
    capsys.readouterr()
    samples = np.ones((4, 12))
    samples[1, 3], samples[2, 0] = np.nan, np.inf
    np.save(tmp_path / "nan.npy", samples)
    np.save(tmp_path / "none.npy", np.ones((0, 12)))
    out = tmp_path / "predictions.csv"
    for name, text in [("nan.npy", "2 NaN or infinite"), ("none.npy", "no samples")]:
        argv = ["predict", str(model_path), str(tmp_path / name), "-o", str(out)]
        assert text in cli_error(capsys, argv)
        assert not out.exists()


def test_fit_raw_saves_the_bare_method(dataset_file, tmp_path):
    model_path = tmp_path / "lsr.fdlsr"
    argv = ["fit", "--dataset", str(dataset_file), "--method", "lsr", "--raw"]
    assert main([*argv, "-o", str(model_path)]) == 0
    assert type(fdlsr.load(model_path)).__name__ == "LSR"


def test_command_line_errors(dataset_file, tmp_path, capsys):
    model_path = tmp_path / "model.fdlsr"
    fit = ["fit", "--dataset", str(dataset_file), "--method", "LSR"]
    assert main([*fit, "-o", str(model_path)]) == 0
    capsys.readouterr()
    pkl = tmp_path / "model.pkl"
    pkl.write_bytes(pickle.dumps({"a": 1}))
    np.save(tmp_path / "wide.npy", np.ones((2, 5)))
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    cases = [
        (["predict", str(tmp_path / "none"), str(dataset_file)], "not found"),
        (["predict", str(pkl), str(dataset_file)], "pickle"),
        (["predict", str(model_path), str(tmp_path / "wide.npy")], "12 features"),
        (["predict", str(model_path), str(tmp_path / "no.npy")], "file not found"),
        (["predict", str(model_path)], "required: data"),
        (["fit", "--dataset", str(dataset_file), "-o", "m"], "--method"),
        ([*fit], "-o/--out"),
        ([*fit, "-o", str(tmp_path)], "is a folder"),
        ([*fit, "-o", str(pipe)], "not a regular file"),
        ([*fit, "-o", str(tmp_path / "no" / "m")], "does not exist"),
        ([*fit, "--params", "bogus=1", "-o", "m"], "no parameter 'bogus'"),
        (
            ["fit", "--dataset", str(dataset_file), "--method", "Nope", "-o", "m"],
            "Nope",
        ),
    ]
    for argv, text in cases:
        assert text in cli_error(capsys, argv), argv


# -- where save writes: through a link, never into a missing folder -------------------


def test_save_writes_through_a_symbolic_link(data, tmp_path):
    """The file the link points to is replaced, the link kept (as every output)."""
    X, y = data
    fdlsr.save(fdlsr.FDLSR().fit(X, y), tmp_path / "target.fdlsr")
    (tmp_path / "link.fdlsr").symlink_to("target.fdlsr")
    other = fdlsr.FDLSR(alpha=0.5).fit(X, y)
    assert fdlsr.save(other, tmp_path / "link.fdlsr") == tmp_path / "link.fdlsr"
    assert (tmp_path / "link.fdlsr").is_symlink()
    assert fdlsr.load(tmp_path / "target.fdlsr").alpha == 0.5
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [".fdlsr-outputs.json", "link.fdlsr", "target.fdlsr"]


def test_fit_o_a_link_to_a_model_file_writes_through_it(dataset_file, tmp_path):
    fit = ["fit", "--dataset", str(dataset_file), "--method", "LSR"]
    target, link = tmp_path / "target.fdlsr", tmp_path / "link.fdlsr"
    assert main([*fit, "-o", str(target)]) == 0
    link.symlink_to(target.name)
    assert main([*fit, "--params", "lam=0.5", "-o", str(link)]) == 0
    assert link.is_symlink() and fdlsr.load(target)[-1].lam == 0.5


def test_save_into_a_missing_folder_is_one_error_naming_it(data, tmp_path):
    X, y = data
    model = fdlsr.FDLSR().fit(X, y)
    with pytest.raises(ModelFileError, match="the folder .*nodir does not exist"):
        fdlsr.save(model, tmp_path / "nodir" / "m.fdlsr")
    (tmp_path / "link.fdlsr").symlink_to("gone/m.fdlsr")  # a link into no folder
    with pytest.raises(ModelFileError, match="the folder .*gone does not exist"):
        fdlsr.save(model, tmp_path / "link.fdlsr")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.fdlsr"]


# -- what save refuses names the fix, and the fix saves ------------------------------


def test_a_search_setting_that_cannot_be_saved_names_a_fix_that_saves(data, tmp_path):
    from sklearn.model_selection import ShuffleSplit

    X, y = data
    grid = dict(alphas=[1.0, 0.1], betas=[1e-2], lams=[1.0])
    shuffled = ShuffleSplit(2, random_state=0)

    def scorer(estimator, X, y):
        return 0.5

    for setting, fixed, said in [
        (dict(cv=shuffled), dict(cv=list(shuffled.split(X, y))), "PerClassSplit"),
        (dict(cv=3, scoring=scorer), dict(cv=3, scoring="accuracy"), "scorer's name"),
    ]:
        model = fdlsr.FDLSRCV(**grid, **setting).fit(X, y)
        with pytest.raises(ModelFileError, match=said) as refused:
            fdlsr.save(model, tmp_path / "refused.fdlsr")
        assert "\n" not in str(refused.value)
        assert [p.name for p in tmp_path.iterdir()] in ([], [MANIFEST])
        model = fdlsr.FDLSRCV(**grid, **fixed).fit(X, y)
        fdlsr.save(model, tmp_path / "fixed.fdlsr")
        loaded = fdlsr.load(tmp_path / "fixed.fdlsr")
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
        (tmp_path / "fixed.fdlsr").unlink()


def test_save_replaces_a_model_file_it_wrote_but_not_a_file_of_the_users(tmp_path):
    """``fdlsr.save(model, "notes.txt")`` replaced the user's notes (an attack's
    note): the CLI's guard had no Python counterpart. The same rule as the command
    line's: a file fdlsr wrote and left unchanged, or an empty one, is replaced; any
    other (a model file copied in included) only with overwrite=True."""
    import shutil

    from sklearn.datasets import make_classification

    import fdlsr
    from fdlsr.errors import ModelFileError

    X, y = make_classification(40, 8, n_informative=5, n_classes=2, random_state=0)
    model = fdlsr.FDLSR().fit(X, y)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    with pytest.raises(ModelFileError, match="fdlsr did not write it.*overwrite=True"):
        fdlsr.save(model, notes)
    assert notes.read_text() == "my notes\n"
    fdlsr.save(model, notes, overwrite=True)
    assert fdlsr.load(notes).predict(X).tolist() == model.predict(X).tolist()
    fdlsr.save(model, notes)  # written by fdlsr.save, unchanged: replaced
    (tmp_path / "copied").mkdir()
    copied = shutil.copy(notes, tmp_path / "copied" / "model.fdlsr")
    with pytest.raises(ModelFileError, match="fdlsr did not write it"):
        fdlsr.save(model, copied)  # a model file, but not one fdlsr wrote there
    empty = tmp_path / "empty.fdlsr"
    empty.touch()
    fdlsr.save(model, empty)
