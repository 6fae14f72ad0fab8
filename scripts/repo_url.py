"""The repository's address, kept in one place: pyproject.toml's [project.urls] Repository.

Everything that links to the repository reads it from here: the site's repository and launch
buttons (scripts/build_site.py), the Colab launch cell (scripts/launch_cell.py) and README's
launch links, which `python scripts/repo_url.py --readme` writes again (tests/test_launch.py
checks that README carries what this script would write).

Usage: python scripts/repo_url.py            (print the address)
       python scripts/repo_url.py --readme   (rewrite README's launch lines)
"""

from __future__ import annotations

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]

BEGIN = "<!-- launch links: written by scripts/repo_url.py --readme from pyproject.toml -->"
END = "<!-- end of launch links -->"


def repo_url(pyproject: pathlib.Path = ROOT / "pyproject.toml") -> str:
    """``https://github.com/OWNER/NAME`` from ``[project.urls] Repository`` (no trailing /)."""
    text = pyproject.read_text(encoding="utf-8")
    section = re.search(r"^\[project\.urls\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    m = section and re.search(r'^Repository\s*=\s*"([^"]+)"', section.group(1), re.M)
    if not m:
        raise SystemExit(f'repo_url: {pyproject} has no [project.urls] Repository = "..."')
    url = m.group(1).rstrip("/")
    if not re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", url):
        raise SystemExit(f"repo_url: Repository must be https://github.com/OWNER/NAME, not {url}")
    return url


def owner_name(url: str | None = None) -> str:
    return (url or repo_url()).removeprefix("https://github.com/")


def binder_url(path: str = "notebooks") -> str:
    return f"https://mybinder.org/v2/gh/{owner_name()}/HEAD?urlpath=lab/tree/{path}"


def colab_url(notebook: str = "notebooks/01_records.ipynb") -> str:
    return f"https://colab.research.google.com/github/{owner_name()}/blob/HEAD/{notebook}"


def readme_block() -> str:
    return "\n".join(
        [
            BEGIN,
            f"[![Binder](https://mybinder.org/badge_logo.svg)]({binder_url()})",
            f"[![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
            f"({colab_url()})",
            END,
        ]
    )


def rewrite_readme(readme: pathlib.Path = ROOT / "README.md") -> bool:
    """README with its launch block written again; True when it changed."""
    text = readme.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"repo_url: {readme} has no launch block ({BEGIN} ... {END})")
    new = pattern.sub(lambda _: readme_block(), text)
    if new != text:
        readme.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    if sys.argv[1:] == ["--readme"]:
        print("README.md", "rewritten" if rewrite_readme() else "unchanged")
    else:
        print(repo_url())
