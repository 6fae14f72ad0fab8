"""Launch links and the launch cell (scripts/repo_url.py, scripts/launch_cell.py).

The repository's address lives in one place (pyproject.toml's [project.urls] Repository);
README's Binder and Colab links and every notebook's launch cell are made from it.  Binder
builds from environment.yml, which must name exactly the student's pins (requirements.txt)
and the course library.
"""

import contextlib
import importlib.util
import io
import json
import re
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import launch_cell  # noqa: E402
import repo_url  # noqa: E402


def test_the_address_is_in_one_place():
    url = repo_url.repo_url()
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", url)
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    holders = [
        f
        for f in tracked
        if (ROOT / f).is_file()
        and not f.endswith(".ipynb")  # the launch cells, made from it (checked below)
        and f != "README.md"  # its launch block, made from it (checked below)
        and repo_url.owner_name(url) in (ROOT / f).read_text(encoding="utf-8", errors="ignore")
    ]
    assert holders == ["pyproject.toml"]


def test_readme_carries_the_launch_links_made_from_the_address():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert repo_url.readme_block() in readme
    assert "OWNER/REPO" not in readme
    binder = repo_url.binder_url()
    assert binder.startswith("https://mybinder.org/v2/gh/" + repo_url.owner_name() + "/HEAD?")
    assert repo_url.colab_url().startswith(
        "https://colab.research.google.com/github/" + repo_url.owner_name() + "/blob/HEAD/"
    )


def test_a_bad_address_is_refused(tmp_path):
    bad = tmp_path / "pyproject.toml"
    bad.write_text('[project.urls]\nRepository = "https://example.org/x"\n')
    with pytest.raises(SystemExit, match="https://github.com/OWNER/NAME"):
        repo_url.repo_url(bad)
    bad.write_text('[project]\nname = "x"\n')
    with pytest.raises(SystemExit, match="no \\[project.urls\\] Repository"):
        repo_url.repo_url(bad)


def test_binder_environment_names_exactly_the_students_pins():
    pins = [
        line.strip()
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    env = (ROOT / "environment.yml").read_text()
    pip_part = env.split("- pip:", 1)[1]
    specs = re.findall(r"^\s+- (.+?)\s*$", pip_part, flags=re.M)
    assert sorted(specs) == sorted(pins + ["-e ."])
    tools = (ROOT / "requirements-test.txt").read_text()
    for spec in specs:
        name = re.split(r"[=<> ]", spec)[0]
        assert f"\n{name}==" not in "\n" + tools, f"{name}: a maintainers' tool in Binder's set"


def test_launch_cell_prints_nothing_where_lessonlib_is_importable():
    assert importlib.util.find_spec("lessonlib") is not None
    r = subprocess.run(
        [sys.executable, "-c", launch_cell.source()], capture_output=True, text=True, cwd=ROOT
    )
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")


def test_launch_cell_installs_from_the_repository_where_lessonlib_is_missing(monkeypatch):
    calls = []
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kw: calls.append((cmd, kw)))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(launch_cell.source(), {})
    assert calls == [
        (
            [sys.executable, "-m", "pip", "install", "-q", "git+" + repo_url.repo_url()],
            {"check": True},
        )
    ]


def test_launch_cell_script_is_idempotent():
    nb = {
        "cells": [
            {"cell_type": "markdown", "id": "t", "metadata": {}, "source": ["# 01 · x"]},
            {"cell_type": "code", "id": "c", "metadata": {}, "outputs": [], "source": ["1"]},
        ],
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    assert not launch_cell.is_current(nb)
    assert launch_cell.apply(nb)
    assert launch_cell.is_current(nb) and len(nb["cells"]) == 3
    assert nb["cells"][1]["metadata"]["tags"] == ["launch-cell", "remove-cell"]
    assert not launch_cell.apply(nb)
    assert len(nb["cells"]) == 3
    nb["cells"][1]["source"] = ["old text"]  # an older launch cell is rewritten in place
    assert not launch_cell.is_current(nb)
    assert launch_cell.apply(nb) and launch_cell.is_current(nb) and len(nb["cells"]) == 3


@pytest.mark.parametrize("path", launch_cell.notebooks(), ids=lambda p: p.stem)
def test_every_notebook_has_the_current_launch_cell(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert launch_cell.is_current(nb), (
        f"{path.name}: run python scripts/launch_cell.py, then make notebooks NB={path}"
    )


@pytest.mark.slow
def test_an_install_from_the_repository_holds_every_module(tmp_path):
    """The launch cell installs the repository, not an editable clone: the wheel must hold
    every module of lessonlib, its subpackages (lessonlib.exercises) included."""
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    (wheel,) = tmp_path.glob("lessonlib-*.whl")
    import zipfile

    held = {n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".py")}
    source = {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "lessonlib").rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert source - held == set()
