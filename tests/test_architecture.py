"""The package's layers, read from the source: each layer imports only those below it.

    fdlsr.errors              exceptions, usable everywhere
    fdlsr._common              shared helpers and classifier plumbing
    fdlsr._core                the FDLSR model and its solvers
    fdlsr._experiments.methods             the comparison methods and their registry
    fdlsr.persistence         model files: fdlsr.save, fdlsr.load
    fdlsr._experiments         datasets, deep features, protocol, store, reports,
                              figures, CLI

The imports are parsed (not executed), so a lazy import inside a function counts too.
See docs/architecture.md.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import fdlsr

PACKAGE = Path(fdlsr.__file__).parent

# What each layer may import from the package, besides itself.
ALLOWED = {
    "errors": set(),
    "common": {"errors"},
    "core": {"errors", "common"},
    "methods": {"errors", "common", "core"},
    "persistence": {"errors", "common", "core", "methods"},
    "experiments": {"errors", "common", "core", "methods", "persistence"},
}

# The command line parses arguments and hands them over; nothing numerical.
CLI_MAY_IMPORT = {
    "fdlsr._version",
    "fdlsr.errors",
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
    return parts[1] if parts[1] in ALLOWED else None


# Top-level modules outside the layers: the entry points, the version, the helpers
# shared by tests and benchmarks (_testing.py) and the short
# public names (re-exports of fdlsr._experiments.methods.*, fdlsr.datasets and the
# results readers and figures of fdlsr._experiments).
SHORT_NAMES = [
    "datasets.py", "dictionary.py", "relaxed.py", "representation.py", "results.py",
]  # fmt: skip
SOURCES = sorted(
    p for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE or p.name == "errors.py"
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
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    expected = [
        "__init__.py", "__main__.py", "_testing.py", "_version.py", "errors.py",
        *SHORT_NAMES,
    ]  # fmt: skip
    assert top == sorted(expected)
    folders = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    assert folders == sorted(set(ALLOWED) - {"errors"})


@pytest.mark.parametrize(
    "path",
    [
        PACKAGE / "experiments" / "cli.py",
        PACKAGE / "experiments" / "parser.py",
        PACKAGE / "experiments" / "commands" / "__init__.py",
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
    folder = PACKAGE / "experiments" / "commands"
    for name in COMMANDS:
        assert (folder / f"{name}.py").is_file(), name
        assert handler(name).__module__ == f"fdlsr._experiments.commands.{name}"
    handlers = {p.stem for p in folder.glob("*.py")} - {"__init__", "shared"}
    assert handlers == set(COMMANDS)


@pytest.mark.parametrize(
    "source, forbidden",
    [
        ("from ..experiments import planning", {"experiments"}),
        (
            "from ..methods.relaxed._classifier import RelaxedRegressionClassifier",
            {"methods"},
        ),
        (
            "def f():\n    from fdlsr._experiments.store import read_rows",
            {"experiments"},
        ),
        ("import fdlsr._experiments.methods", {"methods"}),
        ("from ..common.linalg import one_hot\nfrom ..errors import FdlsrError", set()),
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


def test_short_names_re_export_without_aliasing_internal_modules():
    """``fdlsr.relaxed`` and its siblings re-export their family's public names; the
    family's internal modules have one name only (no ``fdlsr.relaxed._classifier``)."""
    import sys

    for family in ("relaxed", "representation", "dictionary"):
        short = getattr(fdlsr, family)
        assert sys.modules[f"fdlsr.{family}"] is short
        assert short is not getattr(fdlsr._experiments.methods, family)
        for name in short.__all__:
            assert getattr(short, name) is getattr(
                getattr(fdlsr._experiments.methods, family), name
            )
    with pytest.raises(ModuleNotFoundError):
        __import__("fdlsr.relaxed._classifier")


def test_import_fdlsr_loads_no_module_of_the_experiments_layer():
    """``import fdlsr`` (the estimators, save and load) stays below the experiments;
    ``fdlsr.datasets`` is imported on first use."""
    code = (
        "import sys, fdlsr; "
        "print(sorted(m for m in sys.modules if m.startswith('fdlsr._experiments')))"
        "; fdlsr.datasets.load_dataset; print('fdlsr._experiments' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[:2] == ["[]", "True"]


def test_save_and_load_are_defined_below_the_experiments():
    for function in (fdlsr.save, fdlsr.load):
        assert layer(function.__module__) == "persistence", function.__module__


def test_model_file_allowlist_names_no_private_class_itself():
    """The allowlist takes the package's classes from the families' declarations
    (``MODEL_FILE_CLASSES``), never by importing a private module of a lower layer."""
    folder = PACKAGE / "persistence"
    for path in folder.glob("*.py"):
        for module in imported_modules(path):
            parts = module.split(".")
            assert not (
                parts[0] == "fdlsr"
                and any(p.startswith("_") for p in parts[1:])
                and parts[1] != "_version"
            ), (path.name, module)
