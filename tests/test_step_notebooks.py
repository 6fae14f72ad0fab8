"""The step notebooks and their solutions: skeleton, slides, stored outputs.

nbval re-runs the notebooks; these tests check what nbval does not: that every
code cell was executed and stored, the skeleton of CONTRIBUTING.md, slide
metadata on every cell, the lesson's three blocks in the stored outputs byte
for byte, and that every exercise calls a check from lessonlib.exercises.
"""

import json
import re

import pytest

from conftest import ROOT

# every numbered step notebook, found on disk (a new step is covered the moment it exists)
STEPS = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
SLIDE_TYPES = {"slide", "subslide", "fragment", "-", "skip", "notes"}
SKELETON = [
    "## The idea",
    "## Practice",
    "## What the numbers say",
    "## Discussion",
    "## Exercise",
]
# which stored output must hold which of the lesson's printed blocks
BLOCKS = {
    "03_judge_simulator": "01_sample_call.txt",
    "04_two_seed_variance": "02_comparison.txt",
    "05_class_breakdown": "03_class_breakdown.txt",
}


def load(name):
    return json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))


def all_notebooks():
    return STEPS + [f"solutions/{s}_solutions" for s in STEPS]


def stream_texts(nb):
    return [
        "".join(o["text"])
        for c in nb["cells"]
        if c["cell_type"] == "code"
        for o in c["outputs"]
        if o["output_type"] == "stream"
    ]


@pytest.mark.parametrize("name", all_notebooks())
def test_every_code_cell_is_executed_in_order_without_stderr(name):
    nb = load(name)
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    counts = [c["execution_count"] for c in nb["cells"] if c["cell_type"] == "code"]
    assert counts == list(range(1, len(counts) + 1))
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error"
            assert not (out["output_type"] == "stream" and out["name"] == "stderr")
            assert not re.search(r" at 0x[0-9a-f]+", json.dumps(out)), "memory address stored"


@pytest.mark.parametrize("name", all_notebooks())
def test_every_cell_has_a_slide_type_and_the_deck_opens_with_a_title(name):
    cells = load(name)["cells"]
    types = [c["metadata"].get("slideshow", {}).get("slide_type") for c in cells]
    assert set(types) <= SLIDE_TYPES, types
    assert types[0] == "slide" and cells[0]["cell_type"] == "markdown"
    assert "".join(cells[0]["source"]).startswith("# " + name.split("/")[-1][:2] + " · ")


@pytest.mark.parametrize("name", all_notebooks())
def test_notebook_is_well_under_one_megabyte(name):
    assert (ROOT / "notebooks" / f"{name}.ipynb").stat().st_size < 300_000


@pytest.mark.parametrize("name", STEPS)
def test_step_notebook_follows_the_skeleton(name):
    cells = load(name)["cells"]
    title = "".join(cells[0]["source"])
    for part in ("**Goal:**", "**You need:**", "**Time:**"):
        assert part in title
    headings = [
        line
        for c in cells
        if c["cell_type"] == "markdown"
        for line in "".join(c["source"]).splitlines()
        if line.startswith("## ")
    ]
    positions = [next(i for i, h in enumerate(headings) if h.startswith(s)) for s in SKELETON]
    assert positions == sorted(positions)
    assert headings[-1].startswith("## Exercise"), "the exercises end the notebook"


@pytest.mark.parametrize("name", STEPS)
def test_exercises_call_a_check_and_store_a_hint(name):
    cells = load(name)["cells"]
    start = next(i for i, c in enumerate(cells) if "".join(c["source"]).startswith("## Exercise"))
    checks = [c for c in cells[start:] if c["cell_type"] == "code"]
    assert 1 <= len(checks) <= 2
    for cell in checks:
        assert "ex.check_" in "".join(cell["source"])
        text = "".join("".join(o["text"]) for o in cell["outputs"])
        assert text.startswith("Not yet: ")
    imports = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    assert f"from lessonlib.exercises import step{name[:2]} as ex" in imports
    assert "Worked solution" in "".join(cells[-1]["source"])
    assert f"solutions/{name}_solutions.ipynb" in "".join(cells[-1]["source"])


@pytest.mark.parametrize("name", STEPS)
def test_solution_notebook_passes_every_check(name):
    nb = load(f"solutions/{name}_solutions")
    checks = [
        c for c in nb["cells"] if c["cell_type"] == "code" and "ex.check_" in "".join(c["source"])
    ]
    assert checks
    for cell in checks:
        assert "".join("".join(o["text"]) for o in cell["outputs"]).startswith("PASS: ")
    step = load(name)["cells"]
    asked = {
        m
        for c in step
        if c["cell_type"] == "code"
        for m in re.findall(r"ex\.(check_\w+)", "".join(c["source"]))
    }
    solved = {m for c in checks for m in re.findall(r"ex\.(check_\w+)", "".join(c["source"]))}
    assert asked == solved, "every exercise of the step notebook has a passing solution"


def stored_texts(nb):
    """Every text a notebook stores as output: printed streams and the plain text of
    results and displays, each as stored (nothing joined back or unwrapped)."""
    out = []
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            if o["output_type"] == "stream":
                out.append("".join(o["text"]))
            elif "text/plain" in o.get("data", {}):
                out.append("".join(o["data"]["text/plain"]))
    return out


def holds_block(texts, block):
    """Whether one of the stored ``texts`` holds ``block`` byte for byte."""
    return any(block in text for text in texts)


@pytest.mark.parametrize("block", sorted(p.name for p in (ROOT / "data/expected").glob("*.txt")))
def test_each_lesson_block_stands_byte_for_byte_in_a_stored_output(block):
    """Each of the lesson's three printed blocks stands in some notebook's stored output
    exactly as the lesson prints it: no line wrapped to a width (the slides wrap long lines
    by CSS), no space changed."""
    expected = (ROOT / "data" / "expected" / block).read_text(encoding="utf-8")
    texts = [t for name in all_notebooks() for t in stored_texts(load(name))]
    assert holds_block(texts, expected), f"{block} is in no notebook's stored output"


@pytest.mark.parametrize("name, block", sorted(BLOCKS.items()))
def test_lesson_block_is_stored_byte_for_byte_where_the_lesson_prints_it(name, block):
    expected = (ROOT / "data" / "expected" / block).read_text(encoding="utf-8")
    assert holds_block(stream_texts(load(name)), expected)


def test_a_block_wrapped_to_80_columns_or_changed_is_not_held():
    import textwrap

    block = (ROOT / "data" / "expected" / "01_sample_call.txt").read_text(encoding="utf-8")
    assert max(map(len, block.splitlines())) > 80  # the prompt line is longer than 80
    wrapped = "\n".join(
        textwrap.fill(line, 80, subsequent_indent=" " * 10) for line in block.splitlines()
    )
    assert holds_block(["before\n" + block + "after\n"], block)
    assert not holds_block([wrapped + "\n"], block)
    assert not holds_block([block.replace("status ok", "status ko")], block)
    assert not holds_block([block.replace(" , ", ", ", 1)], block)


def test_figure_in_05_is_stored_with_its_stable_text_form():
    outs = [
        o
        for c in load("05_class_breakdown")["cells"]
        if c["cell_type"] == "code"
        for o in c["outputs"]
        if o["output_type"] == "display_data"
    ]
    assert len(outs) == 1 and "image/png" in outs[0]["data"]
    assert "".join(outs[0]["data"]["text/plain"]).startswith("<Figure size")
