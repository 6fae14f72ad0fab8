"""scripts/execute_notebooks.py: widget model ids become stable, so re-execution is byte-stable."""

import sys

import nbformat

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
