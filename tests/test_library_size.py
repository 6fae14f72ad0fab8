"""A thin library (issue 38): lessonlib without its exercises is at most 9,500 lines (counted
as `wc -l` counts them), and at most four public functions format a table as a string (the
lesson's printed blocks); every other table is a DataFrame the notebook shows."""

import ast

from conftest import ROOT

MAX_LINES = 9500
MAX_TEXT_FORMATTERS = 4
PACKAGE = ROOT / "lessonlib"


def library_files():
    return sorted(p for p in PACKAGE.rglob("*.py") if "exercises" not in p.parts)


def lines(path):
    return path.read_bytes().count(b"\n")


def text_formatters(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.stem}.{node.name}"
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and node.name.endswith("_text")
        and not node.name.startswith("_")
        and isinstance(node.returns, ast.Name)
        and node.returns.id == "str"
    ]


def test_the_library_is_at_most_9500_lines():
    counts = {p.relative_to(ROOT).as_posix(): lines(p) for p in library_files()}
    total = sum(counts.values())
    largest = sorted(counts.items(), key=lambda kv: -kv[1])[:5]
    assert total <= MAX_LINES, f"lessonlib is {total} lines (largest: {largest})"


def test_at_most_four_public_string_formatters():
    found = [name for p in library_files() for name in text_formatters(p)]
    assert len(found) <= MAX_TEXT_FORMATTERS, found


def test_the_counters_see_what_they_count(tmp_path):
    sample = tmp_path / "m.py"
    sample.write_text(
        "def a_text(x) -> str:\n    return ''\n\ndef _b_text() -> str:\n    return ''\n"
    )
    assert lines(sample) == 5
    assert text_formatters(sample) == ["m.a_text"]
