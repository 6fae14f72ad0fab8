"""The explorers of 02, 04 and 07 in a real JupyterLab, driven by Chromium.

One JupyterLab (from this .venv, loopback port, random token, no browser, serving a
temporary copy of notebooks/) serves the three notebooks; Playwright drives Debian's
chromium.  Each notebook is opened and Run All; then each kind of control is moved as a
student would (checkbox click, slider arrow key, toggle button, dropdown, typed text), and
after every change the explorer's text in the browser must equal what the Python text
function returns for the settings the controls show.  The server is always stopped.

Skips, saying why, only when Chromium is not installed (or Playwright is missing).
"""

from __future__ import annotations

import sys

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import lab_session as ls  # noqa: E402

import lessonlib as L  # noqa: E402
from lessonlib import widgets as W  # noqa: E402

pytestmark = pytest.mark.skipif(
    ls.chromium() is None,
    reason="no Chromium (Debian's chromium) on this machine, so the explorers were NOT "
           "tested in JupyterLab; `apt-get install chromium` enables this test")


@pytest.fixture(scope="module")
def page():
    pytest.importorskip("playwright", reason="playwright (requirements.txt) is not installed")
    with ls.LabServer() as lab, ls.browser_page() as page:
        page.lab = lab
        yield page


@pytest.fixture(scope="module")
def records():
    return L.make_records()


def one(mapping, first_word):
    """The value of the control whose label starts with ``first_word``."""
    hits = [v for k, v in mapping.items() if k.split(" ")[0].rstrip(":") == first_word]
    assert len(hits) == 1, f"expected one control labelled {first_word!r}, got {mapping}"
    return hits[0]


def criteria_expected(records, state):
    rules = [name for name, on in state["checkbox"].items() if on]
    return W.criteria_text(records, rules)


def judge_expected(records, state):
    return W.judge_text(records, temperature=float(one(state["slider"], "temperature")),
                        seed=int(one(state["text"], "seed")),
                        guideline=one(state["dropdown"], "guideline"),
                        spurious=one(state["checkbox"], "spurious"),
                        unreadable_as=one(state["toggle"], "unreadable"))


def panel_expected(records, state):
    judges = [name.split(":")[0] for name, on in state["checkbox"].items() if on]
    return W.panel_text(records, judges, quorum=int(one(state["slider"], "quorum")),
                        aggregate=one(state["toggle"], "aggregate"),
                        min_agreement=float(one(state["slider"], "min_agreement")),
                        on_unreadable=one(state["toggle"], "unreadable"),
                        guideline=one(state["dropdown"], "guideline"))


def assert_pane_matches(page, records, expected):
    state = ls.explorer_state(page)
    assert state["pane"] == expected(records, state), state


def test_an_executed_notebook_opens_unmodified(page, tmp_path):
    """scripts/execute_notebooks.py's output, opened in JupyterLab with its kernel running,
    is not marked modified (it was: the stored language_info lacked the Python version)."""
    import nbformat
    import execute_notebooks

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A title"),
                                         nbformat.v4.new_code_cell("1 + 1")])
    path = page.lab.root / "opens_unmodified.ipynb"
    nbformat.write(nb, path)
    execute_notebooks.execute(path)
    page.goto(page.lab.url("lab/tree/opens_unmodified.ipynb") + "&reset")
    page.wait_for_function(ls.IDLE_JS, timeout=ls.RUN_TIMEOUT_MS, polling=500)
    page.wait_for_timeout(2000)     # what the kernel reports arrives after it is idle
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.model.dirty") is False
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.dirty") \
        is False


def test_criteria_explorer_in_jupyterlab(page, records):
    ls.open_and_run(page, page.lab, "02_criteria_filter.ipynb")
    assert_pane_matches(page, records, criteria_expected)      # as Run All left it
    for flag in ("excessive_length", L.DEFAULT_RULES[0]):      # tick one, untick one
        ls.toggle_checkbox(page, flag)
        assert_pane_matches(page, records, criteria_expected)


def test_judge_explorer_in_jupyterlab(page, records):
    ls.open_and_run(page, page.lab, "04_two_seed_variance.ipynb")
    assert_pane_matches(page, records, judge_expected)
    other = [g for g in W.GUIDELINES if g != one(ls.explorer_state(page)["dropdown"],
                                                 "guideline")][0]
    for change in (lambda: ls.nudge_slider(page, "temperature"),
                   lambda: ls.type_text(page, "seed", 7),
                   lambda: ls.choose_dropdown(page, "guideline", other),
                   lambda: ls.toggle_checkbox(page, "spurious"),
                   lambda: ls.press_toggle(page, "unreadable", "harmful")):
        change()
        assert_pane_matches(page, records, judge_expected)


def test_panel_explorer_in_jupyterlab(page, records):
    ls.open_and_run(page, page.lab, "07_judge_panel.ipynb")
    assert_pane_matches(page, records, panel_expected)
    for change in (lambda: ls.toggle_checkbox(page, "greedy"),
                   lambda: ls.nudge_slider(page, "quorum"),
                   lambda: ls.press_toggle(page, "aggregate", "mean"),
                   lambda: ls.nudge_slider(page, "min_agreement", "ArrowLeft")):
        change()
        assert ls.last_busy_ms(page) is not None, "no 'computing ...' line during the redraw"
        assert_pane_matches(page, records, panel_expected)
        assert "computing" not in ls.explorer(page).inner_text()
