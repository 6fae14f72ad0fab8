"""Insert or update the launch cell in every notebook (steps and solutions): idempotent.

Usage: python scripts/launch_cell.py [--check] [NOTEBOOK ...]   (default: every notebook)

The launch cell is the notebook's first code cell, right after its title: in a kernel where
``lessonlib`` cannot be found (Colab, or any fresh Python) it installs the course library from
the repository (its address: scripts/repo_url.py, from pyproject.toml); where lessonlib is
importable (make lab, Binder, the tests) it does nothing and prints nothing, so the stored
outputs stay as they are.  It is tagged ``launch-cell`` (found again by that tag, rewritten
when its text or metadata is not the current one), ``remove-cell`` (the site does not show it)
and is skipped in the decks (slide type ``skip``).

--check changes nothing and exits 1 naming each notebook whose launch cell is missing or not
the current one (tests/test_launch.py runs it).  After a run, re-execute the notebooks that
changed (make notebooks) and commit them with their outputs.
"""

from __future__ import annotations

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from repo_url import repo_url  # noqa: E402

TAG = "launch-cell"


def source(url: str | None = None) -> str:
    url = url or repo_url()
    return (
        "# Launch cell (scripts/launch_cell.py): on Colab or in a fresh Python, install the\n"
        "# course library from its repository; where lessonlib is installed it does nothing.\n"
        "import importlib.util\n"
        "\n"
        'if importlib.util.find_spec("lessonlib") is None:\n'
        "    import subprocess\n"
        "    import sys\n"
        "\n"
        f'    repository = "git+{url}"\n'
        '    subprocess.run([sys.executable, "-m", "pip", "install", "-q", repository],'
        " check=True)"
    )


def metadata() -> dict:
    return {"slideshow": {"slide_type": "skip"}, "tags": [TAG, "remove-cell"]}


def cell() -> dict:
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": "launch-cell",
        "metadata": metadata(),
        "outputs": [],
        "source": source().splitlines(keepends=True),
    }


def notebooks() -> list[pathlib.Path]:
    nbs = ROOT / "notebooks"
    return sorted(nbs.glob("*.ipynb")) + sorted((nbs / "solutions").glob("*.ipynb"))


def find(nb: dict) -> int | None:
    for i, c in enumerate(nb["cells"]):
        if TAG in c.get("metadata", {}).get("tags", []):
            return i
    return None


def is_current(nb: dict) -> bool:
    i = find(nb)
    if i is None or i != 1:
        return False
    c = nb["cells"][i]
    return (
        c["cell_type"] == "code"
        and "".join(c["source"]) == source()
        and c["metadata"] == metadata()
        and not c.get("outputs")
    )


def apply(nb: dict) -> bool:
    """Put the current launch cell at index 1 (after the title); True when ``nb`` changed."""
    if is_current(nb):
        return False
    i = find(nb)
    new = cell()
    if i is not None:
        old = nb["cells"].pop(i)
        new["execution_count"] = old.get("execution_count")
        new["id"] = old.get("id", new["id"])
    if "id" not in nb["cells"][0] and nb.get("nbformat_minor", 0) < 5:
        new.pop("id")
    nb["cells"].insert(1, new)
    return True


def main(argv: list[str]) -> int:
    check = "--check" in argv
    paths = [pathlib.Path(a) for a in argv if a != "--check"] or notebooks()
    stale = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        nb = json.loads(text)
        if check:
            if not is_current(nb):
                stale.append(path)
            continue
        if apply(nb):
            path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"launch_cell: {path.relative_to(ROOT) if path.is_absolute() else path}")
    if check and stale:
        for p in stale:
            print(
                f"launch_cell: {p} lacks the current launch cell (python scripts/launch_cell.py)"
            )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
