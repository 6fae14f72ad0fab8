"""Idempotence: every notebook gives the same outputs when run again in the same kernel.

For each notebook under notebooks/ one kernel session (tests/nbtools.py,
network guard installed by an injected first cell) runs: Run All, Run All
again, then every code cell once more on its own, last to first.  The second
Run All and the single reruns must reproduce the first Run All's outputs
exactly (cells marked NBVAL_IGNORE_OUTPUT excepted, as in nbval).  A cell
whose output depends on how often or in which order cells ran fails here.

One test class per notebook, so `pytest -n 2 --dist loadscope` spreads the
notebooks over the workers.  The checkers are shown able to fail on small
synthetic notebooks (TestCheckersOnSyntheticNotebooks).
"""

import re

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

import nbtools


class NotebookChecks:
    """Checks of one notebook; subclassed once per notebook below."""

    path = None

    @pytest.fixture(scope="class")
    @classmethod
    def session(cls):
        return nbtools.run_session(cls.path)

    def test_network_guard_installed_and_never_hit(self, session):
        assert session.guard == [], session.guard
        assert session.blocked == "0", "the notebook tried to reach the network"

    def test_no_cell_raises(self, session):
        problems = nbtools.errors(session.nb, session.first)
        assert not problems, "\n".join(problems)

    def test_run_all_twice_gives_the_same_outputs(self, session):
        problems = nbtools.compare_runs(session.nb, session.first, session.second)
        assert not problems, "second Run All differs:\n" + "\n".join(problems)

    def test_each_cell_run_again_gives_the_same_output(self, session):
        problems = nbtools.compare_runs(session.nb, session.first, session.again)
        assert not problems, "a cell run again on its own differs:\n" + "\n".join(problems)


for _path in nbtools.notebooks():
    _name = "TestNotebook_" + re.sub(r"\W", "_", _path.relative_to(
        nbtools.ROOT / "notebooks").with_suffix("").as_posix())
    globals()[_name] = type(_name, (NotebookChecks,), {"path": _path})


# ---------------------------------------------------------------- the checkers can fail


def notebook(tmp_path, *sources):
    nb = new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                               "language": "python"}})
    nb.cells = [new_code_cell(s) for s in sources]
    path = tmp_path / "synthetic.ipynb"
    nbformat.write(nb, path)
    return path


class TestCheckersOnSyntheticNotebooks:

    def test_a_well_behaved_notebook_passes(self, tmp_path):
        s = nbtools.run_session(notebook(
            tmp_path, "import lessonlib as L\nrecords = L.make_records(5)",
            "print(len(records), records[1].cls)",
            "sorted({r.source for r in records})",
            "# NBVAL_RAISES_EXCEPTION\nL.make_records(0)"))
        assert s.guard == [] and s.blocked == "0"
        assert nbtools.errors(s.nb, s.first) == []
        assert s.first[3] == [{"output_type": "error", "ename": "ValueError",
                               "evalue": "n must be an integer >= 1, got 0"}]
        assert nbtools.compare_runs(s.nb, s.first, s.second) == []
        assert nbtools.compare_runs(s.nb, s.first, s.again) == []

    def test_a_counting_cell_fails_run_all_twice(self, tmp_path):
        s = nbtools.run_session(notebook(
            tmp_path, "runs = globals().get('runs', 0) + 1", "print('run', runs)",
            "import random\nprint(random.random() < 2)"))
        problems = nbtools.compare_runs(s.nb, s.first, s.second)
        assert len(problems) == 1 and problems[0].startswith("cell 1 ")

    def test_an_order_dependent_cell_fails_run_again(self, tmp_path):
        # cell 2 shrinks the list cell 1 prints: fine top to bottom, wrong out of order
        s = nbtools.run_session(notebook(
            tmp_path, "records = list(range(5))", "print(len(records))",
            "records = records[:2]"))
        assert nbtools.compare_runs(s.nb, s.first, s.second) == []
        problems = nbtools.compare_runs(s.nb, s.first, s.again)
        assert len(problems) == 1 and problems[0].startswith("cell 1 ")

    def test_a_raising_cell_is_reported_and_the_guard_works_in_the_kernel(self, tmp_path):
        s = nbtools.run_session(notebook(
            tmp_path, "import socket\nsocket.create_connection(('10.255.255.1', 80), timeout=1)",
            "import urllib.request\n"
            "try:\n    urllib.request.urlopen('http://example.org', timeout=1)\n"
            "except Exception as e:\n    print(type(e).__name__)",
            "1 / 0"))
        assert s.first[0][0]["ename"] == "NetworkBlocked"
        assert s.blocked != "0"                 # the swallowed attempt is counted too
        assert [p.split(":")[0] for p in nbtools.errors(s.nb, s.first)] == ["cell 0", "cell 2"]
