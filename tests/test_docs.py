"""The README is for a newcomer (issue 30): at most 1,500 words (counted as `wc -w` counts
them), the two commands first, the course map with one row per step notebook, how to present
and print; the maintainer's guarantees, costs and manual live in MAINTAINING.md, linked from
it.  Every relative link of both files names a file that exists."""

import re

from conftest import ROOT

README = ROOT / "README.md"
MAINTAINING = ROOT / "MAINTAINING.md"
MAX_WORDS = 1500
LINK = re.compile(r"\]\(([^)#?\s]+)[^)]*\)")


def words(text):
    return len(text.split())


def first_code_block(text):
    match = re.search(r"^```\w*\n(.*?)^```", text, flags=re.M | re.S)
    return match.group(1) if match else ""


def map_rows(text):
    """The course map's rows: [(linked notebook path, number of cells)]."""
    rows = []
    for line in text.splitlines():
        found = re.match(r"^\| \[[^\]]+\]\((notebooks/[^)]+\.ipynb)\)", line)
        if found:
            rows.append((found.group(1), len(line.strip().strip("|").split(" | "))))
    return rows


def broken_links(path):
    text = path.read_text(encoding="utf-8")
    targets = [t for t in LINK.findall(text) if "://" not in t]
    return [t for t in targets if not (path.parent / t).exists()]


def test_words_are_counted_as_wc_counts_them():
    assert words("| a | b |\n`make lab` -- x\n") == 9
    assert first_code_block("x\n```bash\nmake lesson\n```\n") == "make lesson\n"
    assert map_rows("| [01 · R](notebooks/01_r.ipynb) | what | 20 |\n| x |") == [
        ("notebooks/01_r.ipynb", 3)
    ]


def test_the_readme_is_short():
    count = words(README.read_text(encoding="utf-8"))
    assert count <= MAX_WORDS, f"README.md has {count} words (at most {MAX_WORDS})"


def test_the_two_commands_come_first():
    text = README.read_text(encoding="utf-8")
    commands = [ln.split("#")[0].strip() for ln in first_code_block(text).splitlines()]
    assert commands == ["make lesson", "make test"]


def test_the_course_map_has_one_row_per_step_notebook():
    rows = map_rows(README.read_text(encoding="utf-8"))
    on_disk = sorted(
        f"notebooks/{p.name}" for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")
    )
    assert sorted(path for path, _ in rows) == on_disk
    assert all(cells == 3 for _, cells in rows), "a row is notebook | what it teaches | minutes"


def test_the_readme_says_how_to_present_and_print():
    text = README.read_text(encoding="utf-8")
    for needed in ("make lab", "make slides", "build/slides/", "**S**", "?print-pdf", "Chromium"):
        assert needed in text, needed
    assert "(MAINTAINING.md)" in text and "(CONTRIBUTING.md)" in text


def test_the_maintainers_manual_is_a_document_of_its_own():
    text = MAINTAINING.read_text(encoding="utf-8")
    for heading in (
        "## What the tests guarantee",
        "## Two package sets",
        "## All make targets",
        "## Many seeds, fast",
    ):
        assert heading in text, heading
        assert heading not in README.read_text(encoding="utf-8"), heading


def test_relative_links_name_files_that_exist():
    for path in (README, MAINTAINING, ROOT / "CONTRIBUTING.md"):
        assert not broken_links(path), (path.name, broken_links(path))
