"""A model knows what it was fitted on: the model file records the samples it takes
(``fdlsr.persistence._contract``) and ``fdlsr predict`` applies the record.

Columns named as the model's in another order are taken by name, other or missing
names are refused; images are resized as the model's were, a contradicting
``--resize`` is refused; images flattened in the other order are flattened again,
images of another size are refused. Any value in the record's fields gives a
usable model or one line (exit 2).
"""

import io
import json
import warnings
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer

import fdlsr
import fdlsr.datasets
from fdlsr._experiments.cli import main
from fdlsr._testing import cli, cli_error
from fdlsr.errors import ModelFileError
from fdlsr.persistence import InputContract, read_model_file
from fdlsr.persistence._contract import FIELDS
from model_files import pack

NAMES = [f"f{i}" for i in range(10)]
WITH_FIXTURES = dict(
    deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture(scope="module")
def table():
    X, y = make_classification(
        60, 10, n_informative=6, n_classes=3, random_state=2, class_sep=1.0
    )
    return X, y


def write_csv(path, X, y, names, label_at=0, label="label"):
    """A CSV of ``X`` with the header ``names`` and the label column at ``label_at``."""
    header = list(names)
    header.insert(label_at, label)
    lines = [",".join(header)]
    for row, target in zip(X, y, strict=True):
        fields = [repr(float(v)) for v in row]
        fields.insert(label_at, str(target))
        lines.append(",".join(fields))
    path.write_text("\n".join(lines) + "\n")
    return path


def predictions(path):
    """The predicted labels of a ``fdlsr predict`` CSV."""
    return [line.split(",")[1] for line in path.read_text().splitlines()[1:]]


@pytest.fixture(scope="module")
def csv_model(table, tmp_path_factory):
    """``(model file, training CSV)``: LSR fitted by ``fdlsr fit`` on a CSV whose
    header names the columns label, f0..f9."""
    X, y = table
    folder = tmp_path_factory.mktemp("csv")
    train = write_csv(folder / "train.csv", X, y, NAMES)
    model = folder / "model.fdlsr"
    status, _, err = cli(
        ["fit", "--dataset", str(train), "--method", "LSR", "-o", str(model)]
    )
    assert status == 0, err
    return model, train


def test_the_record_of_a_csv_model(csv_model):
    model, _ = csv_model
    record = read_model_file(model).input
    assert record.feature_names == tuple(NAMES)
    assert record.n_features == 10 and record.labels == "integer"
    assert record.image_shape is None and record.resize is None


def test_columns_in_another_order_are_taken_by_name(csv_model, table, tmp_path):
    """The same samples with their columns in another order (the header names them)
    get the same predictions, and a note says the columns were taken by name."""
    X, y = table
    model, train = csv_model
    reference = tmp_path / "reference.csv"
    assert cli(["predict", str(model), str(train), "-o", str(reference)])[0] == 0
    order = np.random.default_rng(0).permutation(10)
    shuffled = write_csv(
        tmp_path / "shuffled.csv", X[:, order], y, [NAMES[i] for i in order], 4
    )
    out = tmp_path / "out.csv"
    status, _, err = cli(["predict", str(model), str(shuffled), "-o", str(out)])
    assert status == 0, err
    assert predictions(out) == predictions(reference)
    assert "taken by name" in err
    accuracy = [line for line in err.splitlines() if line.startswith("accuracy")]
    assert (
        accuracy[0].split(" (")[0]
        in cli(["predict", str(model), str(train), "-o", str(out)])[2]
    )


@pytest.mark.parametrize(
    "names, said",
    [
        (NAMES[:9] + ["g9"], ["missing 'f9'", "not the model's 'g9'"]),
        (NAMES[:9], ["missing 'f9'"]),
        (NAMES + ["f10"], ["not the model's 'f10'"]),
        (NAMES[1:] + ["f1"], ["missing 'f0'"]),
    ],
    ids=["renamed", "missing", "extra", "repeated"],
)
def test_other_or_missing_column_names_are_refused(
    csv_model, table, tmp_path, capsys, names, said
):
    X, y = table
    model, _ = csv_model
    X = np.resize(X, (len(y), len(names)))
    data = write_csv(tmp_path / "other.csv", X, y, names)
    out = tmp_path / "out.csv"
    message = cli_error(capsys, ["predict", str(model), str(data), "-o", str(out)])
    for text in said:
        assert text in message, message
    assert "columns" in message and not out.exists()


def test_a_model_fitted_on_a_dataframe_takes_a_csv_by_name(table, tmp_path):
    """feature_names_in_ (a pandas DataFrame's columns) are the record's names."""
    pd = pytest.importorskip("pandas")
    X, y = table
    frame = pd.DataFrame(X, columns=NAMES)
    model = make_pipeline(Normalizer(), fdlsr.FDLSR()).fit(frame, y)
    path = fdlsr.save(model, tmp_path / "frame.fdlsr")
    assert read_model_file(path).input.feature_names == tuple(NAMES)
    order = np.arange(10)[::-1]
    data = write_csv(tmp_path / "data.csv", X[:, order], y, [NAMES[i] for i in order])
    out = tmp_path / "out.csv"
    status, _, err = cli(["predict", str(path), str(data), "-o", str(out)])
    assert status == 0 and "Warning" not in err, err
    assert predictions(out) == [str(v) for v in model.predict(frame)]
    # scikit-learn refuses the DataFrame in another order; the loaded model too
    with pytest.raises(ValueError, match="feature names"):
        fdlsr.load(path).predict(frame[frame.columns[::-1]])


def test_samples_without_names_are_taken_in_the_models_order(
    csv_model, table, tmp_path
):
    X, _ = table
    model, _ = csv_model
    np.save(tmp_path / "samples.npy", X)
    status, _, err = cli(["predict", str(model), str(tmp_path / "samples.npy")])
    assert status == 0 and "does not name its columns" in err, err


def test_named_columns_given_to_a_model_without_names_are_said_to_be_by_position(
    table, tmp_path
):
    """A model fitted on an .npz knows no column names; a CSV that names its columns
    is taken by position, with a note (scikit-learn warns likewise), not silently."""
    X, y = table
    np.savez(tmp_path / "train.npz", X=X, y=y)
    model = tmp_path / "m.fdlsr"
    fit = ["fit", "--dataset", str(tmp_path / "train.npz"), "--method", "LSR"]
    assert cli([*fit, "-o", str(model)])[0] == 0
    data = write_csv(tmp_path / "named.csv", X, y, NAMES)
    status, _, err = cli(["predict", str(model), str(data)])
    assert status == 0 and "fitted on data without names" in err, err
    assert "taken by position" in err


def save_images(folder, images, labels):
    from PIL import Image

    for i, (image, label) in enumerate(zip(images, labels, strict=True)):
        (folder / label).mkdir(parents=True, exist_ok=True)
        Image.fromarray(image).save(folder / label / f"{i}.png")
    return folder


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    """A folder of 10 x 12 grey images, 3 classes of 6."""
    pytest.importorskip("PIL")
    rng = np.random.default_rng(1)
    labels = np.repeat(["a", "b", "c"], 6)
    base = {c: rng.integers(0, 256, (10, 12)) for c in "abc"}
    pictures = [
        np.clip(base[c] + rng.integers(-40, 40, (10, 12)), 0, 255).astype(np.uint8)
        for c in labels
    ]
    return save_images(tmp_path_factory.mktemp("images"), pictures, labels)


def test_a_model_fitted_on_resized_images_labels_the_same_folder(
    images, tmp_path, capsys
):
    """fit --resize 6 5 is recorded; predict resizes the folder's images the same
    way (and says so), accepts the same --resize and refuses another."""
    model = tmp_path / "resized.fdlsr"
    fit = ["fit", "--dataset", str(images), "--method", "LSR", "--resize", "6", "5"]
    assert main([*fit, "-o", str(model)]) == 0
    record = read_model_file(model).input
    assert record.resize == (6, 5) and record.image_shape == (6, 5)
    assert record.labels == "text"
    capsys.readouterr()
    out = tmp_path / "out.csv"
    assert main(["predict", str(model), str(images), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "resized to 6 x 5" in err and "accuracy" in err
    expected = fdlsr.load(model).predict(
        fdlsr.datasets.load_dataset(str(images), resize=(6, 5)).X
    )
    assert predictions(out) == list(expected)
    same = ["predict", str(model), str(images), "--resize", "6", "5"]
    assert main([*same, "-o", str(out)]) == 0
    capsys.readouterr()
    message = cli_error(
        capsys, ["predict", str(model), str(images), "--resize", "5", "6"]
    )
    assert "resized to 6 x 5" in message and "5 x 6" in message
    assert "--samples" not in message


def test_images_of_another_size_are_refused_with_the_resize_to_give(
    images, tmp_path, capsys
):
    model = tmp_path / "full.fdlsr"
    assert (
        main(["fit", "--dataset", str(images), "--method", "LSR", "-o", str(model)])
        == 0
    )
    record = read_model_file(model).input
    assert record.resize is None and record.image_shape == (10, 12)
    capsys.readouterr()
    message = cli_error(
        capsys, ["predict", str(model), str(images), "--resize", "6", "5"]
    )
    assert "10 x 12" in message
    smaller = images.parent / "smaller"
    if not smaller.exists():
        from PIL import Image

        for file in images.rglob("*.png"):
            (smaller / file.parent.name).mkdir(parents=True, exist_ok=True)
            Image.open(file).resize((6, 4)).save(smaller / file.parent.name / file.name)
    message = cli_error(capsys, ["predict", str(model), str(smaller)])
    assert "4 x 6" in message and "10 x 12" in message and "--resize" in message
    assert "--samples" not in message


@pytest.fixture(scope="module")
def stacks(tmp_path_factory):
    """The same images as an .npz stack (n, h, w) (rows flattened in C order) and
    as (h, w, n) (in F order, as MATLAB keeps them), and the labels."""
    X, y = make_classification(
        45, 20, n_informative=12, n_classes=3, random_state=3, class_sep=1.0
    )
    pictures = X.reshape(45, 4, 5)
    folder = tmp_path_factory.mktemp("stacks")
    np.savez(folder / "first.npz", X=pictures, y=y)
    np.savez(folder / "last.npz", X=pictures.transpose(1, 2, 0), y=y)
    np.savez(folder / "tall.npz", X=X.reshape(45, 5, 4), y=y)
    return folder, y


def test_images_flattened_in_the_other_order_are_flattened_again(stacks, tmp_path):
    """A model fitted on images kept as (n, h, w) labels the same images kept as
    (h, w, n) with the same predictions (their rows are flattened in F order)."""
    folder, y = stacks
    model = tmp_path / "model.fdlsr"
    fit = ["fit", "--dataset", str(folder / "first.npz"), "--method", "LSR"]
    assert cli([*fit, "-o", str(model)])[0] == 0
    assert read_model_file(model).input.order == "C"
    first, last = tmp_path / "first.csv", tmp_path / "last.csv"
    assert (
        cli(["predict", str(model), str(folder / "first.npz"), "-o", str(first)])[0]
        == 0
    )
    status, _, err = cli(
        ["predict", str(model), str(folder / "last.npz"), "-o", str(last)]
    )
    assert status == 0 and "flattened in F order" in err, err
    assert predictions(last) == predictions(first)


def test_images_of_the_same_pixel_count_but_another_shape_are_refused(
    stacks, tmp_path, capsys
):
    folder, _ = stacks
    model = tmp_path / "model.fdlsr"
    fit = ["fit", "--dataset", str(folder / "first.npz"), "--method", "LSR"]
    assert cli([*fit, "-o", str(model)])[0] == 0
    message = cli_error(capsys, ["predict", str(model), str(folder / "tall.npz")])
    assert "5 x 4" in message and "4 x 5" in message


def test_a_stack_of_transposed_images_is_refused_with_a_fix_a_stack_accepts(
    stacks, tmp_path, capsys
):
    """--resize applies to image folders only: the refusal of an .npz stack of
    another size must not ask for it (it would be refused in turn)."""
    folder, _ = stacks
    model = tmp_path / "model.fdlsr"
    fit = ["fit", "--dataset", str(folder / "first.npz"), "--method", "LSR"]
    assert cli([*fit, "-o", str(model)])[0] == 0
    message = cli_error(capsys, ["predict", str(model), str(folder / "tall.npz")])
    assert "--resize" not in message and "transposed" in message
    assert "4 rows of 5 pixels" in message


def colour_folder(folder):
    """Three classes of 6 x 8 colour images, told apart by their red channel only
    (their grey levels are alike), and the folder."""
    from PIL import Image

    rng = np.random.default_rng(7)
    for c, red in enumerate((40, 120, 200)):
        (folder / f"c{c}").mkdir(parents=True)
        for i in range(5):
            pixels = rng.integers(100, 110, (6, 8, 3))
            pixels[..., 0] = red + rng.integers(0, 10, (6, 8))
            Image.fromarray(pixels.astype(np.uint8), "RGB").save(
                folder / f"c{c}/{i}.png"
            )
    return folder


def test_a_colour_model_labels_its_own_colour_folder(tmp_path):
    pytest.importorskip("PIL")
    images = colour_folder(tmp_path / "colour")
    data = fdlsr.datasets.load_dataset(str(images), grey=False)
    assert data.image_shape == (6, 8, 3)
    model = make_pipeline(Normalizer(), fdlsr.FDLSR()).fit(data.X, data.y)
    record = InputContract(
        n_features=data.X.shape[1], image_shape=data.image_shape, order=data.order
    )
    fdlsr.save(model, tmp_path / "colour.fdlsr", input_contract=record)
    out = tmp_path / "predictions.csv"
    status, _, err = cli(
        ["predict", str(tmp_path / "colour.fdlsr"), str(images), "-o", str(out)]
    )
    assert status == 0 and "read in colour" in err, err
    assert predictions(out) == list(model.predict(data.X))


@pytest.mark.parametrize("shape", [[6, 5, 1], [6, 5, 4], [3, 10, 1]])
def test_an_image_shape_is_grey_or_colour(recorded, tmp_path, capsys, shape):
    """(h, w, 1) would be asked for at a size no folder is read at: refused at load,
    and at save (what load refuses, save refuses)."""
    content, images = recorded["images"]
    manifest, arrays = parts_of(content)
    manifest["input"].update(image_shape=shape, resize=shape[:2])
    path = tmp_path / "altered.fdlsr"
    pack(path, manifest, arrays)
    message = cli_error(capsys, ["predict", str(path), str(images)])
    assert "(height, width, 3)" in message and "resize them" not in message
    fitted = fdlsr.FDLSR().fit(np.eye(30)[:6], [0, 0, 1, 1, 2, 2])
    record = InputContract(n_features=30, image_shape=tuple(shape), order="C")
    with pytest.raises(ModelFileError, match="height, width, 3"):
        fdlsr.save(fitted, tmp_path / "m.fdlsr", input_contract=record)
    assert not (tmp_path / "m.fdlsr").exists()


def test_a_record_that_contradicts_the_model_is_not_saved(table, tmp_path):
    X, y = table
    model = fdlsr.FDLSR().fit(X, y)
    for record, said in [
        (InputContract(n_features=9), "9 features"),
        (InputContract(n_features=10, feature_names=("a",)), "names 1 features"),
        (InputContract(n_features=10, image_shape=(3, 3), order="C"), "3 x 3"),
        (InputContract(n_features=10, image_shape=(2, 5)), "without a pixel order"),
        (InputContract(n_features=10, feature_names=("a", 1) * 5), "texts"),
        ({"n_features": 10}, "not an InputContract"),
    ]:
        with pytest.raises(ModelFileError, match=said) as info:
            fdlsr.save(model, tmp_path / "m.fdlsr", input_contract=record)
        assert "\n" not in str(info.value)
        assert list(tmp_path.iterdir()) == []


# -- any column order and names: the same predictions, or one line ----------------


@settings(max_examples=40, **WITH_FIXTURES)
@given(choice=st.data())
def test_any_columns_give_the_models_predictions_or_one_line(
    csv_model, table, tmp_path_factory, choice
):
    X, y = table
    model, train = csv_model
    folder = tmp_path_factory.mktemp("columns")
    reference = folder / "reference.csv"
    assert cli(["predict", str(model), str(train), "-o", str(reference)])[0] == 0
    order = choice.draw(st.permutations(range(10)))
    names = [NAMES[i] for i in order]
    columns = X[:, list(order)]
    how = choice.draw(st.sampled_from(["same", "drop", "rename", "add", "repeat"]))
    if how == "drop":
        k = choice.draw(st.integers(0, 9))
        names, columns = names[:k] + names[k + 1 :], np.delete(columns, k, axis=1)
    elif how == "rename":
        k = choice.draw(st.integers(0, 9))
        names[k] = choice.draw(st.sampled_from(["g", "F0", " f1", "f10", "label2"]))
    elif how == "add":
        names, columns = names + ["extra"], np.column_stack([columns, columns[:, 0]])
    elif how == "repeat":
        k = choice.draw(st.integers(1, 9))
        names[k] = names[0]
    label_at = choice.draw(st.integers(0, len(names)))
    data = write_csv(folder / "data.csv", columns, y, names, label_at)
    out = folder / "out.csv"
    status, _, err = cli(["predict", str(model), str(data), "-o", str(out)])
    assert "Traceback" not in err
    if status == 0:
        assert sorted(n.strip() for n in names) == NAMES, names  # the same set
        assert predictions(out) == predictions(reference)
    else:
        lines = err.strip().splitlines()
        assert status == 2 and len(lines) == 1 and lines[0].startswith("fdlsr: error:")
        assert not out.exists()


# -- any value in the record's fields: a usable model or one line -------------------

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.sampled_from(["C", "F", "integer", "text", "other", "f0", "label"]),
    lambda inner: (
        st.lists(inner, max_size=12)
        | st.dictionaries(
            st.sampled_from(FIELDS) | st.text(max_size=8), inner, max_size=7
        )
    ),
    max_leaves=30,
)


@pytest.fixture(scope="module")
def recorded(csv_model, images, tmp_path_factory):
    """name: (model file bytes, data to predict): a CSV model and an image model."""
    folder = tmp_path_factory.mktemp("recorded")
    image_model = folder / "images.fdlsr"
    fit = ["fit", "--dataset", str(images), "--method", "LSR", "--resize", "6", "5"]
    assert cli([*fit, "-o", str(image_model)])[0] == 0
    model, train = csv_model
    return {
        "csv": (model.read_bytes(), train),
        "images": (image_model.read_bytes(), images),
    }


@st.composite
def altered_record(draw, content):
    """Bytes of the model file ``content`` with its input record altered."""
    manifest, arrays = parts_of(content)
    record = manifest["input"]
    how = draw(st.sampled_from(["field", "record", "drop", "add", "text"]))
    if how == "field":
        record[draw(st.sampled_from(FIELDS))] = draw(JSON)
    elif how == "record":
        manifest["input"] = draw(JSON)
    elif how == "drop":
        del record[draw(st.sampled_from(FIELDS))]
    elif how == "add":
        record[draw(st.text(max_size=8))] = draw(JSON)
    text = json.dumps(manifest)
    if how == "text":  # any characters in place of a field's value
        field = draw(st.sampled_from(FIELDS))
        value = json.dumps(record[field])
        text = text.replace(
            f'"{field}": {value}', f'"{field}": {draw(st.text(max_size=30))}', 1
        )
    buffer = io.BytesIO()
    pack(buffer, manifest, arrays, text=text)
    return buffer.getvalue()


def parts_of(content):
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        manifest = json.loads(archive.read("model.json"))
        arrays = {
            n: np.lib.format.read_array(archive.open(n))
            for n in archive.namelist()
            if n.endswith(".npy")
        }
    return manifest, arrays


@settings(max_examples=200, **WITH_FIXTURES)
@given(choice=st.data())
def test_any_record_loads_a_consistent_model_or_one_line(recorded, tmp_path, choice):
    name = choice.draw(st.sampled_from(sorted(recorded)))
    content = recorded[name][0]
    path = tmp_path / "model.fdlsr"
    path.write_bytes(choice.draw(altered_record(content)))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            saved = read_model_file(path)
    except ModelFileError as error:
        assert str(error) and "\n" not in str(error) and len(str(error)) < 700
        return
    record, model = saved.input, saved.model
    assert record.n_features == model.n_features_in_
    if record.feature_names is not None:
        assert len(record.feature_names) == record.n_features
    if record.image_shape is not None:
        assert int(np.prod(record.image_shape)) == record.n_features
        assert record.order in ("C", "F")
    if record.resize is not None:
        assert record.image_shape[:2] == record.resize


@settings(max_examples=60, **WITH_FIXTURES)
@given(choice=st.data())
def test_fdlsr_predict_with_any_record_runs_or_exits_2(
    recorded, tmp_path_factory, choice
):
    name = choice.draw(st.sampled_from(sorted(recorded)))
    content, data = recorded[name]
    folder = tmp_path_factory.mktemp("predict")
    model = folder / "model.fdlsr"
    model.write_bytes(choice.draw(altered_record(content)))
    out = folder / "predictions.csv"
    status, _, err = cli(["predict", str(model), str(data), "-o", str(out)])
    assert "Traceback" not in err
    if status == 0:
        assert len(out.read_text().splitlines()) > 1
    else:
        lines = err.strip().splitlines()
        assert status == 2 and len(lines) == 1 and lines[0].startswith("fdlsr: error:")
        assert sorted(p.name for p in folder.iterdir()) == ["model.fdlsr"]
