import importlib
import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
LESSON_TEXT = ROOT.parent / "shared" / "seeds" / "000_7b3b453c2d8e4016.txt"


class Deferred:
    """A module imported at the first read of one of its names, not when the test file that
    holds it is collected: ``stats = Deferred("scipy.stats")`` then ``stats.bootstrap(...)``.
    Every pytest worker collects every test file, and the reference packages the tests
    compare with are dear to import (scipy.stats about 1.5 s of CPU, statsmodels 2 s, ppi_py
    3 s): deferred, only the worker that runs such a test pays, once.  A package that is not
    installed skips the file, as ``pytest.importorskip`` would."""

    def __init__(self, name):
        if importlib.util.find_spec(name.split(".")[0]) is None:
            pytest.skip(f"{name} is not installed", allow_module_level=True)
        self._name = name

    def __getattr__(self, attr):
        if attr.startswith("_"):  # pytest's collection asks every module-level object for
            raise AttributeError(attr)  # its markers (_pytestfixturefunction, __test__...)
        return getattr(importlib.import_module(self._name), attr)


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
