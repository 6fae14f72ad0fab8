"""Build the reveal.js decks: build/slides/NN_name.slides.html, offline.

Usage: python scripts/build_slides.py [NOTEBOOK ...]   (default: notebooks/*.ipynb)
       python scripts/build_slides.py --vendor         (the vendor/ copy only)

`make slides` calls it once per deck that is out of date (its notebook, the template or this
script changed) and with --vendor when node_modules/ changed; with no argument it copies the
vendor files and rebuilds every deck.

Every script and style sheet a deck loads comes from build/slides/vendor/,
copied from node_modules/ (installed by `npm ci` from the committed
package-lock.json): reveal.js 4.0.2, require.js, jQuery, MathJax 2 and the
Jupyter widgets HTML manager (which draws the explorers from their stored
widget state).  The decks use reveal's 'white' theme, whose fonts ship with
reveal.js (nbconvert's default 'simple' theme imports Google Fonts), and the
template in scripts/nbconvert_templates/offline_reveal, which drops the one
CDN import (mermaid.js) that nbconvert cannot be configured away from.

After the build every deck is scanned (scripts/check_slides.py,
``remote_loads``); a deck that would load anything over http(s) fails the
build.

The default is the step notebooks only: notebooks/solutions/ holds the worked
exercise solutions, which are for self-study and would give the exercises
away in a lecture.  Pass a solution's path to build its deck anyway.
"""

from __future__ import annotations

import pathlib
import re
import shutil
import sys
import uuid

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from check_slides import DECKS as OUT  # noqa: E402
from check_slides import VENDOR, remote_loads  # noqa: E402

NODE = ROOT / "node_modules"
TEMPLATES = ROOT / "scripts" / "nbconvert_templates"
THEME = "white"

# (source under node_modules, destination under build/slides/vendor); a source
# directory is copied whole, with the listed glob patterns left out.
ASSETS = (
    ("reveal.js/dist", "reveal.js/dist", ("*.map", "*.esm.js")),
    ("reveal.js/plugin/notes", "reveal.js/plugin/notes", ("*.esm.js",)),
    ("requirejs/require.js", "require.js", ()),
    ("jquery/dist/jquery.min.js", "jquery.min.js", ()),
    (
        "@jupyter-widgets/html-manager/dist",
        "html-manager",
        ("embed.js", "embed.js.map", "*.LICENSE.txt", "libembed-amd.js"),
    ),
    # MathJax 2 (what nbconvert's template drives): the core, the TeX input, the
    # CommonHTML output with its TeX web fonts, and the extensions the config loads.
    ("mathjax/MathJax.js", "mathjax/MathJax.js", ()),
    ("mathjax/config", "mathjax/config", ()),
    ("mathjax/extensions", "mathjax/extensions", ()),
    ("mathjax/jax/element", "mathjax/jax/element", ()),
    ("mathjax/jax/input/TeX", "mathjax/jax/input/TeX", ()),
    ("mathjax/jax/output/CommonHTML", "mathjax/jax/output/CommonHTML", ()),
    ("mathjax/fonts/HTML-CSS/TeX/woff", "mathjax/fonts/HTML-CSS/TeX/woff", ()),
    ("mathjax/LICENSE", "mathjax/LICENSE", ()),
    ("reveal.js/LICENSE", "reveal.js/LICENSE", ()),
    ("@jupyter-widgets/html-manager/package.json", "html-manager/package.json", ()),
)

URLS = {  # relative to the deck, which sits in build/slides/
    "reveal_url_prefix": f"{VENDOR}/reveal.js",
    "require_js_url": f"{VENDOR}/require.js",
    "jquery_url": f"{VENDOR}/jquery.min.js",
    "widget_renderer_url": f"{VENDOR}/html-manager/embed-amd.js",
    # no ",Safe" (nbconvert's default): MathJax 2 from npm has no config/Safe.js, and asked
    # for it MathJax waits its load timeout (15 s) before it typesets
    "mathjax_url": f"{VENDOR}/mathjax/MathJax.js?config=TeX-AMS_CHTML-full",
}


def copy_assets(out=OUT):
    """Fresh copy of the vendor files into ``out``/vendor; a clear error when node_modules
    is missing."""
    missing = [src for src, _, _ in ASSETS if not (NODE / src).exists()]
    if missing:
        raise SystemExit(
            "build_slides: node_modules/ lacks "
            + ", ".join(missing)
            + "\n  run `npm ci` in the repository root (make slides does it)."
        )
    shutil.rmtree(out / VENDOR, ignore_errors=True)
    for src, dst, skip in ASSETS:
        src, dst = NODE / src, out / VENDOR / dst
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns(*skip))
        else:
            shutil.copy2(src, dst)


def notebooks(argv):
    if argv:
        paths = [pathlib.Path(p).resolve() for p in argv]
    else:
        paths = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if not paths:
        raise SystemExit("build_slides: no notebook in notebooks/ to build")
    for p in paths:
        if not p.is_file():
            raise SystemExit(f"build_slides: no such notebook: {p}")
    return paths


_RANDOM_ID = re.compile(r'id="([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"')


def stable_ids(html, name):
    """``html`` with each random element id nbconvert gives a widget output (a fresh uuid4
    at every build) replaced by one derived from ``name`` and its place: an unchanged
    notebook then builds a byte-identical deck, whose passing check (its stamp) still holds."""
    for n, old in enumerate(dict.fromkeys(_RANDOM_ID.findall(html))):
        html = html.replace(old, str(uuid.uuid5(uuid.NAMESPACE_URL, f"{name}/{n}")))
    return html


def build(paths, out=OUT):
    """nbconvert's slides exporter, in this process, with the settings below; the decks'
    paths (``out``/NAME.slides.html)."""
    from nbconvert.exporters import SlidesExporter
    from traitlets.config import Config

    config = Config()
    config.TemplateExporter.extra_template_basedirs = [str(TEMPLATES)]
    config.TemplateExporter.template_name = "offline_reveal"
    config.SlidesExporter.reveal_theme = THEME
    # the screen a deck is made for (scripts/check_slides.py measures at this size);
    # the template shrinks what is too wide or too tall, nothing scrolls
    config.SlidesExporter.reveal_width = "1280"
    config.SlidesExporter.reveal_height = "720"
    for name, url in URLS.items():
        setattr(config.SlidesExporter, name, url)
    exporter = SlidesExporter(config=config)
    decks = []
    for path in paths:
        html, _ = exporter.from_filename(str(path))
        html = stable_ids(html, path.stem)
        deck = out / (path.stem + ".slides.html")
        deck.write_text(html, encoding="utf-8")
        decks.append(deck)
    return decks


def main(argv):
    if argv == ["--vendor"]:
        OUT.mkdir(parents=True, exist_ok=True)
        copy_assets()
        return 0
    paths = notebooks(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    if not argv:  # a full build: drop decks of notebooks that no longer exist
        for old in OUT.glob("*.slides.html"):
            old.unlink()
    if not argv or not (OUT / VENDOR).is_dir():
        copy_assets()
    if "jsonschema" not in sys.modules:
        # nbformat imports jsonschema, which imports rfc3987_syntax when it is installed
        # (jupyterlab brings it): building that package's grammar takes about 2 s at every
        # start, for an IRI format check notebooks never use.  Not imported, it is not checked.
        sys.modules["rfc3987_syntax"] = None
    decks = build(paths)
    bad = 0
    for deck in decks:
        remote = remote_loads(deck)
        if remote:
            bad += 1
            deck.unlink()  # so that no one presents it, and make builds it again
            print(
                f"FAIL {deck.relative_to(ROOT)} loads over the network: {', '.join(remote)}"
                " (deck removed)"
            )
        else:
            print(f"built {deck.relative_to(ROOT)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
