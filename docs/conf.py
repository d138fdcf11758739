"""Sphinx configuration of fdlsr's documentation site.

Build (offline; warnings are errors): ``sphinx-build -W --keep-going -b html docs
docs/_build/html``. The example gallery runs ``examples/plot_*.py`` at build time.
"""

import os
import re
import sys
from pathlib import Path

import fdlsr

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "_ext"))

# The gallery's figures are drawn without a display, its runs on few threads.
os.environ.setdefault("MPLBACKEND", "Agg")

project = "fdlsr"
author = "the fdlsr developers"
copyright = "the fdlsr developers"
version = release = fdlsr.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_design",
    "sphinx_gallery.gen_gallery",
    "cli_reference",
    "repository_links",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "_extra",
    "results",
    "representation-feret-results",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
]
templates_path = ["_templates"]
# Option names stay as typed: "--help", not an en dash.
smartquotes = False

# -- Markdown pages (MyST) -------------------------------------------------------
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3  # "page.md#a-heading" links, as GitHub renders them

# Links to repository files outside docs/ lead to the source repository; there is no
# public one yet, so they are shown as the files' paths (docs/_ext/repository_links.py).
repository_url = ""

# -- API reference ---------------------------------------------------------------
# The page's contents list methods as "fit()", not "FDLSR.fit()" (narrow column).
toc_object_entries_show_parents = "hide"
autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": True}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# A public name whose docstring lacks its Parameters or Returns, documents a
# parameter it does not take, or has no docstring at all fails the build.
numpydoc_validate = True
numpydoc_validation_checks = {"PR01", "PR02", "RT01", "GL08"}
numpydoc_validation_exclude = {
    # scikit-learn's own methods, inherited by every estimator.
    r"\.get_metadata_routing$",
    r"\.set_(fit|predict|score|transform|partial_fit|decision_function)_request$",
    r"\.set_output$",
    r"\.__init__$",
}

# -- Example gallery -------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "gallery_order.ReadingOrder",
    "reference_url": {"fdlsr": None},
    "doc_module": ("fdlsr",),
    "backreferences_dir": "gen_modules/backreferences",
    "show_memory": False,
    "min_reported_time": 1,
}

# -- HTML --------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"fdlsr {release}"
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    # the result tables need the page's width (their sections are in the left bar)
    "secondary_sidebar_items": {
        "**": ["page-toc"],
        "index": [],
        "results-tables": [],
        **{f"tables/{page.stem}": [] for page in (HERE / "tables").glob("*.md")},
    },
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "getting-started": []}
html_static_path = ["_static"]
html_css_files = ["results.css"]
# The self-contained HTML reports of the shipped stores (fdlsr report --format html),
# copied as they are to reports/ of the site.
html_extra_path = ["_extra"]
html_show_sourcelink = False


# Marks a page of result tables for docs/_static/results.css (one line per value).
RESULTS_MARK = '<div class="fdlsr-results"></div>'


def _table_title(app, docname, source):
    """``fdlsr report`` renders a table under a level-3 heading, for embedding;
    as a page of its own that heading is the page's title."""
    if docname.startswith("tables/"):
        source[0] = re.sub(r"^###(?= )", "#", source[0], count=1)
        source[0] += f"\n{RESULTS_MARK}\n"


def _included_table_title(app, relative_path, parent_docname, content):
    """A table included in the results page: its level-3 heading becomes a section
    of that page (level 2)."""
    if "tables" in Path(relative_path).parts:
        content[0] = re.sub(r"^###(?= )", "##", content[0], count=1)


def _sklearn_refs(app, what, name, obj, options, lines):
    """Methods inherited from scikit-learn point to its user guide's labels, which
    this site does not have (it is built offline): keep the link's text."""
    if getattr(obj, "__module__", "").startswith("sklearn."):
        lines[:] = [re.sub(r":ref:`([^`<]*?)\s*<[^>]*>`", r"\1", ln) for ln in lines]


def setup(app):
    app.connect("source-read", _table_title)
    app.connect("include-read", _included_table_title)
    app.connect("autodoc-process-docstring", _sklearn_refs)
