"""Every estimator of fdlsr keeps its parameters scikit-learn's way: ``__init__``
assigns each parameter of its signature by name (``self.alpha = alpha``) and does
nothing else, so that a reader follows a parameter from the signature, and
get_params, set_params and clone give back exactly the values passed."""

import ast
import importlib
import inspect
import pkgutil
import textwrap

import pytest
from sklearn.base import BaseEstimator, clone

import fdlsr


def _estimator_classes():
    """The classes of fdlsr's library layers that define an estimator's ``__init__``."""
    found = {}
    packages = ("fdlsr._common", "fdlsr._core", "fdlsr.relaxed", "fdlsr.representation")
    for package in (*packages, "fdlsr.dictionary", "fdlsr._baselines"):
        root = importlib.import_module(package)
        names = [package] + [
            info.name for info in pkgutil.walk_packages(root.__path__, package + ".")
        ]
        for name in names:
            module = importlib.import_module(name)
            for cls in vars(module).values():
                if (
                    inspect.isclass(cls)
                    and issubclass(cls, BaseEstimator)
                    and cls.__module__.startswith("fdlsr.")
                    and "__init__" in vars(cls)
                ):
                    found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return found


CLASSES = _estimator_classes()


def test_the_estimators_are_found():
    # The walk must reach the public estimators, or the tests below check nothing.
    assert {"FDLSR", "FDLSRCV", "DLSR", "SRC", "FDDL", "LCKSVD2"} <= {
        cls.__name__ for cls in CLASSES.values()
    }


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_init_assigns_each_parameter_by_name_and_nothing_else(name):
    cls = CLASSES[name]
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls.__init__)))
    init = tree.body[0]
    body = init.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
    ):
        body = body[1:]  # a docstring
    params = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    assigned = []
    for statement in body:
        assert isinstance(statement, ast.Assign), (
            f"{name}.__init__ does more than assign its parameters: "
            f"{ast.unparse(statement)}"
        )
        (target,) = statement.targets
        assert (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
            and isinstance(statement.value, ast.Name)
            and statement.value.id == target.attr
        ), f"{name}.__init__: {ast.unparse(statement)} is not self.<p> = <p>"
        assigned.append(target.attr)
    assert sorted(assigned) == sorted(params), name


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_get_params_set_params_and_clone_give_back_the_values(name):
    cls = CLASSES[name]
    params = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    # A distinct value per parameter: one stored under another's name shows (strings:
    # clone deep-copies parameters, and a copied string is the same object).
    given = {p: f"given {p}" for p in params}
    est = cls(**given)
    assert est.get_params(deep=False) == given
    assert all(est.get_params(deep=False)[p] is given[p] for p in params)
    copy = clone(est)  # clone itself refuses a parameter changed by __init__
    assert copy.get_params(deep=False) == given
    other = {p: f"set {p}" for p in params}
    assert cls().set_params(**other).get_params(deep=False) == other
    assert all(getattr(est, p) is given[p] for p in params)


def test_fdlsr_is_among_them():
    assert f"{fdlsr.FDLSR.__module__}.FDLSR" in CLASSES
