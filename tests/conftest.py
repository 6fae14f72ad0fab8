import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
LESSON_TEXT = ROOT.parent / "shared" / "seeds" / "000_7b3b453c2d8e4016.txt"


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def lesson_run():
    import lessonlib

    return lessonlib.lesson()
