"""Report the internal links of the built site that lead nowhere.

``python docs/check_links.py [docs/_build/html]`` reads every HTML page of the
built site and checks each ``href`` and ``src`` that points inside it: the file
must exist and, for ``page.html#anchor``, the page must have an element with that
``id``. External links (``http:``, ``mailto:``, ...) are not followed: the site is
built and checked offline. Exit status 1 and one line per broken link if any.
"""

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

EXTERNAL = ("http", "https", "mailto", "ftp", "data", "javascript", "tel")
# The theme's templates and the page sources copied beside the pages.
SKIPPED = {"_static", "_sources"}


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)
            elif name in ("href", "src") and value is not None:
                self.links.append(value)


def _parse(path, cache):
    if path not in cache:
        page = _Page()
        page.feed(path.read_text(encoding="utf-8", errors="replace"))
        cache[path] = page
    return cache[path]


def broken_links(root):
    """``(page, link)`` for each internal link of the site under ``root`` that
    names a missing file or a missing anchor."""
    root = Path(root).resolve()
    cache, broken = {}, []
    for page_path in sorted(root.rglob("*.html")):
        if page_path.relative_to(root).parts[0] in SKIPPED:
            continue
        for link in _parse(page_path, cache).links:
            parts = urlsplit(link)
            if parts.scheme in EXTERNAL or parts.netloc or link.startswith("//"):
                continue
            if parts.path:
                target = (page_path.parent / unquote(parts.path)).resolve()
            else:
                target = page_path
            if target.is_dir():
                target = target / "index.html"
            if not target.is_relative_to(root) or not target.exists():
                broken.append((page_path.relative_to(root), link))
                continue
            anchor = unquote(parts.fragment)
            if anchor and target.suffix == ".html":
                if anchor not in _parse(target, cache).ids:
                    broken.append((page_path.relative_to(root), link))
    return broken


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    root = Path(argv[0] if argv else Path(__file__).parent / "_build" / "html")
    if not (root / "index.html").is_file():
        print(f"{root} holds no built site; build it first", file=sys.stderr)
        return 2
    broken = broken_links(root)
    for page, link in broken:
        print(f"{page}: broken link {link}")
    pages = len(list(root.rglob("*.html")))
    print(f"{pages} pages, {len(broken)} broken internal links", file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
