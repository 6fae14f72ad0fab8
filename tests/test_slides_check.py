"""The slide checker (scripts/check_slides.py) on synthetic inputs: it must be able to fail.

The real-browser run is `make test-slides`; here the pieces it relies on are
tested without a browser: the PNG decoder and blank detector, the DOM check,
the scan for network loads, and the console-log filter.  Plus the npm set-up
files the build reads.
"""

import json
import struct
import sys
import zlib

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import check_slides as cs  # noqa: E402


# ---------------------------------------------------------------- PNG

def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def encode_png(rows, channels, filters=(0,)):
    """A PNG from rows of pixel tuples, row y filtered with filters[y % len(filters)]."""
    colour = {1: 0, 3: 2, 4: 6}[channels]
    height, width = len(rows), len(rows[0])
    raw, prev = bytearray(), bytes(width * channels)
    for y, row in enumerate(rows):
        x = bytes(v for px in row for v in px)
        f = filters[y % len(filters)]
        out = bytearray()
        for i, v in enumerate(x):
            a = x[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            pred = {0: 0, 1: a, 2: b, 3: (a + b) // 2, 4: paeth(a, b, c)}[f]
            out.append((v - pred) & 255)
        raw += bytes([f]) + out
        prev = x

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(bytes(raw))) + chunk(b"IEND", b""))


def picture(width=20, height=12, channels=3):
    """A gradient with a few dark pixels, so every filter has real work to do."""
    rows = []
    for y in range(height):
        row = []
        for x in range(width):
            px = ((x * 13 + y * 7) % 256, (x * y * 5) % 256, (255 - 11 * x) % 256, 200 + y)
            row.append(px[:channels] if channels > 1 else (px[0],))
        rows.append(row)
    return rows


@pytest.mark.parametrize("channels", [1, 3, 4])
@pytest.mark.parametrize("filters", [(0,), (1,), (2,), (3,), (4,), (0, 1, 2, 3, 4)])
def test_read_png_undoes_every_filter(channels, filters):
    rows = picture(channels=channels)
    width, height, bpp, got = cs.read_png(encode_png(rows, channels, filters))
    assert (width, height, bpp) == (20, 12, channels)
    assert got == [bytes(v for px in row for v in px) for row in rows]


def test_read_png_agrees_with_matplotlib(tmp_path):
    import matplotlib.image as mpimg
    import numpy as np

    image = np.zeros((30, 40, 4), dtype=np.uint8)
    image[..., 0] = np.arange(40)[None, :] * 6
    image[..., 1] = np.arange(30)[:, None] * 8
    image[..., 2] = 77
    image[..., 3] = 255
    image[5:9, 10:30] = (0, 0, 0, 255)
    path = tmp_path / "m.png"
    mpimg.imsave(path, image)
    width, height, bpp, rows = cs.read_png(path.read_bytes())
    want = (mpimg.imread(path) * 255).round().astype(np.uint8)
    got = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(height, width, bpp)
    assert (width, height) == (40, 30) and (got == want[..., :bpp]).all()


def test_read_png_rejects_what_it_cannot_read():
    with pytest.raises(ValueError, match="not a PNG"):
        cs.read_png(b"GIF89a....")
    with pytest.raises(TypeError, match="data"):
        cs.read_png("a string")
    sixteen_bit = encode_png([[(1, 2, 3)]], 3).replace(
        struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0), struct.pack(">IIBBBBB", 1, 1, 16, 2, 0, 0, 0))
    with pytest.raises(ValueError, match="8-bit"):
        cs.read_png(sixteen_bit)


def solid(width, height, colour):
    return [[colour] * width for _ in range(height)]


def test_one_colour_is_blank():
    png = encode_png(solid(64, 40, (255, 255, 255)), 3, (0, 1, 2, 3, 4))
    assert "blank" in cs.blank_problem(png)


def test_a_few_stray_pixels_are_still_blank():
    rows = solid(100, 100, (255, 255, 255))       # 10 000 pixels, 0.1 % is 10
    for x in range(9):
        rows[50][x] = (0, 0, 0)
    assert "9 of 10000 pixels" in cs.blank_problem(encode_png(rows, 3))


def test_a_drawn_slide_is_not_blank():
    rows = solid(100, 100, (255, 255, 255))
    for y in range(40, 48):                       # a 'line of text': 8 x 60 dark pixels
        for x in range(20, 80):
            rows[y][x] = (30, 30, 30)
    assert cs.blank_problem(encode_png(rows, 3, (4,))) is None


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
        'no <div class="reveal"> in the DOM']
    empty = RUNNING.split('<div class="slides">')[0] + '<div class="slides"></div></div>'
    assert any("no slide <section>" in p for p in cs.dom_problems(empty))


def test_sections_outside_the_slides_do_not_count():
    dom = (RUNNING.replace('class="stack present"', 'class="stack"')
           .replace('<section class="present">', "<section>")
           .replace("<main>", '<main><section class="present">not a slide</section>'))
    assert cs.dom_problems(dom) == ["no section is marked 'present' (reveal.js did not start)"]


def test_widget_views_must_be_drawn():
    drawn = RUNNING.replace("<h1>Title</h1>", '<div class="widget-subarea"><div></div></div>')
    assert cs.dom_problems(drawn, widget_views=1) == []
    problems = cs.dom_problems(RUNNING, widget_views=1)
    assert problems == ["only 0 of the deck's 1 widget views were drawn "
                        "(widget renderer missing or failing)"]


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
        "/* https://example.org/comment */ @import url(https://fonts.example.org/theme-font);")
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
    deck.write_text('<script src="vendor/require.js"></script><a href="https://example.org">x</a>'
                    '<script>// docs: https://example.org\nrequire([], ["vendor/reveal.js/dist/reveal.js"]);'
                    'document.createElementNS("http://www.w3.org/2000/svg", "svg")'
                    '</script>')
    assert cs.remote_loads(deck) == []
    assert cs.local_missing(deck) == ["vendor/require.js", "vendor/reveal.js/dist/reveal.js"]
    (tmp_path / "vendor" / "reveal.js" / "dist").mkdir(parents=True)
    (tmp_path / "vendor" / "require.js").write_text("")
    (tmp_path / "vendor" / "reveal.js" / "dist" / "reveal.js").write_text("")
    assert cs.local_missing(deck) == []


def test_console_problems_keeps_failed_loads_and_errors_only():
    log = "\n".join([
        '[1:1:INFO:CONSOLE:27] "strict mode: use allowUnionTypes", source: file:///d/x.js (27)',
        '[1:1:INFO:CONSOLE:7623] "Uncaught ReferenceError: require is not defined", source: f',
        '[1:1:INFO:CONSOLE:0] "Failed to load resource: net::ERR_FILE_NOT_FOUND", source: f',
        "[1:1:WARNING:idle_linux.cc:111] None of the known D-Bus ScreenSaver services",
    ])
    got = cs.console_problems(log)
    assert len(got) == 2 and "Uncaught" in got[0] and "Failed to load" in got[1]


# ---------------------------------------------------------------- npm set-up

def test_package_json_and_lock_pin_the_same_local_assets():
    package = json.loads((ROOT / "package.json").read_text())
    lock = json.loads((ROOT / "package-lock.json").read_text())
    deps = package["dependencies"]
    assert set(deps) == {"reveal.js", "requirejs", "jquery", "mathjax",
                         "@jupyter-widgets/html-manager"}
    assert deps["reveal.js"].startswith("4.")      # reveal 5+ moved the notes plugin
    for name, version in deps.items():
        assert lock["packages"][f"node_modules/{name}"]["version"] == version, name
    assert lock["packages"][""]["dependencies"] == deps


def test_build_outputs_are_not_committed():
    ignored = (ROOT / ".gitignore").read_text().split()
    assert "build/" in ignored and "node_modules/" in ignored
