"""Links from the Markdown pages to repository files outside ``docs/``.

The pages link to files such as ``../benchmarks/README.md`` so that they read well on
the repository's web page; on the site such a link leads to the file in the source
repository (``repository_url``, set in conf.py), or, while there is no public
repository (``repository_url`` empty), becomes the file's path as code, so that the
site holds no dead link. Links to missing files still warn.
"""

from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform


class RepositoryLinks(SphinxPostTransform):
    default_priority = 8  # before MyST's resolver (9), which warns on these

    def run(self, **kwargs):
        srcdir = Path(self.app.srcdir).resolve()
        root = srcdir.parent
        for node in list(self.document.findall(addnodes.pending_xref)):
            if node.get("reftype") != "myst" or node.get("refdomain") != "doc":
                continue
            target = Path(node["reftarget"])
            if not target.is_absolute() or target.is_relative_to(srcdir):
                continue
            found = [p for p in target.parent.glob(target.name + ".*") if p.is_file()]
            if not found or not target.is_relative_to(root):
                continue  # MyST reports it
            path = found[0].relative_to(root).as_posix()
            if not self.config.repository_url:
                node.replace_self(nodes.literal(path, path))
                continue
            url = f"{self.config.repository_url}/blob/main/{path}"
            if node.get("reftargetid"):
                url += "#" + node["reftargetid"]
            link = nodes.reference("", "", refuri=url, internal=False)
            link += node[0].deepcopy()
            node.replace_self(link)


def setup(app):
    app.add_config_value("repository_url", "", "env")
    app.add_post_transform(RepositoryLinks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
