"""The notebook session plugin (tests/nbsession.py) on synthetic notebooks: it can fail.

``pytest --nbval`` (make test, or run directly) runs every notebook once in one
kernel, as nbval does, and then in the same kernel checks that every figure
stored a PNG, that Run All again and every cell rerun on its own (last to
first) give the same outputs, and that the network guard was never hit.  A
kernel that dies in a cell is reported as such at once; a cell that runs too
long is stopped by the cell timeout; a kernel that fails to start is started
again.  Here pytest runs the plugin on small notebooks, each built to trip one
check, and the outcome of every item is read.
"""

import subprocess
import sys

import nbformat
import nbval.plugin
import pytest
from nbformat.v4 import new_code_cell, new_notebook

import nbsession
import nbtools

pytestmark = pytest.mark.slow          # starts kernels: make test runs it, make check does not

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def write(folder, name, *sources):
    nb = new_notebook(metadata={"kernelspec": KERNELSPEC})
    nb.cells = [new_code_cell(s) for s in sources]     # not executed: nbval runs, no compare
    nbformat.write(nb, folder / f"{name}.ipynb")


def outcomes(result):
    """{'nb.ipynb::item': 'passed' | 'failed' | ...} and {item: failure text}."""
    reports = [r for r in result.reprec.getreports("pytest_runtest_logreport")
               if r.when == "call" or r.outcome != "passed"]
    names = {r.nodeid.split("/")[-1]: r.outcome for r in reports}
    texts = {r.nodeid.split("/")[-1]: str(r.longrepr) for r in reports if r.failed}
    return names, texts


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sessions")
    write(folder, "good",
          "records = [{'id': i, 'cls': 'clean' if i % 2 else 'harmful'} for i in range(5)]",
          "print(len(records), records[1]['cls'])",
          "# NBVAL_RAISES_EXCEPTION\nint('x')",
          "sorted({r['cls'] for r in records})")
    write(folder, "bad",
          "runs = globals().get('runs', 0) + 1",                       # cell 0
          "print('run', runs)",                                        # cell 1: counts
          "items = list(range(5))",                                    # cell 2
          "print(len(items))",                                         # cell 3: order
          "items = items[:2]",                                         # cell 4
          "from IPython.display import display\n"                      # cell 5: no PNG
          "display({'text/plain': '<Figure size 640x480 with 1 Axes>'}, raw=True)",
          "import socket\n"                                            # cell 6: network
          "try:\n    socket.create_connection(('10.255.255.1', 80), timeout=1)\n"
          "except Exception as e:\n    print(type(e).__name__)")
    write(folder, "killed", "x = 1", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
          "print(x)")
    return folder


def run(pytester, folder, *args):
    for path in folder.glob("*.ipynb"):
        (pytester.path / path.name).write_bytes(path.read_bytes())
    return pytester.runpytest_inprocess("--nbval", "-p", "nbsession", "-p", "no:cacheprovider",
                                        "-p", "no:xdist", *args)


class FlakyStart(nbsession.WatchedKernel):
    """A kernel whose first start fails as on a loaded machine."""

    failures = 1

    def __init__(self, *args, **kwargs):
        if FlakyStart.failures:
            FlakyStart.failures -= 1
            raise RuntimeError("Kernel died before replying to kernel_info")
        super().__init__(*args, **kwargs)


def test_the_session_checks_pass_fail_and_report_as_built(pytester, synthetic, monkeypatch):
    monkeypatch.setattr(nbval.plugin, "RunningKernel", FlakyStart)
    result = run(pytester, synthetic, "--nbval-cell-timeout=120")
    assert FlakyStart.failures == 0             # a failed start was retried, and nothing failed
    got, text = outcomes(result)
    checks = ["figures store a PNG", "Run All again", "each cell again alone",
              "network guard never hit"]
    # a well-behaved notebook: its 4 cells and the 4 session checks pass
    assert {k: v for k, v in got.items() if k.startswith("good.ipynb")} == {
        **{f"good.ipynb::Cell {i}": "passed" for i in range(4)},
        **{f"good.ipynb::{c}": "passed" for c in checks}}
    # each broken rule is found, at the cell that breaks it
    assert [got[f"bad.ipynb::Cell {i}"] for i in range(7)] == ["passed"] * 7
    assert all(got[f"bad.ipynb::{c}"] == "failed" for c in checks)
    assert "cell 5 " in text["bad.ipynb::figures store a PNG"]
    assert "cell 1 " in text["bad.ipynb::Run All again"]
    assert "cell 3 " not in text["bad.ipynb::Run All again"]
    assert "cell 1 " in text["bad.ipynb::each cell again alone"]
    assert "cell 3 " in text["bad.ipynb::each cell again alone"]
    assert "tried to reach the network" in text["bad.ipynb::network guard never hit"]
    # a killed kernel is named as such at once (not after the cell timeout)
    assert got["killed.ipynb::Cell 0"] == "passed"
    assert "the kernel died while running this cell (killed by signal 9)" in text[
        "killed.ipynb::Cell 1"]
    assert "not run: the kernel died in cell 1" in text["killed.ipynb::Cell 2"]
    assert "the kernel died in cell 1" in text["killed.ipynb::Run All again"]
    assert "Timeout" not in "".join(text.values())


def test_a_cell_past_the_cell_timeout_is_stopped(pytester, tmp_path):
    write(tmp_path, "slow", "import time\ntime.sleep(120)", "print('after')")
    got, text = outcomes(run(pytester, tmp_path, "--nbval-cell-timeout=1"))
    assert got["slow.ipynb::Cell 0"] == "failed"
    assert "Timeout of 1 seconds exceeded" in text["slow.ipynb::Cell 0"]
    assert "nothing to rerun" in text["slow.ipynb::Run All again"]


class Ended:
    """Just what nbtools.kernel_death reads of a kernel manager: provisioner.process."""

    def __init__(self, process):
        self.provisioner = type("Provisioner", (), {"process": process})()


def test_a_kernel_that_exits_is_reported_with_its_exit_status():
    exits = subprocess.Popen([sys.executable, "-c", "import os; os._exit(3)"])
    exits.wait(timeout=60)
    assert nbtools.kernel_death(Ended(exits)) == (
        "the kernel died while running this cell (exit status 3)")
    killed = subprocess.Popen([sys.executable, "-c", "import os; os.kill(os.getpid(), 9)"])
    killed.wait(timeout=60)
    assert nbtools.kernel_death(Ended(killed)).endswith("(killed by signal 9)")


def test_compare_runs_ignores_marked_cells():
    nb = new_notebook(cells=[new_code_cell("# NBVAL_IGNORE_OUTPUT\n# a clock\nnow()"),
                             new_code_cell("print(1)")])
    before = {0: [{"output_type": "stream", "name": "stdout", "text": "10:00"}],
              1: [{"output_type": "stream", "name": "stdout", "text": "1\n"}]}
    after = {0: [{"output_type": "stream", "name": "stdout", "text": "10:01"}],
             1: [{"output_type": "stream", "name": "stdout", "text": "2\n"}]}
    problems = nbtools.compare_runs(nb, before, after)
    assert len(problems) == 1 and problems[0].startswith("cell 1 ")
