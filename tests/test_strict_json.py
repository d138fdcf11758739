"""JSON is read strictly, by one reader that every JSON file of the package goes
through: a key named twice, NaN and infinities (where fdlsr never writes them) are
refused, never read one of two ways."""

import ast
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fdlsr
from fdlsr._common import strict_json
from fdlsr._common.strict_json import JSONError, JSONSyntaxError, RepeatedKeyError
from fdlsr._experiments.store import read_info
from fdlsr._experiments.store_folder import MARK, check_store
from fdlsr.datasets._load import feature_record
from fdlsr.errors import FdlsrError

PACKAGE = Path(fdlsr.__file__).parent


@pytest.mark.parametrize(
    "text",
    [
        '{"accuracy": 0.3, "accuracy": 0.99}',
        '[{"a": {"b": 1, "b": 1}}]',  # at any depth, even with equal values
        b'{"x": 1, "x": 2}',
    ],
)
def test_a_key_named_twice_is_refused(text):
    with pytest.raises(RepeatedKeyError, match="names the key '.+' twice"):
        strict_json.loads(text)


@pytest.mark.parametrize("text", ["NaN", '{"a": Infinity}', "[-Infinity]", "1e999"])
def test_non_finite_numbers_are_refused_unless_allowed(text):
    with pytest.raises(JSONError, match="NaN|Infinity|beyond a float's range"):
        strict_json.loads(text)
    value = strict_json.loads(text, allow_nan=True)  # what json.dumps writes
    assert json.dumps(value) == json.dumps(json.loads(text))


@pytest.mark.parametrize(
    "text, error",
    [
        (b"\xff{}", JSONSyntaxError),  # not UTF-8
        ("\ufeff{}", JSONSyntaxError),  # no encoding is guessed
        ('{"a": 1', JSONSyntaxError),  # cut short
        ("[" * 100_000 + "]" * 100_000, JSONSyntaxError),
        ("9" * 5000, JSONError),  # whole JSON, more digits than Python reads
    ],
    ids=["not UTF-8", "BOM", "cut short", "deep", "long integer"],
)
def test_what_is_not_json_is_one_error(text, error):
    with pytest.raises(error) as raised:
        strict_json.loads(text)
    assert isinstance(raised.value, FdlsrError) and "\n" not in str(raised.value)
    assert len(str(raised.value)) < 300


@settings(max_examples=400, deadline=None)
@given(data=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_any_bytes_give_a_value_or_one_error(data):
    try:
        value = strict_json.loads(data)
    except FdlsrError as error:
        assert isinstance(error, JSONError) and "\n" not in str(error)
        return
    # what it reads, Python's reader reads the same, and it holds no NaN
    expected = json.loads(data.decode("utf-8"))
    assert json.dumps(value, allow_nan=False) == json.dumps(expected)


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(value=JSON_VALUES, indent=st.none() | st.integers(0, 2))
def test_what_json_dumps_writes_reads_back(value, indent):
    text = json.dumps(value, indent=indent)
    assert strict_json.loads(text) == value
    assert strict_json.loads(text.encode()) == value


@settings(max_examples=100, deadline=None)
@given(
    pairs=st.dictionaries(st.text(max_size=5), st.integers(), min_size=1), at=st.data()
)
def test_a_key_repeated_anywhere_in_an_object_is_refused(pairs, at):
    keys = list(pairs)
    twice = at.draw(st.sampled_from(keys))
    items = [f"{json.dumps(k)}: {v}" for k, v in pairs.items()]
    items.insert(at.draw(st.integers(0, len(items))), f"{json.dumps(twice)}: 0")
    with pytest.raises(RepeatedKeyError):
        strict_json.loads("{" + ", ".join(items) + "}")


def test_every_json_reader_of_the_package_is_the_strict_one():
    """No module but strict_json calls json.load or json.loads (or reads JSON with
    pandas), so that a new reader cannot read a repeated key last-wins."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "strict_json.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Attribute) and node.attr in (
                "load",
                "loads",
                "read_json",
                "JSONDecoder",
            ):
                owner = node.value
                if isinstance(owner, ast.Name) and owner.id in ("json", "pd", "pandas"):
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
            if isinstance(node, ast.ImportFrom) and node.module == "json":
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert not found


# -- each reader -----------------------------------------------------------------------


def test_a_store_mark_naming_a_key_twice_is_not_a_mark(tmp_path):
    (tmp_path / MARK).write_text(
        '{"format": "fdlsr results store", "version": 2, "version": 1}\n'
    )
    with pytest.raises(FdlsrError, match="not fdlsr's mark"):
        check_store(tmp_path)


def test_experiment_json_naming_a_key_twice_is_not_read(tmp_path):
    (tmp_path / "experiment.json").write_text('{"commands": ["a"], "commands": ["b"]}')
    info, notice = read_info(tmp_path)
    assert info == {} and "names the key 'commands' twice" in notice


def test_a_feature_record_naming_a_key_twice_is_no_record():
    record = np.array('{"model": "resnet18", "model": "vgg16"}')
    assert feature_record({"record": record}) is None
    assert feature_record({"record": np.array('{"model": "vgg16"}')}) == {
        "model": "vgg16"
    }


def test_a_feature_record_holding_nan_is_no_record():
    assert feature_record({"record": np.array('{"mean": [NaN, 0.4]}')}) is None


def test_a_model_file_naming_a_key_twice_is_refused(tmp_path):
    import zipfile

    from fdlsr import FDLSR

    rng = np.random.default_rng(0)
    model = FDLSR().fit(rng.random((12, 4)), np.repeat([0, 1, 2], 4))
    path = tmp_path / "m.fdlsr"
    fdlsr.save(model, path)
    with zipfile.ZipFile(path) as archive:
        members = {info: archive.read(info) for info in archive.infolist()}
    altered = tmp_path / "altered.fdlsr"
    with zipfile.ZipFile(altered, "w") as archive:
        for info, data in members.items():
            if info.filename == "model.json":
                text = data.decode()
                data = text.replace('"format":', '"format": "x", "format":', 1).encode()
            archive.writestr(info, data)
    with pytest.raises(
        fdlsr.errors.ModelFileError, match="names the key 'format' twice"
    ):
        fdlsr.load(altered)
    assert math.isfinite(fdlsr.load(path).alpha)
