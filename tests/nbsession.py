"""pytest plugin: one kernel per notebook serves nbval and the idempotence checks.

Loaded by ``-p nbsession`` in pyproject.toml's addopts, so ``make test`` and a
direct ``pytest --nbval notebooks`` behave alike.  For every notebook nbval
collects, this plugin

* starts the kernel with retries (a loaded machine sometimes loses the first
  ``kernel_info`` reply), then installs the network guard in it (tests/netguard.py);
* lets nbval run each cell once and compare it with the stored output (strict);
  that first run is also the first Run All of the idempotence checks;
* reports a kernel that dies in a cell at once, with its exit status, instead of
  waiting out the cell timeout, and marks the cells after it as not run;
* then adds four items that reuse the same kernel: ``figures store a PNG``
  (every figure of the fresh run has an image/png part), ``Run All again``,
  ``each cell again alone`` (last to first) and ``network guard never hit``.

The second Run All and the single reruns must reproduce the first run's outputs
exactly, PNG bytes included (cells marked NBVAL_IGNORE_OUTPUT excepted).  The
plugin is tested on synthetic notebooks in tests/test_nb_idempotence.py.
"""

from __future__ import annotations

import sys

# jsonschema (imported with nbformat) loads rfc3987_syntax when it is installed (it is, for
# jupyter-events), which builds a grammar at import: 1.6 s of CPU in every pytest process.
# Notebook validation checks no IRI format, so the test processes go without it.  This
# plugin is loaded by -p before pytest's entry-point plugins (nbval) import nbformat.
sys.modules.setdefault("rfc3987_syntax", None)

import nbval.plugin  # noqa: E402
import pytest  # noqa: E402
from nbval.kernel import RunningKernel  # noqa: E402
from nbval.plugin import IPyNbCell, IPyNbFile, NbCellError, coalesce_streams  # noqa: E402

import nbtools  # noqa: E402
from execute_notebooks import matplotlib_config  # noqa: E402  (nbtools put scripts/ on the path)

# the kernels inherit this process's environment: with a read-only HOME, matplotlib would
# otherwise write a warning to a cell's stderr and nbval would fail it
matplotlib_config()

STARTS = 3  # attempts to start a kernel
CHECKS = (
    "figures store a PNG",
    "Run All again",
    "each cell again alone",
    "network guard never hit",
)


class WatchedKernel(RunningKernel):
    """nbval's kernel, whose wait for a reply notices a dead kernel within a second."""

    def __init__(self, *args, **kwargs):
        try:
            super().__init__(*args, **kwargs)
        except Exception:  # started but never ready: stop it before a retry
            if hasattr(self, "km"):
                self.stop()
            raise

    def await_reply(self, msg_id, timeout=None):
        nbtools.await_reply(self.km, self.kc, msg_id, timeout)


# nbval starts its kernel by this module-level name; ours notices a dead kernel
nbval.plugin.RunningKernel = WatchedKernel


class NotebookSession(IPyNbFile):
    """nbval's notebook collector, plus the session checks after its cells."""

    died = None  # cell number where the kernel died, or None
    guard = None  # outputs of the guard cell (must be empty)

    def setup(self):
        for attempt in range(1, STARTS + 1):
            try:
                super().setup()  # nbval's set-up, starting a WatchedKernel
                break
            except RuntimeError:  # e.g. 'Kernel died before replying to kernel_info'
                if attempt == STARTS:
                    raise
        self.guard = self.run(nbtools.guard_cell_source())

    def run(self, code):
        """Run ``code`` in this notebook's kernel; normalized outputs."""
        return nbtools.normalize(
            coalesce_streams(
                nbtools.run_code(
                    self.kernel.km, self.kernel.kc, code, self.config.option.nbval_cell_timeout
                )
            )
        )

    def collect(self):
        cells = list(super().collect())
        for cell in cells:
            cell.__class__ = WatchedCell
        yield from cells
        for name in CHECKS:
            yield SessionCheck.from_parent(self, name=name, cells=cells)


class WatchedCell(IPyNbCell):
    """An nbval cell that says so when the kernel died, in it or before it."""

    def runtest(self):
        if self.parent.died is not None:
            self.raise_cell_error(f"not run: the kernel died in cell {self.parent.died}")
        try:
            super().runtest()
        except nbtools.KernelDied as exc:
            self.parent.died = self.cell_num
            self.raise_cell_error(f"{exc}; the cells after this one are not run")


class SessionCheck(pytest.Item):
    """One idempotence check of a notebook, in the kernel nbval just used."""

    def __init__(self, *, cells, **kwargs):
        super().__init__(**kwargs)
        self.cells = [c for c in cells if not c.options["skip"]]

    def runtest(self):
        session = self.parent
        if session.died is not None:
            raise SessionFailed(f"the kernel died in cell {session.died}: nothing to rerun")
        if session.timed_out:
            raise SessionFailed("a cell ran past --nbval-cell-timeout: nothing to rerun")
        if self.name == "network guard never hit":
            probe = session.run(
                "import builtins; print(len(builtins.__course_netguard__.blocked))"
            )
            problems = [] if session.guard == [] else [f"the guard cell printed {session.guard}"]
            if probe != [{"output_type": "stream", "name": "stdout", "text": "0\n"}]:
                problems.append(f"the notebook tried to reach the network: {probe}")
            self.fail_on(problems)
            return
        missing = [c.cell_num for c in self.cells if c.test_outputs is None]
        if missing:
            pytest.skip(f"cells {missing} were not run by nbval in this session")
        nb = Numbered(self.cells)
        first = {c.cell_num: nbtools.normalize(c.test_outputs) for c in self.cells}
        if self.name == "figures store a PNG":
            self.fail_on(nbtools.figures_without_png(nb, first))
            return
        order = self.cells if self.name == "Run All again" else self.cells[::-1]
        again = {c.cell_num: session.run(c.cell.source) for c in order}
        self.fail_on(nbtools.compare_runs(nb, first, again))

    def fail_on(self, problems):
        if problems:
            raise SessionFailed("\n".join(problems))

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, (SessionFailed, nbtools.KernelDied, NbCellError)):
            return f"{self.name}: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"{self.path.name}::{self.name}"


class SessionFailed(AssertionError):
    """An idempotence check found a difference."""


class Numbered:
    """What nbtools' comparers read of a notebook (``nb.cells[i]``), by nbval cell number."""

    def __init__(self, cells):
        self.cells = {c.cell_num: c.cell for c in cells}


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path, parent):
    result = yield
    return [
        NotebookSession.from_parent(parent, path=file_path) if type(node) is IPyNbFile else node
        for node in result or []
    ]


LONG_WAITS = ("test_site.py", "test_assignments.py")
"""Test modules that are each one long wait of one worker (the site's browser walk of every
page and deck; the grader's kernels, one an endless loop cut at its time limit): handed out
before the notebooks, so the other worker runs notebooks meanwhile instead of one worker
waiting alone at the end."""


def pytest_collection_modifyitems(items):
    """The long waits first (LONG_WAITS), then notebooks, the largest file (the longest run)
    first; the rest as collected.

    With ``--dist loadscope --no-loadscope-reorder`` (pyproject.toml) xdist hands
    out whole modules and notebooks in this order, so the long ones do not start last."""

    def rank(item):
        if item.path.name in LONG_WAITS:
            return (0, LONG_WAITS.index(item.path.name))
        if isinstance(item.parent, NotebookSession):
            return (1, -item.parent.path.stat().st_size)
        return (2, 0)

    items.sort(key=rank)
