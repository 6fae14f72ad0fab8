"""Sphinx extension of the course site (scripts/build_site.py): every notebook page opens with
a line offering the notebook for download and its slide deck.

A step's page links its own deck (slides/NN_name.slides.html, copied from make slides); a
solutions page links the deck of its step.  The notebook itself is copied beside its page.
"""

from __future__ import annotations

import posixpath

from docutils import nodes


def _links(docname: str) -> str | None:
    if not docname.startswith("notebooks/"):
        return None
    name = posixpath.basename(docname)
    if name == "index" or not name[:2].isdigit():
        return None
    depth = docname.count("/")
    up = "../" * depth
    step = name.removesuffix("_solutions")
    deck = f"{up}slides/{step}.slides.html"
    which = "the step's deck" if name.endswith("_solutions") else "its slide deck"
    return (
        '<p class="site-links">'
        f'<a href="{name}.ipynb" download>Download this notebook ({name}.ipynb)</a>'
        f' · <a href="{deck}">Open {which}</a></p>'
    )


def add_links(app, doctree, docname):
    html = _links(docname)
    if html is None:
        return
    sections = list(doctree.findall(nodes.section))
    if not sections:
        return
    first = sections[0]
    title = next(iter(first.findall(nodes.title)), None)
    at = first.index(title) + 1 if title is not None else 0
    first.insert(at, nodes.raw("", html, format="html"))


def drop_thebe(app, pagename, templatename, context, doctree):
    """sphinx-thebe (which Jupyter Book 1 always loads) names thebe's URL on a CDN in every
    page; the site has no live code, so its scripts are left out."""
    files = context.get("script_files")
    if files is None:
        return
    context["script_files"] = [
        js
        for js in files
        if "thebe" not in str(js).lower()
        and "THEBE" not in str(getattr(js, "attributes", {}).get("body", ""))
    ]


def setup(app):
    app.connect("doctree-resolved", add_links)
    app.connect("html-page-context", drop_thebe)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
