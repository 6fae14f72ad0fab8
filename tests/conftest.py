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


# ---- reliability suite (issue 6): no network, deterministic property tests ----------------
from hypothesis import HealthCheck, settings  # noqa: E402

import netguard  # noqa: E402

settings.register_profile(
    "course",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=40,
    print_blob=False,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
settings.load_profile("course")


@pytest.fixture(autouse=True)
def no_network():
    """Every test runs with non-loopback connections refused (and fails if one was tried)."""
    guard = netguard.install()
    yield guard
    guard.uninstall()
    assert not guard.blocked, f"a test tried to reach the network: {guard.blocked}"
