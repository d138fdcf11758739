"""Method parameters are checked against each estimator's own constraints before any
run: a bad value, a negative one or an unknown name is exit 2 and nothing is stored."""

import pytest

from fdlsr._experiments.planning import Experiment
from fdlsr._experiments.registry import METHODS
from fdlsr._testing import cli_error
from fdlsr.errors import ConfigError

SMALL = [
    "--dataset",
    "digits",
    "--methods",
    "FDLSR",
    "1-NN",
    "-k",
    "2",
    "--splits",
    "1",
]


@pytest.mark.parametrize(
    "param, words",
    [
        ("FDLSR.alpha=abc", ["FDLSR.alpha", "'abc'", "float"]),
        ("FDLSR.lam=-1", ["FDLSR.lam", "-1", "range"]),
        ("FDLSR.alpa=1", ["no parameter 'alpa'", "alpha"]),
        ("FDLSR.alpha=True", ["FDLSR.alpha", "True", "number"]),
        ("1-NN.n_neighbors=0", ["1-NN.n_neighbors", "0"]),
        ("FDLSR.t_step=fast", ["FDLSR.t_step", "'fast'"]),
    ],
)
def test_run_refuses_bad_parameters_before_any_run(tmp_path, capsys, param, words):
    out = tmp_path / "res"
    line = cli_error(capsys, ["run", *SMALL, "--out", str(out), "--params", param])
    assert all(w in line for w in words), line
    assert "np." not in line
    assert not out.exists()  # nothing written: no store, no failed rows


def test_config_parameters_are_checked_too(tmp_path, capsys):
    path = tmp_path / "c.toml"
    path.write_text(
        'dataset = "digits"\nk = 2\nsplits = 1\nmethods = ["FDLSR"]\n'
        '[params.FDLSR]\nlam = "0.1"\n'
    )
    out = tmp_path / "res"
    line = cli_error(capsys, ["run", "--config", str(path), "--out", str(out)])
    assert "FDLSR.lam" in line and "'0.1'" in line
    assert not out.exists()


@pytest.mark.parametrize(
    "param, words",
    [
        ("alpha=-1", ["FDLSR.alpha", "-1"]),
        ("alpa=0.1", ["no parameter 'alpa'"]),
        ("lam=abc", ["FDLSR.lam", "'abc'"]),
        ("LSR.alpha=0.1", ["FDLSR", "LSR.alpha"]),
    ],
)
def test_plot_refuses_bad_parameters_before_drawing(tmp_path, capsys, param, words):
    out = tmp_path / "fig"
    line = cli_error(
        capsys,
        ["plot", "lambda", "--dataset", "digits", "-k", "2", "--out", str(out),
         "--params", param],
    )  # fmt: skip
    assert all(w in line for w in words), line
    assert not out.exists()


def test_every_method_accepts_its_defaults_and_refuses_a_wrong_type():
    for method in METHODS.values():
        Experiment("digits", [2], [method.name]).resolved()
        for name, value in method.params.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            bad = Experiment(
                "digits", [2], [method.name], params={method.name: {name: "abc"}}
            )
            with pytest.raises(ConfigError, match=f"{method.name}.{name}"):
                bad.resolved()
