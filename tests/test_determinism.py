"""The lesson's blocks do not depend on hash seeds, and the core path is pure Python."""

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

EXPECTED = "\n".join(
    p.read_text(encoding="utf-8") for p in sorted((ROOT / "data" / "expected").glob("*.txt"))
)
GUARD = ROOT / "tests" / "netguard.py"


def run(args, hashseed, **kw):
    env = dict(os.environ, PYTHONHASHSEED=hashseed)
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=True,
        **kw,
    )


@pytest.mark.parametrize("hashseed", ["0", "1", "4242", "random"])
def test_blocks_are_the_same_under_any_hash_seed(hashseed):
    out = run(["-m", "lessonlib"], hashseed)
    assert out.stdout == EXPECTED
    assert out.stderr == ""


CORE = """
exec(open({guard!r}).read()); _guard = install()
import json, sys
import lessonlib.records, lessonlib.criteria, lessonlib.metrics
import lessonlib.simulator, lessonlib.judge, lessonlib.report
from lessonlib.report import lesson
blocks = lesson().blocks()
heavy = sorted({{m.split('.')[0] for m in sys.modules}} & {{'numpy', 'pandas', 'matplotlib'}})
print(json.dumps({{"heavy": heavy, "blocks": list(blocks), "blocked": len(_guard.blocked)}}))
"""


def test_core_path_imports_no_numpy_pandas_or_matplotlib():
    out = run(["-c", CORE.format(guard=str(GUARD))], "7")
    result = json.loads(out.stdout)
    assert result["heavy"] == [], f"the core path imported {result['heavy']}"
    assert "\n\n".join(result["blocks"]) + "\n" == EXPECTED
    assert result["blocked"] == 0
