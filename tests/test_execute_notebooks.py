"""scripts/execute_notebooks.py: widget model ids become stable, so re-execution is byte-stable."""

import sys

import nbformat
import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import execute_notebooks as ex  # noqa: E402

A, B = "a" * 32, "b" * 32


def notebook_with_widgets(first, second):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("explorer()", id="explorer-cell")
    cell.outputs = [nbformat.v4.new_output(
        "display_data", data={"application/vnd.jupyter.widget-view+json": {
            "model_id": first, "version_major": 2, "version_minor": 0},
            "text/plain": "explorer"})]
    nb.cells = [cell]
    nb.metadata["widgets"] = {ex.WIDGET_STATE: {"state": {
        first: {"model_name": "VBoxModel", "state": {"children": [f"IPY_MODEL_{second}"]}},
        second: {"model_name": "HTMLModel", "state": {"value": "table"}}},
        "version_major": 2, "version_minor": 0}}
    return nb


def test_ids_are_replaced_everywhere_by_name_and_order():
    nb = ex.stable_widget_ids(notebook_with_widgets(A, B), "02_x")
    text = nbformat.writes(nb)
    assert A not in text and B not in text
    state = nb.metadata["widgets"][ex.WIDGET_STATE]["state"]
    first, second = list(state)
    assert nb.cells[0].outputs[0].data[
        "application/vnd.jupyter.widget-view+json"]["model_id"] == first
    assert state[first]["state"]["children"] == [f"IPY_MODEL_{second}"]
    assert first != second


def test_two_executions_with_other_random_ids_give_the_same_file():
    one = nbformat.writes(ex.stable_widget_ids(notebook_with_widgets(A, B), "02_x"))
    two = nbformat.writes(ex.stable_widget_ids(notebook_with_widgets("c" * 32, "d" * 32),
                                               "02_x"))
    other = nbformat.writes(ex.stable_widget_ids(notebook_with_widgets(A, B), "04_y"))
    assert one == two
    assert one != other


def test_a_notebook_without_widgets_is_left_alone():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")])
    assert ex.stable_widget_ids(nb, "01_x") is nb


def test_figures_get_the_nearest_heading_as_alternative_text():
    nb = nbformat.v4.new_notebook()
    png = nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo=",
                                                       "text/plain": "<Figure>"})
    text = nbformat.v4.new_output("stream", text="no figure\n")
    first, second = nbformat.v4.new_code_cell("plot()"), nbformat.v4.new_code_cell("plot()")
    first.outputs, second.outputs = [png, text], [dict(png)]
    nb.cells = [nbformat.v4.new_markdown_cell("## Recall by class\n\nsome words"), first,
                nbformat.v4.new_markdown_cell("no heading here"), second]
    ex.figure_alt_text(nb)
    assert first.outputs[0].metadata["image/png"]["alt"] == "Figure: Recall by class"
    assert "metadata" not in first.outputs[1] or not first.outputs[1].get("metadata")
    assert second.outputs[0]["metadata"]["image/png"]["alt"] == "Figure: Recall by class"


# ---- a read-only HOME: matplotlib must not write to a cell's stderr (issue 18) ----------------

def unwritable_home(tmp_path):
    """Environment variables whose HOME cannot be written (even by root): it lies under a file."""
    import os

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    env = {k: v for k, v in os.environ.items()
           if k not in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")}
    env["HOME"] = str(blocker / "home")
    return env


def stderr_of_importing_pyplot(env):
    import subprocess

    return subprocess.run([sys.executable, "-c", "import matplotlib.pyplot"], env=env,
                          capture_output=True, text=True, check=True).stderr


@pytest.mark.slow      # starts a kernel: make test runs it, make check does not
def test_a_read_only_home_gets_its_own_matplotlib_folder(tmp_path):
    env = unwritable_home(tmp_path)
    assert "MPLCONFIGDIR" in stderr_of_importing_pyplot(env)    # the trouble, without the fix
    folder = ex.matplotlib_config(env)
    assert folder and env["MPLCONFIGDIR"] == folder
    assert stderr_of_importing_pyplot(env) == ""


def test_a_writable_home_or_a_set_folder_is_left_alone(tmp_path):
    env = {"HOME": str(tmp_path)}
    assert ex.matplotlib_config(env) is None and "MPLCONFIGDIR" not in env
    env = {"HOME": str(tmp_path / "x"), "MPLCONFIGDIR": "/somewhere"}
    assert ex.matplotlib_config(env) == "/somewhere"


@pytest.mark.slow      # starts a kernel: make test runs it, make check does not
def test_a_kernel_under_a_read_only_home_writes_nothing_to_stderr(tmp_path, monkeypatch):
    for key, value in unwritable_home(tmp_path).items():
        monkeypatch.setenv(key, value)
    for key in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(key, raising=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import matplotlib.pyplot as plt\nprint('ok')")]
    path = tmp_path / "nb.ipynb"
    ex.client(nb, path, timeout=120).execute()
    outputs = nb.cells[0].outputs
    assert [o.get("name") for o in outputs] == ["stdout"], outputs
