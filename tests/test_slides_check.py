"""The slide checker (scripts/check_slides.py) on synthetic inputs: it must be able to fail.

The real-browser run is `make test-slides`; here the pieces it relies on are
tested without a browser: the blank-screenshot detector, the DOM check,
the scan for network loads, the console-log filter, and the stamps that let
a deck unchanged since its last pass go unwalked (with a stand-in for the
browser).  Plus the npm set-up files the build reads.
"""

import io
import json
import sys

import pytest
from PIL import Image

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import check_slides as cs  # noqa: E402

# ---------------------------------------------------------------- screenshot


def png(width, height, colour=(255, 255, 255), mode="RGB", dark=()):
    """PNG bytes of a one-colour image with the pixels ``dark`` set to near-black."""
    image = Image.new(mode, (width, height), colour)
    for xy in dark:
        image.putpixel(xy, (30,) * len(mode) if len(mode) > 1 else 30)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


@pytest.mark.parametrize(
    "mode, colour", [("RGB", (255, 255, 255)), ("RGBA", (9, 9, 9, 255)), ("L", 200)]
)
def test_one_colour_is_blank(mode, colour):
    assert "blank" in cs.blank_problem(png(64, 40, colour, mode))


def test_a_few_stray_pixels_are_still_blank():
    # 10 000 pixels, 0.1 % is 10
    assert "9 of 10000 pixels" in cs.blank_problem(png(100, 100, dark=[(x, 50) for x in range(9)]))


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L"])
def test_a_drawn_slide_is_not_blank(mode):
    colour = {"RGB": (255, 255, 255), "RGBA": (255, 255, 255, 255), "L": 255}[mode]
    text = [(x, y) for y in range(40, 48) for x in range(20, 80)]  # a 'line of text'
    assert cs.blank_problem(png(100, 100, colour, mode, dark=text)) is None


def test_what_is_not_a_png_is_refused():
    with pytest.raises(ValueError, match="not a readable PNG"):
        cs.blank_problem(b"GIF89a....")
    with pytest.raises(TypeError, match="png"):
        cs.blank_problem("a string")
    gif = io.BytesIO()
    Image.new("RGB", (4, 4)).save(gif, format="GIF")
    with pytest.raises(ValueError, match="not a PNG image"):
        cs.blank_problem(gif.getvalue())


# ---------------------------------------------------------------- DOM

STATIC = """<html><body><main><div class="reveal"><div class="slides">
<section><section><h1>Title</h1></section></section>
<section><section><p>two</p></section></section>
</div></div></main></body></html>"""

RUNNING = """<html><body class="reveal-viewport"><main>
<div class="reveal slide center has-horizontal-slides ready" role="application">
<div class="slides">
<section class="stack present"><section class="present"><h1>Title</h1></section></section>
<section class="stack future" hidden=""><section><p>two</p></section></section>
</div><div class="backgrounds"></div>
<aside class="controls"><button class="navigate-right enabled"></button></aside>
<div class="progress"><span></span></div>
</div></main></body></html>"""


def test_a_running_deck_passes():
    assert cs.dom_problems(RUNNING) == []


def test_a_deck_reveal_never_started_fails():
    problems = cs.dom_problems(STATIC)
    assert any("present" in p for p in problems)
    assert any("'ready'" in p for p in problems)
    assert any("controls" in p for p in problems)


def test_no_reveal_or_no_sections_fails():
    assert cs.dom_problems("<html><body><p>hello</p></body></html>") == [
        'no <div class="reveal"> in the DOM'
    ]
    empty = RUNNING.split('<div class="slides">')[0] + '<div class="slides"></div></div>'
    assert any("no slide <section>" in p for p in cs.dom_problems(empty))


def test_sections_outside_the_slides_do_not_count():
    dom = (
        RUNNING.replace('class="stack present"', 'class="stack"')
        .replace('<section class="present">', "<section>")
        .replace("<main>", '<main><section class="present">not a slide</section>')
    )
    assert cs.dom_problems(dom) == ["no section is marked 'present' (reveal.js did not start)"]


def test_widget_views_must_be_drawn():
    drawn = RUNNING.replace("<h1>Title</h1>", '<div class="widget-subarea"><div></div></div>')
    assert cs.dom_problems(drawn, widget_views=1) == []
    problems = cs.dom_problems(RUNNING, widget_views=1)
    assert problems == [
        "only 0 of the deck's 1 widget views were drawn (widget renderer missing or failing)"
    ]


# ---------------------------------------------------------------- network loads

PAGE = """<html><head>
<script src="https://cdn.example.org/require.js"></script>
<script src="vendor/jquery.min.js"></script>
<link rel="stylesheet" href="//cdn.example.org/reveal.css">
<link rel="stylesheet" href="local.css">
<style>/* see https://example.org/docs */ @import url("https://fonts.example.org/css");
.x { background: url(img/local.png) }</style>
<script type="module">import mermaid from 'https://cdn.example.org/mermaid.mjs';</script>
<script>
// Full list of options: https://example.org/reveal#configuration
require({}, ["https://cdn.example.org/reveal.js", "vendor/reveal.js/plugin/notes/notes.js"]);
var widgetRendererSrc = 'https://unpkg.example.org/embed-amd.js';
</script>
<script type="application/vnd.jupyter.widget-state+json">{"note": "https://example.org/data"}</script>
</head><body><a href="https://example.org/reading">a link is not a load</a></body></html>"""


def test_remote_loads_finds_every_kind_of_load(tmp_path):
    (tmp_path / "local.css").write_text('@import "theme.css"; body { color: black }')
    (tmp_path / "theme.css").write_text(
        "/* https://example.org/comment */ @import url(https://fonts.example.org/theme-font);"
    )
    deck = tmp_path / "deck.slides.html"
    deck.write_text(PAGE)
    assert cs.remote_loads(deck) == [
        "//cdn.example.org/reveal.css",
        "https://cdn.example.org/mermaid.mjs",
        "https://cdn.example.org/require.js",
        "https://cdn.example.org/reveal.js",
        "https://fonts.example.org/css",
        "https://fonts.example.org/theme-font",
        "https://unpkg.example.org/embed-amd.js",
    ]


def test_a_local_page_has_no_remote_loads(tmp_path):
    deck = tmp_path / "deck.slides.html"
    deck.write_text(
        '<script src="vendor/require.js"></script><a href="https://example.org">x</a>'
        "<script>// docs: https://example.org\n"
        'require([], ["vendor/reveal.js/dist/reveal.js"]);'
        'document.createElementNS("http://www.w3.org/2000/svg", "svg")'
        "</script>"
    )
    assert cs.remote_loads(deck) == []
    assert cs.local_missing(deck) == ["vendor/require.js", "vendor/reveal.js/dist/reveal.js"]
    (tmp_path / "vendor" / "reveal.js" / "dist").mkdir(parents=True)
    (tmp_path / "vendor" / "require.js").write_text("")
    (tmp_path / "vendor" / "reveal.js" / "dist" / "reveal.js").write_text("")
    assert cs.local_missing(deck) == []


def test_console_problems_keeps_failed_loads_and_errors_only():
    log = [
        "console warning: strict mode: use allowUnionTypes",
        "Uncaught ReferenceError: require is not defined",
        "console error: Failed to load resource: net::ERR_FILE_NOT_FOUND",
        "console log: None of the known D-Bus ScreenSaver services",
    ]
    got = cs.console_problems(log)
    assert len(got) == 2 and "Uncaught" in got[0] and "Failed to load" in got[1]


# ---------------------------------------------------------------- fit and walk

BOX = {"left": 10.0, "top": 5.0, "right": 1270.0, "bottom": 715.0}


def el(id_, name, left=20, top=20, right=600, bottom=100, parent=None, **extra):
    return {
        "id": id_,
        "parent": parent,
        "name": name,
        "left": left,
        "top": top,
        "right": right,
        "bottom": bottom,
        **extra,
    }


def test_what_fits_has_no_problem():
    inside = [el(0, "div.cell"), el(1, "pre", parent=0, right=1270.5, bottom=715.9)]
    assert cs.overflow_problems({"box": BOX, "elements": inside}) == []


def test_an_element_past_an_edge_is_named_with_the_amount():
    wide = [el(0, 'table "tp fp"', right=2500), el(1, "td", parent=0, right=2400)]
    assert cs.overflow_problems({"box": BOX, "elements": wide}) == [
        'table "tp fp": 1230 px past the right edge'
    ]  # the cell inside is not named again
    tall = [el(0, "img", top=600, bottom=865), el(1, "p", left=0)]
    assert cs.overflow_problems({"box": BOX, "elements": tall}) == [
        "img: 150 px past the bottom edge",
        "p: 10 px past the left edge",
    ]


def test_an_element_that_scrolls_or_clips_is_a_problem():
    scrolled = [el(0, "div.output", scroll_x=120.4), el(1, "pre", scroll_y=0.5)]
    assert cs.overflow_problems({"box": BOX, "elements": scrolled}) == [
        "div.output: scrolls 120 px sideways"
    ]


def test_axe_problems_are_the_serious_and_critical_violations():
    found = [
        dict(id="color-contrast", impact="serious", help="contrast", nodes=4, where=["#a", ".b"]),
        dict(id="image-alt", impact="critical", help="alt text", nodes=1, where=["img"]),
        dict(id="region", impact="moderate", help="landmarks", nodes=9, where=["p"]),
        dict(id="x", impact="minor", help="y", nodes=1, where=["q"]),
    ]
    problems = cs.axe_problems(found, "printed")
    assert problems == [
        "axe serious (printed): color-contrast - contrast; 4 element(s), #a, .b",
        "axe critical (printed): image-alt - alt text; 1 element(s), img",
    ]
    assert cs.axe_problems(found[2:], "printed") == []


def test_walk_problems():
    leaves = ["0/0", "1/0", "1/1", "2/0"]
    assert cs.walk_problems(leaves, list(leaves), "ArrowRight") == []
    skipped = cs.walk_problems(leaves, ["0/0", "1/0", "2/0"], "ArrowRight")
    assert skipped == ["pressing ArrowRight never shows slide(s) 1/1"]
    shuffled = cs.walk_problems(leaves, ["0/0", "1/1", "1/0", "2/0"], "Space")
    assert "out of order" in shuffled[0]


# ---------------------------------------------------------------- npm set-up


def test_package_json_and_lock_pin_the_same_local_assets():
    package = json.loads((ROOT / "package.json").read_text())
    lock = json.loads((ROOT / "package-lock.json").read_text())
    deps = package["dependencies"]
    assert set(deps) == {
        "reveal.js",
        "requirejs",
        "jquery",
        "mathjax",
        "@jupyter-widgets/html-manager",
        "axe-core",  # the accessibility check of the site and its decks (tests/test_site.py)
    }
    assert deps["reveal.js"].startswith("4.")  # reveal 5+ moved the notes plugin
    for name, version in deps.items():
        assert lock["packages"][f"node_modules/{name}"]["version"] == version, name
    assert lock["packages"][""]["dependencies"] == deps


def test_build_outputs_are_not_committed():
    ignored = (ROOT / ".gitignore").read_text().split()
    assert "build/" in ignored and "node_modules/" in ignored


# ---------------------------------------------------------------- a real deck in Chromium


def test_check_deck_fails_a_deck_that_overflows_and_passes_one_that_fits(tmp_path):
    """Build two tiny decks with the course's template and open them in Chromium: one slide
    printing 90 lines (too tall even scaled to 76 %), no notes and 10 px text must fail, naming
    the slide and the element; the same deck with 5 lines, notes and two fragments (the
    second turns the page) must pass with all its text at 18 px or more, sub-slide walk
    included."""
    if cs.find_browser() is None:
        pytest.skip("no Chromium installed: the real-browser deck check was NOT run")
    if not (ROOT / "node_modules" / "reveal.js").is_dir():
        pytest.skip("node_modules/ missing (make slides runs npm ci): deck check NOT run")
    pytest.importorskip("playwright")
    import nbformat

    import build_slides

    def deck(name, lines, notes, extra):
        cells = [
            nbformat.v4.new_markdown_cell("# 99 · A title" + extra),
            nbformat.v4.new_markdown_cell("## A sub-slide"),
            nbformat.v4.new_code_cell(
                f"print(*range({lines}), sep='\\n')",
                outputs=[
                    nbformat.v4.new_output(
                        "stream", name="stdout", text="".join(f"{i}\n" for i in range(lines))
                    )
                ],
            ),
        ]
        types = ["slide", "subslide", "-"]
        if notes:  # one slide's notes in its first cell's metadata, the other's in a cell
            cells[0].metadata["speaker_notes"] = "say hello"
            cells.append(nbformat.v4.new_markdown_cell("point at the numbers"))
            # and fragments: their steps are measured too; the second does not fit under
            # what is shown in large type, so it turns the page (no slide is shrunk)
            cells.append(nbformat.v4.new_markdown_cell("A point made **after** the numbers."))
            cells.append(
                nbformat.v4.new_code_cell(
                    "print(*range(22), sep='\\n')",
                    outputs=[
                        nbformat.v4.new_output(
                            "stream", name="stdout", text="".join(f"{i}\n" for i in range(22))
                        )
                    ],
                )
            )
            types = ["slide", "subslide", "-", "notes", "fragment", "fragment"]
        for cell, kind in zip(cells, types):
            cell.metadata["slideshow"] = {"slide_type": kind}
        path = tmp_path / f"{name}.ipynb"
        nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
        return path

    build_slides.copy_assets(tmp_path)
    # and a line in light grey on white (contrast about 1.6:1): axe-core's color-contrast
    small_print = (
        '\n\n<p style="font-size: 10px">the small print</p>'
        '\n\n<p style="color: #cccccc">a faint line</p>'
    )
    built = build_slides.build(
        [deck("tall", 90, False, small_print), deck("short", 5, True, "")], out=tmp_path
    )
    # both decks at once, as make test-slides checks them (one browser, a context each)
    (tall, tall_leaves, tall_fit, _), (short, short_leaves, short_fit, sizes) = cs.check_decks(
        built, tmp_path
    )
    assert tall_leaves == 2 and tall_fit == 1
    assert any(
        p.startswith("slide 0/1 (A SUB-SLIDE) does not fit: ") and "bottom edge" in p for p in tall
    ), tall
    assert any("has no speaker notes" in p for p in tall)
    # 10 px type at reveal.js's scale (0.98 for a 1280x720 deck on a 1280x720 screen)
    assert any(
        p.startswith("slide 0/0: text at 9.8 px") and "the small print" in p for p in tall
    ), tall
    # the faint line fails axe-core, on screen (its first slide) and in print; the decks
    # themselves (slide number, links) pass it: the short deck has no problem at all
    for view in ("on screen, first slide", "printed"):
        assert any(p.startswith(f"axe serious ({view}): color-contrast") for p in tall), tall
    assert ",Safe" not in built[1].read_text(encoding="utf-8")  # no 15 s MathJax wait
    assert short == [] and short_leaves == short_fit == 2
    assert sizes[0] >= 18.0 and sizes[2] == 1.0, sizes  # every step in large type


# ---------------------------------------------------------------- make slides: what is rebuilt


def test_make_slides_rebuilds_only_the_decks_whose_sources_changed(tmp_path):
    """The Makefile's deck rules in a scratch tree, with a stand-in for python that records
    which notebooks it is asked to build: nothing when every deck is newer than its notebook,
    the template and the build script; the changed notebook's deck alone; every deck when the
    template changed; a missing deck; and a deck whose notebook is gone is removed."""
    import os
    import shutil
    import subprocess

    if shutil.which("make") is None:
        pytest.skip("no make")
    old, new = 1_000_000_000, 1_000_000_100
    files = [
        "requirements.txt",
        "pyproject.toml",
        "package.json",
        "package-lock.json",
        "scripts/build_slides.py",
        "scripts/nbconvert_templates/offline_reveal/index.html.j2",
        "notebooks/01_a.ipynb",
        "notebooks/02_b.ipynb",
    ]
    made = [
        ".venv/.ready",
        "node_modules/.ready",
        "build/slides/vendor/.ready",
        "build/slides/01_a.slides.html",
        "build/slides/02_b.slides.html",
        "build/slides/03_gone.slides.html",
    ]
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    for name, when in [(f, old) for f in files] + [(f, new) for f in made]:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
        os.utime(path, (when, when))
    log = tmp_path / "built.log"
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True, exist_ok=True)
    python.write_text(
        f'#!/bin/sh\necho "$@" >> {log}\n'
        'for nb in "$@"; do case "$nb" in notebooks/*) n=${nb#notebooks/}\n'
        '  touch "build/slides/${n%.ipynb}.slides.html";; esac; done\n'
    )
    python.chmod(0o755)

    def built(*changed):
        for name in changed:
            os.utime(tmp_path / name)  # now: newer than every deck
        log.unlink(missing_ok=True)
        subprocess.run(["make", "-s", "slides"], cwd=tmp_path, check=True, capture_output=True)
        return log.read_text().split() if log.exists() else []

    assert built() == []
    assert not (tmp_path / "build/slides/03_gone.slides.html").exists()
    assert built("notebooks/02_b.ipynb") == ["scripts/build_slides.py", "notebooks/02_b.ipynb"]
    assert built() == []
    assert built("scripts/nbconvert_templates/offline_reveal/index.html.j2") == [
        "scripts/build_slides.py",
        "notebooks/01_a.ipynb",
        "notebooks/02_b.ipynb",
    ]
    (tmp_path / "build/slides/01_a.slides.html").unlink()
    assert built() == ["scripts/build_slides.py", "notebooks/01_a.ipynb"]
    assert built() == []


# ---------------------------------------------------------------- stamps: walk only what changed

PASSES = ([], 3, 3, (12.0, "p"))
FAILS = (["slide 0/1 does not fit: pre: 40 px past the bottom edge"], 3, 2, (12.0, "p"))


def walked(decks, verdict=PASSES, checker="checker 1", force=False, said=None):
    """cs.check_changed with a stand-in for the browser: the names of the decks it walked."""
    names = []

    def check(todo):
        names.extend(deck.name for deck in todo)
        return [verdict] * len(todo)

    say = (lambda line: None) if said is None else said.append
    cs.check_changed(decks, check, lambda folder: {"checker": checker}, force, say)
    return names


def decks(tmp_path, *names):
    for name in names:
        (tmp_path / f"{name}.slides.html").write_text(f"<html>{name}</html>")
    return [tmp_path / f"{name}.slides.html" for name in names]


def test_a_passing_deck_is_stamped_and_not_walked_again(tmp_path):
    a, b = decks(tmp_path, "01_a", "02_b")
    assert walked([a, b]) == ["01_a.slides.html", "02_b.slides.html"]
    assert cs.stamp_path(a) == tmp_path / ".checked" / "01_a.json"
    assert cs.read_stamp(a)["slides"] == 3
    said = []
    assert walked([a, b], said=said) == []
    assert said == [
        f"same {n}.slides.html: unchanged since its last passing check, not re-walked"
        for n in ("01_a", "02_b")
    ]


def test_a_changed_deck_byte_checker_or_force_walks_again(tmp_path):
    a, b = decks(tmp_path, "01_a", "02_b")
    walked([a, b])
    a.write_bytes(a.read_bytes().replace(b"a", b"A"))  # one byte
    said = []
    assert walked([a, b], said=said) == ["01_a.slides.html"]
    assert said[0] == "walk 01_a.slides.html: changed since its last pass: deck"
    assert walked([a, b]) == []
    assert walked([a, b], checker="checker 2") == ["01_a.slides.html", "02_b.slides.html"]
    assert walked([a, b], checker="checker 2") == []
    assert walked([a, b], checker="checker 2", force=True) == [
        "01_a.slides.html",
        "02_b.slides.html",
    ]


def test_a_failing_deck_gets_no_stamp_and_loses_its_old_one(tmp_path):
    (a,) = decks(tmp_path, "01_a")
    assert walked([a], FAILS) == ["01_a.slides.html"]
    assert cs.read_stamp(a) is None
    walked([a])
    assert cs.read_stamp(a) is not None
    assert walked([a], FAILS, force=True) == ["01_a.slides.html"]  # same inputs, now failing
    assert cs.read_stamp(a) is None
    assert walked([a]) == ["01_a.slides.html"]


def test_why_check():
    inputs = {"deck": "d1", "checker": "c1"}
    stamp = {"inputs": dict(inputs), "slides": 3}
    assert cs.why_check(inputs, stamp) is None
    assert cs.why_check(inputs, stamp, force=True).startswith("re-check forced")
    assert cs.why_check(inputs, None) == "no passing check recorded"
    assert cs.why_check(inputs, {"slides": 3}) == "no passing check recorded"
    assert cs.why_check({"deck": "d2", "checker": "c2"}, stamp) == (
        "changed since its last pass: checker, deck"
    )
    assert cs.why_check(inputs, {"inputs": {**inputs, "fonts": "f1"}}) == (
        "changed since its last pass: fonts"
    )  # an input no longer recorded


def test_shared_inputs_follow_the_vendor_files_and_the_checker(tmp_path):
    (tmp_path / "vendor" / "reveal").mkdir(parents=True)
    (tmp_path / "vendor" / "reveal" / "reveal.js").write_text("one")
    # a stand-in browser: `python --version` answers as `chromium --version` does
    first = cs.shared_inputs(tmp_path, sys.executable)
    assert first["checker"] == cs._sha((ROOT / "scripts" / "check_slides.py").read_bytes())
    assert first["chromium"].startswith("Python 3")
    assert "1280" in first["settings"]
    assert cs.shared_inputs(tmp_path, sys.executable) == first
    (tmp_path / "vendor" / "reveal" / "reveal.js").write_text("two")
    second = cs.shared_inputs(tmp_path, sys.executable)
    assert second["vendor"] != first["vendor"]
    assert {k for k in first if first[k] != second[k]} == {"vendor"}


def test_the_script_reports_unwalked_decks_and_slides_recheck_walks_them(
    tmp_path, monkeypatch, capsys
):
    (a,) = decks(tmp_path, "01_a")
    monkeypatch.setattr(cs, "find_browser", lambda: "chromium")
    monkeypatch.setattr(cs, "shared_inputs", lambda folder, browser: {"checker": "1"})
    monkeypatch.setattr(cs, "check_decks", lambda todo, *args, **kw: [PASSES] * len(todo))
    monkeypatch.delenv("SLIDES_RECHECK", raising=False)
    runs = []
    for recheck in (None, None, "1"):
        if recheck:
            monkeypatch.setenv("SLIDES_RECHECK", recheck)
        assert cs.main([str(a)]) == 0
        runs.append(capsys.readouterr().out.splitlines()[-1])
    assert runs == [
        "slides: 1 checked, 0 unchanged since their last pass; 0 failed",
        "slides: 0 checked, 1 unchanged since their last pass (3 slides not "
        "re-walked; make test-slides FORCE=1 walks every deck); 0 failed",
        "slides: 1 checked, 0 unchanged since their last pass; 0 failed",
    ]


# ---------------------------------------------------------------- type a back row can read


def shown(where, text, shrink=1.0, filled=0.5, hidden=0, name="pre"):
    """A stand-in for what MEASURE_JS returns about the text of one slide (one step)."""
    sizes = {str(px): chars for px, chars in text.items()}
    return {
        "where": where,
        "text": sizes,
        "smallest_text": min(text) if text else None,
        "smallest_name": name,
        "shrink": shrink,
        "filled": filled,
        "hidden": hidden,
    }


def test_a_deck_in_big_type_passes():
    problems, (px, where, share) = cs.text_problems(
        [shown("0/0", {40.3: 20, 19.2: 300}), shown("1/0", {19.2: 200, 15.4: 100})]
    )
    assert problems == []
    assert px == 15.4 and where == "slide 1/0: pre" and share == 520 / 620


def test_text_under_14_px_fails_naming_the_slide_and_element():
    problems, (px, _, _) = cs.text_problems(
        [shown("0/0", {19.2: 300}), shown("2/1", {19.2: 900, 12.8: 40}, name='pre "tp fp"')]
    )
    assert px == 12.8
    assert problems == [
        'slide 2/1: text at 12.8 px on the 1280x720 screen (at least 14 px): pre "tp fp"'
    ]


def test_less_than_80_percent_big_text_fails():
    # 75 % of the characters at 18 px or more, none under 14 px
    problems, (_, _, share) = cs.text_problems(
        [shown("0/0", {19.2: 300}), shown("1/0", {16.0: 100}), shown("1/1", {24.0: 0.0})]
    )
    assert share == 0.75
    assert problems == [
        "only 75% of the deck's text (by characters) is 18 px or more on the "
        "1280x720 screen (at least 80%); most small text on slide(s) 1/0"
    ]
    assert cs.text_problems([shown("0/0", {19.2: 400}), shown("1/0", {16.0: 100})])[0] == []
    assert cs.text_problems([shown("0/0", {18.0: 80}), shown("1/0", {17.9: 21})])[0] != []


def test_a_step_before_the_last_fragment_is_checked_too():
    # the first step of slide 1/0 shows its code at 12.8 px: shrunk to 67 % for fragments
    # not yet shown, with two thirds of the screen empty
    step = shown("1/0", {12.8: 50}, shrink=0.67, filled=0.3, hidden=2)
    last = shown("1/0", {19.2: 500}, filled=0.95)
    problems, (px, where, share) = cs.text_problems([shown("0/0", {19.2: 100}), last], [step])
    assert px == 12.8 and where == "slide 1/0: pre" and share == 600 / 650
    assert problems == [
        "slide 1/0 with 2 fragment(s) not yet shown: text at 12.8 px on the 1280x720 screen "
        "(at least 14 px): pre",
        "slide 1/0 with 2 fragment(s) not yet shown: shrunk to 67% of the deck's scale, yet "
        "what it shows fills only 30% of the screen's height (at least 85% when shrunk)",
    ]


def test_a_slide_shrunk_to_fit_what_it_shows_passes():
    full = shown("0/0", {19.2 * 0.8: 10, 19.2: 100}, shrink=0.8, filled=0.99)
    assert cs.text_problems([full])[0] == []
    roomy = shown("0/0", {19.2: 100}, shrink=0.8, filled=0.6)
    assert "shrunk to 80%" in cs.text_problems([roomy])[0][0]


def test_a_figure_shown_too_small_or_too_narrow_fails():
    def with_image(natural, on_screen):
        image = {"natural": natural, "shown": on_screen, "name": "img", "points": 13, "dpi": 100}
        return {**shown("2/3", {19.2: 100}), "width": 1254.4, "images": [image]}

    assert cs.text_problems([with_image(1000, 980)])[0] == []
    # 18.1 px of the PNG shown at 0.7: 12.6 px on screen
    assert cs.text_problems([with_image(1000, 700)])[0] == [
        "slide 2/3: figure shown at 70% of its pixels, so its smallest text is 12.6 px "
        "(at least 14 px): img"
    ]
    # drawn 589 px wide, shown whole: the right half of the slide is empty
    assert cs.text_problems([with_image(589, 577)])[0] == [
        "slide 2/3: figure shown 577 px wide, less than 50% of the slide's 1254 px: img"
    ]


def test_a_rebuilt_deck_is_byte_identical():
    """nbconvert gives each widget output a fresh uuid4 as element id; the build swaps them
    for ids made from the deck's name and their place, so a deck rebuilt from an unchanged
    notebook keeps its stamp (the explorer decks were walked again after every build)."""
    import uuid

    import build_slides

    def page():
        a, b = uuid.uuid4(), uuid.uuid4()
        return (
            f"<div id=\"{a}\"></div><script>document.getElementById('{a}')</script>"
            f"<div id=\"{b}\"></div><script>document.getElementById('{b}')</script>"
        )

    first, second = (build_slides.stable_ids(page(), "02_x") for _ in range(2))
    assert first == second
    ids = build_slides._RANDOM_ID.findall(first)
    assert len(ids) == 2 and ids[0] != ids[1]
    assert first.count(ids[0]) == first.count(ids[1]) == 2  # the script still finds its div
    assert build_slides.stable_ids(page(), "04_y") != first  # another deck, other ids


def test_figure_text_is_the_type_its_png_records_at_its_dpi_as_shown():
    # 13 pt at 100 dpi is 18.06 px of the PNG; at 200 dpi (a retina PNG) 36.1 px, shown
    # at half its pixels 18.06 px again; 9.1 pt (a 13 pt exponent) at 100 dpi 12.6 px
    def image(natural, shown_px, points=13, dpi=100):
        return {"natural": natural, "shown": shown_px, "points": points, "dpi": dpi, "name": "img"}

    assert cs.figure_text_px(image(1000, 1000)) == pytest.approx(13 * 100 / 72)
    assert cs.figure_text_px(image(2000, 1000, dpi=200)) == pytest.approx(13 * 100 / 72)
    assert cs.figure_text_px(image(1000, 1000, points=9.1)) == pytest.approx(12.64, abs=0.01)
    assert cs.figure_text_px(image(1000, 500, dpi=None)) == pytest.approx(13 * 50 / 72)
    assert cs.figure_text_px(image(1000, 1000, points=None)) is None

    def on_slide(img):
        return cs.text_problems([{**shown("0/0", {19.2: 10}), "width": 1254, "images": [img]}])[0]

    assert on_slide(image(1000, 980)) == []
    assert on_slide(image(1000, 1000, points=9.1)) == [
        "slide 0/0: figure shown at 100% of its pixels, so its smallest text is 12.6 px "
        "(at least 14 px): img"
    ]
    (unrecorded,) = on_slide(image(1000, 1000, points=None))
    assert "figure records no smallest type" in unrecorded and cs.PNG_KEY in unrecorded


def test_four_decimal_figures_are_found_and_nothing_else():
    text = "recall 0.9570 against 0.7957 (0.9570 again), 12.5000 tokens; not 0.95, 0.957, "
    text += "0.95701, 1.2.3456 or v0.12345; -0.0323 counts"
    assert cs.four_decimal_figures(text) == ["0.9570", "0.7957", "0.9570", "12.5000", "0.0323"]


def slide(where="3/1", code_lines=0, prose="", number="12/40", title="A heading"):
    return {
        "where": where,
        "code_lines": code_lines,
        "prose": prose,
        "number": number,
        "title": title,
    }


def test_content_within_the_limits_passes_and_each_excess_is_named():
    assert cs.content_problems([slide(code_lines=8, prose="0.1111 0.2222 0.3333 0.4444")]) == []
    assert cs.content_problems([slide(code_lines=9)]) == [
        "slide 3/1 [12/40] (A heading): 9 lines of code (at most 8 on a slide)"
    ]
    five = "0.1111 0.2222 0.3333 0.4444 and 0.5555"
    assert cs.content_problems([slide(prose=five)]) == [
        "slide 3/1 [12/40] (A heading): 5 four-decimal figures in its prose (at most 4; a "
        "chart or a few bold figures instead): 0.1111, 0.2222, 0.3333, 0.4444, 0.5555"
    ]
    assert cs.content_problems([slide(number="")]) == [
        "slide 3/1 (A heading): no slide number shown"
    ]
    assert cs.content_problems([slide(code_lines=3)], max_lines=2) != []


def page(index, height=734, page_height=734, past=(), number="1/9"):
    return {
        "index": index,
        "height": height,
        "page_height": page_height,
        "past": [list(p) for p in past],
        "number": number,
    }


def test_every_printed_page_whole_passes_and_a_cut_page_is_named():
    assert cs.print_problems([page(0), page(1, height=733.5)]) == []
    assert cs.print_problems([page(0), page(4, past=[('pre "0 1 2"', 48.2), ("img", 3)])]) == [
        'printed page 5 (slide 1/9) is cut off: pre "0 1 2" runs 48 px past the page; and 1 more'
    ]
    assert cs.print_problems([page(2, height=1468)]) == [
        "printed page 3 (slide 1/9) is 1468 px tall, more than one printed page (734 px)"
    ]
    assert "no .pdf-page" in cs.print_problems([])[0]


def test_a_pdf_printed_with_a_page_too_many_is_named():
    assert cs.print_problems([page(0), page(1)], printed=2) == []
    assert cs.print_problems([page(0), page(1)], printed=3) == [
        "Chromium printed 3 PDF pages for the deck's 2 pages (a page that spills over, or an "
        "empty one)"
    ]
    pdf = b"1 0 obj << /Type /Pages /Kids [2 0 R 3 0 R] >> 2 0 obj << /Type /Page >> "
    pdf += b"3 0 obj <</Type/Page/Parent 1 0 R>>"
    assert cs.pdf_pages(pdf) == 2


def test_a_figure_shown_only_before_a_later_fragment_is_measured_too():
    # the figure shows at the first step (shrunk to 0.7 of its pixels: 12.6 px text), then a
    # fragment turns the page and the last step no longer shows it
    image = {"natural": 1000, "shown": 700, "points": 13, "dpi": 100, "name": "img"}
    step = {**shown("1/0", {19.2: 50}, hidden=1), "width": 1254, "images": [image]}
    last = {**shown("1/0", {19.2: 50}), "width": 1254, "images": []}
    problems, (px, where, _) = cs.text_problems([last], [step])
    assert problems == [
        "slide 1/0 with 1 fragment(s) not yet shown: figure shown at 70% of its pixels, so its "
        "smallest text is 12.6 px (at least 14 px): img"
    ]
    assert px == pytest.approx(12.64, abs=0.01) and where == "slide 1/0: figure img"
