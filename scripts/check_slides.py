"""Open every built deck in headless Chromium, offline, and check it really presents.

Usage: python scripts/check_slides.py [DECK ...]   (default: build/slides/*.slides.html)
(`make test-slides` installs Chromium if needed, builds the decks, then runs this.)

For each deck:

1. **static**: the HTML loads no script or style sheet over http(s)
   (:func:`remote_loads`, also used by the build);
2. **DOM**: Chromium loads the deck with the network cut off
   (``--host-resolver-rules`` maps every host to "not found", a dead proxy),
   runs its scripts for a virtual time budget and dumps the DOM.
   :func:`dom_problems` fails it unless reveal.js initialised: the
   ``.reveal .slides`` sections are there, one of them is marked ``present``,
   the reveal element carries the runtime class ``ready`` and reveal's own
   controls were added.  A deck that stores widget state must also show
   rendered widget views (the explorers, drawn by the local HTML manager).
   The browser's console must not report a resource that failed to load or
   an uncaught error;
3. **screenshot**: a PNG of the first slide, decoded with Pillow;
   :func:`blank_problem` fails it when (almost) every pixel has the same colour.

Exit status 0 when every deck passes, 1 otherwise.  If Chromium is not
installed the script says so and exits 0 only when SLIDES_SKIP_OK=1 is set
(the make target sets it after an install attempt that was impossible).
"""

from __future__ import annotations

import io
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser

from PIL import Image

ROOT = pathlib.Path(__file__).resolve().parents[1]
DECKS = ROOT / "build" / "slides"
"""Where scripts/build_slides.py writes the decks (it takes the folder from here)."""
VENDOR = "vendor"
"""The decks' local assets: DECKS / VENDOR, named in a deck by paths that start 'vendor/'."""
SHOTS = ROOT / "build" / "slides-check"

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
OFFLINE_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
    "--disable-default-apps", "--disable-extensions", "--mute-audio",
    "--hide-scrollbars",
    # offline: no host name resolves and every proxied request goes to a closed port
    "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9",
    "--allow-file-access-from-files",
    "--enable-logging=stderr", "--v=0",
)
WINDOW = "1280,800"
BUDGET_MS = 15000
BLANK_SHARE = 0.001     # fewer than 0.1 % of pixels off the dominant colour = blank

# ---------------------------------------------------------------- static check

_URL = re.compile(r"""^\s*(?:https?:)?//""", re.I)
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_CSS_IMPORT = r"""@import\s+(?:url\()?\s*['"]?([^'")\s;]+)"""
_CSS_LOADS = re.compile(_CSS_IMPORT + r"""|url\(\s*['"]?([^'")\s]+)""", re.I)
_JS_STRING_URL = re.compile(r"""(['"`])((?:https?:)?//[^'"`\s]+)\1""", re.I)
_NAMESPACES = ("http://www.w3.org/",)   # XML namespace names in scripts are not loads
_JS_IMPORT = re.compile(r"""\bimport\s*(?:[\w*{}\s,]+from\s*)?\(?\s*['"]([^'"]+)['"]""")
_DATA_SCRIPTS = ("application/json", "application/ld+json",
                 "application/vnd.jupyter.widget-state+json",
                 "application/vnd.jupyter.widget-view+json", "text/html", "text/template")


def _css_remote(css):
    css = _CSS_COMMENT.sub("", css)
    return [a or b for a, b in _CSS_LOADS.findall(css) if _URL.match(a or b)]


def _css_local_imports(css):
    css = _CSS_COMMENT.sub("", css)
    return [m.group(1) for m in re.finditer(_CSS_IMPORT, css)
            if not _URL.match(m.group(1)) and not m.group(1).startswith("data:")]


class _Loads(HTMLParser):
    """Collects what a page loads: script src, stylesheet/icon/preload hrefs, inline code."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sources, self.stylesheets, self.styles, self.scripts = [], [], [], []
        self._in = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            if a.get("src"):
                self.sources.append(a["src"])
            kind = (a.get("type") or "text/javascript").lower()
            self._in = "data" if kind in _DATA_SCRIPTS else "script"
        elif tag == "style":
            self._in = "style"
        elif tag == "link" and a.get("href"):
            rel = (a.get("rel") or "").lower()
            if any(r in rel for r in ("stylesheet", "icon", "preload", "modulepreload",
                                      "import", "manifest")):
                self.sources.append(a["href"])
                if "stylesheet" in rel:
                    self.stylesheets.append(a["href"])
        elif tag in ("img", "iframe", "embed", "source", "audio", "video") and a.get("src"):
            self.sources.append(a["src"])
        elif tag == "object" and a.get("data"):
            self.sources.append(a["data"])

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._in = None

    def handle_data(self, data):
        if self._in == "script":
            self.scripts.append(data)
        elif self._in == "style":
            self.styles.append(data)


def remote_loads(deck, html=None):
    """Every http(s) (or protocol-relative) URL the page would load, sorted, no repeats.

    Looks at script/link/img sources, URLs in inline style (``@import``,
    ``url()``), quoted URLs and ``import`` targets in inline scripts (the
    require.js list, the widget renderer), and follows local style sheets
    (and their local ``@import``) for remote imports such as web fonts.
    URLs inside comments or in plain links (``<a href>``) are not loads.
    """
    deck = pathlib.Path(deck)
    html = deck.read_text(encoding="utf-8") if html is None else html
    page = _Loads()
    page.feed(html)
    found = [s for s in page.sources if _URL.match(s)]
    for css in page.styles:
        found += _css_remote(css)
    for code in page.scripts:
        found += [m.group(2) for m in _JS_STRING_URL.finditer(code)
                  if not m.group(2).startswith(_NAMESPACES)]
        found += [u for u in _JS_IMPORT.findall(code) if _URL.match(u)]
    todo = [deck.parent / s.split("?")[0] for s in page.stylesheets if not _URL.match(s)]
    seen = set()
    while todo:
        sheet = todo.pop()
        if sheet in seen or not sheet.is_file():
            continue
        seen.add(sheet)
        css = sheet.read_text(encoding="utf-8", errors="replace")
        found += _css_remote(css)
        todo += [sheet.parent / s.split("?")[0] for s in _css_local_imports(css)]
    return sorted(set(found))


def local_missing(deck, html=None):
    """Local script/style files the deck names that do not exist (relative to the deck)."""
    deck = pathlib.Path(deck)
    html = deck.read_text(encoding="utf-8") if html is None else html
    page = _Loads()
    page.feed(html)
    paths = [s for s in page.sources if not _URL.match(s) and not s.startswith("data:")]
    for code in page.scripts:   # the require.js list and the widget renderer are strings
        paths += [m.group(2) for m in re.finditer(rf"""(['"])({VENDOR}/[^'"]+)\1""", code)]
    return sorted({p for p in paths if not (deck.parent / p.split("?")[0]).is_file()})


# ---------------------------------------------------------------- DOM check

class _Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []          # (tag, classes) of open elements
        self.reveal_classes = None
        self.sections = 0
        self.present = 0
        self.controls = False
        self.widget_views = 0

    def handle_starttag(self, tag, attrs):
        classes = set((dict(attrs).get("class") or "").split())
        inside_slides = any("slides" in c and t == "div" for t, c in self.stack) and any(
            "reveal" in c for _, c in self.stack)
        if tag == "div" and "reveal" in classes and self.reveal_classes is None:
            self.reveal_classes = classes
        if tag == "section" and inside_slides:
            self.sections += 1
            if "present" in classes:
                self.present += 1
        if tag == "aside" and "controls" in classes:
            self.controls = True
        if "widget-subarea" in classes:     # made by the HTML manager for each view it draws
            self.widget_views += 1
        if tag not in ("br", "img", "input", "meta", "link", "hr", "col", "area", "base",
                       "wbr", "source", "track", "embed", "param"):
            self.stack.append((tag, classes))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break


def dom_problems(dom, widget_views=0):
    """What is wrong with a dumped DOM, as a list of sentences (empty = reveal is running).

    ``widget_views`` is how many widget views the deck stores; each must have
    been drawn (the HTML manager puts every view it renders in a
    ``div.widget-subarea``).
    """
    d = _Dom()
    d.feed(dom)
    problems = []
    if d.reveal_classes is None:
        return ["no <div class=\"reveal\"> in the DOM"]
    if d.sections == 0:
        problems.append("no slide <section> inside .reveal .slides")
    if d.present == 0:
        problems.append("no section is marked 'present' (reveal.js did not start)")
    if "ready" not in d.reveal_classes:
        problems.append("the .reveal element lacks reveal.js's runtime class 'ready'")
    if not d.controls:
        problems.append("reveal.js's controls (<aside class=\"controls\">) were not added")
    if d.widget_views < widget_views:
        problems.append(f"only {d.widget_views} of the deck's {widget_views} widget views "
                        "were drawn (widget renderer missing or failing)")
    return problems


# ---------------------------------------------------------------- screenshot

def blank_problem(png, share=BLANK_SHARE):
    """None if the PNG image shows something, else why it counts as blank.

    Pillow (installed with matplotlib) decodes the image and counts its colours."""
    if not isinstance(png, (bytes, bytearray)):
        raise TypeError(f"png must be PNG bytes, got {type(png).__name__}")
    try:
        image = Image.open(io.BytesIO(png))
        image.load()
    except (OSError, SyntaxError) as exc:
        raise ValueError(f"png is not a readable PNG image: {exc}") from None
    if image.format != "PNG":
        raise ValueError(f"png is not a PNG image (Pillow reads {image.format})")
    total = image.width * image.height
    if total == 0:
        return "the screenshot has no pixels"
    colours = image.getcolors(maxcolors=total)     # [(count, colour), ...]
    off = total - max(count for count, _ in colours)
    if off < share * total:
        return (f"the screenshot is blank: {off} of {total} pixels differ from the "
                f"dominant colour ({len(colours)} colour(s))")
    return None


# ---------------------------------------------------------------- browser

def find_browser():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


_CONSOLE_BAD = re.compile(r"Failed to load resource|Uncaught|ERR_NAME_NOT_RESOLVED|"
                          r"ERR_PROXY_CONNECTION_FAILED|ERR_FILE_NOT_FOUND|Script error",
                          re.I)


def console_problems(stderr):
    """Console lines of the browser log that report a failed load or an uncaught error."""
    out = []
    for line in stderr.splitlines():
        if "CONSOLE" in line and _CONSOLE_BAD.search(line):
            out.append(line.strip()[:300])
        elif "net::ERR_" in line and "file://" in line:
            out.append(line.strip()[:300])
    return out


def run_browser(browser, args, timeout=120):
    with tempfile.TemporaryDirectory(prefix="slides-chromium-") as profile:
        cmd = [browser, *OFFLINE_FLAGS, f"--user-data-dir={profile}", *args]
        proc = subprocess.run(cmd, capture_output=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    return proc


def check_deck(browser, deck, workdir):
    deck = pathlib.Path(deck).resolve()
    html = deck.read_text(encoding="utf-8")
    problems = [f"loads over the network: {u}" for u in remote_loads(deck, html)]
    problems += [f"names a missing local file: {p}" for p in local_missing(deck, html)]
    url = deck.as_uri()
    common = [f"--window-size={WINDOW}", f"--virtual-time-budget={BUDGET_MS}"]
    dom = run_browser(browser, [*common, "--dump-dom", url])
    dom_text = dom.stdout.decode("utf-8", "replace")
    if dom.returncode != 0 or not dom_text.strip():
        problems.append(f"chromium --dump-dom failed (exit {dom.returncode}): "
                        + dom.stderr.decode("utf-8", "replace")[-500:])
    else:
        views = html.count('<script type="application/vnd.jupyter.widget-view+json">')
        problems += dom_problems(dom_text, widget_views=views)
    problems += console_problems(dom.stderr.decode("utf-8", "replace"))
    shot = pathlib.Path(workdir) / (deck.stem + ".png")
    snap = run_browser(browser, [*common, f"--screenshot={shot}", url])
    if snap.returncode != 0 or not shot.is_file():
        problems.append(f"chromium --screenshot failed (exit {snap.returncode}): "
                        + snap.stderr.decode("utf-8", "replace")[-500:])
    else:
        blank = blank_problem(shot.read_bytes())
        if blank:
            problems.append(blank)
    return problems


def main(argv):
    decks = [pathlib.Path(p) for p in argv] or sorted(DECKS.glob("*.slides.html"))
    browser = find_browser()
    if browser is None:
        msg = ("check_slides: no Chromium found (looked for " + ", ".join(BROWSERS)
               + "); the real-browser slide test was NOT run.")
        print(msg)
        return 0 if os.environ.get("SLIDES_SKIP_OK") == "1" else 1
    if not decks:
        print(f"check_slides: no deck in {DECKS.relative_to(ROOT)}/ (run make slides)")
        return 1
    SHOTS.mkdir(parents=True, exist_ok=True)
    failed = 0
    for deck in decks:
        start = time.perf_counter()
        problems = check_deck(browser, deck, SHOTS)
        took = time.perf_counter() - start
        name = deck.name
        if problems:
            failed += 1
            print(f"FAIL {name} ({took:.1f} s)")
            for p in problems:
                print("     - " + p)
        else:
            print(f"ok   {name} ({took:.1f} s): reveal.js ready, first slide drawn "
                  f"(screenshot {(SHOTS / deck.stem).relative_to(ROOT)}.png)")
    print(f"{len(decks) - failed} of {len(decks)} deck(s) passed in headless Chromium, offline")
    print(f"slides: {len(decks) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
