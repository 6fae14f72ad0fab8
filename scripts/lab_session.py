"""A real JupyterLab driven by Chromium: what tests/test_lab_explorers.py and
benchmarks/bench_browser_redraw.py share.

:class:`LabServer` starts ``jupyter lab`` from the running Python (the course's
``.venv``) on a free loopback port with a random token, no browser, its settings,
workspaces and runtime files in a temporary folder, serving a temporary copy of
``notebooks/`` (so autosave never touches the committed notebooks), and always stops it.
:func:`open_and_run` opens a notebook in Debian's chromium (Playwright, ``executable_path``)
and runs all its cells; :func:`explorer_state` reads an explorer's controls and text back
from the page; the ``change_*`` helpers move one control as a student would (click, arrow
key, typing) and return once the explorer's text has changed.
"""

from __future__ import annotations

import contextlib
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
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-extensions", "--no-first-run",
                "--disable-background-networking", "--disable-component-update"]
START_TIMEOUT = 120      # s for the server to answer
RUN_TIMEOUT_MS = 300_000  # for Run All of one notebook
REDRAW_TIMEOUT_MS = 60_000


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
    """``with LabServer() as lab:`` - a JupyterLab on 127.0.0.1; ``lab.url(path)``."""

    def __init__(self, notebooks=ROOT / "notebooks"):
        self.notebooks = pathlib.Path(notebooks)
        self.port = _free_port()
        self.token = secrets.token_hex(16)
        self.proc = None
        self.tmp = None

    def url(self, path=""):
        return f"http://127.0.0.1:{self.port}/{path}?token={self.token}"

    def __enter__(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="lab-explorers-"))
        root = self.root = self.tmp / "notebooks"
        shutil.copytree(self.notebooks, root)
        env = dict(os.environ,
                   JUPYTER_CONFIG_DIR=str(self.tmp / "config"),
                   JUPYTER_RUNTIME_DIR=str(self.tmp / "runtime"),
                   JUPYTERLAB_SETTINGS_DIR=str(self.tmp / "settings"),
                   JUPYTERLAB_WORKSPACES_DIR=str(self.tmp / "workspaces"))
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1",
               f"--port={self.port}", "--port-retries=0", f"--IdentityProvider.token={self.token}",
               f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True",
               "--ServerApp.disable_check_xsrf=False", "--log-level=WARN"]
        if os.geteuid() == 0:
            cmd.append("--allow-root")
        self.log = open(self.tmp / "server.log", "wb")
        self.proc = subprocess.Popen(cmd, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                self.__exit__(None, None, None)
                raise RuntimeError(f"jupyter lab exited with status {self.proc.returncode}; "
                                   f"log: {self.log_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.url("api/status"), timeout=5):
                    return self
            except OSError:
                if time.monotonic() > deadline:
                    self.__exit__(None, None, None)
                    raise RuntimeError(f"jupyter lab did not answer within {START_TIMEOUT} s")
                time.sleep(0.5)

    def log_text(self):
        return (self.tmp / "server.log").read_text(errors="replace")

    def __exit__(self, *exc):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()        # the server shuts its kernels down on SIGTERM
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait(timeout=10)
        with contextlib.suppress(Exception):
            self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)
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


NOTEBOOK = ".jp-NotebookPanel:not(.lm-mod-hidden)"   # the notebook on show

IDLE_JS = """() => {
  const app = window.jupyterapp;
  const nb = app && app.shell.currentWidget;
  if (!nb || !nb.content || !nb.sessionContext || !nb.sessionContext.session) return false;
  const kernel = nb.sessionContext.session.kernel;
  if (!kernel || kernel.status !== 'idle') return false;
  return nb.content.widgets.every(c => c.model.type !== 'code' || c.model.executionCount !== null);
}"""


def open_and_run(page, lab, notebook):
    """Open ``notebook`` (a name in notebooks/), run all cells, wait for the explorer.

    The kernel of a notebook opened before on this page is shut down first.  Outputs are
    cleared before Run All, so "every code cell has an execution count" means "ran"."""
    with contextlib.suppress(Exception):
        page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
    # "reset": a fresh workspace, so the notebooks opened before are not restored beside it
    page.goto(lab.url(f"lab/tree/{notebook}") + "&reset")
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.sessionContext"
                           " && window.jupyterapp.shell.currentWidget.sessionContext.isReady",
                           timeout=RUN_TIMEOUT_MS)
    page.evaluate("""async () => {
      await window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs');
      await window.jupyterapp.commands.execute('notebook:run-all-cells');
    }""")
    page.wait_for_function(IDLE_JS, timeout=RUN_TIMEOUT_MS, polling=500)
    pane = page.locator(f"{NOTEBOOK} .jp-OutputArea-output .widget-html pre").last
    pane.wait_for(state="attached", timeout=RUN_TIMEOUT_MS)
    pane.scroll_into_view_if_needed()
    return explorer(page)


def explorer(page):
    """The explorer's outermost widget (the last one in the notebook)."""
    return page.locator(f"{NOTEBOOK} .jp-OutputArea-output").filter(
        has=page.locator(".widget-html pre")).last


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
  const pane = root.querySelectorAll('.widget-html pre');
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
    page.evaluate("""before => {
      window.__redraw = {start: null, took: null, busy: null};
      const panes = document.querySelectorAll(
        '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output .widget-html pre');
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
        const pres = box.querySelectorAll('.widget-html pre');
        const now = pres.length ? pres[pres.length - 1].textContent : null;
        if (now !== before && window.__redraw.start !== null && window.__redraw.took === null) {
          window.__redraw.took = performance.now() - window.__redraw.start;
          watch.disconnect();
        }
      });
      watch.observe(box, {subtree: true, childList: true, characterData: true});
    }""", before)
    act()
    page.wait_for_function("() => window.__redraw.took !== null", timeout=REDRAW_TIMEOUT_MS,
                           polling="raf")
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
