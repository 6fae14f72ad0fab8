"""Every explorer (02, 04, 10 and 14) in a real JupyterLab, driven by Chromium.

One JupyterLab (from this .venv, loopback port, random token, no browser, serving a
temporary copy of notebooks/, without the panels and services a test does not use: see
lab_session.LEAN) and one page of Debian's chromium (Playwright) serve the whole module.
The four notebooks' kernels start while the page loads JupyterLab, the notebooks are
opened together and Run All starts in each at once, so they run side by side; each test
then waits for its notebook's run, brings it to the front and moves each kind of control as
a student would (checkbox click, slider arrow key, toggle button, dropdown, typed text).
After every change the explorer's pane in the browser must show what the Python explorer
shows for the settings the controls show. The server (with its kernels) and the
browser are always stopped.

Skips, saying why, only when Chromium is not installed (or Playwright is missing).
"""

from __future__ import annotations

import concurrent.futures
import html
import re
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import lab_session as ls  # noqa: E402
import lessonlib as L  # noqa: E402
from lessonlib import widgets as W  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        ls.chromium() is None,
        reason="no Chromium (Debian's chromium) on this machine, so the explorers were NOT "
        "tested in JupyterLab; `apt-get install chromium` enables this test",
    ),
]


NOTEBOOKS = (
    "02_criteria_filter.ipynb",
    "04_two_seed_variance.ipynb",
    "10_judge_panel.ipynb",
    "14_label_raters.ipynb",
)
EXECUTED = "opens_unmodified.ipynb"  # written and run by execute_notebooks.py


def executed_notebook(folder):
    """A small notebook written into ``folder`` and run by scripts/execute_notebooks.py."""
    import nbformat

    import execute_notebooks

    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("# A title"), nbformat.v4.new_code_cell("1 + 1")]
    )
    path = folder / EXECUTED
    nbformat.write(nb, path)
    execute_notebooks.execute(path)
    return path


@pytest.fixture(scope="module")
def page():
    """One Lab page for the module.  The server starts while the browser starts;
    execute_notebooks.py runs its notebook (in a thread, with a kernel of its own) and the
    Lab kernels of 02, 04, 09, 13 and that notebook start while the page loads JupyterLab;
    then 02, 04, 10 and 14 are opened and Run All starts in all four."""
    pytest.importorskip("playwright", reason="playwright (requirements.txt) is not installed")
    lab = ls.LabServer(lean=True).start()
    try:
        with concurrent.futures.ThreadPoolExecutor(2) as pool, ls.browser_page() as page:
            page.lab = lab
            page.executed = pool.submit(executed_notebook, lab.root)
            lab.wait()
            kernels = pool.submit(ls.start_kernels, lab, NOTEBOOKS + (EXECUTED,))
            ls.open_lab(page, lab)
            kernels.result()
            ls.open_notebooks(page, NOTEBOOKS)
            yield page
    finally:
        lab.stop()


@pytest.fixture(scope="module")
def records():
    return L.make_records()


def one(mapping, first_word):
    """The value of the control whose label starts with ``first_word``."""
    hits = [v for k, v in mapping.items() if k.split(" ")[0].rstrip(":") == first_word]
    assert len(hits) == 1, f"expected one control labelled {first_word!r}, got {mapping}"
    return hits[0]


def shown(explorer, **settings):
    """What the browser's pane shows (its textContent) for ``explorer`` at ``settings``: the
    Python explorer's pane HTML with the tags taken out."""
    for name, value in settings.items():
        explorer.controls[name].value = value
    tables = re.search(r'<div class="lessonlib-tables">(.*)</div>$', explorer.pane.value, re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", tables.group(1)))


def criteria_expected(records, state):
    return shown(W.criteria_explorer(records), **state["checkbox"])


def judge_expected(records, state):
    return shown(
        W.judge_explorer(records),
        temperature=float(one(state["slider"], "temperature")),
        seed=int(one(state["text"], "seed")),
        guideline=one(state["dropdown"], "guideline"),
        spurious=one(state["checkbox"], "spurious"),
        unreadable_as=one(state["toggle"], "unreadable"),
    )


def panel_expected(records, state):
    ticks = {name.split(":")[0]: on for name, on in state["checkbox"].items()}
    return shown(
        W.panel_explorer(records),
        **ticks,
        quorum=int(one(state["slider"], "quorum")),
        aggregate=one(state["toggle"], "aggregate"),
        min_agreement=float(one(state["slider"], "min_agreement")),
        on_unreadable=one(state["toggle"], "unreadable"),
        guideline=one(state["dropdown"], "guideline"),
    )


def raters_expected(records, state):
    return shown(
        W.raters_explorer(records),
        miss=float(one(state["slider"], "lenient")),
        false_alarm=float(one(state["slider"], "strict")),
        careless=float(one(state["slider"], "careless")),
        guideline=one(state["toggle"], "guideline"),
    )


def assert_pane_matches(page, records, expected):
    state = ls.explorer_state(page)
    assert state["pane"] == expected(records, state), state


def test_an_executed_notebook_opens_unmodified(page):
    """scripts/execute_notebooks.py's output, opened in JupyterLab with its kernel running,
    is not marked modified (it was: the stored language_info lacked the Python version)."""
    path = page.executed.result()
    ls.open_notebooks(page, [path.name], run=False)
    assert ls.after_kernel_reported(page, path.name) == {"dirty": False, "context_dirty": False}


def test_criteria_explorer_in_jupyterlab(page, records):
    ls.show_ran(page, NOTEBOOKS[0])
    assert_pane_matches(page, records, criteria_expected)  # as Run All left it
    for flag in ("excessive_length", L.DEFAULT_RULES[0]):  # tick one, untick one
        ls.toggle_checkbox(page, flag)
        assert_pane_matches(page, records, criteria_expected)


def test_judge_explorer_in_jupyterlab(page, records):
    ls.show_ran(page, NOTEBOOKS[1])
    assert_pane_matches(page, records, judge_expected)
    other = [
        g for g in W.GUIDELINES if g != one(ls.explorer_state(page)["dropdown"], "guideline")
    ][0]
    for change in (
        lambda: ls.nudge_slider(page, "temperature"),
        lambda: ls.type_text(page, "seed", 7),
        lambda: ls.choose_dropdown(page, "guideline", other),
        lambda: ls.toggle_checkbox(page, "spurious"),
        lambda: ls.press_toggle(page, "unreadable", "harmful"),
    ):
        change()
        assert_pane_matches(page, records, judge_expected)


def test_panel_explorer_in_jupyterlab(page, records):
    ls.show_ran(page, NOTEBOOKS[2])
    assert_pane_matches(page, records, panel_expected)
    for change in (
        lambda: ls.toggle_checkbox(page, "greedy"),
        lambda: ls.nudge_slider(page, "quorum"),
        lambda: ls.press_toggle(page, "aggregate", "mean"),
        lambda: ls.nudge_slider(page, "min_agreement", "ArrowLeft"),
    ):
        change()
        assert ls.last_busy_ms(page) is not None, "no 'computing ...' line during the redraw"
        assert_pane_matches(page, records, panel_expected)
        assert "computing" not in ls.explorer(page).inner_text()


ALIGNMENT_JS = """root => ({
  sliders: Array.from(root.querySelectorAll('.widget-hslider .noUi-target'),
                      el => Math.round(el.getBoundingClientRect().left)),
  toggles: Array.from(root.querySelectorAll('.widget-toggle-buttons'), el => {
    const [label, button] = [el.querySelector('label'), el.querySelector('button')];
    const mid = r => (r.top + r.bottom) / 2;
    return Math.abs(mid(label.getBoundingClientRect()) - mid(button.getBoundingClientRect()));
  })})"""


def test_raters_explorer_in_jupyterlab(page, records):
    box = ls.show_ran(page, NOTEBOOKS[3])
    # laid out as a student sees it: the sliders start at the same x, and the guideline's
    # label sits on its buttons' line (half a line apart at most)
    where = box.evaluate(ALIGNMENT_JS)
    assert len(where["sliders"]) == 3 and len(set(where["sliders"])) == 1, where
    assert len(where["toggles"]) == 1 and where["toggles"][0] < 8, where
    assert_pane_matches(page, records, raters_expected)
    for change in (
        lambda: ls.nudge_slider(page, "lenient"),
        lambda: ls.nudge_slider(page, "strict", "ArrowLeft"),
        lambda: ls.nudge_slider(page, "careless"),
        lambda: ls.press_toggle(page, "guideline", "detailed"),
    ):
        change()
        assert_pane_matches(page, records, raters_expected)
