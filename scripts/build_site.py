"""Build the course site: build/site/ (index.html the home page), offline, from stored outputs.

Usage: python scripts/build_site.py        (make site: after make slides, whose decks it copies)

Jupyter Book 1 (Sphinx, myst-nb, sphinx-book-theme; requirements-test.txt) builds a copy of the
course laid out in build/site-src/:

- index.md: README's title, its first paragraph and its course map (the home page);
- notebooks/*.ipynb and notebooks/solutions/*.ipynb as they are on disk, with their stored
  outputs (nothing is executed), notebooks/*.md (the glossary, a wrap-up if there is one);
- _toc.yml made from the files on disk (a new notebook joins by being there), _config.yml.

No page loads anything from the web: MathJax 2, require.js and the Jupyter widgets HTML
manager (which draws the explorers from their stored widget state) are the copies
scripts/build_slides.py makes from node_modules/ (npm ci), served from _static/vendor/; the
theme's fonts ship with it.  Every notebook page starts with a line offering the notebook
(copied beside its page, so a page's address ends in .html and its notebook's in .ipynb) and
its deck (build/slides/, copied to slides/).  The launch buttons (Binder, Colab) and the
repository button are made from the one repository address (scripts/repo_url.py).
"""

from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from build_slides import copy_assets  # noqa: E402
from repo_url import repo_url  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
DECKS = ROOT / "build" / "slides"
STAGE = ROOT / "build" / "site-src"
# made by the build itself, so on the site whether or not a build has staged it yet
GENERATED_INDEX = "notebooks/solutions/index.md"
OUT = ROOT / "build" / "site"
VENDOR = "vendor"  # under _static/ in the site

TITLE = "Automated Evaluation of a prompt-injection defense"


def step_notebooks():
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def solution_notebooks():
    return sorted((NOTEBOOKS / "solutions").glob("*.ipynb"))


def pages_md():
    """The course's markdown pages beside the notebooks (GLOSSARY.md, WRAP_UP.md, ...):
    a wrap-up first, then the rest by name, the glossary last."""
    pages = sorted(NOTEBOOKS.glob("*.md"), key=lambda p: (p.stem == "GLOSSARY", p.stem))
    return pages


def home_page(readme: str) -> str:
    """README's title and first paragraph, then its course map (to the next section), with
    each link to a file that is not on the site sent to the repository."""
    lines = readme.splitlines()
    head = []
    for line in lines[1:]:
        if line.startswith("#"):
            break
        head.append(line)
    intro = "\n".join(head).strip().split("\n\n")[0]
    start = next(i for i, line in enumerate(lines) if line.strip() == "## Course map")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    body = "\n".join(lines[start:end]).strip()
    body = body.replace("](notebooks/solutions/)", "](notebooks/solutions/index.md)")
    launch = (
        "## Run it\n\n"
        "Each page offers its notebook (`.ipynb`) and its slide deck at the top; the rocket "
        "button opens the notebook on Binder or Colab. In a clone of the "
        f"[repository]({repo_url()}), `make lab` opens the course in JupyterLab."
    )
    text = f"# {TITLE}\n\n{intro}\n\n{body}\n\n{launch}\n"
    return _outside_links(text, STAGE)


def _outside_links(text: str, base: pathlib.Path) -> str:
    """Relative links whose target is not staged point at the repository instead."""

    def fix(m):
        target = m.group(2)
        if re.match(r"[a-z]+:|#", target):
            return m.group(0)
        path = target.split("#")[0]
        if (base / path).exists() or path == GENERATED_INDEX:
            return m.group(0)
        return f"{m.group(1)}({repo_url()}/blob/HEAD/{target})"

    return re.sub(r"(\]\s*)\(([^)\s]+)\)", fix, text)


def toc() -> str:
    lines = ["format: jb-book", "root: index", "parts:", "  - caption: The steps", "    chapters:"]
    lines += [f"      - file: notebooks/{p.stem}" for p in step_notebooks()]
    lines += [f"      - file: notebooks/{p.stem}" for p in pages_md()]
    lines += ["  - caption: Worked solutions", "    chapters:"]
    lines += ["      - file: notebooks/solutions/index", "        sections:"]
    lines += [f"          - file: notebooks/solutions/{p.stem}" for p in solution_notebooks()]
    return "\n".join(lines) + "\n"


def solutions_index() -> str:
    rows = "\n".join(f"- [{p.stem}]({p.name})" for p in solution_notebooks())
    return (
        "# Worked solutions\n\n"
        "One notebook per step: each exercise's answer computed, its check passing. "
        "Try the exercise in its step first.\n\n" + rows + "\n"
    )


def config() -> str:
    url = repo_url()
    return f"""\
title: "{TITLE}"
author: the course's authors
only_build_toc_files: true
exclude_patterns: [_build, "**.ipynb_checkpoints"]
execute:
  execute_notebooks: "off"
repository:
  url: {url}
  branch: HEAD
html:
  use_repository_button: true
  use_download_button: true
  home_page_in_navbar: true
launch_buttons:
  notebook_interface: jupyterlab
  binderhub_url: https://mybinder.org
  colab_url: https://colab.research.google.com
parse:
  myst_enable_extensions: [dollarmath, amsmath, html_image]
  myst_heading_anchors: 3
sphinx:
  local_extensions:
    site_links: {pathlib.Path(__file__).parent.as_posix()}
  config:
    html_static_path: [_vendor]
    mathjax_path: {VENDOR}/mathjax/MathJax.js?config=TeX-AMS_CHTML-full
    mathjax3_config: null
    mathjax2_config:
      tex2jax:
        inlineMath: [["\\\\(", "\\\\)"]]
        displayMath: [["\\\\[", "\\\\]"]]
        processEscapes: true
        processClass: tex2jax_process|mathjax_process|math|output_area
        ignoreClass: tex2jax_ignore|mathjax_ignore|document
    html_favicon: {(pathlib.Path(__file__).parent / "site" / "favicon.svg").as_posix()}
    nb_ipywidgets_js:
      {VENDOR}/require.js: {{}}
      site.js: {{}}
      {VENDOR}/html-manager/embed-amd.js: {{}}
    suppress_warnings: [myst.xref_missing, myst.header]
    html_use_index: false
    html_context:
      default_mode: light
    html_show_copyright: false
    html_last_updated_fmt: null
"""


def stage():
    shutil.rmtree(STAGE, ignore_errors=True)
    (STAGE / "notebooks" / "solutions").mkdir(parents=True)
    for p in step_notebooks() + pages_md():
        shutil.copy2(p, STAGE / "notebooks" / p.name)
    for p in solution_notebooks():
        shutil.copy2(p, STAGE / "notebooks" / "solutions" / p.name)
    (STAGE / "notebooks" / "solutions" / "index.md").write_text(solutions_index())
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (STAGE / "index.md").write_text(home_page(readme), encoding="utf-8")
    (STAGE / "_toc.yml").write_text(toc())
    (STAGE / "_config.yml").write_text(config())
    copy_assets(out=STAGE / "_vendor")
    shutil.copy2(ROOT / "scripts" / "site" / "site.js", STAGE / "_vendor" / "site.js")


# The theme's markup, made to pass axe-core (serious and critical rules): the search field's
# name is its visible text; the colour-mode button's icons carry no second name; a toc
# toggle has a name.  (old, new): a replacement that no longer matches is simply not made,
# and the browser check (scripts/check_site.py) then reports the violation.
THEME_FIXES = (
    (
        'search-button__button pst-js-only" title="Search" aria-label="Search"',
        'search-button__button pst-js-only" title="Search"',
    ),
    (' title="Light"></i>', "></i>"),
    (' title="Dark"></i>', "></i>"),
    (' title="System Settings"></i>', "></i>"),
    (
        '<summary><span class="toctree-toggle"',
        '<summary aria-label="sections"><span class="toctree-toggle"',
    ),
)


# The decks' links into the course (GLOSSARY.md, NN_name.ipynb, solutions/...) lead to the
# site's pages.  That is all the site changes in a deck: the decks make slides builds pass
# axe-core themselves (scripts/check_slides.py checks them).
def deck_for_site(html: str) -> str:
    def link(m):
        target, frag = m.group(2), m.group(3) or ""
        if target == "GLOSSARY.md" or target.endswith(".md"):
            page = "../notebooks/" + target[:-3] + ".html"
        else:
            page = "../notebooks/" + target[: -len(".ipynb")] + ".html"
        return f'{m.group(1)}"{page}{frag}"'

    return re.sub(r'(href=)"((?:solutions/)?[\w.-]+\.(?:md|ipynb))(#[^"]*)?"', link, html)


def polish(page: pathlib.Path):
    text = page.read_text(encoding="utf-8")
    new = text
    for old, fixed in THEME_FIXES:
        new = new.replace(old, fixed)
    if new != text:
        page.write_text(new, encoding="utf-8")


def build():
    jb = pathlib.Path(sys.executable).parent / "jupyter-book"
    cmd = [str(jb), "build", str(STAGE), "--builder", "html", "--keep-going", "-W", "-q"]
    r = subprocess.run(cmd, cwd=STAGE)
    if r.returncode:
        raise SystemExit(f"build_site: jupyter-book failed (exit {r.returncode})")
    shutil.rmtree(OUT, ignore_errors=True)
    shutil.copytree(STAGE / "_build" / "html", OUT)
    for page in OUT.rglob("*.html"):
        if "_static" not in page.relative_to(OUT).parts:
            polish(page)
    # the notebooks beside their pages, for download
    for p in step_notebooks():
        shutil.copy2(p, OUT / "notebooks" / p.name)
    for p in solution_notebooks():
        shutil.copy2(p, OUT / "notebooks" / "solutions" / p.name)
    # the decks and their vendor files, as make slides built them
    decks = sorted(DECKS.glob("*.slides.html"))
    missing = [p.stem for p in step_notebooks() if not (DECKS / f"{p.stem}.slides.html").is_file()]
    if missing:
        raise SystemExit(f"build_site: no deck for {', '.join(missing)}: run make slides first")
    (OUT / "slides").mkdir()
    for d in decks:
        text = deck_for_site(d.read_text(encoding="utf-8"))
        (OUT / "slides" / d.name).write_text(text, encoding="utf-8")
    shutil.copytree(DECKS / "vendor", OUT / "slides" / "vendor")
    (OUT / ".nojekyll").write_text("")


def main():
    stage()
    build()
    print(f"build_site: {OUT.relative_to(ROOT)}/index.html")
    return 0


if __name__ == "__main__":
    sys.exit(main())
