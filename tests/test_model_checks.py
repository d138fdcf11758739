"""A model file holds a fitted classifier whose arrays agree, or it is refused.

Saving refuses what is not a fitted classifier (or a Pipeline of transformers ending
in one); loading refuses the same, and a model whose arrays contradict each other or
the estimator (shapes, text where numbers are due, a Pipeline whose inner step is a
classifier), in one line naming the file; `fdlsr predict` exits 2 with that line.
"""

import copy
import json
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import KFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import LabelEncoder, StandardScaler

import fdlsr
from fdlsr._experiments.registry import METHODS
from fdlsr._testing import cli_error
from fdlsr.errors import ModelFileError
from fdlsr.persistence._encoding import allowed_classes
from model_files import pack, parts, refused, state


@pytest.fixture(scope="module")
def data():
    return make_classification(
        60, 8, n_informative=6, n_classes=3, random_state=0, class_sep=2.0
    )


# -- what is saved and loaded at all -----------------------------------------------


@pytest.mark.parametrize(
    "model",
    [
        fdlsr.FDLSR(),
        make_pipeline(StandardScaler(), fdlsr.FDLSR()),
        fdlsr.FDLSRCV(alphas=[1.0], betas=[0.01], lams=[1.0], cv=2),
    ],
    ids=["FDLSR", "Pipeline", "FDLSRCV"],
)
def test_an_unfitted_model_is_not_saved(model, tmp_path):
    with pytest.raises(ModelFileError, match="is not fitted; fit it first") as info:
        fdlsr.save(model, tmp_path / "model.fdlsr")
    assert "\n" not in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_what_is_not_a_classifier_is_not_saved(data, tmp_path):
    X, y = data
    inner_classifier = make_pipeline(StandardScaler(), fdlsr.FDLSR()).fit(X, y)
    inner_classifier.steps[0] = ("knn", KNeighborsClassifier().fit(X, y))
    for model, problem in [
        (StandardScaler().fit(X), "its root is a StandardScaler"),
        (
            make_pipeline(StandardScaler(), LinearDiscriminantAnalysis()).fit(X, y)[:1],
            "its Pipeline ends in a StandardScaler",
        ),
        (
            inner_classifier,
            "its Pipeline's inner step KNeighborsClassifier is not a transformer",
        ),
    ]:
        with pytest.raises(ModelFileError, match=f"cannot save the model: {problem}"):
            fdlsr.save(model, tmp_path / "model.fdlsr")
    assert list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def saved(data, tmp_path_factory):
    """Model files of a fitted FDLSR and of a fitted Pipeline(StandardScaler, LSR)."""
    X, y = data
    folder = tmp_path_factory.mktemp("saved")
    pipeline = make_pipeline(StandardScaler(), METHODS["LSR"].build()).fit(X, y)
    return {
        "FDLSR": fdlsr.save(fdlsr.FDLSR().fit(X, y), folder / "fdlsr"),
        "Pipeline": fdlsr.save(pipeline, folder / "pipeline"),
    }


def test_a_root_that_is_not_a_classifier_is_refused_at_load(data, saved, tmp_path):
    manifest, arrays = parts(saved["Pipeline"])
    scaler = manifest["model"]["state"]["steps"][0]["$tuple"][1]
    splitter = {"$object": "sklearn.model_selection._split.KFold", "state": {}}
    splitter["state"] = {"n_splits": 2, "shuffle": False, "random_state": None}
    version = {"_sklearn_version": manifest["sklearn_version"]}
    encoder = {"$object": "sklearn.preprocessing._label.LabelEncoder", "state": version}
    roots = {
        "NoneType": None,
        "int": 3,
        "list": [1, 2],
        "dict": {"$dict": {"a": 1}},
        "StandardScaler": scaler,
        "KFold": splitter,
        "LabelEncoder": encoder,
    }
    # the crafted roots name allowed classes, so the refusal is for the root's kind
    allowed = allowed_classes()
    assert allowed[splitter["$object"]] is KFold
    assert allowed[encoder["$object"]] is LabelEncoder
    for kind, root in roots.items():
        path = pack(tmp_path / kind, {**manifest, "model": root}, arrays)
        refused(path, str(path), f"its root is a {kind}, not a classifier")


def test_an_unfitted_model_is_refused_at_load(saved, tmp_path):
    manifest, arrays = parts(saved["FDLSR"])
    model = state(manifest)
    for name in [key for key in model if key.endswith("_")]:
        del model[name]
    refused(pack(tmp_path / "unfitted", manifest, arrays), "its FDLSR is not fitted")


def test_a_pipeline_whose_inner_step_is_not_a_transformer_is_refused(
    data, saved, tmp_path
):
    X, y = data
    manifest, arrays = parts(saved["Pipeline"])
    classifier = fdlsr.save(KNeighborsClassifier().fit(X, y), tmp_path / "classifier")
    inner, inner_arrays = parts(classifier)
    renamed = {n.replace("arrays/", "arrays/in-"): a for n, a in inner_arrays.items()}
    text = json.dumps(inner["model"]).replace("arrays/", "arrays/in-")
    steps = manifest["model"]["state"]["steps"]
    steps[0]["$tuple"][1] = json.loads(text)  # a k-NN in the scaler's place
    path = pack(tmp_path / "inner", manifest, {**arrays, **renamed})
    refused(path, "inner step KNeighborsClassifier is not a transformer")

    lone, _ = parts(saved["Pipeline"])
    lone["model"]["state"]["steps"] = lone["model"]["state"]["steps"][:1]
    refused(pack(tmp_path / "lone", lone, arrays), "ends in a StandardScaler")


# -- fitted arrays that contradict each other -------------------------------------


def fit(name, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence notes of the short fits
        if name == "FDLSR nearest_mean":
            return fdlsr.FDLSR(decision_rule="nearest_mean").fit(X, y)
        if name == "1-NN":
            return KNeighborsClassifier(1).fit(X, y)
        if name == "Pipeline(StandardScaler, LDA)":
            return make_pipeline(StandardScaler(), METHODS["LDA"].build()).fit(X, y)
        fast = {"max_iter": 3} if name in ("FDDL", "DPL") else {}
        return METHODS[name].build(**fast).fit(X, y)


def replace(key, value):
    """A change that sets the state key ``key`` (a path) to ``value(old)``."""

    def change(manifest, arrays):
        *where, last = key
        node = state(manifest, *where)
        old = node[last]
        if isinstance(old, dict) and "$array" in old:
            arrays[old["$array"]] = value(arrays[old["$array"]])
        else:
            node[last] = value(old)

    return change


# (model, what is changed, a word of the one-line error)
CONTRADICTIONS = {
    "FDLSR coef_ of other width": (
        "FDLSR",
        replace(["coef_"], lambda a: a[:, :-1]),
        "FDLSR.coef_",
    ),
    "FDLSR one class more": (
        "FDLSR",
        replace(["classes_"], lambda a: np.arange(a.size + 1)),
        "FDLSR.coef_",
    ),
    "FDLSR classes_ repeated": (
        "FDLSR",
        replace(["classes_"], lambda a: np.sort(np.r_[a[:-1], a[0]])),
        "classes_",
    ),
    "FDLSR coef_ of text": (
        "FDLSR",
        replace(["coef_"], lambda a: a.astype("U8")),
        "holds text",
    ),
    "FDLSR centroids_ of two classes (unused by its rule)": (
        "FDLSR",
        replace(["centroids_"], lambda a: a[:2, :2]),
        "FDLSR.centroids_",
    ),
    "FDLSR class ranges out of order": (
        "FDLSR",
        replace(["neighbors_", "starts"], lambda a: a[::-1].copy()),
        "nearest-neighbour",
    ),
    "FDLSR training projections onto 2 classes": (
        "FDLSR",
        replace(["neighbors_", "reference"], lambda a: a[:, :2].copy()),
        "neighbors_",
    ),
    "FDLSR n_features_in_ other than coef_": (
        "FDLSR",
        replace(["n_features_in_"], lambda n: n + 1),
        "FDLSR.coef_",
    ),
    "nearest_mean FDLSR non-finite centroids": (
        "FDLSR nearest_mean",
        replace(["centroids_"], lambda a: a * np.inf),
        "not finite",
    ),
    "LSR intercept_ of 2 classes": (
        "LSR",
        replace(["intercept_"], lambda a: a[:2]),
        "LSR.intercept_",
    ),
    "SRC dictionary labels outside the classes": (
        "SRC",
        replace(["dictionary_labels_"], lambda a: a + 5),
        "dictionary_labels_",
    ),
    "CRC dictionary of other width": (
        "CRC",
        replace(["dictionary_"], lambda a: a[:, :-1]),
        "CRC.dictionary_",
    ),
    "FDDL atom ranges contradicting the counts": (
        "FDDL",
        replace(["_blocks", "atom_edges"], lambda a: a[::-1].copy()),
        "atom_edges",
    ),
    "FDDL fewer atoms than the blocks": (
        "FDDL",
        replace(["components_"], lambda a: a[:-1]),
        "FDDL.components_",
    ),
    "DPL analysis of fewer atoms": (
        "DPL",
        replace(["analysis_"], lambda a: a[:-1]),
        "DPL.predict fails",
    ),
    "1-NN samples of other width": (
        "1-NN",
        replace(["_fit_X"], lambda a: a[:, :-1].copy()),
        "KNeighborsClassifier.predict fails",
    ),
    "1-NN a class code outside its classes": (
        "1-NN",
        replace(["_y"], lambda a: a * 7),
        "KNeighborsClassifier.predict",
    ),
    "LDA coef_ of one class less": (
        "Pipeline(StandardScaler, LDA)",
        replace([1, "coef_"], lambda a: a[:-1]),
        "Pipeline.",
    ),
    "StandardScaler of other width": (
        "Pipeline(StandardScaler, LDA)",
        replace([0, "scale_"], lambda a: a[:-1]),
        "Pipeline.predict fails",
    ),
}


@pytest.mark.parametrize("case", list(CONTRADICTIONS))
def test_fitted_arrays_that_contradict_each_other_are_refused(case, data, tmp_path):
    name, change, word = CONTRADICTIONS[case]
    X, y = data
    model = fit(name, X, y)
    path = fdlsr.save(model, tmp_path / "model.fdlsr")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert type(fdlsr.load(path)) is type(model)  # unchanged, it loads
    manifest, arrays = parts(path)
    crafted = copy.deepcopy(manifest)
    change(crafted, arrays)
    pack(path, crafted, arrays)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        refused(path, str(path), word)


def test_fdlsr_predict_with_a_contradicting_model_exits_2_in_one_line(
    data, saved, tmp_path, capsys
):
    X, y = data
    samples = tmp_path / "data.npz"
    np.savez(samples, X=X, y=y)
    manifest, arrays = parts(saved["FDLSR"])
    name = state(manifest)["coef_"]["$array"]
    arrays[name] = arrays[name][:, :-1]
    model = pack(tmp_path / "model.fdlsr", manifest, arrays)
    out = tmp_path / "predictions.csv"
    line = cli_error(capsys, ["predict", str(model), str(samples), "-o", str(out)])
    assert str(model) in line and "FDLSR.coef_" in line
    assert not out.exists()
