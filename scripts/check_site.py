"""Check the course site (build/site/, make site) the way a reader meets it, offline.

Usage: python scripts/check_site.py [SITE]       (default build/site; exit 1 on a problem)

1. **links** (:func:`link_problems`, no browser): every internal ``href``/``src`` of every
   page names a file of the site, and a ``#fragment`` names an id on the target page;
2. **pages** (:func:`page_problems`, headless Chromium through playwright, one browser for all
   pages, :data:`TABS` of them at once, each in its own tab): the site is served on 127.0.0.1
   and every request to any other address is blocked and recorded against the page that made
   it.  Each page loads with no console error, no uncaught error, no failed request
   and no 4xx/5xx answer; every image has loaded (``naturalWidth > 0``); a page with stored
   widget state shows its widget views; a page with maths shows MathJax's rendering; and
   axe-core (npm, node_modules/axe-core) reports no violation of impact serious or critical.
   The decks (slides/*.slides.html) get the same load and axe checks.

Each check returns a list of problems, one string each, naming the page.
"""

from __future__ import annotations

import asyncio
import functools
import html.parser
import http.server
import pathlib
import sys
import threading
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parents[1]
SITE = ROOT / "build" / "site"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM = "/usr/bin/chromium"
SEVERE = ("serious", "critical")


class _Refs(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if a.get(key):
                self.ids.add(a[key])
        for key in ("href", "src"):
            if a.get(key) and not (tag == "link" and a.get("rel") in ("canonical",)):
                self.refs.append(a[key])


@functools.cache
def _parse(path: pathlib.Path) -> _Refs:
    p = _Refs()
    p.feed(path.read_text(encoding="utf-8", errors="replace"))
    return p


def pages(site: pathlib.Path = SITE) -> list[pathlib.Path]:
    """The site's pages (not the decks' vendor files), sorted."""
    return sorted(
        p
        for p in site.rglob("*.html")
        if not {"vendor", "_static"} & set(p.relative_to(site).parts)
    )


def link_problems(site: pathlib.Path = SITE) -> list[str]:
    site = pathlib.Path(site).resolve()
    _parse.cache_clear()
    problems = []
    for page in pages(site):
        rel = page.relative_to(site).as_posix()
        for ref in _parse(page).refs:
            u = urllib.parse.urlsplit(ref)
            if u.scheme or u.netloc or ref.startswith(("mailto:", "javascript:", "data:")):
                continue
            path = urllib.parse.unquote(u.path)
            target = page if not path else (page.parent / path)
            if path.endswith("/"):
                target = target / "index.html"
            try:
                target = target.resolve()
                target.relative_to(site)
            except ValueError:
                problems.append(f"{rel}: {ref} points outside the site")
                continue
            if not target.is_file():
                problems.append(f"{rel}: {ref} names no file of the site")
                continue
            frag = urllib.parse.unquote(u.fragment)
            if frag and target.suffix == ".html" and not target.name.endswith(".slides.html"):
                if frag not in _parse(target).ids:
                    problems.append(f"{rel}: {ref} names no id {frag!r} on its page")
    return problems


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(site: pathlib.Path):
    """An HTTP server for ``site`` on 127.0.0.1 (a free port) in a thread; (server, base URL)."""
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


# What the page shows once it has settled: images, widget views, MathJax's output.
STATE_JS = r"""async () => {
  const wait = ms => new Promise(r => setTimeout(r, ms));
  if (window.MathJax && MathJax.Hub) {
    await new Promise(r => MathJax.Hub.Queue(r));
  }
  const stored = document.querySelectorAll(
    'script[type="application/vnd.jupyter.widget-view+json"]').length;
  for (let i = 0; i < 50 && stored &&
       document.querySelectorAll('.jupyter-widgets, .widget-container, .widget-inline-hbox')
         .length === 0; i++) { await wait(100); }
  const imgs = [...document.images].map(i => ({src: i.getAttribute('src'),
    ok: i.complete && i.naturalWidth > 0}));
  return {
    images: imgs,
    stored_views: stored,
    drawn_views: document.querySelectorAll(
      '.jupyter-widgets, .widget-container, .widget-inline-hbox').length,
    maths: document.querySelectorAll('span.math, div.math').length,
    rendered_maths: document.querySelectorAll('.MathJax_CHTML, .mjx-chtml').length,
  };
}"""

AXE_JS = """async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
}"""


TABS = 4
"""Pages checked at once, each in its own tab: a page mostly waits (on its scripts, MathJax,
the widgets, axe-core), so a few tabs side by side keep the machine's cores busy."""


def _only_inside(base, blocked):
    """A route that lets requests inside the site through and aborts the rest, noting each
    address it aborted in ``blocked``."""

    async def route(r):
        if r.request.url.startswith(base):
            await r.continue_()
        else:
            blocked.append(r.request.url)
            await r.abort()

    return route


async def _one(context, base, name, axe) -> list[str]:
    seen: list[str] = []
    blocked: list[str] = []
    page = await context.new_page()

    # this page's own route: what it asked for outside the site is its problem
    await page.route("**/*", _only_inside(base, blocked))
    page.on("console", lambda m: m.type == "error" and seen.append(f"console error: {m.text}"))
    page.on("pageerror", lambda e: seen.append(f"uncaught error: {e}"))
    page.on("requestfailed", lambda r: seen.append(f"failed request: {r.url} ({r.failure})"))
    page.on("response", lambda r: r.status >= 400 and seen.append(f"answer {r.status}: {r.url}"))
    try:
        await page.goto(base + name, wait_until="load", timeout=60_000)
        state = await page.evaluate(STATE_JS)
        await page.evaluate(axe)
        violations = await page.evaluate(AXE_JS)
    except Exception as e:  # a page that cannot be read is a problem, not a crash
        await page.close()
        return seen + [f"could not be checked: {e}"]
    await page.close()
    seen += [f"request outside the site: {bad}" for bad in blocked]
    seen += [f"image did not load: {i['src']}" for i in state["images"] if not i["ok"]]
    if state["stored_views"] and not state["drawn_views"]:
        seen.append(f"{state['stored_views']} stored widget views, none drawn")
    if state["maths"] and not state["rendered_maths"]:
        seen.append(f"{state['maths']} maths elements, none rendered by MathJax")
    seen += [
        f"axe {v['impact']}: {v['id']} ({v['help']}) at {v['nodes']}"
        for v in violations
        if v["impact"] in SEVERE
    ]
    return list(dict.fromkeys(seen))


async def _check_pages(site: pathlib.Path, names: list[str], tabs: int = TABS) -> list[str]:
    from playwright.async_api import async_playwright

    server, base = serve(site)
    axe = AXE.read_text(encoding="utf-8")
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            context = await browser.new_context(viewport={"width": 1280, "height": 900})
            stray: list[str] = []  # a request no page's own route saw (a worker's): blocked

            await context.route("**/*", _only_inside(base, stray))
            free = asyncio.Semaphore(tabs)

            async def check(name):
                async with free:
                    return [f"{name}: {s}" for s in await _one(context, base, name, axe)]

            found = await asyncio.gather(*(check(n) for n in names))
            await browser.close()
    finally:
        server.shutdown()
    return [p for page in found for p in page] + [
        f"request outside the site from no page: {u}" for u in dict.fromkeys(stray)
    ]


def page_problems(site: pathlib.Path = SITE, names: list[str] | None = None) -> list[str]:
    """Browser problems of ``names`` (paths relative to ``site``; default every page and
    every deck)."""
    site = pathlib.Path(site).resolve()
    if names is None:
        names = [p.relative_to(site).as_posix() for p in pages(site)]
    return asyncio.run(_check_pages(site, names))


async def _search(site: pathlib.Path, word: str) -> int:
    from playwright.async_api import async_playwright

    server, base = serve(site)
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = await browser.new_page()
            await page.goto(base + "search.html?q=" + urllib.parse.quote(word))
            # Sphinx's search writes its summary once it has gone through the index
            await page.wait_for_function(
                "() => { const s = document.querySelector('#search-results .search-summary');"
                " return s && s.textContent.trim().length > 0; }",
                timeout=60_000,
            )
            hits = await page.locator("#search-results ul.search > li").count()
            await browser.close()
    finally:
        server.shutdown()
    return hits


def search_hits(site: pathlib.Path = SITE, word: str = "McNemar") -> int:
    """How many pages the site's search (search.html, in the browser) lists for ``word``."""
    return asyncio.run(_search(pathlib.Path(site).resolve(), word))


def main(argv):
    site = pathlib.Path(argv[0]) if argv else SITE
    if not (site / "index.html").is_file():
        print(f"check_site: no {site}/index.html: run make site first")
        return 1
    problems = link_problems(site) + page_problems(site)
    for p in problems:
        print(p)
    print(f"check_site: {len(pages(site))} pages, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
