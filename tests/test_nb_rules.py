"""Size and reading rules of the step notebooks (issue 10), read from the stored files.

Each step notebook (notebooks/NN_name.ipynb): at most 1,000 words of markdown
as a reader sees it (link targets, fenced code and HTML tags left out) and 45
cells; no stored text output line wider than 80 columns (except lines of
the lesson's three printed blocks in data/expected/, which stay byte-identical);
a link to GLOSSARY.md and a "Further reading" heading; and no committed
exercise check output that gives away the worked solution (20 or more
consecutive characters of the solution notebook's code).  The checkers are
shown able to fail on small synthetic notebooks first.
"""

import json
import re

import pytest

from conftest import ROOT

STEPS = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MAX_WORDS = 1000
MAX_CELLS = 45
MAX_WIDTH = 80
GIVEAWAY = 20  # this many consecutive characters of solution code in a check output
BLOCK_LINES = {
    line
    for path in (ROOT / "data" / "expected").glob("*.txt")
    for line in path.read_text(encoding="utf-8").splitlines()
}
GLOSSARY_LINK = re.compile(r"\]\((?:\./|\.\./)?GLOSSARY\.md(?:#[\w-]+)?\)")
FURTHER_READING = re.compile(r"^#{1,6}\s+Further reading\b", re.M)
EXERCISE = re.compile(r"^## Exercise", re.M)
WORD = re.compile(r"\w")


def text(value):
    return "".join(value) if isinstance(value, list) else str(value)


def load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def as_read(markdown):
    """Markdown as a reader sees it: no fenced code, no link targets (the link text stays),
    no HTML tags; words split at white space and at slashes ('p_o/p_e' is two words)."""
    markdown = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    markdown = re.sub(r"(!?\[[^\]]*\])\([^)]*\)", r"\1", markdown)
    markdown = re.sub(r"<[^>]+>", " ", markdown)
    return re.split(r"[\s/]+", markdown)


def markdown_words(nb):
    """Words of the markdown cells as a reader sees them: tokens with a letter or digit
    ('##', '|', '-' are not); notes cells count (JupyterLab shows them), a cell's
    ``speaker_notes`` metadata does not (only the deck shows it)."""
    return sum(
        1
        for c in nb["cells"]
        if c["cell_type"] == "markdown"
        for token in as_read(text(c["source"]))
        if WORD.search(token)
    )


def output_lines(cell):
    """Every line of a code cell's stored text output (streams and text/plain)."""
    for out in cell.get("outputs", []):
        parts = [out.get("text", "")] + [out.get("data", {}).get("text/plain", "")]
        for part in parts:
            yield from text(part).splitlines()


def wide_lines(nb, width=MAX_WIDTH, exempt=frozenset()):
    """(cell index, width, line) of stored output lines wider than ``width``."""
    return [
        (i, len(line), line)
        for i, c in enumerate(nb["cells"])
        if c["cell_type"] == "code"
        for line in output_lines(c)
        if len(line) > width and line not in exempt
    ]


def squash(s):
    return re.sub(r"\s+", " ", s)


def giveaways(step, solution, size=GIVEAWAY):
    """(cell index, the piece) where an exercise check output of ``step`` repeats ``size``
    or more consecutive characters of ``solution``'s code (whitespace runs count as one)."""
    code = [squash(text(c["source"])) for c in solution["cells"] if c["cell_type"] == "code"]
    pieces = {src[i : i + size] for src in code for i in range(len(src) - size + 1)}
    start = next(
        (
            i
            for i, c in enumerate(step["cells"])
            if c["cell_type"] == "markdown" and EXERCISE.search(text(c["source"]))
        ),
        len(step["cells"]),
    )
    found = []
    for i, cell in enumerate(step["cells"][start:], start):
        if cell["cell_type"] != "code" or "ex.check_" not in text(cell["source"]):
            continue
        shown = squash("\n".join(output_lines(cell)))
        hits = [
            shown[j : j + size]
            for j in range(len(shown) - size + 1)
            if shown[j : j + size] in pieces
        ]
        if hits:
            found.append((i, hits[0]))
    return found


# ---------------------------------------------------------------- the checkers can fail


def code(source, *outputs):
    return {
        "cell_type": "code",
        "source": source,
        "metadata": {},
        "outputs": [{"output_type": "stream", "name": "stdout", "text": t} for t in outputs],
    }


def markdown(source):
    return {"cell_type": "markdown", "source": source, "metadata": {}}


def test_words_are_counted_in_markdown_only():
    nb = {"cells": [markdown("# Title\n\nthree more words | -"), code("a b c d e f", "g h")]}
    assert markdown_words(nb) == 4


def test_words_are_counted_as_a_reader_sees_them():
    nb = {
        "cells": [
            markdown(
                "see [the glossary](GLOSSARY.md#a-very-long-anchor-name) and "
                'p_o/p_e <a id="x"></a>\n```python\nx = 1 + 2\n```\nend'
            )
        ]
    }
    assert markdown_words(nb) == 7  # see the glossary and p_o p_e end


def test_a_wide_line_is_found_unless_it_is_a_block_line():
    nb = {"cells": [markdown("x" * 100), code("print()", "short\n" + "w" * 81 + "\n" + "b" * 90)]}
    assert [(i, n) for i, n, _ in wide_lines(nb, exempt={"b" * 90})] == [(1, 81)]


def test_a_check_output_repeating_the_solution_is_found():
    solution = {"cells": [code("answer = records.loc[records.cls == 'clean', 'id'].count()")]}
    step = {
        "cells": [
            markdown("## Exercise 1"),
            code("ex.check_count(answer)", "Not yet: try records.loc[records.cls == "),
            code("ex.check_other(x)", "Not yet: count the clean records"),
            code("print(1)", "records.loc[records.cls == 'clean', 'id']"),
        ]
    }
    assert giveaways(step, solution) == [(1, " records.loc[records")]
    assert giveaways({"cells": step["cells"][1:2]}, solution) == []  # not under ## Exercise


def test_glossary_link_and_further_reading_are_recognised():
    assert GLOSSARY_LINK.search("see the [glossary](GLOSSARY.md#run-band)")
    assert not GLOSSARY_LINK.search("see GLOSSARY.md")
    assert FURTHER_READING.search("## Further reading\n\n- a book")
    assert not FURTHER_READING.search("Further reading is below")


# ---------------------------------------------------------------- the step notebooks


@pytest.mark.parametrize("name", STEPS)
def test_step_notebook_is_short(name):
    nb = load(ROOT / "notebooks" / f"{name}.ipynb")
    assert markdown_words(nb) <= MAX_WORDS, f"{markdown_words(nb)} words of markdown"
    # the launch cell (scripts/launch_cell.py: hidden on the site, skipped in the deck) is not
    # one of the step's cells
    cells = [c for c in nb["cells"] if "launch-cell" not in c["metadata"].get("tags", [])]
    assert len(cells) <= MAX_CELLS, f"{len(cells)} cells"


@pytest.mark.parametrize("name", STEPS)
def test_no_stored_output_line_is_wider_than_80_columns(name):
    wide = wide_lines(load(ROOT / "notebooks" / f"{name}.ipynb"), exempt=BLOCK_LINES)
    assert not wide, "\n".join(f"cell {i}: {n} columns: {line[:60]!r}..." for i, n, line in wide)


@pytest.mark.parametrize("name", STEPS)
def test_exercise_check_outputs_do_not_give_the_solution_away(name):
    found = giveaways(
        load(ROOT / "notebooks" / f"{name}.ipynb"),
        load(ROOT / "notebooks" / "solutions" / f"{name}_solutions.ipynb"),
    )
    assert not found, "\n".join(f"cell {i} shows solution code {piece!r}" for i, piece in found)


@pytest.mark.parametrize("name", STEPS)
def test_step_notebook_links_the_glossary_and_has_further_reading(name):
    cells = load(ROOT / "notebooks" / f"{name}.ipynb")["cells"]
    prose = "\n".join(text(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert GLOSSARY_LINK.search(prose), "no link to GLOSSARY.md"
    assert FURTHER_READING.search(prose), "no 'Further reading' heading"
