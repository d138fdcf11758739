"""Experiment configs: one schema, one-line errors naming the key, and where a config
comes from (a shipped name or a path, never a path dressed as a shipped name)."""

import datetime
import json
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fdlsr._experiments.cli import main
from fdlsr._experiments.config import SCHEMA, load_config, shipped_configs
from fdlsr._testing import cli_error
from fdlsr.errors import ConfigError


def write_config(path, text):
    path.write_text('dataset = "digits"\n' + text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "text, key",
    [
        ('normalise = "false"', "normalise"),
        ('splits = "abc"', "splits"),
        ("methods = 5", "methods"),
        ("cv = 3", "cv"),
        ("k = 2.5", "k"),
        ('k = [2, "three"]', "k"),
        ("splits = true", "splits"),
        ("splits = 0", "splits"),
        ("seed = 1.5", "seed"),
        ("cv_folds = 1", "cv_folds"),
        ("title = 3", "title"),
        ("methods = []", "methods"),
        ('methods = ["all", "LSR"]', "methods"),  # "all" stands alone
        ('methods = ["ALL"]', "methods"),
        ('paper_table = "VII"', "paper_table"),  # the paper has tables I-VI
        ("params = 3", "params"),
        ("[params]\nFDLSR = 3", "params.FDLSR"),
        ('[figures]\nk = "x"', "figures.k"),
        ("[figures]\nsize = 3", "figures.size"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_key(tmp_path, capsys, text, key):
    path = write_config(tmp_path / "c.toml", text + "\n")
    line = cli_error(capsys, ["run", "--config", str(path), "--out", str(tmp_path)])
    assert f"{key} " in line and "expected" in line, line
    assert not (tmp_path / "results.jsonl").exists()


@pytest.mark.parametrize(
    "text, refused",
    [
        ("k = [2]\ncv_folds = 2", "cv_folds = 2 applies when cv names a method"),
        ("k = [2]\ncv = []\ncv_folds = 2", "cv_folds = 2 applies when cv names"),
        ('k = "fixed"\nsplits = 3', "splits = 3 applies with a k that is a number"),
    ],
)
def test_a_config_key_that_does_not_apply_is_refused(tmp_path, capsys, text, refused):
    """As the command line's --cv-folds without --cv: refused, never ignored."""
    path = write_config(tmp_path / "c.toml", text + "\n")
    line = cli_error(capsys, ["run", "--config", str(path), "--out", str(tmp_path)])
    assert refused in line, line
    applies = write_config(tmp_path / "ok.toml", 'k = [2, "fixed"]\nsplits = 3\n')
    assert load_config(applies).experiment.splits == 3
    tuned = 'k = [2]\ncv = ["FDLSR"]\ncv_folds = 2\n'
    assert (
        load_config(write_config(tmp_path / "cv.toml", tuned)).experiment.cv_folds == 2
    )


def test_missing_dataset_and_booleans_that_are_booleans(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("k = 2\n")
    with pytest.raises(ConfigError, match="dataset"):
        load_config(path)
    ex = load_config(write_config(path, "normalise = false\nk = 2\n")).experiment
    assert ex.normalize is False and ex.ks == [2]


def test_every_shipped_config_fits_the_schema():
    for name in shipped_configs():
        config = load_config(name)
        assert config.source == f"shipped config {name}"
        assert config.experiment.resolved()


def test_a_config_that_tunes_a_method_and_fixes_its_grid_is_refused(tmp_path, capsys):
    """`cv = ["FDLSR"]` means the whole grid, as --cv FDLSR: [params.FDLSR] values
    the search chooses are a contradiction, said in one line, not silently taken
    out of the grid; values outside the grid stay fixed during the search."""
    tuned = 'methods = ["FDLSR"]\nk = [2]\nsplits = 1\ncv = ["FDLSR"]\n'
    for params, named in (
        ("alpha = 0.1\nbeta = 0.01\nlam = 0.1", "alpha, beta, lam"),
        ("alpha = 0.1", "alpha"),
    ):
        path = write_config(tmp_path / "c.toml", f"{tuned}[params.FDLSR]\n{params}\n")
        line = cli_error(capsys, ["run", "--config", str(path), "--out", str(tmp_path)])
        assert f"cv names FDLSR, whose {named} cross-validation chooses" in line
        assert "[params.FDLSR]" in line and "or FDLSR from cv" in line
    rules = tuned + 'cv_rules = true\n[params.FDLSR]\ndecision_rule = "knn"\n'
    with pytest.raises(ConfigError, match="whose decision_rule cross-validation"):
        load_config(write_config(tmp_path / "c.toml", rules))
    kept = tuned + '[params.FDLSR]\ndecision_rule = "knn"\n'
    experiment = load_config(write_config(tmp_path / "c.toml", kept)).experiment
    assert experiment.params == {"FDLSR": {"decision_rule": "knn"}}
    assert not (tmp_path / "results.jsonl").exists()


# --- where a config comes from ----------------------------------------------------


def test_a_path_is_never_a_shipped_config(tmp_path, monkeypatch, capsys):
    """``../../evil`` once resolved inside the shipped folder to a file outside it."""
    from importlib import resources

    shipped = resources.files("fdlsr._experiments") / "configs"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    write_config(elsewhere / "evil.toml", "k = 2\nmethods = ['1-NN']\nsplits = 1\n")
    up = "../" * len(Path(str(shipped)).resolve().parts)
    sneaky = up + str(elsewhere / "evil").lstrip("/")
    monkeypatch.chdir(tmp_path)
    line = cli_error(capsys, ["run", "--config", sneaky, "--out", str(tmp_path / "r")])
    assert "not found" in line
    # the same file by its real path loads, and the store says it was a file
    out = tmp_path / "r"
    path = elsewhere / "evil.toml"
    assert main(["run", "--config", str(path), "--out", str(out), "--no-table"]) == 0
    (table,) = json.loads((out / "experiment.json").read_text())["tables"].values()
    source = table["source"]
    assert source == f"config file {path.resolve()}"
    assert not source.startswith("shipped")
    # a shipped name is a shipped config, even when a file of that name is here
    (tmp_path / "digits").write_text("not toml at all [")
    assert load_config("digits").source == "shipped config digits"
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config("./digits")


def test_a_name_that_is_not_shipped_is_a_missing_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match="not found.*shipped configs"):
        load_config("feret_v2")
    with pytest.raises(ConfigError, match="not found"):
        load_config("configs/feret")


# --- property: any TOML value for any key, any bytes ------------------------------

BARE = string.ascii_letters + string.digits + "_-"


def toml_string(text):
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def toml_value(value):
    """``value`` written as a TOML value (inline tables for dicts)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return {"inf": "inf", "-inf": "-inf", "nan": "nan"}.get(
            repr(value), repr(value)
        )
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return (
        "{"
        + ", ".join(f"{toml_string(k)} = {toml_value(v)}" for k, v in value.items())
        + "}"
    )


scalars = st.one_of(
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=True),
    st.text(max_size=12),
    st.sampled_from(["all", "fixed", "FDLSR", "1-NN", "I", "true", "10", ""]),
    st.dates(),
    st.datetimes(),
    st.times(),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(["k", "FDLSR", "alpha", "lam", "x"]), inner, max_size=3
        ),
    ),
    max_leaves=8,
)


def check_loaded_or_one_line(path, key):
    try:
        config = load_config(path)
        config.experiment.resolved()
    except ConfigError as error:
        text = str(error)
        assert "\n" not in text and text, text
        assert "np." not in text
        return
    ex = config.experiment
    assert isinstance(ex.splits, int) and not isinstance(ex.splits, bool)
    assert isinstance(ex.seed, int) and not isinstance(ex.seed, bool)
    assert isinstance(ex.normalize, bool) and isinstance(ex.methods, list)
    assert all(k == "fixed" or type(k) is int for k in ex.ks)
    assert all(isinstance(m, str) for m in ex.methods + ex.cv)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(key=st.sampled_from(sorted(SCHEMA)), value=values)
def test_any_value_for_any_key_loads_or_is_one_line(tmp_path, key, value):
    path = tmp_path / "c.toml"
    head = "" if key == "dataset" else 'dataset = "digits"\n'
    path.write_text(f"{head}{key} = {toml_value(value)}\n", encoding="utf-8")
    check_loaded_or_one_line(path, key)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.binary(max_size=64) | st.text(max_size=64).map(str.encode))
def test_any_bytes_load_or_are_one_line(tmp_path, data):
    path = tmp_path / "c.toml"
    path.write_bytes(data)
    check_loaded_or_one_line(path, None)


def test_a_bad_config_through_the_command_is_exit_2_without_traceback(tmp_path, capsys):
    path = tmp_path / "c.toml"
    path.write_bytes(b"\xff\xfe dataset = 1")
    assert "c.toml" in cli_error(capsys, ["run", "--config", str(path)])


class Accepted(Exception):
    """The command got past every check and was about to run."""


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(key=st.sampled_from(sorted(SCHEMA)), value=values, raw=st.binary(max_size=32))
def test_the_command_runs_or_exits_2_with_one_line(
    tmp_path, monkeypatch, capsys, key, value, raw
):
    """End to end: any value for any key (or any bytes) either reaches the run or
    is exit status 2 with one line on stderr, never a traceback."""
    from fdlsr._experiments import run

    def accepted(*args, **kwargs):
        raise Accepted

    monkeypatch.setattr(run, "run_units", accepted)
    head = "" if key == "dataset" else 'dataset = "digits"\nk = 2\n'
    texts = [f"{head}{key} = {toml_value(value)}\n".encode(), raw]
    for text in texts:
        path = tmp_path / "c.toml"
        path.write_bytes(text)
        try:
            main(["run", "--config", str(path), "--out", str(tmp_path / "out")])
        except Accepted:
            capsys.readouterr()
            continue
        except SystemExit as exit_info:
            assert exit_info.code == 2
            lines = capsys.readouterr().err.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("fdlsr: error: "), lines
            continue
        raise AssertionError("neither ran nor refused")
