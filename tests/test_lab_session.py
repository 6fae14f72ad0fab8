"""scripts/lab_session.py without a browser: opening a notebook on a slow page is retried.

The real-browser use is tests/test_lab_explorers.py and benchmarks/bench_browser_redraw.py;
here stand-ins for the page steps fail the way a slow page made them fail once in five
benchmark runs ("Resulting promise was garbage collected" while JupyterLab started)."""

import sys

import pytest

from conftest import ROOT, Deferred

sys.path.insert(0, str(ROOT / "scripts"))
import lab_session as ls  # noqa: E402

playwright = Deferred("playwright.sync_api")  # imported by the tests that read it


class Page:
    """A stand-in page: evaluate() is a no-op (the kernels' shutdown)."""

    def evaluate(self, *args):
        return None


def flaky(monkeypatch, failures):
    """open_lab fails ``failures`` times, then works; returns the list of calls made."""
    calls = []

    def open_lab(page, lab):
        calls.append("open_lab")
        if calls.count("open_lab") <= failures:
            raise playwright.Error("Resulting promise was garbage collected")

    monkeypatch.setattr(ls, "open_lab", open_lab)
    monkeypatch.setattr(ls, "open_notebooks", lambda page, paths: calls.append("open"))
    monkeypatch.setattr(ls, "show_ran", lambda page, path: calls.append("ran") or "explorer")
    return calls


def test_a_failed_open_is_retried(monkeypatch):
    calls = flaky(monkeypatch, failures=2)
    said = []
    assert ls.open_and_run(Page(), None, "10_judge_panel.ipynb", say=said.append) == "explorer"
    assert calls == ["open_lab", "open_lab", "open_lab", "open", "ran"]
    assert said == [
        "opening 10_judge_panel.ipynb failed (Resulting promise was garbage "
        "collected); attempt 2 of 3",
        "opening 10_judge_panel.ipynb failed (Resulting promise was garbage "
        "collected); attempt 3 of 3",
    ]


def test_the_last_failure_is_raised(monkeypatch):
    calls = flaky(monkeypatch, failures=ls.OPEN_ATTEMPTS)
    with pytest.raises(playwright.Error, match="garbage collected"):
        ls.open_and_run(Page(), None, "10_judge_panel.ipynb")
    assert calls == ["open_lab"] * ls.OPEN_ATTEMPTS
