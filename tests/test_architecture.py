"""The package's layers, read from the source: each layer imports only those below it.

    errors        fdlsr.errors: exceptions, usable everywhere
    common        fdlsr._common: shared helpers and classifier plumbing
    splitters     fdlsr.model_selection: the paper's per-class split
    core          fdlsr._core: the FDLSR model and its solvers
    methods       fdlsr.relaxed, .representation, .dictionary, ._baselines: the
                  comparison methods and the scikit-learn baselines
    persistence   fdlsr.persistence: model files (fdlsr.save, fdlsr.load)
    experiments   fdlsr._experiments (protocol, store, reports, figures, CLI) and the
                  public modules over it: fdlsr.datasets, .features, .figures, .results

The imports are parsed (not executed), so a lazy import inside a function counts too.
The public surface is the one docs/api.rst lists: each of its names is importable from
the module the page gives and from no other public module. See docs/architecture.md.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import fdlsr

PACKAGE = Path(fdlsr.__file__).parent

# The layer of each top-level name of the package.
LAYER_OF = {
    "errors": "errors",
    "_common": "common",
    "model_selection": "splitters",
    "_core": "core",
    "relaxed": "methods",
    "representation": "methods",
    "dictionary": "methods",
    "_baselines": "methods",
    "persistence": "persistence",
    "_experiments": "experiments",
    "datasets": "experiments",
    "experiments": "experiments",
    "features": "experiments",
    "figures": "experiments",
    "results": "experiments",
}
# What each layer may import from the package, besides itself.
ALLOWED = {
    "errors": set(),
    "common": {"errors"},
    "splitters": {"errors", "common"},
    "core": {"errors", "common", "splitters"},
    "methods": {"errors", "common", "splitters", "core"},
    "persistence": {"errors", "common", "splitters", "core", "methods"},
    "experiments": {"errors", "common", "splitters", "core", "methods", "persistence"},
}

# The command line parses arguments and hands them over; nothing numerical.
CLI_MAY_IMPORT = {
    "fdlsr._version",
    "fdlsr.errors",
    "fdlsr._common.messages",
    "fdlsr._experiments.commands",
    "fdlsr._experiments.parser",
    "fdlsr._experiments.config",
}
NUMERICAL = {
    "numpy", "scipy", "sklearn", "matplotlib", "dask", "torch", "torchvision", "timm",
    "PIL",
}  # fmt: skip


def module_name(path, root=PACKAGE):
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path, name=None):
    """Absolute names of every module ``path`` imports, relative imports resolved.

    ``name`` is the module's dotted name (default: from its place in the package).
    """
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            found.add(target)
            # "from . import x" imports the module x.
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


def layer(module):
    """The layer of an ``fdlsr.*`` module name (None outside the package)."""
    parts = module.split(".")
    if parts[0] != "fdlsr" or len(parts) < 2:
        return None
    return LAYER_OF.get(parts[1])


# Top-level modules outside the layers: the entry points, the version and the helpers
# shared by tests and benchmarks (_testing.py).
OUTSIDE = ["__init__.py", "__main__.py", "_testing.py", "_version.py"]
SOURCES = sorted(
    p for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE or p.name not in OUTSIDE
)


def forbidden_imports(path, name=None):
    """The layers that ``path`` imports from but may not."""
    own = layer(name or module_name(path))
    assert own is not None, f"{name or module_name(path)} is in no layer"
    reached = {layer(m) for m in imported_modules(path, name)} - {None, own}
    return reached - ALLOWED[own]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: module_name(p))
def test_imports_follow_the_layers(path):
    assert not forbidden_imports(path), module_name(path)


def test_every_module_is_in_a_layer():
    top = {p.stem for p in PACKAGE.glob("*.py") if p.name not in OUTSIDE}
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert top | folders == set(LAYER_OF)
    assert not top & folders


@pytest.mark.parametrize(
    "path",
    [
        PACKAGE / "_experiments" / "cli.py",
        PACKAGE / "_experiments" / "parser.py",
        PACKAGE / "_experiments" / "commands" / "__init__.py",
    ],
    ids=lambda p: module_name(p),
)
def test_command_line_holds_no_logic(path):
    imports = imported_modules(path)
    # "from . import commands" records the package itself too; "from m import n", m.n
    allowed = CLI_MAY_IMPORT | {"fdlsr._experiments"}
    for module in (m for m in imports if m.startswith("fdlsr")):
        assert module in allowed or module.rpartition(".")[0] in allowed, module
    assert not {m.split(".")[0] for m in imports} & NUMERICAL


def test_each_sub_command_has_its_handler_module():
    """``fdlsr NAME`` is handled by ``main`` in ``experiments/commands/NAME.py``."""
    from fdlsr._experiments.cli import build_parser
    from fdlsr._experiments.commands import COMMANDS, handler

    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.dest == "command"]
    assert sorted(sub.choices) == sorted(COMMANDS)
    folder = PACKAGE / "_experiments" / "commands"
    for name in COMMANDS:
        assert (folder / f"{name}.py").is_file(), name
        assert handler(name).__module__ == f"fdlsr._experiments.commands.{name}"
    handlers = {p.stem for p in folder.glob("*.py")} - {"__init__", "shared"}
    assert handlers == set(COMMANDS)


@pytest.mark.parametrize(
    "source, forbidden",
    [
        ("from .._experiments import planning", {"experiments"}),
        (
            "from ..relaxed._classifier import RelaxedRegressionClassifier",
            {"methods"},
        ),
        (
            "def f():\n    from fdlsr._experiments.store import read_rows",
            {"experiments"},
        ),
        ("import fdlsr.datasets", {"experiments"}),
        (
            "from .._common.linalg import one_hot\nfrom ..errors import FdlsrError",
            set(),
        ),
        ("from ..model_selection import PerClassSplit", set()),
    ],
)
def test_the_check_sees_a_violation(tmp_path, source, forbidden):
    fake = tmp_path / "fake.py"
    fake.write_text(source + "\n")
    assert forbidden_imports(fake, "fdlsr._core.fake") == forbidden


def package_modules(root):
    """``{dotted name: path}`` of every module of the package at ``root``."""
    return {module_name(path, root): path for path in root.rglob("*.py")}


def import_graph(root=PACKAGE):
    """``{module: the package's modules it imports}``, read from the source: imports
    inside functions count. ``from P import name`` imports the module ``P.name`` when
    there is one, else ``P``; a module's own package, initialised first by Python,
    is no edge of its own."""
    modules = package_modules(root)
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name in modules)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".")
                    base = parts[: len(parts) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module
                names = [f"{target}.{alias.name}" for alias in node.names]
                found.update(n for n in names if n in modules)
                if target in modules and not all(n in modules for n in names):
                    found.add(target)
        graph[name] = found - {name}
    return graph


def import_cycles(graph):
    """The groups of modules that import each other, directly or through others
    (the strongly connected components of ``graph`` with more than one module)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(module):  # Tarjan's algorithm
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in sorted(graph.get(module, ())):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                group.append(other)
                if other == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return groups


def test_no_modules_import_each_other():
    """Each function lives with what it is about: no two modules of the package
    import each other, directly or in a circle through others."""
    graph = import_graph()
    assert "fdlsr._experiments.store" in graph["fdlsr._experiments.run"]  # parsed
    assert import_cycles(graph) == []


def test_the_cycle_check_sees_a_circle(tmp_path):
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "a.py").write_text("from .sub import b\n")
    (root / "sub" / "__init__.py").write_text("from . import b\n")  # no circle
    (root / "sub" / "b.py").write_text("def f():\n    from ..c import g\n")
    (root / "c.py").write_text("import pkg.a\n")
    (root / "d.py").write_text("from .sub import b\n")
    graph = import_graph(root)
    assert import_cycles(graph) == [["pkg.a", "pkg.c", "pkg.sub.b"]]
    assert graph["pkg.sub"] == {"pkg.sub.b"}


def api_names():
    """``[(module, name)]``: every public name that docs/api.rst lists, by the module
    the page gives it (``currentmodule`` fdlsr, then ``relaxed.DLSR`` and so on)."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "api.rst").read_text()
    names = []
    for line in text.splitlines():
        entry = line.strip()
        if line.startswith("   ") and entry and not entry.startswith(":"):
            module, _, name = f"fdlsr.{entry}".rpartition(".")
            names.append((module, name))
    return names


def public_modules():
    """The package's modules whose dotted name has no part starting with ``_``."""
    names = {module_name(path) for path in PACKAGE.rglob("*.py")}
    return sorted(n for n in names if not any(p.startswith("_") for p in n.split(".")))


def test_every_name_of_the_api_pages_is_importable_from_its_one_path():
    import importlib

    listed = api_names()
    assert len(listed) > 40 and ("fdlsr.model_selection", "PerClassSplit") in listed
    where = {}
    for module in public_modules():
        exported = getattr(importlib.import_module(module), "__all__", [])
        for name in exported:
            if not name.startswith("__"):  # __version__
                where.setdefault(name, []).append(module)
    for module, name in listed:
        assert hasattr(importlib.import_module(module), name), (module, name)
        # exported by the module the page gives, and by no other public module
        assert where.get(name, [module]) == [module], (name, where.get(name))
    # and every name a public module exports is on the pages
    assert {(m, n) for n, ms in where.items() for m in ms} <= set(listed)


def test_errors_exports_its_exceptions_and_nothing_else():
    """``fdlsr.errors`` is the exceptions and warnings a user may catch; the helpers
    that word their messages live in ``fdlsr._common.messages``."""
    import inspect

    from fdlsr import errors

    assert errors.__all__ and len(set(errors.__all__)) == len(errors.__all__)
    for name in errors.__all__:
        value = getattr(errors, name)
        assert inspect.isclass(value) and issubclass(value, Exception), name
    public = {n for n in vars(errors) if not n.startswith("_")}
    assert public == set(errors.__all__)


def test_public_packages_hold_no_helper_names():
    """A public package's names are its ``__all__`` (and its submodules): a helper
    class or a declaration for the model-file allowlist is private by name."""
    import importlib
    import types

    for module in public_modules():
        namespace = importlib.import_module(module)
        exported = set(getattr(namespace, "__all__", ()))
        leaked = {
            name
            for name, value in vars(namespace).items()
            if not name.startswith("_")
            and name not in exported
            and not isinstance(value, types.ModuleType)
        }
        assert not leaked, (module, sorted(leaked))


def test_import_fdlsr_loads_no_module_of_the_experiments_layer():
    """``import fdlsr`` (the estimators, save and load) stays below the experiments;
    ``fdlsr.datasets`` is imported on first use."""
    code = (
        "import sys, fdlsr; "
        "print(sorted(m for m in sys.modules if m.startswith('fdlsr._experiments')))"
        "; fdlsr.datasets.load_dataset; print('fdlsr.datasets' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[:2] == ["[]", "True"]


def test_save_and_load_are_defined_below_the_experiments():
    for function in (fdlsr.save, fdlsr.load):
        assert layer(function.__module__) == "persistence", function.__module__


def test_model_file_allowlist_is_what_the_families_declare():
    """The allowlist takes the package's classes from each family's declaration
    (``_MODEL_FILE_CLASSES``), never from the experiments' registry."""
    from fdlsr import _baselines, _core, dictionary, relaxed, representation
    from fdlsr._common import classifiers, normalizer
    from fdlsr._experiments.registry import METHODS
    from fdlsr.persistence._encoding import allowed_classes

    declared = set()
    families = (classifiers, normalizer, _core, relaxed, representation, dictionary)
    for family in (*families, _baselines):
        declared.update(family._MODEL_FILE_CLASSES)
    ours = {c for c in allowed_classes().values() if c.__module__.startswith("fdlsr")}
    assert ours == declared
    # every registered method's estimator can be saved
    assert {type(m.build()) for m in METHODS.values()} <= set(
        allowed_classes().values()
    )
    for path in (PACKAGE / "persistence").glob("*.py"):
        assert layer_reached(path) <= ALLOWED["persistence"] | {"persistence"}


def layer_reached(path):
    return {layer(m) for m in imported_modules(path)} - {None}
