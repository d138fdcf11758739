"""The package's layers, read from the source: each layer imports only those below it.

    fdlsr.errors              exceptions, usable everywhere
    fdlsr.common              shared helpers and classifier plumbing
    fdlsr.core                the FDLSR model and its solvers
    fdlsr.methods             the comparison methods and their registry
    fdlsr.experiments         datasets, deep features, protocol, store, reports,
                              figures, CLI

The imports are parsed (not executed), so a lazy import inside a function counts too.
See docs/architecture.md.
"""

import ast
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
    "experiments": {"errors", "common", "core", "methods"},
}

# The command line parses arguments and hands them over; nothing numerical.
CLI_MAY_IMPORT = {
    "fdlsr.errors",
    "fdlsr.experiments.commands",
    "fdlsr.experiments.config",
}
NUMERICAL = {
    "numpy", "scipy", "sklearn", "matplotlib", "dask", "torch", "torchvision", "timm",
    "PIL",
}  # fmt: skip


def module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
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


# Top-level modules outside the layers: the entry points and the family packages'
# short public names (re-exports of fdlsr.methods.*).
SHORT_NAMES = ["dictionary.py", "relaxed.py", "representation.py"]
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
    assert top == sorted(["__init__.py", "__main__.py", "errors.py", *SHORT_NAMES])
    folders = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    assert folders == sorted(set(ALLOWED) - {"errors"})


def test_command_line_holds_no_logic():
    path = PACKAGE / "experiments" / "cli.py"
    imports = imported_modules(path)
    # "from . import commands" records the package itself too; "from m import n", m.n
    allowed = CLI_MAY_IMPORT | {"fdlsr.experiments"}
    for module in (m for m in imports if m.startswith("fdlsr")):
        assert module in allowed or module.rpartition(".")[0] in allowed, module
    assert not {m.split(".")[0] for m in imports} & NUMERICAL


@pytest.mark.parametrize(
    "source, forbidden",
    [
        ("from ..experiments import protocol", {"experiments"}),
        (
            "from ..methods.relaxed._classifier import RelaxedRegressionClassifier",
            {"methods"},
        ),
        (
            "def f():\n    from fdlsr.experiments.results import read_rows",
            {"experiments"},
        ),
        ("import fdlsr.methods", {"methods"}),
        ("from ..common.linalg import one_hot\nfrom ..errors import FdlsrError", set()),
    ],
)
def test_the_check_sees_a_violation(tmp_path, source, forbidden):
    fake = tmp_path / "fake.py"
    fake.write_text(source + "\n")
    assert forbidden_imports(fake, "fdlsr.core.fake") == forbidden


def test_old_public_imports_still_work():
    from fdlsr import FDLSR, FDLSRCV  # noqa: F401
    from fdlsr.datasets import load_dataset  # noqa: F401
    from fdlsr.dictionary import FDDL, LRSDL  # noqa: F401
    from fdlsr.relaxed import DLSR, LRDLSR  # noqa: F401
    from fdlsr.representation import CRC, SRC  # noqa: F401

    assert fdlsr.relaxed.DLSR is fdlsr.methods.relaxed.DLSR
    assert fdlsr.relaxed.__all__ == fdlsr.methods.relaxed.__all__


def test_short_names_re_export_without_aliasing_internal_modules():
    """``fdlsr.relaxed`` and its siblings re-export their family's public names; the
    family's internal modules have one name only (no ``fdlsr.relaxed._classifier``)."""
    import sys

    for family in ("relaxed", "representation", "dictionary"):
        short = getattr(fdlsr, family)
        assert sys.modules[f"fdlsr.{family}"] is short
        assert short is not getattr(fdlsr.methods, family)
        for name in short.__all__:
            assert getattr(short, name) is getattr(getattr(fdlsr.methods, family), name)
    with pytest.raises(ModuleNotFoundError):
        __import__("fdlsr.relaxed._classifier")
