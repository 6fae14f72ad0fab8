"""A real JupyterLab driven by Chromium: what tests/test_lab_explorers.py and
benchmarks/bench_browser_redraw.py share.

:class:`LabServer` starts ``jupyter lab`` from the running Python (the course's
``.venv``) on a free loopback port with a random token, no browser, its settings,
workspaces and runtime files in a temporary folder, serving a temporary copy of
``notebooks/`` (so autosave never touches the committed notebooks), and always stops it.
It leaves out the Lab work a test does not need (see ``LEAN``).  :func:`open_lab` loads
JupyterLab once in a page of Debian's chromium (Playwright, ``executable_path``);
:func:`open_notebooks` opens several notebooks in it at once and starts Run All in each
(their kernels start and run side by side); :func:`show_ran` waits for one notebook's Run
All and brings it to the front.  :func:`explorer_state` reads an explorer's controls and
text back from the page; the ``toggle_checkbox``, ``nudge_slider``, ... helpers move one
control as a student would (click, arrow key, typing) and return once the explorer's text
has changed.  Every wait is on an event or a condition in the page, never a fixed sleep.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
BROWSER_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-extensions",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
]
START_TIMEOUT = 120  # s for the server to answer
RUN_TIMEOUT_MS = 300_000  # for Run All of one notebook
REDRAW_TIMEOUT_MS = 60_000

# What the server always leaves out (none of it is on the path from a control to the
# explorer's text): the news and update checks and the PyPI extension manager.  Kernels are
# stopped at once when the server stops (nothing of theirs is kept).
LEAN = [
    "--LabApp.news_url=None",
    "--LabApp.extension_manager=readonly",
    "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
    "--KernelManager.shutdown_wait_time=0.0",
]
# With LabServer(lean=True) (the test) it also leaves out the language servers and the
# terminals, and the front end the side panels and viewers a student may use but a test
# does not: each costs schema checks at start, DOM per cell or work per change.  The redraw
# benchmark keeps them, as a student has them.
LEANER = [
    "--ServerApp.jpserver_extensions=jupyter_lsp=False",
    "--ServerApp.jpserver_extensions=jupyter_server_terminals=False",
    "--ServerApp.terminals_enabled=False",
]
DISABLED_PLUGINS = [
    "@jupyterlab/apputils-extension:announcements",
    "@jupyterlab/extensionmanager-extension",
    "@jupyterlab/lsp-extension",
    "@jupyterlab/notebook-extension:language-server",
    "@jupyterlab/fileeditor-extension:language-server",
    "@jupyterlab/terminal-extension",
    "@jupyterlab/debugger-extension",
    "@jupyterlab/toc-extension",
    "@jupyterlab/notebook-extension:toc",
    "@jupyterlab/documentsearch-extension",
    "@jupyterlab/notebook-extension:search",
    "@jupyterlab/metadataform-extension",
    "@jupyterlab/notebook-extension:update-raw-mimetype",
    "@jupyterlab/launcher-extension",
    "@jupyterlab/running-extension",
    "@jupyterlab/logconsole-extension",
    "@jupyterlab/inspector-extension",
    "@jupyterlab/help-extension",
    "@jupyterlab/csvviewer-extension",
    "@jupyterlab/htmlviewer-extension",
    "@jupyterlab/imageviewer-extension",
    "@jupyterlab/markdownviewer-extension",
    "@jupyterlab/settingeditor-extension",
    "@jupyterlab/workspaces-extension",
    "@jupyterlab/celltags-extension",
    "@jupyterlab/cell-toolbar-extension",
    "@jupyterlab/hub-extension",
    "@jupyterlab/pluginmanager-extension",
    "@jupyterlab/mermaid-extension",
    "@jupyterlab/pdf-extension",
    "@jupyterlab/audio-extension",
    "@jupyterlab/video-extension",
    "@jupyterlab/completer-extension",
    "@jupyterlab/tooltip-extension",
    "@jupyterlab/console-extension",
    "@jupyterlab/fileeditor-extension",
]

# The server is started through this, not `-m jupyterlab`, to skip two costs of its start
# that serve no test: jsonschema's optional IRI checker (rfc3987_syntax builds an Earley
# grammar on import, about 2 s of CPU; only event-log schemas would use it) and
# `node yarn.js config` (run on import when node is found; only extension builds use it).
# PATH names no folder while jupyterlab is imported (an empty PATH would mean /bin:/usr/bin)
# and is put back before the server starts, so the kernels get the usual one.
LAUNCH = """import os, sys
sys.modules["rfc3987_syntax"] = None
path, os.environ["PATH"] = os.environ["PATH"], os.devnull
from jupyterlab.labapp import main
os.environ["PATH"] = path
sys.argv[0] = "jupyter-lab"
sys.exit(main())
"""


def chromium():
    """Path of Debian's chromium, or None."""
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LabServer:
    """``with LabServer() as lab:`` - a JupyterLab on 127.0.0.1; ``lab.url(path)``.

    ``start()`` launches it and returns at once, ``wait()`` waits until it answers (so a
    browser can start meanwhile); entering the ``with`` does both.  ``lean`` leaves out
    LEANER and DISABLED_PLUGINS too."""

    def __init__(self, notebooks=ROOT / "notebooks", lean=False):
        self.notebooks = pathlib.Path(notebooks)
        self.lean = lean
        self.port = _free_port()
        self.token = secrets.token_hex(16)
        self.proc = None
        self.tmp = None

    def url(self, path=""):
        return f"http://127.0.0.1:{self.port}/{path}?token={self.token}"

    def start(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="lab-explorers-"))
        root = self.root = self.tmp / "notebooks"
        shutil.copytree(self.notebooks, root)
        if self.lean:
            (self.tmp / "config" / "labconfig").mkdir(parents=True)
            (self.tmp / "config" / "labconfig" / "page_config.json").write_text(
                json.dumps({"disabledExtensions": dict.fromkeys(DISABLED_PLUGINS, True)})
            )
        env = dict(
            os.environ,
            JUPYTER_CONFIG_DIR=str(self.tmp / "config"),
            JUPYTER_RUNTIME_DIR=str(self.tmp / "runtime"),
            JUPYTERLAB_SETTINGS_DIR=str(self.tmp / "settings"),
            JUPYTERLAB_WORKSPACES_DIR=str(self.tmp / "workspaces"),
            IPYTHONDIR=str(self.tmp / "ipython"),
        )  # the kernels' history stays here
        cmd = [
            sys.executable,
            "-c",
            LAUNCH,
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={self.port}",
            "--port-retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.expose_app_in_browser=True",
            "--ServerApp.disable_check_xsrf=False",
            "--log-level=WARN",
            *LEAN,
            *(LEANER if self.lean else []),
        ]
        if os.geteuid() == 0:
            cmd.append("--allow-root")
        self.log = open(self.tmp / "server.log", "wb")
        self.proc = subprocess.Popen(
            cmd,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        return self

    def wait(self):
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                log = self.log_text()
                self.stop()
                raise RuntimeError(
                    f"jupyter lab exited with status {self.proc.returncode}; log: {log[-2000:]}"
                )
            try:
                with urllib.request.urlopen(self.url("api/status"), timeout=5):
                    return self
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(
                        f"jupyter lab did not answer within {START_TIMEOUT} s"
                    ) from None
                time.sleep(0.1)

    def __enter__(self):
        self.start()
        try:
            return self.wait()
        except BaseException:
            self.stop()
            raise

    def log_text(self):
        return (self.tmp / "server.log").read_text(errors="replace")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # the server shuts its kernels down on SIGTERM
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait(timeout=10)
        with contextlib.suppress(Exception):
            self.log.close()
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def __exit__(self, *exc):
        self.stop()
        return False


@contextlib.contextmanager
def browser_page(viewport=None):
    """A Playwright page in Debian's chromium; closed on the way out."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium(), args=BROWSER_ARGS)
        try:
            page = browser.new_page(viewport=viewport or {"width": 1400, "height": 1000})
            yield page
        finally:
            browser.close()


NOTEBOOK = ".jp-NotebookPanel:not(.lm-mod-hidden)"  # the notebook on show


def start_kernels(lab, paths):
    """Start a kernel for each notebook in ``paths`` through the server's REST API, all at
    once, as JupyterLab does when it opens a notebook (POST /api/sessions); JupyterLab then
    connects to it instead of starting its own.  Lets the kernels start while the page is
    still loading JupyterLab.  Returns once all have started."""
    import concurrent.futures

    def start(path):
        body = json.dumps(
            {"path": path, "name": path, "type": "notebook", "kernel": {"name": "python3"}}
        ).encode()
        request = urllib.request.Request(
            lab.url("api/sessions"),
            data=body,
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=START_TIMEOUT) as answer:
            return json.load(answer)["kernel"]["id"]

    with concurrent.futures.ThreadPoolExecutor(len(paths)) as pool:
        return list(pool.map(start, paths))


def open_lab(page, lab):
    """Load JupyterLab in ``page`` with an empty workspace and wait until it is restored."""
    page.goto(lab.url("lab") + "&reset")
    page.wait_for_function("() => window.jupyterapp", timeout=RUN_TIMEOUT_MS)
    page.evaluate("async () => { await window.jupyterapp.restored; window.__runs = {}; }")


# within(promise, what): the promise, or an error naming ``what`` after RUN_TIMEOUT_MS (a
# kernel that never starts or a run that never ends fails the test instead of hanging it)
WITHIN_JS = f"""(promise, what) => Promise.race([promise, new Promise((_, reject) => setTimeout(
  () => reject(new Error(what + ': no answer within {RUN_TIMEOUT_MS // 1000} s')),
  {RUN_TIMEOUT_MS}))])"""

OPEN_JS = f"""async ([paths, run]) => {{
  const app = window.jupyterapp;
  const within = {WITHIN_JS};
  await within(Promise.all(paths.map(async path => {{
    const nb = await app.commands.execute('docmanager:open', {{path, factory: 'Notebook'}});
    if (run) window.__runs[path] = (async () => {{
      await nb.context.ready;
      await nb.sessionContext.ready;
      const args = {{widgetId: nb.id, activate: false}};
      await app.commands.execute('notebook:clear-all-cell-outputs', args);
      return app.commands.execute('notebook:run-all-cells', args);
    }})();
  }})), 'opening ' + paths.join(', '));
}}"""


def open_notebooks(page, paths, run=True):
    """Open the notebooks ``paths`` (relative to the server's root) in the Lab of ``page``,
    all at once; with ``run``, start in each (without waiting: :func:`show_ran` waits) its
    kernel, then clear its outputs and Run All.  Outputs are cleared first, so "every code
    cell has an execution count" means "ran"."""
    page.evaluate(OPEN_JS, [list(paths), run])


FIND_JS = """path => {
  for (const w of window.jupyterapp.shell.widgets('main'))
    if (w.context && w.context.path === path) return w;
  return null;
}"""

RAN_JS = f"""async path => {{
  const nb = ({FIND_JS})(path);
  const ok = await ({WITHIN_JS})(window.__runs[path], 'Run All of ' + path);
  const cells = Array.from(nb.model.cells).filter(c => c.type === 'code');
  const missed = cells.filter(c => typeof c.executionCount !== 'number').length;
  window.jupyterapp.shell.activateById(nb.id);
  const shows = c => c.type === 'code' && c.outputs.toJSON().some(
    o => o.data && o.data['application/vnd.jupyter.widget-view+json']);
  const last = Array.from(nb.model.cells).map(shows).lastIndexOf(true);
  if (last >= 0) await nb.content.scrollToItem(last, 'start');
  return {{ok, missed}};
}}"""


def show_ran(page, path):
    """Wait until the Run All started by :func:`open_notebooks` in ``path`` has finished
    (every cell ran without an error), bring that notebook to the front and return its
    explorer (the last one in it), scrolled into view."""
    ran = page.evaluate(RAN_JS, path)
    assert ran == {"ok": True, "missed": 0}, f"Run All of {path} in JupyterLab: {ran}"
    pane = page.locator(f"{NOTEBOOK} .lessonlib-tables").last
    pane.wait_for(state="attached", timeout=RUN_TIMEOUT_MS)
    pane.scroll_into_view_if_needed()
    return explorer(page)


OPEN_ATTEMPTS = 3
"""How many times :func:`open_and_run` loads the page and opens a notebook before it gives up."""


def open_and_run(page, lab, notebook, attempts=OPEN_ATTEMPTS, say=None):
    """Open ``notebook`` (a name in notebooks/) alone in a fresh Lab page, run all its
    cells and return its explorer; the kernels of notebooks opened before are shut down.

    On a slow, shared machine the page can navigate or lose a pending promise while Lab
    starts (Playwright: "Resulting promise was garbage collected") or a wait can time out:
    then the page is loaded again and the notebook opened again, up to ``attempts`` times
    in all; ``say(line)`` is told of each retry.  The last failure is raised."""
    from playwright.sync_api import Error as PlaywrightError

    for attempt in range(1, attempts + 1):
        with contextlib.suppress(Exception):
            page.evaluate("() => window.jupyterapp.serviceManager.sessions.shutdownAll()")
        try:
            open_lab(page, lab)
            open_notebooks(page, [notebook])
            return show_ran(page, notebook)
        except PlaywrightError as exc:  # TimeoutError is one too
            if attempt == attempts:
                raise
            if say is not None:
                first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                say(
                    f"opening {notebook} failed ({first[:100]}); "
                    f"attempt {attempt + 1} of {attempts}"
                )


KERNEL_REPORTED_JS = f"""path => ({WITHIN_JS})((async () => {{
  const nb = ({FIND_JS})(path);
  await nb.sessionContext.ready;
  const kernel = nb.sessionContext.session.kernel;
  await kernel.info;      // the panel writes language_info and kernelspec from these
  await kernel.spec;
  await new Promise(resolve => setTimeout(resolve, 0));
  return {{dirty: nb.model.dirty, context_dirty: nb.context.model.dirty}};
}})(), 'the kernel of ' + path)"""


def after_kernel_reported(page, path):
    """Once the kernel of the open notebook ``path`` has reported its language and spec (what
    JupyterLab writes into the notebook when it connects): {'dirty': ..., 'context_dirty': ...}."""
    return page.evaluate(KERNEL_REPORTED_JS, path)


def explorer(page):
    """The explorer's outermost widget (the last one in the notebook)."""
    return (
        page.locator(f"{NOTEBOOK} .jp-OutputArea-output")
        .filter(has=page.locator(".lessonlib-tables"))
        .last
    )


STATE_JS = """root => {
  const clean = t => (t || '').replace(/[\u200b]/g, '').replace(/\u00a0/g, ' ').trim();
  const label = el => {
    const l = el.querySelector(':scope > .widget-label, :scope > label.widget-label-basic, label');
    return clean(l ? l.textContent : '');
  };
  const out = {checkbox: {}, slider: {}, dropdown: {}, toggle: {}, text: {}};
  root.querySelectorAll('.widget-checkbox').forEach(el => {
    out.checkbox[clean(el.textContent)] = el.querySelector('input').checked;
  });
  root.querySelectorAll('.widget-hslider').forEach(el => {
    out.slider[label(el)] = el.querySelector('.widget-readout').textContent.trim();
  });
  root.querySelectorAll('.widget-dropdown').forEach(el => {
    const s = el.querySelector('select');
    out.dropdown[label(el)] = clean(s.options[s.selectedIndex].text);
  });
  root.querySelectorAll('.widget-toggle-buttons').forEach(el => {
    const b = el.querySelector('button.mod-active');
    out.toggle[label(el)] = b ? clean(b.textContent) : null;
  });
  root.querySelectorAll('.widget-text, .widget-inline-hbox.widget-text').forEach(el => {
    out.text[label(el)] = el.querySelector('input').value;
  });
  const pane = root.querySelectorAll('.lessonlib-tables');
  out.pane = pane.length ? pane[pane.length - 1].textContent : null;
  return out;
}"""


def explorer_state(page):
    """{'checkbox': {label: bool}, 'slider': {label: readout}, 'dropdown': {label: text},
    'toggle': {label: active button}, 'text': {label: value}, 'pane': text shown}."""
    return explorer(page).evaluate(STATE_JS)


def pane_text(page):
    return explorer_state(page)["pane"]


def _changed(page, before, act):
    """Run ``act()`` and wait until the pane differs from ``before``; seconds it took,
    measured in the page from the input event to the changed text."""
    page.evaluate(
        """before => {
      window.__redraw = {start: null, took: null, busy: null};
      const panes = document.querySelectorAll(
        '.jp-NotebookPanel:not(.lm-mod-hidden) .lessonlib-tables');
      const box = panes[panes.length - 1].closest('.jp-OutputArea-output');
      const mark = () => {
        if (window.__redraw.start === null) window.__redraw.start = performance.now();
      };
      for (const kind of ['change', 'input', 'click', 'keydown'])
        box.addEventListener(kind, mark, {capture: true, once: true});
      const watch = new MutationObserver(() => {
        if (window.__redraw.busy === null && window.__redraw.start !== null &&
            box.textContent.includes('computing ...'))
          window.__redraw.busy = performance.now() - window.__redraw.start;
        const pres = box.querySelectorAll('.lessonlib-tables');
        const now = pres.length ? pres[pres.length - 1].textContent : null;
        if (now !== before && window.__redraw.start !== null && window.__redraw.took === null) {
          window.__redraw.took = performance.now() - window.__redraw.start;
          watch.disconnect();
        }
      });
      watch.observe(box, {subtree: true, childList: true, characterData: true});
    }""",
        before,
    )
    act()
    page.wait_for_function(
        "() => window.__redraw.took !== null", timeout=REDRAW_TIMEOUT_MS, polling="raf"
    )
    return page.evaluate("() => window.__redraw.took") / 1000


def last_busy_ms(page):
    """Milliseconds from the input event of the last change to the explorer's
    'computing ...' line, or None if that line never showed."""
    return page.evaluate("() => window.__redraw.busy")


def _row(page, kind, label):
    return explorer(page).locator(f".widget-{kind}").filter(has_text=label).first


def toggle_checkbox(page, label):
    before = pane_text(page)
    box = _row(page, "checkbox", label).locator("input")
    return _changed(page, before, box.click)


def nudge_slider(page, label, key="ArrowRight"):
    before = pane_text(page)
    handle = _row(page, "hslider", label).locator(".noUi-handle")

    def act():
        handle.focus()
        page.keyboard.press(key)

    return _changed(page, before, act)


def choose_dropdown(page, label, option):
    before = pane_text(page)
    select = _row(page, "dropdown", label).locator("select")
    return _changed(page, before, lambda: select.select_option(label=option))


def press_toggle(page, label, option):
    before = pane_text(page)
    button = _row(page, "toggle-buttons", label).get_by_role("button", name=option, exact=True)
    return _changed(page, before, button.click)


def type_text(page, label, value):
    before = pane_text(page)
    field = _row(page, "text", label).locator("input")

    def act():
        field.fill(str(value))
        field.press("Enter")

    return _changed(page, before, act)
