"""Docstrings that point somewhere and say what the numerical cores take and give.

* Every ``fdlsr.`` dotted path in the docstrings of the package and in docs/*.md, and
  every ``src/fdlsr/...`` file path in docs/*.md, names something that exists. A dotted
  path resolves when its longest importable prefix is a module and the rest are
  attributes of it (``fdlsr.FDLSR.fit``, ``fdlsr.relaxed._retarget``).
* Every numerical core ``fit_*`` of the lower layers (common, core, methods) has
  numpydoc ``Parameters`` and ``Returns`` sections.
"""

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

import fdlsr

PACKAGE = Path(fdlsr.__file__).parent
ROOT = Path(__file__).resolve().parents[1]  # the repository: docs/ and src/
DOCS = sorted((ROOT / "docs").glob("*.md")) if (ROOT / "docs").is_dir() else []

DOTTED = re.compile(r"(?<![\w./-])fdlsr(?:\.[A-Za-z_]\w*)+")
FILE = re.compile(r"(?<![\w/])src/fdlsr/[\w/]+\.py")


def resolves(path):
    """Whether ``path`` (``fdlsr.a.b.c``) is a module or an attribute chain of one."""
    parts = path.split(".")
    for end in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            continue
        for name in parts[end:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def docstrings(path):
    """The docstrings of a module and of its classes and functions."""
    tree = ast.parse(path.read_text(), str(path))
    nodes = [tree] + [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    return [doc for node in nodes if (doc := ast.get_docstring(node, clean=False))]


def dotted_paths():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for doc in docstrings(path):
            for match in DOTTED.findall(doc):
                found.setdefault(match, path.relative_to(PACKAGE.parent).as_posix())
    for path in DOCS:
        for match in DOTTED.findall(path.read_text()):
            found.setdefault(match, path.relative_to(ROOT).as_posix())
    return sorted(found.items())


def test_the_scan_finds_paths():
    paths = dict(dotted_paths())
    assert "fdlsr.FDLSR" in paths
    assert resolves("fdlsr.FDLSR.fit") and not resolves("fdlsr.no_such_module")


@pytest.mark.parametrize(("path", "where"), dotted_paths())
def test_dotted_path_resolves(path, where):
    assert resolves(path), f"{where} names {path}, which does not exist"


def numerical_cores():
    return list(_numerical_cores())


def _numerical_cores():
    for folder in (
        "_common",
        "_core",
        "relaxed",
        "representation",
        "dictionary",
        "_baselines",
    ):
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
            for node in tree.body:
                if isinstance(node, ast.FunctionDef) and node.name.startswith("fit_"):
                    yield pytest.param(module, node, id=node.name)


@pytest.mark.parametrize(("module", "node"), numerical_cores())
def test_numerical_core_documents_parameters_and_returns(module, node):
    # the docstring as rendered: shared parts are filled in at import (fill_doc)
    function = getattr(importlib.import_module(module), node.name)
    doc = inspect.cleandoc(function.__doc__ or "")
    for section in ("Parameters\n----------", "Returns\n-------"):
        assert section in doc, f"{node.name} has no {section.splitlines()[0]}"
    named = " ".join(line.split(":")[0] for line in doc.splitlines())
    arguments = [a.arg for a in node.args.args + node.args.kwonlyargs]
    missing = [a for a in arguments if a not in named]
    assert not missing, f"{node.name} does not document {missing}"


def test_the_cores_are_found():
    names = {p.values[1].name for p in numerical_cores()}
    assert {"fit_fdlsr", "fit_blocked", "fit_dlsr", "fit_lcle", "fit_lrsdl"} <= names
    assert len(names) == 19


@pytest.mark.skipif(not DOCS, reason="docs/ is not beside the tests")
def test_source_file_paths_in_docs_exist():
    missing = [
        f"{doc.name}: {match}"
        for doc in DOCS
        for match in FILE.findall(doc.read_text())
        if not (ROOT / match).is_file()
    ]
    assert not missing, missing
