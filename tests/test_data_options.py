"""Every data option on every kind of input: applied where it applies, refused in one
line everywhere else (never ignored).

``APPLIES`` below is the specification, written out by hand: for each option, the
inputs it applies to. The tests run the full product of options and inputs, in Python
(``load_dataset``, ``dataset_info``, ``npy_samples``) and on the command line (every
data flag of every command that has it, found from the parser), and check that
``datasets/_options.py`` declares the same.
"""

import itertools
import re

import numpy as np
import pytest
import scipy.io
from hypothesis import given, settings
from hypothesis import strategies as st

from fdlsr._experiments import planning
from fdlsr._experiments.commands import shared
from fdlsr._experiments.parser import build_parser
from fdlsr._testing import cli
from fdlsr.datasets import dataset_info, load_dataset
from fdlsr.datasets._numpy import npy_samples
from fdlsr.errors import DatasetError

INPUTS = ["mat", "npz", "csv", "images", "npy", "digits", "faces", "orl"]
APPLIES = {
    "x": {"mat", "npz", "faces", "orl"},
    "y": {"mat", "npz", "csv", "faces", "orl"},
    "samples": {"mat", "npz", "npy", "faces", "orl"},
    "label_column": {"csv"},
    "image_shape": {"mat", "npz", "csv", "faces", "orl"},
    "order": {"mat", "npz", "csv", "faces", "orl"},
    "grey": {"images"},
    "resize": {"images"},
    "data_dir": {"orl", "digits", "faces"},
}
# How a refusal writes each option in Python.
PYTHON = {
    "x": "x=NAME", "y": "y=NAME", "samples": "samples='rows'|'columns'",
    "label_column": "label_column=", "image_shape": "image_shape=(h, w)",
    "order": "order='F'|'C'", "grey": "grey=", "resize": "resize=(h, w)",
    "data_dir": "data_dir=",
}  # fmt: skip
# The data options' arguments on the command line, and the loader's keywords.
ARGUMENTS = {
    "x_var": "x", "y_var": "y", "samples": "samples", "resize": "resize",
    "data_dir": "data_dir",
}  # fmt: skip
# How many samples each input holds.
SIZES = {"digits": 1797, "faces": 400}
# What each input's kind is called in a refusal.
KIND_WORDS = {
    "mat": "a MATLAB file", "npz": "an .npz archive", "csv": "a CSV table",
    "images": "an image folder", "npy": "an .npy array", "digits": "scikit-learn",
    "faces": "an .npz archive", "orl": "a MATLAB file",
}  # fmt: skip
N, D = 8, 6
LABELS = np.repeat([1, 2], N // 2)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """``{input: (what to load, {option: a value that fits it})}``; the shared values
    serve the options that do not apply."""
    from PIL import Image

    root = tmp_path_factory.mktemp("inputs")
    X = np.random.default_rng(0).random((N, D)) + 0.1
    scipy.io.savemat(root / "d.mat", {"fea": X, "gnd": LABELS})
    np.savez(root / "d.npz", X=X, y=LABELS)
    np.save(root / "d.npy", X)
    rows = ["label," + ",".join(f"f{j}" for j in range(D))]
    rows += [f"{c}," + ",".join(map(str, x)) for c, x in zip(LABELS, X, strict=True)]
    (root / "d.csv").write_text("\n".join(rows) + "\n")
    for i, c in enumerate(LABELS):
        folder = root / "images" / f"class{c}"
        folder.mkdir(parents=True, exist_ok=True)
        pixels = (X[i].reshape(2, 3) * 200).astype(np.uint8)
        Image.fromarray(pixels).save(folder / f"{i}.png")
    data = root / "data"  # a data folder whose orl file holds other numbers
    (data / "orl").mkdir(parents=True)
    fea = np.random.default_rng(1).random((N, 1024))
    scipy.io.savemat(data / "orl" / "ORL_32x32.mat", {"fea": fea, "gnd": LABELS})
    shared_values = dict(
        x="fea", y="gnd", samples="rows", label_column=0, image_shape=(2, 3),
        order="C", grey=False, resize=(2, 3), data_dir=str(data),
    )  # fmt: skip
    flat = dict(samples="rows", image_shape=(2, 3), order="C")
    own = {
        "mat": (root / "d.mat", dict(flat, x="fea", y="gnd")),
        "npz": (root / "d.npz", dict(flat, x="X", y="y")),
        "csv": (root / "d.csv", dict(flat, y="label", label_column="label")),
        "images": (root / "images", dict(grey=False, resize=(2, 3))),
        "npy": (root / "d.npy", dict(samples="rows")),
        "digits": ("digits", {}),
        "faces": ("faces", dict(x="X", y="y", image_shape=(32, 32), order="C")),
        "orl": ("orl", dict(x="fea", y="gnd", image_shape=(32, 32), order="F")),
    }
    return {
        name: (source, {**shared_values, **values})
        for name, (source, values) in own.items()
    }


def load(inputs, name, options):
    source, _ = inputs[name]
    if name == "npy":
        return npy_samples(source, **options)
    if name == "orl":  # the data folder's file is not the registry's: no checks
        options = {"data_dir": inputs["orl"][1]["data_dir"], **options}
        return load_dataset(source, verify=False, **options)
    return load_dataset(source, **options)


def test_the_declaration_is_the_specification():
    from fdlsr.datasets._options import DATA_OPTIONS

    # every command reads its data flags into the loader's keywords in one place
    argv = ["run", "--x", "X", "--y", "Y", "--samples", "rows", "--resize", "2", "3"]
    given = shared.data_options(build_parser().parse_args(argv)).given()
    assert given == {"x": "X", "y": "Y", "samples": "rows", "resize": [2, 3]}
    assert set(given) | {"data_dir"} == set(ARGUMENTS.values())
    assert {name: option.python for name, option in DATA_OPTIONS.items()} == PYTHON
    kinds = {"mat": "mat", "npz": "npz", "csv": "csv", "images": "images",
             "npy": "npy", "digits": "sklearn", "faces": "npz"}  # fmt: skip
    for option, applies in APPLIES.items():
        declared = DATA_OPTIONS[option].kinds
        expected = {kinds[i] for i in applies if i != "orl"}
        if "orl" in applies and option != "data_dir":
            expected.add("mat")
        if option == "data_dir":
            expected = {"registry"}
        assert declared == expected, option
    assert set(DATA_OPTIONS) == set(APPLIES)


def cases(*axes):
    """The product of ``axes`` as parameters with readable ids."""
    product = list(itertools.product(*axes))
    return dict(argvalues=product, ids=["-".join(case) for case in product])


@pytest.mark.parametrize("option, name", **cases(APPLIES, INPUTS))
def test_every_option_on_every_input(inputs, option, name):
    """Applied (the data load) where the option applies; else one refusal naming the
    option and the input's kind."""
    value = inputs[name][1][option]
    if name in APPLIES[option]:
        loaded = load(inputs, name, {option: value})
        n = loaded.shape[0] if name == "npy" else loaded.n_samples
        assert n == SIZES.get(name, N)
        return
    with pytest.raises(DatasetError) as refusal:
        load(inputs, name, {option: value})
    message = str(refusal.value)
    assert f"{PYTHON[option]} does not apply to" in message
    assert KIND_WORDS[name] in message and f"leave {option}= out" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    "option, name",
    **cases(["resize", "data_dir", "x", "grey"], [i for i in INPUTS if i != "npy"]),
)
def test_dataset_info_refuses_what_loading_refuses(inputs, option, name):
    """Registry names are described without loading them: the options are checked
    against the entry all the same."""
    source, values = inputs[name]
    if name in APPLIES[option]:
        return  # described as loading describes it (test_cli, test_datasets_registry)
    with pytest.raises(DatasetError, match="does not apply to"):
        dataset_info(str(source), **{option: values[option]})


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(INPUTS),
    chosen=st.sets(st.sampled_from(sorted(APPLIES)), min_size=1, max_size=4),
)
def test_options_given_together(inputs, name, chosen):
    """Several options at once: refused if any does not apply (naming one of those),
    loaded when all do."""
    values = inputs[name][1]
    options = {option: values[option] for option in chosen}
    wrong = {option for option in chosen if name not in APPLIES[option]}
    if not wrong:
        load(inputs, name, options)
        return
    with pytest.raises(DatasetError) as refusal:
        load(inputs, name, options)
    named = {o for o in wrong if f"{PYTHON[o]} does not" in str(refusal.value)}
    assert len(named) == 1


# --- the command line ---------------------------------------------------------------

FLAG_VALUES = {
    "x_var": lambda values: ["--x", values["x"]],
    "y_var": lambda values: ["--y", values["y"]],
    "samples": lambda values: ["--samples", "rows"],
    "resize": lambda values: ["--resize", "2", "3"],
    "data_dir": lambda values: ["--data-dir", values["data_dir"]],
}


def data_flags():
    """``(command, argument)`` for every data option of every command, from the
    parser: a flag added to a command later is tested here without a word."""
    (sub,) = [a for a in build_parser()._actions if a.dest == "command"]
    found = []
    for command, parser in sub.choices.items():
        for action in parser._actions:
            if action.dest in ARGUMENTS:
                found.append((command, action.dest))
    return found


def test_the_commands_offer_their_data_options():
    flags = set(data_flags())
    for command in ("run", "plot", "fit"):
        assert {(command, a) for a in FLAG_VALUES} <= flags
    assert {("predict", a) for a in ("x_var", "y_var", "samples", "data_dir")} <= flags
    assert {("datasets", a) for a in ("resize", "data_dir")} <= flags
    assert {a for _, a in flags} == set(FLAG_VALUES)


class Loaded(DatasetError):
    """Raised in place of the step after loading: the data loaded."""


@pytest.fixture(scope="module")
def model(inputs, tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "m.fdlsr"
    argv = ["fit", "--dataset", str(inputs["npz"][0]), "--method", "1-NN"]
    assert cli([*argv, "-o", str(path)])[0] == 0
    return path


@pytest.mark.parametrize(
    "flag, name", **cases([f"{c} {a}" for c, a in data_flags()], INPUTS)
)
def test_every_data_flag_of_every_command_on_every_input(
    inputs, model, monkeypatch, tmp_path, flag, name
):
    """One line and exit 2 naming the flag where it does not apply; else the data
    load (the step after loading is replaced, so nothing is computed)."""
    from fdlsr._experiments.commands import predict

    command, argument = flag.split()

    def loaded(*args, **kwargs):
        raise Loaded("LOADED")

    monkeypatch.setattr(planning, "check_classes", loaded)
    monkeypatch.setattr(predict, "_check_samples", loaded)
    source, values = inputs[name]
    if name == "npy" and command != "predict":
        return  # only predict reads a lone array of samples
    if name == "orl" and argument != "data_dir":
        monkeypatch.setenv("FDLSR_DATA_DIR", values["data_dir"])
    flag = FLAG_VALUES[argument](values)
    argv = {
        "run": ["run", "--dataset", str(source), "--out", str(tmp_path / "r")],
        "plot": ["plot", "convergence", "--dataset", str(source), "--out",
                 str(tmp_path / "f")],
        "fit": ["fit", "--dataset", str(source), "--method", "1-NN", "-o",
                str(tmp_path / "m.fdlsr")],
        "predict": ["predict", str(model), str(source)],
        "datasets": ["datasets", "info", str(source)],
    }[command]  # fmt: skip
    status, out, err = cli([*argv, *flag])
    option = ARGUMENTS[argument]
    lines = err.strip().splitlines()
    if name in APPLIES[option]:
        if name == "orl" and command != "datasets":
            # the data folder's file is not the registry's: refused for its checksum
            assert status == 2 and "checksum mismatch" in err, err
        elif command == "datasets":
            assert status == 0 and ("n_samples" in out or "path:" in out), err
        else:
            assert status == 2 and lines == ["fdlsr: error: LOADED"], err
        return
    assert status == 2 and len(lines) == 1, err
    assert f"error: {flag[0]} " in lines[0] and "does not apply to" in lines[0]
    assert KIND_WORDS[name] in lines[0] and f"leave {flag[0]} out" in lines[0]
    assert not (tmp_path / "r").exists() and not (tmp_path / "m.fdlsr").exists()


@pytest.mark.parametrize(
    "extra, named", [(["--resize", "2", "2"], "--resize"), (["orl"], "a name (orl)")]
)
def test_datasets_list_takes_no_data_options(extra, named):
    """`fdlsr datasets list` describes no data set: what would describe one is
    refused, not ignored."""
    status, out, err = cli(["datasets", "list", *extra])
    assert status == 2 and out == ""
    assert err.strip() == (
        f"fdlsr: error: `fdlsr datasets list` takes no {named}; describe one data set "
        "with `fdlsr datasets info NAME`"
    )


# Files whose reading is refused with the fix of naming a variable or an orientation,
# and the options given with them (as keywords; the command line gets the flags).
def _refused_layouts(rng):
    X, y = rng.normal(size=(20, 6)), np.repeat([1, 2], 10)
    return {
        "square samples": ({"X": rng.normal(size=(4, 4)), "y": [1, 1, 2, 2]}, {}),
        "unknown x": ({"X": X, "y": y}, {"x": "Q"}),
        "two layouts": ({"X": X, "y": y, "fea": X, "gnd": y}, {}),
        "nothing fits x": ({"A": X, "B": y, "C": X[:5]}, {"x": "C"}),
        "no layout": ({"A": X[:, :1].T, "B": X}, {}),
        "labels not a vector": ({"X": X, "L": rng.normal(size=(20, 3))},
                                {"x": "X", "y": "L"}),
        "four dimensions": ({"X": np.zeros((20, 2, 2, 2)), "y": y}, {}),
        "rows do not match": ({"X": X, "y": y}, {"samples": "columns"}),
        "complex samples": ({"X": X + 1j, "y": y}, {}),
    }  # fmt: skip


PYTHON_KEYWORD = r"\b(x|y|samples)=|samples='"
FLAG = r"--(x|y|samples)\b"


@pytest.mark.parametrize("case", list(_refused_layouts(np.random.default_rng(0))))
def test_a_fix_is_written_as_the_user_gives_options(tmp_path, case):
    """Under the ``fdlsr`` command the fix names --x, --y, --samples; in Python
    x=, y=, samples=: one message, two spellings, never the other one's."""
    arrays, options = _refused_layouts(np.random.default_rng(0))[case]
    path = tmp_path / "d.npz"
    np.savez(path, **arrays)
    with pytest.raises(DatasetError) as refusal:
        load_dataset(path, **options)
    in_python = str(refusal.value)
    assert re.search(PYTHON_KEYWORD, in_python) and not re.search(FLAG, in_python)
    flags = [a for k, v in options.items() for a in (f"--{k}", v)]
    status, _, err = cli(["run", "--dataset", str(path), *flags, "--methods", "LSR",
                          "-k", "1", "--out", str(tmp_path / "o")])  # fmt: skip
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert re.search(FLAG, err) and not re.search(PYTHON_KEYWORD, err), err
