"""Notebook hygiene, checked statically on every notebook under notebooks/.

The checkers live in tests/nbtools.py; the synthetic notebooks below (one
clean, one per broken rule) show that each of them can fail.
"""

import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

import nbtools

SLIDE = {"slideshow": {"slide_type": "-"}}


def good_notebook():
    nb = new_notebook(
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        }
    )
    nb.cells = [
        new_markdown_cell(
            "# 01 · Title\n\nThe share is 0.1613 and 1/17 = 0.0588.", metadata=SLIDE
        ),
        new_code_cell(
            "print(0.16129)",
            execution_count=1,
            metadata=SLIDE,
            outputs=[new_output("stream", name="stdout", text="recall gap 0.1613\n")],
        ),
        new_code_cell(
            "1 / 17",
            execution_count=2,
            metadata=SLIDE,
            outputs=[
                new_output("execute_result", execution_count=2, data={"text/plain": "0.0588"})
            ],
        ),
        new_code_cell(
            "# NBVAL_RAISES_EXCEPTION\nL.make_records(0)",
            execution_count=3,
            metadata=SLIDE,
            outputs=[
                new_output("error", ename="ValueError", evalue="n must be >= 1", traceback=[])
            ],
        ),
        new_code_cell(
            "# NBVAL_IGNORE_OUTPUT\n# the widget's id changes on every run\nw",
            execution_count=4,
            metadata=SLIDE,
            outputs=[],
        ),
    ]
    return nb


def write(tmp_path, nb, name="nb.ipynb"):
    path = tmp_path / name
    nbformat.write(nb, path)
    return path


def test_the_good_synthetic_notebook_is_clean(tmp_path):
    assert nbtools.hygiene_problems(write(tmp_path, good_notebook())) == []


def _set(index, **fields):
    def change(nb):
        nb.cells[index].update(fields)

    return change


def _output(index, output):
    def change(nb):
        nb.cells[index].outputs.append(output)

    return change


def _stream(text, name="stdout"):
    return new_output("stream", name=name, text=text)


def _plain(text):
    return new_output("execute_result", execution_count=2, data={"text/plain": text})


BROKEN = {
    "kernelspec": (
        lambda nb: nb.metadata.update(kernelspec={"name": "python2", "display_name": "x"}),
        "kernelspec",
    ),
    "not executed": (_set(2, execution_count=None), "not executed"),
    "out of order": (_set(2, execution_count=7), "execution counts"),
    "rerun kernel": (
        lambda nb: [
            c.update(execution_count=c.execution_count + 4)
            for c in nb.cells
            if c.cell_type == "code"
        ],
        "execution counts",
    ),
    "empty code cell": (
        lambda nb: nb.cells.insert(5, new_code_cell("", metadata=SLIDE)),
        "empty code cell",
    ),
    "error": (
        _output(1, new_output("error", ename="KeyError", evalue="'x'", traceback=[])),
        "error output",
    ),
    "stderr": (_output(1, _stream("warning\n", "stderr")), "stderr"),
    "address": (_output(1, _plain("<Foo object at 0x7f3a9c2b1d90>")), "memory address"),
    "wall time": (_output(1, _stream("CPU times: user 3 ms\nWall time: 2.1 ms\n")), "timing"),
    "seconds": (_output(1, _stream("ran 240 records in 0.53 s\n")), "timing"),
    "time stamp": (_output(1, _stream("run at 2026-02-18 10:41\n")), "time stamp"),
    "marked raise without error": (_set(3, outputs=[]), "shows no error"),
    "ignore without reason": (_set(4, source="# NBVAL_IGNORE_OUTPUT\nw"), "without a comment"),
    "no slide type": (_set(2, metadata={}), "slide_type"),
    "markdown without slide type": (_set(0, metadata={}), "slide_type"),
    "unknown slide type": (_set(1, metadata={"slideshow": {"slide_type": "page"}}), "slide_type"),
    "typed figure": (_set(0, source="Recall rises to 0.9570."), "figure 0.9570"),
    "figure only in code": (_set(0, source="gap 0.1234"), "figure 0.1234"),
    "figure without picture": (
        _output(
            1, new_output("display_data", data={"text/plain": "<Figure size 640x480 with 1 Axes>"})
        ),
        "no image/png",
    ),
}


@pytest.mark.parametrize("name", BROKEN)
def test_each_broken_rule_is_found(tmp_path, name):
    change, expected = BROKEN[name]
    nb = good_notebook()
    change(nb)
    problems = nbtools.hygiene_problems(write(tmp_path, nb))
    assert any(expected in p for p in problems), problems


def test_a_measured_time_may_be_shown_only_in_a_cell_marked_as_variable(tmp_path):
    nb = good_notebook()
    nb.cells[4].outputs = [_stream("1 connection: 4.91 s\n")]  # ignored, with its reason
    assert not nbtools.hygiene_problems(write(tmp_path, nb))
    nb.cells[4].source = "# NBVAL_IGNORE_OUTPUT\nw"  # no reason: the timing counts again
    assert any("timing" in p for p in nbtools.hygiene_problems(write(tmp_path, nb)))


def test_a_figure_in_code_source_does_not_count_as_printed(tmp_path):
    nb = good_notebook()
    nb.cells[1].source = "print(0.4321)"
    nb.cells[0].source = "We quote 0.4321."
    assert any("0.4321" in p for p in nbtools.hygiene_problems(write(tmp_path, nb)))


def test_figures_are_matched_whole(tmp_path):
    nb = good_notebook()
    nb.cells[1].outputs = [_stream("0.16130 and 10.1613\n")]  # neither is 0.1613
    assert any("0.1613" in p for p in nbtools.hygiene_problems(write(tmp_path, nb)))


def test_an_invalid_file_is_found(tmp_path):
    bad = tmp_path / "bad.ipynb"
    bad.write_text("{not json")
    assert any("not a readable notebook" in p for p in nbtools.hygiene_problems(bad))
    schema = tmp_path / "schema.ipynb"
    data = json.loads(nbformat.writes(good_notebook()))
    data["cells"][1]["bogus_key"] = 1
    schema.write_text(json.dumps(data))
    assert any("invalid nbformat" in p for p in nbtools.hygiene_problems(schema))


def test_a_large_notebook_is_found(tmp_path):
    nb = good_notebook()
    nb.cells[1].outputs.append(new_output("display_data", data={"image/png": "A" * 1_000_001}))
    assert any("limit" in p for p in nbtools.hygiene_problems(write(tmp_path, nb)))


def test_checkpoints_are_not_collected(tmp_path):
    (tmp_path / "notebooks" / ".ipynb_checkpoints").mkdir(parents=True)
    (tmp_path / "notebooks" / "solutions").mkdir()
    for rel in (
        "notebooks/01_a.ipynb",
        "notebooks/solutions/01_a.ipynb",
        "notebooks/.ipynb_checkpoints/01_a-checkpoint.ipynb",
    ):
        write(tmp_path, good_notebook(), rel)
    assert [p.relative_to(tmp_path).as_posix() for p in nbtools.notebooks(tmp_path)] == [
        "notebooks/01_a.ipynb",
        "notebooks/solutions/01_a.ipynb",
    ]


# ---------------------------------------------------------------- the real notebooks


@pytest.mark.parametrize(
    "path", nbtools.notebooks(), ids=lambda p: p.relative_to(nbtools.ROOT).as_posix()
)
def test_notebook_hygiene(path):
    problems = nbtools.hygiene_problems(path)
    assert not problems, "\n".join(problems)
