"""The course site (make site, scripts/build_site.py) and its checker (scripts/check_site.py).

The slow tests read build/site/ as `make site` left it (`make test` builds it first; built here
when it is missing), in headless Chromium with every request outside the site blocked:
every page and deck loads cleanly with its images, widgets and maths drawn, axe-core finds
no serious or critical violation, every internal link resolves, search finds a word.  Each
check is also run on a small broken site made in tmp_path, so that it is seen to fail.
"""

import json
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import build_site  # noqa: E402
import check_site  # noqa: E402

SITE = ROOT / "build" / "site"
needs_axe = pytest.mark.skipif(
    not check_site.AXE.is_file(), reason="node_modules/axe-core missing: run npm ci"
)


@pytest.fixture(scope="module")
def site():
    if not (SITE / "index.html").is_file():
        r = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_site.py")])
        assert r.returncode == 0, "make site failed (it needs make slides' decks)"
    return SITE


# ---------------------------------------------------------------- what is built (no browser)


def test_toc_is_made_from_the_files_on_disk(tmp_path, monkeypatch):
    nbs = tmp_path / "notebooks"
    (nbs / "solutions").mkdir(parents=True)
    for name in ("01_a.ipynb", "16_new_step.ipynb", "GLOSSARY.md", "WRAP_UP.md"):
        (nbs / name).write_text("{}")
    (nbs / "solutions" / "16_new_step_solutions.ipynb").write_text("{}")
    monkeypatch.setattr(build_site, "NOTEBOOKS", nbs)
    toc = build_site.toc()
    for doc in ("01_a", "16_new_step", "WRAP_UP", "GLOSSARY", "solutions/16_new_step_solutions"):
        assert f"file: notebooks/{doc}\n" in toc
    assert toc.index("WRAP_UP") < toc.index("GLOSSARY")


def test_home_page_is_readmes_map():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    home = build_site.home_page(readme)
    map_rows = [line for line in readme.splitlines() if line.startswith("| [")]
    assert len(map_rows) >= 15
    for row in map_rows:
        label = row.split("](")[0].removeprefix("| [")
        assert f"[{label}]" in home
    assert "](notebooks/solutions/index.md)" in home


def test_decks_link_to_site_pages():
    html = '<a href="GLOSSARY.md#step">x</a><a href="solutions/01_a_solutions.ipynb">y</a>'
    out = build_site.deck_for_site(html)
    assert 'href="../notebooks/GLOSSARY.html#step"' in out
    assert 'href="../notebooks/solutions/01_a_solutions.html"' in out
    # nothing else: the decks pass axe-core as make slides builds them (check_slides.py)
    assert (
        out.replace("../notebooks/GLOSSARY.html", "GLOSSARY.md").replace(
            "../notebooks/solutions/01_a_solutions.html", "solutions/01_a_solutions.ipynb"
        )
        == html
    )


def test_link_checker_fails_on_broken_links(tmp_path):
    (tmp_path / "index.html").write_text(
        '<p id="here"><a href="page.html#there">a</a><a href="gone.html">b</a>'
        '<a href="#here">c</a><a href="https://example.org/">d</a>'
        '<img src="missing.png" alt=""></p>'
    )
    (tmp_path / "page.html").write_text('<a id="elsewhere" href="index.html#here">x</a>')
    problems = check_site.link_problems(tmp_path)
    assert any("page.html#there" in p and "no id" in p for p in problems)
    assert any("gone.html" in p for p in problems)
    assert any("missing.png" in p for p in problems)
    assert len(problems) == 3, problems


# ---------------------------------------------------------------- the built site


@pytest.mark.slow
def test_every_notebook_has_its_page_download_and_deck(site):
    nbs = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    sols = sorted((ROOT / "notebooks" / "solutions").glob("*.ipynb"))
    assert nbs and sols
    for nb in nbs + sols:
        rel = nb.relative_to(ROOT).with_suffix("")
        page = (site / rel).with_suffix(".html").read_text(encoding="utf-8")
        assert f'href="{nb.name}" download' in page, rel
        assert ".slides.html" in page, rel
        assert (site / rel).with_suffix(".ipynb").read_bytes() == nb.read_bytes()
    for md in (ROOT / "notebooks").glob("*.md"):
        assert (site / "notebooks" / md.name).with_suffix(".html").is_file()
    for nb in nbs:
        assert (site / "slides" / f"{nb.stem}.slides.html").is_file()


@pytest.mark.slow
def test_site_links_resolve(site):
    assert check_site.link_problems(site) == []


@pytest.mark.slow
def test_no_page_names_the_web_as_a_load(site):
    from check_slides import remote_loads

    loads = {p.name: remote_loads(p) for p in check_site.pages(site)}
    assert {k: v for k, v in loads.items() if v} == {}


@pytest.mark.slow
@needs_axe
def test_every_page_and_deck_in_the_browser(site):
    """One browser for all pages and decks (about 55), check_site.TABS tabs at once: see
    check_site.page_problems (test_page_checker_fails_on_a_broken_page loads a broken and a
    clean page side by side: each problem is the broken page's)."""
    names = [p.relative_to(site).as_posix() for p in check_site.pages(site)]
    assert any(n.startswith("slides/") for n in names)
    assert check_site.page_problems(site, names) == []


@pytest.mark.slow
def test_search_finds_a_word(site):
    assert check_site.search_hits(site, "McNemar") > 0
    assert check_site.search_hits(site, "zqxjkv") == 0


@pytest.mark.slow
@needs_axe
def test_page_checker_fails_on_a_broken_page(tmp_path):
    (tmp_path / "fig.png").write_bytes(b"not a png")
    (tmp_path / "bad.html").write_text(
        "<!doctype html><html lang='en'><head><title>bad</title>"
        "<script src='https://cdn.example.org/lib.js'></script></head><body><main>"
        "<img src='fig.png' alt='a figure'><img src='gone.png' alt='gone'>"
        "<img src='fig.png'>"  # no alt: axe's image-alt, critical
        "<script>console.error('boom')</script>"
        "<span class='math'>\\(x\\)</span>"
        '<script type="application/vnd.jupyter.widget-view+json">'
        + json.dumps({"model_id": "x", "version_major": 2, "version_minor": 0})
        + "</script></main></body></html>"
    )
    (tmp_path / "good.html").write_text(
        "<!doctype html><html lang='en'><head><title>good</title></head>"
        "<body><main><h1>fine</h1></main></body></html>"
    )
    problems = check_site.page_problems(tmp_path, ["bad.html", "good.html"])
    text = "\n".join(problems)
    assert all(p.startswith("bad.html: ") for p in problems), text
    for expected in (
        "request outside the site: https://cdn.example.org/lib.js",
        "console error: boom",
        "image did not load: fig.png",
        "image did not load: gone.png",
        "answer 404",
        "axe critical: image-alt",
        "none rendered by MathJax",
        "none drawn",
    ):
        assert expected in text, (expected, text)
