"""The course as a student reads it (issue 23), for every step notebook, new ones included.

* No student-visible markdown cell (``notes`` cells included: JupyterLab shows them) gives
  the instructor stage directions ("ask the room", "point at", ...); those belong in the
  ``speaker_notes`` metadata of a slide's first cell, which only the deck shows.
* Every glossary term's notebook tags (``[03, 10]``) name notebooks where the term appears.
* Exercises need the idea: each check module declares ``_ANSWERS`` (check name -> the function
  computing its right answer); the right answer passes; ``...`` (the one placeholder) gets a
  "fill in" message; a wrong type gets its own message; hints tried at several wrong answers
  never print a quantity that moves with the answer tried (the searched-for quantity); no
  answer is a count (10 or more) or a 4-place figure printed or named in its notebook; every
  literal piece of a PASS message is free of digits, so each number it states is one the check
  computed; the student's exercise cells use ``...``, never ``None``.
* "Further reading" is a cell of its own, the last of the body before the exercises.

Each rule is shown able to fail on a small synthetic case first.
"""

import ast
import importlib
import inspect
import json
import math
import re

import pytest

from conftest import ROOT

# every step's exercise checks run on right and wrong answers: about 20 s of CPU in all,
# so make test runs this file and make check does not
pytestmark = pytest.mark.slow

NOTEBOOKS = ROOT / "notebooks"
STEPS = sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
EXERCISE_STEPS = [
    s for s in STEPS if (ROOT / "lessonlib" / "exercises" / f"step{s[:2]}.py").exists()
]
GLOSSARY = NOTEBOOKS / "GLOSSARY.md"

STAGE = re.compile(
    r"\bthe room\b|\baudience\b|\b(?:ask|tell) the (?:room|class)\b"
    r"|\blet the (?:room|class|students)\b"
    r"|\bpoint (?:at|to) the\b|^\s*\*\*(?:say|ask the room|point at)\s*:\*\*"
    r"|^\s*stress\b"
    r"|\bsay early\b|\bbe fair\b|\bgive (?:them|the class) \w+ minutes\b",
    re.I | re.M,
)
EXERCISE = re.compile(r"^## Exercise", re.M)
FURTHER = re.compile(r"^#{1,6}\s+Further reading\b", re.M | re.I)
HEADING = re.compile(r"^#{1,6}\s", re.M)
INTEGER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(?![\w]|\.\d)")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
MIN_COUNT = 10  # smaller whole numbers are printed everywhere (indices, counts of flags)


def text(value):
    return "".join(value) if isinstance(value, list) else str(value)


def load(name):
    return json.loads((NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))


def outputs_text(cell):
    parts = []
    for out in cell.get("outputs", []):
        parts.append(text(out.get("text", "")))
        parts.append(text(out.get("data", {}).get("text/plain", "")))
        parts.append(text(out.get("data", {}).get("text/markdown", "")))
    return "\n".join(parts)


# ---------------------------------------------------------------- stage directions


def stage_directions(nb):
    """(cell index, the words) of markdown cells that direct the instructor."""
    found = []
    for i, c in enumerate(nb["cells"]):
        if c["cell_type"] == "markdown":
            hit = STAGE.search(text(c["source"]))
            if hit:
                found.append((i, hit.group()))
    return found


def test_a_stage_direction_is_found_in_any_markdown_cell_but_not_in_speaker_notes():
    notes = {"slideshow": {"slide_type": "notes"}}
    nb = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "Ask the room: which wins?"},
            {"cell_type": "markdown", "metadata": notes, "source": "Point at the green line."},
            {
                "cell_type": "markdown",
                "metadata": {},
                "source": "**Say:** one step is one record.",
            },
            {
                "cell_type": "markdown",
                "metadata": {},
                "source": "Ask yourself which judge agrees.",
            },
            {
                "cell_type": "markdown",
                "metadata": {"speaker_notes": "Ask the room."},
                "source": "Before you run it, predict which judge agrees most.",
            },
            {"cell_type": "code", "metadata": {}, "source": "# the room", "outputs": []},
        ]
    }
    assert [i for i, _ in stage_directions(nb)] == [0, 1, 2]


@pytest.mark.parametrize("name", STEPS)
def test_no_student_cell_addresses_the_room(name):
    found = stage_directions(load(name))
    assert not found, "; ".join(f"cell {i}: {w!r} (move it to speaker_notes)" for i, w in found)


# ---------------------------------------------------------------- glossary tags


def glossary_entries(markdown):
    """(anchor, names, tags) of every glossary entry that ends with notebook tags."""
    entries = []
    for block in re.split(r'<a id="', markdown)[1:]:
        anchor, _, body = block.partition('"></a>')
        term = re.search(r"\*\*(.+?)\*\*", body)
        tags = re.search(
            r"\[(\d\d(?:\s*,\s*\d\d)*)\]\s*$",
            body.split("\n\n")[0].strip() if "\n\n" in body.strip() else body.strip(),
        )
        if not term or not tags:
            continue
        names = re.split(r"\s*(?:,|/|\(|\)|\band\b|=)\s*", term.group(1).rstrip(".").strip())
        names = [re.sub(r"^the\s+", "", n.strip().lower()) for n in names]
        entries.append(
            (
                anchor.strip(),
                [n for n in names if len(n) > 1],
                [t.strip() for t in tags.group(1).split(",")],
            )
        )
    return entries


def term_appears(nb, anchor, names):
    """The notebook links the glossary entry, or names one of the term's words (a plural
    too), in any cell's source, line breaks read as spaces."""
    source = " ".join(" ".join(text(c["source"]).split()) for c in nb["cells"]).lower()
    if f"glossary.md#{anchor}" in source:
        return True
    return any(re.search(r"(?<![\w-])" + re.escape(n) + r"s?(?![\w-])", source) for n in names)


def glossary_tag_problems(markdown, notebooks):
    """'anchor [NN]' for every tag that names a notebook missing or without the term."""
    problems = []
    for anchor, names, tags in glossary_entries(markdown):
        for tag in tags:
            nb = notebooks.get(tag)
            if nb is None:
                problems.append(f"{anchor} [{tag}]: no notebook {tag}")
            elif not term_appears(nb, anchor, names):
                problems.append(f"{anchor} [{tag}]: the notebook never uses {names}")
    return problems


def test_a_glossary_tag_without_the_term_is_found():
    md = (
        '<a id="baseline"></a>\n**Baseline.** A labeller that ignores the record. [02, 04]\n\n'
        '<a id="step"></a>\n**Step.** What one record moves a rate. [02]\n'
    )
    nbs = {
        "02": {"cells": [{"source": "one step; a [baseline](GLOSSARY.md#baseline)"}]},
        "04": {"cells": [{"source": "nothing here about the base line"}]},
    }
    assert glossary_tag_problems(md, nbs) == [
        "baseline [04]: the notebook never uses ['baseline']"
    ]
    assert glossary_entries(md)[0] == ("baseline", ["baseline"], ["02", "04"])


def test_every_glossary_tag_names_a_notebook_that_uses_the_term():
    notebooks = {name[:2]: load(name) for name in STEPS}
    problems = glossary_tag_problems(GLOSSARY.read_text(encoding="utf-8"), notebooks)
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- exercises


def exercise_module(name):
    return importlib.import_module(f"lessonlib.exercises.step{name[:2]}")


def checks_of(module):
    return {
        n: f
        for n, f in vars(module).items()
        if n.startswith("check_") and inspect.isfunction(f) and f.__module__ == module.__name__
    }


def run(capsys, check, answer):
    result = check(answer)
    said = " ".join(capsys.readouterr().out.split())
    return result, said


class WrongType:
    """An answer of no kind any check accepts."""

    def __repr__(self):
        return "WrongType()"


def numbers_in(value):
    """The numbers inside an answer (a number, a pair, a dict of numbers), as floats."""
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)) or type(value).__module__ == "numpy":
        try:
            return [float(value)]
        except (TypeError, ValueError):
            return []
    if isinstance(value, dict):
        return [x for v in value.values() for x in numbers_in(v)]
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in numbers_in(v)]
    return []


def nudged(answer, k):
    """A wrong answer of the right kind: the ``k``-th of a few nudges of every number in it
    (None for an answer with no number: names, a function)."""
    if isinstance(answer, bool) or not numbers_in(answer):
        return None
    if isinstance(answer, int) or (
        type(answer).__module__ == "numpy" and float(answer).is_integer()
    ):
        return int(answer) + (1, -1, 2, -3, 7, 11)[k]
    if isinstance(answer, float) or type(answer).__module__ == "numpy":
        x = float(answer)
        if 0 <= x <= 1:
            step = (0.05, 0.10, 0.15, 0.20, 0.30, 0.35)[k]
            return round(x - step if x - step >= 0 else x + step, 10)
        return x * (1.1, 0.9, 1.3, 0.7, 1.5, 0.5)[k] + 0.01
    if isinstance(answer, dict):
        return {key: nudged(v, k) for key, v in answer.items()}
    if isinstance(answer, tuple):
        return tuple(nudged(v, k) for v in answer)
    return None


def template(said):
    return NUMBER.sub("#", said)


def moving_numbers(tries):
    """Hints of one wording whose numbers, the answer tried taken out, change with the answer
    tried: [(hint 1, hint 2)].  ``tries`` is [(answer, hint)]."""
    by_wording = {}
    for answer, said in tries:
        own = numbers_in(answer)
        rest = tuple(
            x
            for x in map(float, NUMBER.findall(said))
            if not any(math.isclose(x, a, rel_tol=1e-6, abs_tol=1e-9) for a in own)
        )
        by_wording.setdefault(template(said), []).append((rest, said))
    return [
        (group[0][1], other[1])
        for group in by_wording.values()
        for other in group[1:]
        if other[0] != group[0][0]
    ]


def test_a_hint_that_prints_the_quantity_at_the_value_tried_is_found():
    tries = [
        (0.3, "Not yet: at miss 0.30 kappa is 0.5012, below 0.61: go lower."),
        (0.4, "Not yet: at miss 0.40 kappa is 0.4410, below 0.61: go lower."),
        (0.2, "Not yet: 0.2 is not it; over 240 records, 1,000 runs."),
    ]
    assert len(moving_numbers(tries)) == 1
    assert (
        moving_numbers(
            [
                (0.3, "Not yet: 0.3 is not it, below 0.61."),
                (0.4, "Not yet: 0.4 is not it, below 0.61."),
            ]
        )
        == []
    )


def printed_numbers(nb):
    """Whole numbers and 4-place figures printed (outputs) or named (markdown) in ``nb``."""
    whole, figures = set(), set()
    for c in nb["cells"]:
        shown = text(c["source"]) if c["cell_type"] == "markdown" else outputs_text(c)
        whole.update(int(t.replace(",", "")) for t in INTEGER.findall(shown))
        figures.update(re.findall(r"\d\.\d{4}", shown))
    return whole, figures


def answer_in_notebook(answer, nb):
    """The parts of ``answer`` that the notebook already prints or names."""
    whole, figures = printed_numbers(nb)
    hits = []
    for x in numbers_in(answer):
        if x.is_integer() and abs(x) >= MIN_COUNT and int(abs(x)) in whole:
            hits.append(int(x))
        elif not x.is_integer() and f"{abs(x):.4f}" in figures:
            hits.append(f"{abs(x):.4f}")
    return hits


def test_an_answer_printed_in_the_notebook_is_found():
    nb = {
        "cells": [
            {"cell_type": "markdown", "source": "all 240 records, 1,000 runs"},
            {
                "cell_type": "code",
                "source": "x",
                "outputs": [{"output_type": "stream", "text": "kappa 0.6133 at 3 seeds\n"}],
            },
        ]
    }
    assert answer_in_notebook(240, nb) == [240]
    assert answer_in_notebook((1000, 3), nb) == [1000]  # 3 is below MIN_COUNT
    assert answer_in_notebook(0.61333, nb) == ["0.6133"]
    assert answer_in_notebook(241, nb) == []


TYPED_FIGURE = re.compile(r"\d*\.\d+|\d+(?:\.\d+)?\s*%|\d{2,}")
"""A figure typed into a message: a decimal, a percentage, a whole number of two digits or
more (a one-digit name such as 'run 1' or 'seed + 1' is not a figure)."""
TERMS = re.compile(r"95% run band")


def literal_digits_in_pass_messages(source):
    """(line, literal) for a typed-in figure in the literal text of ``_say(True, ...)``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "_say"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value is True
            and len(node.args) > 1
        ):
            continue
        specs = {
            id(v.format_spec)
            for v in ast.walk(node.args[1])
            if isinstance(v, ast.FormattedValue) and v.format_spec is not None
        }
        skip = {id(n) for v in ast.walk(node.args[1]) if id(v) in specs for n in ast.walk(v)}
        for sub in ast.walk(node.args[1]):
            if (
                isinstance(sub, ast.Constant)
                and isinstance(sub.value, str)
                and id(sub) not in skip
            ):
                literal = TERMS.sub("", re.sub(r"\{[^{}]*\}", "", sub.value))
                if TYPED_FIGURE.search(literal):
                    found.append((sub.lineno, sub.value))
    return found


def test_a_typed_in_figure_in_a_pass_message_is_found():
    source = (
        "def check(a):\n"
        '    _say(False, "not 240")\n'
        '    _say(True, f"{n} records of {len(s):,}, {x:.4f}, run 1, 95% run band")\n'
        '    _say(True, "the judge blocks 47% of them")\n'
        '    return _say(True, f"kappa {k:.4f}: chance alone gives 0.5066")\n'
    )
    assert literal_digits_in_pass_messages(source) == [
        (4, "the judge blocks 47% of them"),
        (5, ": chance alone gives 0.5066"),
    ]


def placeholder_lines(nb):
    """(cell, line) of exercise cells (under ## Exercise) that use None as the placeholder."""
    start = next(
        (
            i
            for i, c in enumerate(nb["cells"])
            if c["cell_type"] == "markdown" and EXERCISE.search(text(c["source"]))
        ),
        len(nb["cells"]),
    )
    return [
        (i, line)
        for i, c in enumerate(nb["cells"][start:], start)
        if c["cell_type"] == "code"
        for line in text(c["source"]).splitlines()
        if re.match(r"^\s*[\w.\[\]'\"]+\s*=\s*None\s*(#.*)?$", line)
    ]


def test_a_none_placeholder_is_found():
    nb = {
        "cells": [
            {"cell_type": "code", "source": "x = None"},
            {"cell_type": "markdown", "source": "## Exercise 1"},
            {"cell_type": "code", "source": "answer = None   # your count\nok = ..."},
        ]
    }
    assert placeholder_lines(nb) == [(2, "answer = None   # your count")]


@pytest.mark.parametrize("name", EXERCISE_STEPS)
def test_every_check_declares_its_answer_and_the_answer_passes(name, capsys):
    module = exercise_module(name)
    answers = getattr(module, "_ANSWERS", None)
    assert isinstance(answers, dict), f"{module.__name__} declares no _ANSWERS dict"
    assert set(answers) == set(checks_of(module)), "_ANSWERS must name every check_ function"
    for check_name, compute in answers.items():
        result, said = run(capsys, getattr(module, check_name), compute())
        assert result is True and said.startswith("PASS: "), f"{check_name}: {said}"


@pytest.mark.parametrize("name", EXERCISE_STEPS)
def test_the_placeholder_and_a_wrong_type_get_their_own_messages(name, capsys):
    module = exercise_module(name)
    for check_name, compute in module._ANSWERS.items():
        check = getattr(module, check_name)
        result, fill = run(capsys, check, ...)
        assert result is False and "fill in" in fill and "Ellipsis" not in fill, fill
        result, typed = run(capsys, check, WrongType())
        assert result is False and typed.startswith("Not yet: "), typed
        wrong = nudged(compute(), 0)
        if wrong is None:  # an answer of names or a function: no number to nudge
            continue
        _, valued = run(capsys, check, wrong)
        assert typed != valued, f"{check_name}: a wrong type gets the wrong-value hint {typed}"
        assert typed != fill, f"{check_name}: a wrong type gets the fill-in message"


@pytest.mark.parametrize("name", EXERCISE_STEPS)
def test_no_hint_prints_the_quantity_searched_for(name, capsys):
    module = exercise_module(name)
    for check_name, compute in module._ANSWERS.items():
        check, right = getattr(module, check_name), compute()
        tries = []
        for k in range(6):
            wrong = nudged(right, k)
            if wrong is None:
                break
            result, said = run(capsys, check, wrong)
            if result is False:
                tries.append((wrong, said))
        moving = moving_numbers(tries)
        assert not moving, (
            f"{check_name}: the hint's numbers follow the answer tried:\n"
            + "\n".join(f"{a}\n{b}" for a, b in moving)
        )


@pytest.mark.parametrize("name", EXERCISE_STEPS)
def test_no_answer_is_printed_or_named_in_its_notebook(name):
    module, nb = exercise_module(name), load(name)
    for check_name, compute in module._ANSWERS.items():
        hits = answer_in_notebook(compute(), nb)
        assert not hits, f"{check_name}: the answer's {hits} is printed or named in {name}"


@pytest.mark.parametrize("name", EXERCISE_STEPS)
def test_pass_messages_state_only_computed_numbers(name):
    path = ROOT / "lessonlib" / "exercises" / f"step{name[:2]}.py"
    found = literal_digits_in_pass_messages(path.read_text(encoding="utf-8"))
    assert not found, "\n".join(f"line {n}: {s!r}" for n, s in found)


@pytest.mark.parametrize("name", STEPS)
def test_exercise_cells_use_the_ellipsis_placeholder(name):
    found = placeholder_lines(load(name))
    assert not found, "\n".join(f"cell {i}: {line!r} (use ...)" for i, line in found)


# ---------------------------------------------------------------- further reading


def further_reading_problems(nb):
    """Further reading must be one cell: it opens with the heading, holds no other heading,
    and is the last cell of the body (only notes cells may follow) before the exercises."""
    cells = nb["cells"]
    md = [(i, text(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "markdown"]
    where = [i for i, s in md if FURTHER.search(s)]
    if len(where) != 1:
        return [f"{len(where)} cells with a Further reading heading"]
    i = where[0]
    src = text(cells[i]["source"]).lstrip()
    problems = []
    if not FURTHER.match(src):
        problems.append(f"cell {i}: Further reading is not the cell's first line")
    if len(HEADING.findall(src)) > 1:
        problems.append(f"cell {i}: Further reading shares its cell with another heading")
    after = [j for j, s in md if j > i and EXERCISE.search(s)]
    end = after[0] if after else len(cells)
    between = [
        j
        for j in range(i + 1, end)
        if cells[j].get("metadata", {}).get("slideshow", {}).get("slide_type") != "notes"
    ]
    if between:
        problems.append(
            f"cell {i}: cells {between} come between Further reading and the exercises"
        )
    return problems


def test_further_reading_inside_another_cell_is_found():
    def md(s):
        return {"cell_type": "markdown", "metadata": {}, "source": s}

    good = {
        "cells": [
            md("## Discussion\n\ntext"),
            md("## Further reading\n\n- a"),
            md("## Exercise 1"),
        ]
    }
    assert further_reading_problems(good) == []
    inside = {
        "cells": [md("## Discussion\n\ntext\n\n## Further reading\n\n- a"), md("## Exercise 1")]
    }
    assert len(further_reading_problems(inside)) == 2
    early = {"cells": [md("## Further reading\n\n- a"), md("## Discussion"), md("## Exercise")]}
    assert "come between" in further_reading_problems(early)[0]


@pytest.mark.parametrize("name", STEPS)
def test_further_reading_is_its_own_closing_cell(name):
    problems = further_reading_problems(load(name))
    assert not problems, "\n".join(problems)
