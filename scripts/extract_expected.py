"""Cut the lesson's three printed blocks out of the lesson text into data/expected/.

Usage: python scripts/extract_expected.py [LESSON_TEXT]
The blocks are found by their first lines; each block runs to the first
line that is blank (the sample call, the class table) or, for the comparison,
to the 'retries' line.
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
LESSON = ROOT.parent / "shared" / "seeds" / "000_7b3b453c2d8e4016.txt"
BLOCKS = {
    "01_sample_call.txt": ("record 2 , actual class", "  status "),
    "02_comparison.txt": ("approach                 precision", "retries "),
    "03_class_breakdown.txt": ("class                     records", "clean (false positives)"),
}


def cut(lines, first, last):
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith(last))
    return "\n".join(lines[start : end + 1]) + "\n"


def extract(text):
    lines = text.splitlines()
    return {name: cut(lines, first, last) for name, (first, last) in BLOCKS.items()}


if __name__ == "__main__":
    source = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else LESSON
    for name, block in extract(source.read_text(encoding="utf-8")).items():
        (ROOT / "data" / "expected" / name).write_text(block, encoding="utf-8")
        print("wrote", name)
