"""Print requirements.txt with the pins of requirements-oldest.txt in place of its own.

Usage: python scripts/oldest_requirements.py > FILE   (`make test-oldest` builds .venv-oldest
from FILE).  Every other line of requirements.txt is kept as it is.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def name(spec):
    """The package name of a requirement line, lower case ('' for a comment or blank)."""
    spec = spec.split("#", 1)[0].strip()
    return re.split(r"[=<>!~\[ ;]", spec, maxsplit=1)[0].lower() if spec else ""


def pins(path):
    """{name: line} of the requirement lines of ``path``."""
    lines = pathlib.Path(path).read_text(encoding="utf-8").splitlines()
    return {name(line): line.strip() for line in lines if name(line)}


def merged(root=ROOT):
    """The lines of requirements.txt, each pinned one of requirements-oldest.txt replaced."""
    oldest = pins(pathlib.Path(root) / "requirements-oldest.txt")
    lines = (pathlib.Path(root) / "requirements.txt").read_text(encoding="utf-8").splitlines()
    unknown = set(oldest) - {name(line) for line in lines}
    if unknown:
        raise ValueError(
            f"requirements-oldest.txt names packages requirements.txt does not: {sorted(unknown)}"
        )
    return [oldest.get(name(line), line) for line in lines]


if __name__ == "__main__":
    sys.stdout.write("\n".join(merged()) + "\n")
