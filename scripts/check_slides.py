"""Open every built deck in Chromium, offline, at 1280x720, and check it really presents.

Usage: python scripts/check_slides.py [DECK ...]   (default: build/slides/*.slides.html)
(`make test-slides` installs Chromium if needed, builds the decks, then runs this.)

Playwright for Python drives Debian's chromium (``executable_path``; no browser build is
downloaded) with every request that is not a local file refused.  One browser checks
CONCURRENT decks at a time, each lane an offline context whose page opens its decks in turn
(:func:`check_decks`).  For each deck:

1. **static**: the HTML loads no script or style sheet over http(s) (:func:`remote_loads`,
   also used by the build) and names no missing local file;
2. **running**: reveal.js initialised (:func:`dom_problems` on the live DOM, reduced to the
   elements it reads: sections, one ``present``, the runtime class ``ready``, reveal's
   controls), every stored widget view was drawn, and the console reports no failed load
   and no uncaught error;
3. **screenshot**: the first slide is not blank (:func:`blank_problem`, Pillow);
4. **walk**: pressing → from the first slide, and again pressing space, shows every leaf
   slide in order (:func:`walk_problems`); the page notes where each press lands, so the
   presses need no round-trip each;
5. **fit, type and notes**: every leaf slide with all its fragments shown and transitions
   off - measured as the → walk shows it with its last fragment, or (a slide with maths,
   which the deck re-renders on arrival, or one the walk missed) reached with
   ``location.hash = "#/h/v"`` (reveal.js is loaded by require.js, so there is no global
   ``Reveal``) once MathJax is idle, all fragments made visible - has every element's box
   inside the ``.reveal .slides`` box and no element that scrolls or clips its content
   (:data:`MEASURE_JS`, :func:`overflow_problems`).  A failure names the deck, the slide
   (h/v and its heading) and the element.  Every leaf slide must carry speaker notes;
6. **type a back row reads** (:func:`text_problems`): every text on screen, measured as its
   computed font size times the scale it is shown at (reveal.js's scale of the deck and any
   zoom of its slide), at every step of the → walk (each fragment shown in turn, not only
   the last): none under MIN_TEXT_PX, at least BIG_TEXT_SHARE of the deck's characters at
   BIG_TEXT_PX or more, and no step shrunk while it leaves the screen's height empty (a
   slide shrunk for fragments not yet shown); every figure's smallest text as shown - the
   type its PNG records (lessonlib's slide_figure writes it) at the dpi it records, times
   the scale the image is shown at (:func:`figure_text_px`) - MIN_TEXT_PX or more;
7. **what a room takes in** (:func:`content_problems`): at most MAX_CODE_LINES lines of code
   and MAX_PROSE_FIGURES four-decimal figures of prose on a slide, and reveal.js's slide
   number on screen at every slide;
8. **print** (:func:`print_check`, :func:`print_problems`): the deck opened with
   ``?print-pdf``, as reveal.js prints it: every ``.pdf-page`` one printed page tall with
   nothing running past its bottom or right edge (reveal.js cuts it off there);
9. **accessibility** (:func:`axe_check`, :func:`axe_problems`): axe-core (npm,
   node_modules/axe-core) finds no violation of impact serious or critical, run twice: on the
   first slide as presented (reveal's controls, progress bar, slide number) and on the
   ``?print-pdf`` layout, where every slide and every step of its fragments is on a page at
   once (the presented view hides all but one slide).  No axe-core is a failure.

**Incremental, as make is**: a deck that passes gets a stamp, ``.checked/NN_name.json`` beside
it, holding a hash of every input of its verdict (:func:`deck_inputs`: the deck's bytes, the
vendor/ files, this script, the Chromium, Playwright, Pillow and Python versions, the fonts,
the settings).  A deck whose stamp matches is not walked again and the report says so; a
failing deck loses its stamp; SLIDES_RECHECK=1 (``make test-slides FORCE=1``) walks every deck.

Exit status 0 when every deck passes, 1 otherwise.  If Chromium is not installed the script
says so and exits 0 only when SLIDES_SKIP_OK=1 is set.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
from html.parser import HTMLParser
from importlib.metadata import version

from PIL import Image

ROOT = pathlib.Path(__file__).resolve().parents[1]
DECKS = ROOT / "build" / "slides"
"""Where scripts/build_slides.py writes the decks (it takes the folder from here)."""
VENDOR = "vendor"
"""The decks' local assets: DECKS / VENDOR, named in a deck by paths that start 'vendor/'."""
SHOTS = ROOT / "build" / "slides-check"

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
BLANK_SHARE = 0.001  # fewer than 0.1 % of pixels off the dominant colour = blank

# ---------------------------------------------------------------- static check

_URL = re.compile(r"""^\s*(?:https?:)?//""", re.I)
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_CSS_IMPORT = r"""@import\s+(?:url\()?\s*['"]?([^'")\s;]+)"""
_CSS_LOADS = re.compile(_CSS_IMPORT + r"""|url\(\s*['"]?([^'")\s]+)""", re.I)
_JS_STRING_URL = re.compile(r"""(['"`])((?:https?:)?//[^'"`\s]+)\1""", re.I)
_NAMESPACES = ("http://www.w3.org/",)  # XML namespace names in scripts are not loads
_JS_IMPORT = re.compile(r"""\bimport\s*(?:[\w*{}\s,]+from\s*)?\(?\s*['"]([^'"]+)['"]""")
_DATA_SCRIPTS = (
    "application/json",
    "application/ld+json",
    "application/vnd.jupyter.widget-state+json",
    "application/vnd.jupyter.widget-view+json",
    "text/html",
    "text/template",
)


def _css_remote(css):
    css = _CSS_COMMENT.sub("", css)
    return [a or b for a, b in _CSS_LOADS.findall(css) if _URL.match(a or b)]


def _css_local_imports(css):
    css = _CSS_COMMENT.sub("", css)
    return [
        m.group(1)
        for m in re.finditer(_CSS_IMPORT, css)
        if not _URL.match(m.group(1)) and not m.group(1).startswith("data:")
    ]


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
            if any(
                r in rel
                for r in ("stylesheet", "icon", "preload", "modulepreload", "import", "manifest")
            ):
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
        found += [
            m.group(2)
            for m in _JS_STRING_URL.finditer(code)
            if not m.group(2).startswith(_NAMESPACES)
        ]
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
    for code in page.scripts:  # the require.js list and the widget renderer are strings
        paths += [m.group(2) for m in re.finditer(rf"""(['"])({VENDOR}/[^'"]+)\1""", code)]
    return sorted({p for p in paths if not (deck.parent / p.split("?")[0]).is_file()})


# ---------------------------------------------------------------- DOM check


class _Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []  # (tag, classes) of open elements
        self.reveal_classes = None
        self.sections = 0
        self.present = 0
        self.controls = False
        self.widget_views = 0

    def handle_starttag(self, tag, attrs):
        classes = set((dict(attrs).get("class") or "").split())
        inside_slides = any("slides" in c and t == "div" for t, c in self.stack) and any(
            "reveal" in c for _, c in self.stack
        )
        if tag == "div" and "reveal" in classes and self.reveal_classes is None:
            self.reveal_classes = classes
        if tag == "section" and inside_slides:
            self.sections += 1
            if "present" in classes:
                self.present += 1
        if tag == "aside" and "controls" in classes:
            self.controls = True
        if "widget-subarea" in classes:  # made by the HTML manager for each view it draws
            self.widget_views += 1
        if tag not in (
            "br",
            "img",
            "input",
            "meta",
            "link",
            "hr",
            "col",
            "area",
            "base",
            "wbr",
            "source",
            "track",
            "embed",
            "param",
        ):
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
        return ['no <div class="reveal"> in the DOM']
    if d.sections == 0:
        problems.append("no slide <section> inside .reveal .slides")
    if d.present == 0:
        problems.append("no section is marked 'present' (reveal.js did not start)")
    if "ready" not in d.reveal_classes:
        problems.append("the .reveal element lacks reveal.js's runtime class 'ready'")
    if not d.controls:
        problems.append('reveal.js\'s controls (<aside class="controls">) were not added')
    if d.widget_views < widget_views:
        problems.append(
            f"only {d.widget_views} of the deck's {widget_views} widget views "
            "were drawn (widget renderer missing or failing)"
        )
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
    colours = image.getcolors(maxcolors=total)  # [(count, colour), ...]
    off = total - max(count for count, _ in colours)
    if off < share * total:
        return (
            f"the screenshot is blank: {off} of {total} pixels differ from the "
            f"dominant colour ({len(colours)} colour(s))"
        )
    return None


# ---------------------------------------------------------------- fit on the screen

SLACK = 1.0  # px of rounding allowed at an edge
MIN_TEXT_PX = 14.0
"""Smallest readable text on the 1280x720 screen, in px: computed font size times the scale
the text is shown at (reveal.js's scale of the deck and any zoom of its slide)."""
BIG_TEXT_PX = 18.0
BIG_TEXT_SHARE = 0.8
"""At least this share of a deck's text (characters on screen, summed over every step of
every slide) must be BIG_TEXT_PX or more on the 1280x720 screen: text a back row reads."""
PNG_KEY = "lessonlib smallest points"
"""The text chunk in which a course figure's PNG records its smallest type, in points
(lessonlib.figures.slide_figure writes it after raising any text under 13 pt, a superscript
counted at its own size; tests/test_figures.py checks the two keys agree).  A figure that
records none fails the check: it was drawn some other way, or before the record was kept."""
FIGURE_DPI = 100.0
"""The dots per inch a figure's PNG is read at when it records none (matplotlib writes its
dpi in the PNG's pHYs chunk, which MEASURE_JS reads; lessonlib draws at 100)."""
MAX_CODE_LINES = 8
"""At most this many lines of code (not counting blank lines) on one slide, every fragment
counted: more is read by nobody from the back row."""
MAX_PROSE_FIGURES = 4
"""At most this many four-decimal figures (like 0.8833) in a slide's prose (its markdown,
not the printed output): a wall of numbers is a chart or a few bold figures instead."""
FIGURE_SHARE = 0.5
"""A figure must be shown at least this share of the slide's width (none drawn small
with half the screen empty)."""
FILLED_SHARE = 0.85
"""A slide shrunk below the deck's scale must fill at least this share of the screen's
height with what it shows at that step (else it was shrunk for something not shown)."""


def overflow_problems(measure, slack=SLACK):
    """What sticks out of one slide, as sentences (empty = everything fits).

    ``measure`` is what :data:`MEASURE_JS` returns for the slide on screen:
    ``box`` (the ``.reveal .slides`` rectangle) and ``elements``, each with
    ``id``, ``parent`` (the id of its nearest measured ancestor, or None), a
    readable ``name`` and its ``left/top/right/bottom`` in screen pixels, plus
    ``scroll_x`` / ``scroll_y`` when the element scrolls or clips its content
    by that many pixels.  Only the outermost offender of a subtree is named (a
    wide table, not each of its cells).
    """
    box = measure["box"]
    bad = {}
    sentences = []
    for el in measure["elements"]:
        if el.get("parent") in bad:
            bad[el["id"]] = True
            continue
        out = []
        for side, sign in (("left", -1), ("top", -1), ("right", 1), ("bottom", 1)):
            past = sign * (el[side] - box[side])
            if past > slack:
                out.append(f"{past:.0f} px past the {side} edge")
        for axis, word in (("scroll_x", "sideways"), ("scroll_y", "down")):
            if el.get(axis, 0) > slack:
                out.append(f"scrolls {el[axis]:.0f} px {word}")
        if out:
            bad[el["id"]] = True
            sentences.append(f"{el['name']}: " + ", ".join(out))
    return sentences


def _step(measure):
    hidden = measure.get("hidden", 0)
    return (
        f"slide {measure['where']} with {hidden} fragment(s) not yet shown"
        if hidden
        else f"slide {measure['where']}"
    )


def text_problems(
    finals,
    steps=(),
    min_px=MIN_TEXT_PX,
    big_px=BIG_TEXT_PX,
    share=BIG_TEXT_SHARE,
    filled=FILLED_SHARE,
):
    """Is a deck's text big enough to read from the back row?  (problems, type sizes).

    ``finals`` are :data:`MEASURE_JS` results of every leaf slide with all its fragments
    shown, ``steps`` those of the steps before a slide's last fragment.  Each measure has
    ``where``, ``text`` (screen px -> characters of text at that size), ``smallest_text``
    and ``smallest_name``, ``shrink`` (the slide's own scale beyond the deck's),
    ``filled`` (the height of what is shown, as a share of the screen's slide box) and
    ``hidden`` (fragments not yet shown).  Problems: any text under ``min_px`` (one
    sentence per slide, at its first step that has it); less than ``share`` of the deck's
    characters on screen (every step counted: what the room reads over the talk) at
    ``big_px`` or more; a slide shrunk (``shrink`` under 0.99)
    while what it shows fills less than ``filled`` of the height - shrunk for what is not
    on screen; a figure at any step (``images``: pixel width ``natural``, screen width
    ``shown``, the ``points`` and ``dpi`` its PNG records) whose smallest text as shown
    (:func:`figure_text_px`) is under ``min_px`` or unrecorded, or shown narrower than
    FIGURE_SHARE of the slide (``width``).
    Type sizes: (smallest px, where, share of characters at ``big_px`` or more).
    """
    problems, small = [], set()
    smallest = (float("inf"), "")
    for m in [*steps, *finals]:
        px = m.get("smallest_text")
        if px is None:
            continue
        if px < smallest[0]:
            smallest = (px, f"slide {m['where']}: {m['smallest_name']}")
        if px < min_px and m["where"] not in small:
            small.add(m["where"])
            problems.append(
                f"{_step(m)}: text at {px:.1f} px on the 1280x720 screen (at "
                f"least {min_px:.0f} px): {m['smallest_name']}"
            )
    for m in [*steps, *finals]:
        if m.get("shrink", 1.0) < 0.99 and m.get("filled", 1.0) < filled:
            problems.append(
                f"{_step(m)}: shrunk to {m['shrink']:.0%} of the deck's scale, yet "
                f"what it shows fills only {m['filled']:.0%} of the screen's height "
                f"(at least {filled:.0%} when shrunk)"
            )
    seen = set()
    for m in [*steps, *finals]:  # a figure may show only before a later fragment pages it off
        for image in m.get("images", ()):
            if (m["where"], image["name"], image["shown"]) in seen:
                continue
            seen.add((m["where"], image["name"], image["shown"]))
            scale = image["shown"] / image["natural"]
            px = figure_text_px(image)
            if px is None:
                problems.append(
                    f"{_step(m)}: figure records no smallest type (its PNG has no "
                    f"'{PNG_KEY}' text: draw it with lessonlib's slide_figure and execute "
                    f"the notebook again): {image['name']}"
                )
            elif px < smallest[0]:  # the deck's smallest text, figures included
                smallest = (px, f"slide {m['where']}: figure {image['name']}")
            if px is not None and px < min_px:
                problems.append(
                    f"{_step(m)}: figure shown at {scale:.0%} of its pixels, so its "
                    f"smallest text is {px:.1f} px (at least "
                    f"{min_px:.0f} px): {image['name']}"
                )
            if image["shown"] < FIGURE_SHARE * m.get("width", 0):
                problems.append(
                    f"{_step(m)}: figure shown {image['shown']:.0f} px wide, less "
                    f"than {FIGURE_SHARE:.0%} of the slide's {m['width']:.0f} px: "
                    f"{image['name']}"
                )
    counts = [
        (float(px), chars) for m in [*steps, *finals] for px, chars in m.get("text", {}).items()
    ]
    total = sum(chars for _, chars in counts)
    big = sum(chars for px, chars in counts if px >= big_px)
    got = big / total if total else 1.0
    if got < share:
        small_chars = {}
        for m in [*steps, *finals]:
            small_chars[m["where"]] = small_chars.get(m["where"], 0) + sum(
                c for px, c in m.get("text", {}).items() if float(px) < big_px
            )
        worst = sorted((w for w in small_chars if small_chars[w]), key=lambda w: -small_chars[w])
        problems.append(
            f"only {got:.0%} of the deck's text (by characters) is {big_px:.0f} px "
            f"or more on the 1280x720 screen (at least {share:.0%}); most small "
            "text on slide(s) " + ", ".join(worst[:3])
        )
    return problems, (smallest[0], smallest[1], got)


def figure_text_px(image):
    """The smallest text of a figure as shown on the 1280x720 screen, in px: the smallest
    type its PNG records (``image["points"]``, points) at the dpi it records
    (``image["dpi"]``, FIGURE_DPI when it records none), times the scale it is shown at
    (``shown`` screen px over ``natural`` PNG px).  None when it records no type size."""
    if image.get("points") is None:
        return None
    dpi = image.get("dpi") or FIGURE_DPI
    return image["points"] * dpi / 72 * image["shown"] / image["natural"]


_FOUR_DECIMALS = re.compile(r"(?<![\d.])\d+\.\d{4}(?![\d])")


def four_decimal_figures(text):
    """The four-decimal figures (0.8833, 12.5000) in ``text``, in order, repeats kept; a
    number with more or fewer decimals, or a version like 1.2.3456, is not one."""
    return _FOUR_DECIMALS.findall(text)


def _where(m):
    number = m.get("number")
    title = f" ({m['title']})" if m.get("title") else ""
    return f"slide {m['where']}" + (f" [{number}]" if number else "") + title


def content_problems(finals, max_lines=MAX_CODE_LINES, max_figures=MAX_PROSE_FIGURES):
    """What a room cannot take in from one slide, as sentences: more than ``max_lines``
    lines of code (``code_lines``: non-blank lines of the slide's code cells, every fragment
    counted), more than ``max_figures`` four-decimal figures in its prose (``prose``: the
    text of its markdown cells, notes left out), no slide number shown (``number``: the text
    of reveal.js's slide number while the slide is on screen)."""
    problems = []
    for m in finals:
        lines = m.get("code_lines", 0)
        if lines > max_lines:
            problems.append(f"{_where(m)}: {lines} lines of code (at most {max_lines} on a slide)")
        figures = four_decimal_figures(m.get("prose", ""))
        if len(figures) > max_figures:
            problems.append(
                f"{_where(m)}: {len(figures)} four-decimal figures in its prose (at most "
                f"{max_figures}; a chart or a few bold figures instead): "
                + ", ".join(figures[:8])
                + (" ..." if len(figures) > 8 else "")
            )
        if not m.get("number"):
            problems.append(f"{_where(m)}: no slide number shown")
    return problems


def print_problems(pages, printed=None, slack=SLACK):
    """Why printing with ?print-pdf would cut a page, as sentences (empty = every page
    whole).  ``pages`` is what :data:`PRINT_JS` returns: per ``.pdf-page`` its ``index``,
    ``number`` (the slide number printed on it), ``height`` and the printed page's
    ``page_height`` (px), and ``past``: the elements whose box runs past the page's bottom
    or right edge, each ``[name, px past]``.  ``printed``: the pages of the PDF Chromium
    printed, one per ``.pdf-page`` when every page is whole (None: not printed)."""
    if not pages:
        return ["?print-pdf made no .pdf-page (reveal.js did not lay the deck out for print)"]
    problems = []
    if printed is not None and printed != len(pages):
        problems.append(
            f"Chromium printed {printed} PDF pages for the deck's {len(pages)} pages "
            "(a page that spills over, or an empty one)"
        )
    for pg in pages:
        where = f"printed page {pg['index'] + 1} (slide {pg.get('number') or '?'})"
        if pg["height"] > pg["page_height"] + slack:
            problems.append(
                f"{where} is {pg['height']:.0f} px tall, more than one printed page "
                f"({pg['page_height']:.0f} px)"
            )
        if pg["past"]:
            name, px = pg["past"][0]
            more = f"; and {len(pg['past']) - 1} more" if len(pg["past"]) > 1 else ""
            problems.append(f"{where} is cut off: {name} runs {px:.0f} px past the page{more}")
    return problems


def walk_problems(leaves, seen, key):
    """Why pressing ``key`` from the first slide did not visit every slide in order.

    ``leaves`` is the deck's leaf slides in order, ``seen`` the distinct
    slides shown after each press (as "h/v" strings)."""
    if seen == leaves:
        return []
    missed = [s for s in leaves if s not in seen]
    if missed:
        return [
            f"pressing {key} never shows slide(s) {', '.join(missed[:8])}"
            + (f" and {len(missed) - 8} more" if len(missed) > 8 else "")
        ]
    return [f"pressing {key} shows the slides out of order: {' '.join(seen[:20])}"]


# ---------------------------------------------------------------- browser

LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-extensions",
    "--mute-audio",
    "--hide-scrollbars",
    "--allow-file-access-from-files",
    # offline: no host name resolves and every proxied request goes nowhere
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--proxy-server=http://127.0.0.1:9",
]
VIEWPORT = {"width": 1280, "height": 720}
TIMEOUT_MS = 30000
NO_MOTION_CSS = """.reveal .slides section, .reveal .slides section *, .reveal .fragment,
.reveal .slides { transition: none !important; animation: none !important; }"""

LEAVES_JS = """() => Array.from(document.querySelectorAll('.reveal .slides > section'))
  .flatMap((h, i) => {
    const v = h.querySelectorAll(':scope > section');
    return v.length ? Array.from(v, (_, j) => i + '/' + j) : [i + '/0'];
  })"""

PRESENT_JS = """() => {
  const hs = Array.from(document.querySelectorAll('.reveal .slides > section'));
  const h = hs.findIndex(s => s.classList.contains('present'));
  if (h < 0) return null;
  const vs = Array.from(hs[h].querySelectorAll(':scope > section'));
  const v = Math.max(0, vs.findIndex(s => s.classList.contains('present')));
  return h + '/' + v;
}"""

MEASURE_JS = """() => {
  const slides = document.querySelector('.reveal .slides');
  const b = slides.getBoundingClientRect();
  const hs = Array.from(slides.querySelectorAll(':scope > section'));
  const h = hs.find(s => s.classList.contains('present'));
  const vs = Array.from(h.querySelectorAll(':scope > section'));
  const slide = vs.find(s => s.classList.contains('present')) || h;
  const ids = new Map();
  const elements = [];
  const describe = el => {
    let name = el.tagName.toLowerCase();
    const cls = Array.from(el.classList).filter(c => !c.startsWith('jp-mod-')).slice(0, 2);
    if (cls.length) name += '.' + cls.join('.');
    const text = (el.innerText || el.getAttribute('alt') || '').trim().replace(/\\s+/g, ' ');
    return text ? name + ' "' + text.slice(0, 50) + (text.length > 50 ? '...' : '') + '"' : name;
  };
  for (const el of slide.querySelectorAll('*')) {
    if (el.closest('aside.notes')) continue;
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden') continue;
    if (cs.position === 'absolute' && cs.clip && cs.clip.startsWith('rect(')) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    let p = el.parentElement, parent = null;
    while (p && p !== slide) {
      if (ids.has(p)) { parent = ids.get(p); break; }
      p = p.parentElement;
    }
    const id = elements.length;
    ids.set(el, id);
    const item = {id, parent, name: el.tagName.toLowerCase(),
                  left: r.left, top: r.top, right: r.right, bottom: r.bottom};
    const scale = r.width / (el.offsetWidth || r.width);
    if (cs.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1)
      item.scroll_x = (el.scrollWidth - el.clientWidth) * scale;
    if (cs.overflowY !== 'visible' && el.scrollHeight > el.clientHeight + 1)
      item.scroll_y = (el.scrollHeight - el.clientHeight) * scale;
    // only an element that may be reported gets its full name (innerText is slow)
    if (item.scroll_x || item.scroll_y || r.left < b.left || r.top < b.top ||
        r.right > b.right || r.bottom > b.bottom) item.name = describe(el);
    elements.push(item);
  }
  // the text on screen: every visible text node's computed font size times the scale its
  // element is shown at (bounding width / layout width: reveal.js's scale of the whole
  // deck and any zoom of the slide), in screen pixels; characters counted per size
  const text = {};
  const scales = new Map();
  const scaleOf = el => {
    if (!scales.has(el)) {
      const r = el.getBoundingClientRect();
      scales.set(el, el.offsetWidth ? r.width / el.offsetWidth
                     : el.offsetHeight ? r.height / el.offsetHeight : null);
    }
    return scales.get(el);
  };
  let smallest = null, smallestName = '';
  const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const chars = t.textContent.replace(/\\s+/g, '').length;
    if (!chars ||
        t.parentElement.closest('aside.notes, .MathJax_Preview, .MJX_Assistive_MathML')) continue;
    const el = t.parentElement;
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden' || cs.opacity === '0') continue;
    const range = document.createRange();
    range.selectNodeContents(t);
    const rects = range.getClientRects();
    if (!rects.length || rects[0].height < 1) continue;
    const scale = scaleOf(el.closest('svg') ? el.closest('svg').parentElement : el);
    if (scale === null) continue;
    const px = Math.round(parseFloat(cs.fontSize) * scale * 10) / 10;
    text[px] = (text[px] || 0) + chars;
    if (smallest === null || px < smallest) {
      smallest = px;
      smallestName = describe(el);
    }
  }
  // how much the slide itself is shrunk beyond the deck's scale, and the height of what is
  // shown on it, as a share of the screen's slide box
  const deckScale = b.width / (slides.offsetWidth || b.width);
  const own = slide.getBoundingClientRect();
  const shrink = (own.width / (slide.offsetWidth || own.width)) / deckScale;
  let top = null, bottom = null;
  for (const child of slide.children) {
    if (child.matches('aside.notes')) continue;
    const cs = getComputedStyle(child);
    if (cs.display === 'none' || cs.visibility === 'hidden') continue;
    const r = child.getBoundingClientRect();
    if (r.height < 1) continue;
    top = top === null ? r.top : Math.min(top, r.top);
    bottom = bottom === null ? r.bottom : Math.max(bottom, r.bottom);
  }
  const hidden = slide.querySelectorAll('.fragment:not(.visible)').length;
  // figures: each visible image's pixel width and the width it is shown at on screen
  // and what its PNG records before the image data: the dpi (pHYs chunk, pixels per metre)
  // and the smallest type in points that lessonlib's slide_figure wrote (tEXt chunk)
  const pngInfo = img => {
    const info = {dpi: null, points: null};
    const src = img.getAttribute('src') || '';
    if (!src.startsWith('data:image/png;base64,')) return info;
    let bytes;
    try { bytes = atob(src.slice(22, 22 + 4000)); }   // a whole number of 3-byte groups
    catch (e) { return info; }
    const u32 = at => ((bytes.charCodeAt(at) << 24) >>> 0) + (bytes.charCodeAt(at + 1) << 16)
                      + (bytes.charCodeAt(at + 2) << 8) + bytes.charCodeAt(at + 3);
    for (let at = 8; at + 8 <= bytes.length; ) {
      const size = u32(at), type = bytes.slice(at + 4, at + 8);
      if (type === 'IDAT' || at + 12 + size > bytes.length) break;
      const data = bytes.slice(at + 8, at + 8 + size);
      if (type === 'pHYs' && data.charCodeAt(8) === 1) info.dpi = u32(at + 8) * 0.0254;
      if (type === 'tEXt') {
        const [key, value] = data.split('\\0');
        if (key === 'lessonlib smallest points') info.points = parseFloat(value);
      }
      at += 12 + size;
    }
    return info;
  };
  const images = [];
  for (const img of slide.querySelectorAll('img')) {
    const r = img.getBoundingClientRect();
    if (r.width < 1 || !img.naturalWidth
        || getComputedStyle(img).visibility === 'hidden') continue;
    images.push(Object.assign({natural: img.naturalWidth, shown: r.width,
                               name: describe(img)}, pngInfo(img)));
  }
  // lines of code (blank ones not counted) and the prose of the slide's markdown, every
  // fragment counted, shown or not; and reveal.js's slide number as shown now
  let codeLines = 0;
  for (const ed of slide.querySelectorAll('.jp-InputArea-editor')) {
    if (ed.closest('aside.notes')) continue;
    codeLines += ed.textContent.split('\\n').filter(l => l.trim()).length;
  }
  const prose = Array.from(slide.querySelectorAll('.jp-RenderedMarkdown'))
    .filter(el => !el.closest('aside.notes')).map(el => el.textContent).join('\\n');
  const num = document.querySelector('.reveal .slide-number');
  const numShown = num && getComputedStyle(num).display !== 'none'
    && num.getBoundingClientRect().height >= 1 ? num.textContent.replace(/\\s+/g, '') : '';
  const head = slide.querySelector('h1, h2, h3, h4');
  return {box: {left: b.left, top: b.top, right: b.right, bottom: b.bottom},
          title: head ? head.innerText.trim().slice(0, 60) : '', elements,
          smallest_text: smallest, smallest_name: smallestName, text,
          shrink, filled: top === null ? 0 : (bottom - top) / b.height, hidden, images,
          width: b.width, code_lines: codeLines, prose, number: numShown,
          notes: !!slide.querySelector('aside.notes')};
}"""


def find_browser():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


_CONSOLE_BAD = re.compile(
    r"Failed to load resource|Uncaught|ERR_NAME_NOT_RESOLVED|"
    r"ERR_PROXY_CONNECTION_FAILED|ERR_FILE_NOT_FOUND|Script error",
    re.I,
)


def console_problems(lines):
    """The console lines that report a failed load or an uncaught error."""
    if isinstance(lines, str):
        lines = lines.splitlines()
    return [line.strip()[:300] for line in lines if _CONSOLE_BAD.search(line)]


# ---------------------------------------------------------------- accessibility (axe-core)

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
"""axe-core from npm (package.json; `npm ci`, which make slides runs)."""
AXE_SEVERE = ("serious", "critical")
"""The impacts that fail a deck (issue 37: no serious or critical violation)."""
AXE_JS = """async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.length, where: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
}"""
AXE_SECONDS = [0.0]
"""Seconds spent in axe-core so far in this process (the summary line reports it)."""


def axe_problems(violations, view):
    """The violations (as AXE_JS returns them) of impact serious or critical, one line each,
    naming the ``view`` ("on screen", "printed") and where the first few are."""
    return [
        f"axe {v['impact']} ({view}): {v['id']} - {v['help']}; {v['nodes']} element(s), "
        + ", ".join(v["where"])
        for v in violations
        if v["impact"] in AXE_SEVERE
    ]


async def axe_check(page, view):
    """Run axe-core on what ``page`` shows now: :func:`axe_problems`.  No axe-core installed
    is a problem too (never a silent pass)."""
    if not AXE.is_file():
        missing = AXE.relative_to(ROOT)
        return [f"axe-core missing ({missing}): run npm ci; accessibility NOT checked"]
    start = time.perf_counter()
    if not await page.evaluate("() => typeof window.axe === 'object'"):
        await page.evaluate(AXE.read_text(encoding="utf-8"))
    found = axe_problems(await page.evaluate(AXE_JS), view)
    AXE_SECONDS[0] += time.perf_counter() - start
    return found


# In the page: after each key press (on keyup, once reveal.js has handled the keydown) note
# the slide shown, so a whole walk is pressed without asking the page after each key.  While
# window.__measuring is set (the walk with the right arrow) a slide is also measured
# (MEASURE_JS) the first time it shows with every fragment visible - the state the fit check
# wants, reached by the presses themselves.  A slide with maths is left to FIT_JS, which waits
# for MathJax (the deck re-renders a slide's maths when it arrives).
RECORD_KEYS_JS = """([present, measure]) => {
  const [now, measureNow] = [eval(present), eval(measure)];
  window.__seen = [];
  window.__measured = {};
  window.__steps = [];
  window.__record = () => {
    const where = now();
    window.__seen.push(where);
    if (!window.__measuring || !where || where in window.__measured) return;
    const h = document.querySelector('.reveal .slides > section.present');
    const slide = h.querySelector(':scope > section.present') || h;
    if (slide.querySelector('script[type^="math/tex"], .MathJax_Preview')) return;
    const m = Object.assign(measureNow(), {where, shown: where});
    if (m.hidden) window.__steps.push(m);   // a step before the last fragment
    else window.__measured[where] = m;
  };
  document.addEventListener('keyup', window.__record, true);
}"""

# Go to a leaf slide: set location.hash (reveal.js, loaded by require.js, has no global
# Reveal) and wait for hashchange events until the slide is shown (reveal.js also writes the
# hash as it moves, so one event is not enough); then wait for MathJax's queue, since the deck
# re-renders a slide's maths when it arrives.
GOTO_JS = (
    """async ([where, present]) => {
  const now = eval(present);
  if (now() !== where) {
    location.hash = '#/' + where;
    const t0 = performance.now();
    while (now() !== where && performance.now() - t0 < %d)
      await new Promise(r => {
        window.addEventListener('hashchange', r, {once: true});
        setTimeout(r, 100);   // a safety net only: the hashchange event comes first
      });
  }
  if (window.MathJax && MathJax.Hub) await new Promise(r => MathJax.Hub.Queue(r));
  return now();
}"""
    % TIMEOUT_MS
)

# Every leaf slide in turn, all its fragments shown, measured by MEASURE_JS: one call per deck.
FIT_JS = """async ([leaves, present, measure, go]) => {
  const [measureNow, goto] = [eval(measure), eval(go)];
  const out = [];
  for (const where of leaves) {
    const shown = await goto([where, present]);
    // reveal.js hides a slide's fragments when it arrives there: show them all
    document.querySelectorAll('.reveal .slides section.present .fragment')
      .forEach(f => f.classList.add('visible'));
    if (window.slideFit) window.slideFit();   // the deck's own fit, for what is now shown
    out.push(Object.assign(measureNow(), {where, shown}));
  }
  return out;
}"""

# The live DOM reduced to what dom_problems reads (the .reveal and div.slides elements, the
# sections, reveal's controls, the drawn widget views), nesting kept: the whole page is
# about 400 kB of HTML to send and parse, this a few hundred bytes.
SKELETON_JS = """() => {
  const keep = '.reveal, div.slides, section, aside.controls, .widget-subarea';
  const out = [];
  const visit = el => {
    const k = el.matches(keep), tag = el.tagName.toLowerCase();
    if (k) out.push('<' + tag + ' class="' + (el.getAttribute('class') || '') + '">');
    for (const child of el.children) visit(child);
    if (k) out.push('</' + tag + '>');
  };
  visit(document.body);
  return '<html><body>' + out.join('') + '</body></html>';
}"""

# ?print-pdf: every .pdf-page reveal.js laid out, with the elements inside it that run past
# its bottom or right edge (reveal.js hides them: overflow hidden), and the height of one
# printed page (the @page size reveal.js sets: the slide plus its margin).
PRINT_JS = """() => {
  const pages = Array.from(document.querySelectorAll('.reveal .slides .pdf-page'));
  let pageHeight = null;
  for (const sheet of document.styleSheets) {
    let rules;
    try { rules = sheet.cssRules; } catch (e) { continue; }
    for (const rule of rules)
      if (rule.type === CSSRule.PAGE_RULE) {
        const m = /([0-9.]+)px[ ]+([0-9.]+)px/.exec(rule.style.getPropertyValue('size'));
        if (m) pageHeight = parseFloat(m[2]);
      }
  }
  return pages.map((pg, index) => {
    const box = pg.getBoundingClientRect();
    const past = [];
    const bad = new Set();
    for (const el of pg.querySelectorAll('*')) {
      if (el.closest('aside.notes')) continue;
      if (el.parentElement && bad.has(el.parentElement)) { bad.add(el); continue; }
      const cs = getComputedStyle(el);
      if (cs.display === 'none' || cs.visibility === 'hidden') continue;
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) continue;
      const over = Math.max(r.bottom - box.bottom, r.right - box.right);
      if (over > 1) {
        bad.add(el);
        const text = (el.innerText || el.getAttribute('alt') || '').trim().replace(/\\s+/g, ' ');
        past.push([el.tagName.toLowerCase() + (text ? ' "' + text.slice(0, 50) + '"' : ''),
                   over]);
      }
    }
    const num = pg.querySelector('.slide-number-pdf');
    return {index, height: box.height, page_height: pageHeight || box.height, past,
            number: num ? num.textContent.replace(/\\s+/g, '') : ''};
  });
}"""

DECK_JS = (
    """() => ({
  leaves: ("""
    + LEAVES_JS
    + """)(),
  fragments: document.querySelectorAll('.reveal .fragment').length})"""
)

CONCURRENT = 3  # decks open at once, each in its own browser context and page


async def walk(page, leaves, key, fragments):
    """Press ``key`` from the first slide; the distinct slides shown, in order.

    At most one press per slide and fragment (plus three), as before; the page notes where
    each press lands (RECORD_KEYS_JS), so only the end of the walk is read back."""
    await page.evaluate(GOTO_JS, [leaves[0], PRESENT_JS])
    await page.evaluate("() => { window.__seen = []; window.__record(); }")
    presses = len(leaves) - 1 + fragments
    seen = [leaves[0]]
    for extra in (presses, 1, 1, 1):  # then press on, one key at a time, up to 3 more
        for _ in range(extra):
            await page.keyboard.press(key)
        for now in await page.evaluate("() => window.__seen.splice(0)"):
            if now and now != seen[-1]:
                seen.append(now)
        if seen[-1] == leaves[-1] and len(seen) >= len(leaves):
            break
    return seen


async def check_deck(page, deck, workdir, log):
    """Every problem of one deck: (problems, leaf slides, slides that fit, type sizes), the
    last as :func:`text_problems` gives it (smallest px, where, share of big text).

    ``log`` is the list the page's console messages, uncaught errors and failed loads are
    appended to while the deck is open (see :func:`_check_all`)."""
    deck = pathlib.Path(deck).resolve()
    html = deck.read_text(encoding="utf-8")
    problems = [f"loads over the network: {u}" for u in remote_loads(deck, html)]
    problems += [f"names a missing local file: {p}" for p in local_missing(deck, html)]
    from playwright.async_api import TimeoutError as Timeout

    await page.goto(deck.as_uri())
    views = html.count('<script type="application/vnd.jupyter.widget-view+json">')
    # a deck that never gets there is reported by dom_problems below
    with contextlib.suppress(Timeout):
        await page.wait_for_selector(".reveal.ready", timeout=TIMEOUT_MS)
        await page.wait_for_function(
            f"() => document.querySelectorAll('.widget-subarea').length >= {views}",
            timeout=TIMEOUT_MS,
        )
    dom = dom_problems(await page.evaluate(SKELETON_JS), widget_views=views)
    problems += dom
    if dom:
        return problems + console_problems(log), 0, 0, (float("inf"), "", 0.0)
    png = await page.screenshot(path=str(pathlib.Path(workdir) / (deck.stem + ".png")))
    blank = blank_problem(png)
    if blank:
        problems.append(blank)
    # the first slide as the room sees it: reveal's controls, progress bar and slide number
    problems += await axe_check(page, "on screen, first slide")
    await page.add_style_tag(content=NO_MOTION_CSS)
    found = await page.evaluate(DECK_JS)
    leaves = found["leaves"]
    await page.evaluate(RECORD_KEYS_JS, [PRESENT_JS, MEASURE_JS])
    for key in ("ArrowRight", "Space"):
        await page.evaluate("m => { window.__measuring = m; }", key == "ArrowRight")
        problems += walk_problems(leaves, await walk(page, leaves, key, found["fragments"]), key)
    # every slide the walk did not measure (maths, or a slide it never reached): by its hash
    measured = await page.evaluate("() => window.__measured")
    rest = [where for where in leaves if where not in measured]
    for measure in await page.evaluate(FIT_JS, [rest, PRESENT_JS, MEASURE_JS, GOTO_JS]):
        measured[measure["where"]] = measure
    steps = await page.evaluate("() => window.__steps")
    fit = 0
    finals = []
    for where in leaves:
        measure = measured[where]
        if measure["shown"] != where:
            problems.append(f"slide {where}: going to #/{where} shows slide {measure['shown']}")
            continue
        finals.append(measure)
        out = overflow_problems(measure)
        if not measure["notes"]:
            problems.append(
                f"slide {where} ({measure['title'] or 'no heading'}) has no "
                "speaker notes (a markdown cell with slide_type 'notes', or "
                "'speaker_notes' in the metadata of the slide's first cell)"
            )
        if out:
            title = f" ({measure['title']})" if measure["title"] else ""
            problems.append(
                f"slide {where}{title} does not fit: "
                + out[0]
                + (f"; and {len(out) - 1} more" if len(out) > 1 else "")
            )
        else:
            fit += 1
    text, type_sizes = text_problems(finals, steps)
    problems += text
    problems += content_problems(finals)
    problems += await print_check(page, deck, views)
    problems += console_problems(log)
    return problems, len(leaves), fit, type_sizes


async def print_check(page, deck, views):
    """Open the deck as reveal.js prints it (``?print-pdf``), once its widget views are drawn
    and the deck has fitted every page, and say which printed page is cut off
    (:func:`print_problems`)."""
    from playwright.async_api import TimeoutError as Timeout

    await page.goto(deck.as_uri() + "?print-pdf")
    try:
        await page.wait_for_selector(".reveal .pdf-page", timeout=TIMEOUT_MS, state="attached")
        await page.wait_for_function(
            f"() => document.querySelectorAll('.widget-subarea').length >= {views}",
            timeout=TIMEOUT_MS,
        )
        await page.wait_for_selector("html.print-fitted", timeout=TIMEOUT_MS, state="attached")
    except Timeout:
        pass
    await page.evaluate("() => window.slideFitPrint && window.slideFitPrint()")
    pages = await page.evaluate(PRINT_JS)
    pdf = await page.pdf(prefer_css_page_size=True, print_background=True)
    # every slide and every step of its fragments, each on its page at once: the whole deck
    return print_problems(pages, pdf_pages(pdf)) + await axe_check(page, "printed")


_PDF_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")


def pdf_pages(pdf):
    """How many pages a PDF (bytes, as Chromium prints it: uncompressed object headers)
    has: its ``/Type /Page`` objects."""
    return len(_PDF_PAGE.findall(pdf))


async def _check_all(decks, workdir, browser, report):
    """CONCURRENT lanes, each an offline browser context with one page that opens its decks
    one after the other (loading a deck in a reused page took about half the CPU of a new
    context and page)."""
    from playwright.async_api import async_playwright

    todo = list(enumerate(decks))
    results = [None] * len(decks)

    async def lane(chromium):
        context = await chromium.new_context(viewport=VIEWPORT, offline=True)
        await context.route(
            re.compile(r"^(?!file:|data:|blob:|about:)"),
            lambda route: route.abort("internetdisconnected"),
        )
        page = await context.new_page()
        logs = {}  # deck URL -> what its page logged (events arrive in order with navigation)
        note = lambda text: logs.setdefault(page.url.split("#")[0], []).append(text)  # noqa: E731
        page.on("console", lambda m: note(f"console {m.type}: {m.text}"))
        page.on("pageerror", lambda e: note(f"Uncaught {e}"))
        page.on(
            "requestfailed", lambda r: note(f"Failed to load resource {r.url[:120]}: {r.failure}")
        )
        try:
            while todo:
                i, deck = todo.pop(0)
                start = time.perf_counter()
                log = logs.setdefault(pathlib.Path(deck).resolve().as_uri(), [])
                results[i] = await check_deck(page, deck, workdir, log)
                report(deck, results[i], time.perf_counter() - start)
        finally:
            await context.close()

    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=browser, args=LAUNCH_ARGS)
        report(None, chromium.version, 0.0)
        try:
            await asyncio.gather(*(lane(chromium) for _ in range(min(CONCURRENT, len(decks)))))
        finally:
            await chromium.close()
    return results


def check_decks(decks, workdir, browser=None, report=lambda deck, result, took: None):
    """Check the decks in one headless Chromium, CONCURRENT at a time, offline: a list of
    :func:`check_deck` results, in the order of ``decks``.
    ``report(deck, result, seconds)`` is called as each deck finishes (and first with deck
    None and the browser's version)."""
    return asyncio.run(_check_all(decks, workdir, browser or find_browser(), report))


def print_result(deck, result, took):
    if deck is None:
        print(f"check_slides: {CONCURRENT} decks at a time in Chromium {result}", flush=True)
        return
    problems, leaves, fit, smallest = result
    if problems:
        print(f"FAIL {deck.name} ({took:.1f} s): {fit} of {leaves} slides fit", flush=True)
        for p in problems:
            print("     - " + p)
    else:
        print(
            f"ok   {deck.name} ({took:.1f} s): all {leaves} slides fit "
            "1280x720, -> and space walk every slide, "
            f"{smallest[2]:.0%} of the text {BIG_TEXT_PX:.0f} px or more, smallest "
            f"{smallest[0]:.1f} px ({smallest[1][:60]})",
            flush=True,
        )


# ---------------------------------------------------------------- stamps: walk only what changed

STAMPS = ".checked"
"""A passing deck's stamp: deck.parent / STAMPS / "NN_name.json" (see :func:`check_changed`)."""


def _sha(data):
    return hashlib.sha256(data).hexdigest()


def shared_inputs(folder, browser):
    """What the verdict of every deck in ``folder`` depends on besides its own bytes, each
    as a short string: this script (its settings included; it imports nothing from the
    repository), the vendor/ files the decks load, the browser, the fonts it lays text out
    with, and the versions of Playwright, Pillow and Python."""
    vendor = pathlib.Path(folder) / VENDOR
    files = hashlib.sha256()
    for path in sorted(p for p in vendor.rglob("*") if p.is_file()):
        files.update(f"{path.relative_to(vendor)}\0{path.stat().st_size}\0".encode())
        files.update(path.read_bytes())
    run = lambda *cmd: subprocess.run(cmd, capture_output=True, text=True).stdout  # noqa: E731
    fonts = (
        run("fc-list", "--format", r"%{file} %{fontversion}\n")
        if shutil.which("fc-list")
        else "no fc-list"
    )
    return {
        "checker": _sha(pathlib.Path(__file__).read_bytes()),
        "settings": json.dumps(
            [
                VIEWPORT,
                MIN_TEXT_PX,
                BIG_TEXT_PX,
                BIG_TEXT_SHARE,
                FILLED_SHARE,
                PNG_KEY,
                FIGURE_DPI,
                FIGURE_SHARE,
                MAX_CODE_LINES,
                MAX_PROSE_FIGURES,
                BLANK_SHARE,
                LAUNCH_ARGS,
                AXE_SEVERE,
            ]
        ),
        "vendor": files.hexdigest(),
        "axe": _sha(AXE.read_bytes()) if AXE.is_file() else "no axe-core",
        "chromium": run(browser, "--version").strip(),
        "fonts": _sha("".join(sorted(fonts.splitlines(True))).encode()),
        "playwright": version("playwright"),
        "pillow": version("pillow"),
        "python": sys.version,
    }


def stamp_path(deck):
    return deck.parent / STAMPS / (deck.name.removesuffix(".slides.html") + ".json")


def read_stamp(deck):
    """The stamp the deck's last passing check left, or None."""
    try:
        return json.loads(stamp_path(deck).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def why_check(inputs, stamp, force=False):
    """Why a deck must be walked (a short phrase), or None when ``stamp`` shows it passed
    with exactly these ``inputs`` (and no re-check is forced)."""
    if force:
        return "re-check forced (SLIDES_RECHECK=1)"
    if not isinstance(stamp, dict) or not isinstance(stamp.get("inputs"), dict):
        return "no passing check recorded"
    old = stamp["inputs"]
    changed = [
        name for name in sorted(set(inputs) | set(old)) if inputs.get(name) != old.get(name)
    ]
    return "changed since its last pass: " + ", ".join(changed) if changed else None


def check_changed(decks, check, shared, force=False, say=print):
    """Walk only the decks that changed since their last pass, or never passed.

    ``check(decks)`` walks decks and returns their :func:`check_deck` results in order;
    ``shared(folder)`` gives the inputs all decks in a folder share (:func:`shared_inputs`).
    A deck that passes gets a stamp of its inputs, a deck that fails loses any stamp.
    Returns ``{deck: result}`` for the walked decks and ``{deck: slides}`` for the others."""
    common = {folder: shared(folder) for folder in {deck.parent for deck in decks}}
    inputs = {deck: {"deck": _sha(deck.read_bytes()), **common[deck.parent]} for deck in decks}
    stamps = {deck: read_stamp(deck) for deck in decks}
    why = {deck: why_check(inputs[deck], stamps[deck], force) for deck in decks}
    skipped = {deck: stamps[deck].get("slides", 0) for deck in decks if why[deck] is None}
    for deck in decks:
        say(
            f"same {deck.name}: unchanged since its last passing check, not re-walked"
            if why[deck] is None
            else f"walk {deck.name}: {why[deck]}"
        )
    todo = [deck for deck in decks if why[deck]]
    results = dict(zip(todo, check(todo) if todo else []))
    for deck, (problems, leaves, *_) in results.items():
        path = stamp_path(deck)
        if problems:
            path.unlink(missing_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_suffix(f".{os.getpid()}.part")
        part.write_text(json.dumps({"inputs": inputs[deck], "slides": leaves}, indent=1))
        part.replace(path)  # whole or not at all, even with two runs at once
    return results, skipped


def main(argv):
    decks = [pathlib.Path(p).resolve() for p in argv] or sorted(DECKS.glob("*.slides.html"))
    browser = find_browser()
    if browser is None:
        msg = (
            "check_slides: no Chromium found (looked for "
            + ", ".join(BROWSERS)
            + "); the real-browser slide test was NOT run."
        )
        print(msg)
        return 0 if os.environ.get("SLIDES_SKIP_OK") == "1" else 1
    if not decks:
        print(f"check_slides: no deck in {DECKS.relative_to(ROOT)}/ (run make slides)")
        return 1
    SHOTS.mkdir(parents=True, exist_ok=True)
    results, skipped = check_changed(
        decks,
        lambda todo: check_decks(todo, SHOTS, browser, report=print_result),
        lambda folder: shared_inputs(folder, browser),
        force=os.environ.get("SLIDES_RECHECK") == "1",
    )
    failed = sum(1 for problems, *_ in results.values() if problems)
    if results:
        total = sum(leaves for _, leaves, _, _ in results.values())
        fitting = sum(fit for _, _, fit, _ in results.values())
        print(
            f"{fitting} of {total} slides walked fit 1280x720; {len(results) - failed} of "
            f"{len(results)} deck(s) walked passed in Chromium, offline (axe-core: "
            f"{AXE_SECONDS[0]:.1f} s, summed over the {CONCURRENT} lanes)"
        )
    unwalked = (
        (
            f" ({sum(skipped.values())} slides not re-walked; make test-slides FORCE=1 "
            "walks every deck)"
        )
        if skipped
        else ""
    )
    print(
        f"slides: {len(results)} checked, {len(skipped)} unchanged since their last pass"
        f"{unwalked}; {failed} failed"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
