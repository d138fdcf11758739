"""fdlsr._experiments.registry: each default lives in the estimator's ``__init__`` only; a
registry entry states what differs from it, and its settings take their values from
there."""

import ast
import inspect
from pathlib import Path

import pytest

import fdlsr._experiments.registry
from fdlsr._experiments.registry import METHODS, Method
from fdlsr.relaxed import LSR

REGISTRIES = [Path(fdlsr._experiments.registry.__file__)]


def defaults(factory):
    return {
        name: p.default
        for name, p in inspect.signature(factory).parameters.items()
        if p.default is not inspect.Parameter.empty
    }


def registry_entries():
    """``(name, {parameter: value})`` of every ``Method(...)`` call's ``params=``."""
    for path in REGISTRIES:
        for node in ast.walk(ast.parse(path.read_text())):
            if not (
                isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Method"
            ):
                continue
            name = ast.literal_eval(node.args[0])
            given = {}
            for keyword in node.keywords:
                if keyword.arg == "params":
                    call = keyword.value
                    assert isinstance(call, ast.Call), f"{name}: params=dict(...)"
                    given = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
            yield name, given


def test_the_scan_finds_every_entry():
    assert {name for name, _ in registry_entries()} == set(METHODS)


@pytest.mark.parametrize(("name", "given"), list(registry_entries()))
def test_entries_give_only_values_that_differ_from_the_defaults(name, given):
    own = defaults(METHODS[name].factory)
    restated = sorted(k for k, v in given.items() if k in own and own[k] == v)
    assert not restated, f"{name} restates its estimator's defaults for {restated}"


@pytest.mark.parametrize("method", METHODS.values(), ids=lambda m: m.name)
def test_settings_take_their_values_from_the_defaults_or_the_entry(method):
    own = defaults(method.factory)
    built = method.build().get_params(deep=False)
    for name in method.settings:
        assert method.params[name] == built[name]
        assert name in method.params
    for name, value in method.params.items():
        assert built[name] == value
        assert name in method.settings or value != own[name]


def test_settings_are_listed_in_their_order_then_the_other_values():
    method = Method(
        "m", LSR, "relaxed", "", params=dict(solver="dual", lam=2.0), settings=("lam",)
    )
    assert list(method.params.items()) == [("lam", 2.0), ("solver", "dual")]
    assert Method("m", LSR, "relaxed", "", settings=("lam",)).params == {"lam": 0.1}


@pytest.mark.parametrize("where", ["params", "settings"])
def test_a_name_the_estimator_does_not_take_is_refused(where):
    bad = {"params": {"params": {"alpah": 1.0}}, "settings": {"settings": ("alpah",)}}
    with pytest.raises(ValueError, match="no parameter 'alpah'"):
        Method("m", LSR, "relaxed", "", **bad[where])
