"""The documentation site's internal links: the checker, and the built site.

The site is built by ``sphinx-build -W -b html docs docs/_build/html`` (``.ci/run``
builds it before the tests); without a build the site test is skipped.
"""

import importlib.util
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
SITE = DOCS / "_build" / "html"


def _checker():
    spec = importlib.util.spec_from_file_location(
        "check_links", DOCS / "check_links.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_checker_finds_missing_files_and_anchors(tmp_path):
    (tmp_path / "api").mkdir()
    (tmp_path / "index.html").write_text(
        '<a href="api/page.html#fit">ok</a> <a href="api/page.html#gone">no anchor</a>'
        '<a href="missing.html">no file</a> <img src="img/x.png">'
        '<a href="https://example.org/x.html">external</a> <a href="#top">top</a>'
        '<a href="api/">folder</a> <p id="top"></p>'
    )
    (tmp_path / "api" / "page.html").write_text(
        '<dt id="fit"></dt><a href="../index.html#top">back</a>'
    )
    (tmp_path / "api" / "index.html").write_text("<p></p>")
    broken = {link for _, link in _checker().broken_links(tmp_path)}
    assert broken == {"api/page.html#gone", "missing.html", "img/x.png"}


def test_built_site_has_no_broken_internal_links():
    if not (SITE / "index.html").is_file():
        pytest.skip("no built site in docs/_build/html (sphinx-build builds it)")
    broken = _checker().broken_links(SITE)
    assert not broken, "\n".join(f"{page}: {link}" for page, link in broken[:20])
