"""The printed blocks equal the lesson text, byte for byte; data/ has not drifted."""

import csv
import subprocess
import sys

import pytest

import lessonlib
from conftest import LESSON_TEXT, ROOT

EXPECTED = sorted((ROOT / "data" / "expected").glob("*.txt"))


def test_three_expected_blocks_exist():
    assert [p.name for p in EXPECTED] == [
        "01_sample_call.txt", "02_comparison.txt", "03_class_breakdown.txt"]


@pytest.mark.parametrize("index", range(3))
def test_block_matches_expected(lesson_run, index):
    assert lesson_run.blocks()[index] + "\n" == EXPECTED[index].read_text(encoding="utf-8")


def test_python_m_lessonlib_prints_the_three_blocks():
    out = subprocess.run([sys.executable, "-m", "lessonlib"], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    want = "\n".join(p.read_text(encoding="utf-8") for p in EXPECTED)
    assert out.stdout == want
    assert out.stderr == ""


@pytest.mark.skipif(not LESSON_TEXT.exists(),
                    reason="lesson text (shared/seeds) not beside the repo")
def test_expected_blocks_are_cut_from_the_lesson_text():
    sys.path.insert(0, str(ROOT / "scripts"))
    import extract_expected

    blocks = extract_expected.extract(LESSON_TEXT.read_text(encoding="utf-8"))
    for path in EXPECTED:
        assert blocks[path.name] == path.read_text(encoding="utf-8"), path.name


def test_records_csv_matches_make_records():
    with open(ROOT / "data" / "records.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    records = lessonlib.make_records()
    assert len(rows) == len(records) == 240
    for row, rec in zip(rows, records):
        assert int(row["no"]) == rec.no and row["cls"] == rec.cls and row["source"] == rec.source
        assert row["text"] == rec.text and int(row["length"]) == rec.length
        assert {f: row[f] == "1" for f in lessonlib.FEATURES} == dict(rec.features)
