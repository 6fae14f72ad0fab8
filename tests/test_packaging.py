"""Set-up files: the student's set (requirements.txt, environment.yml, pyproject.toml's
dependencies) holds what the notebooks import and none of the maintainers' tools, which are in
requirements-test.txt (pyproject.toml's [test] extra) and installed by make check and make test
only; the oldest supported versions are pyproject.toml's lower bounds and CI tests them; make
says so clearly when the clone is read-only."""

import ast
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

import pytest
import tomllib

from conftest import ROOT


def _name(spec):
    return re.split(r"[=<>!~\[ ]", spec.strip(), maxsplit=1)[0].lower()


def requirements(name="requirements.txt"):
    lines = (ROOT / name).read_text().splitlines()
    return {_name(x): x.strip() for x in lines if x.strip() and not x.startswith("#")}


def environment_pip():
    text = (ROOT / "environment.yml").read_text()
    pip_part = text.split("- pip:", 1)[1]
    specs = re.findall(r"^\s+- (\S+)\s*$", pip_part, flags=re.M)
    return {_name(x): x for x in specs if not x.startswith("-")}, specs


def pyproject(part="dependencies"):
    """The package names of pyproject.toml's dependencies, or of the optional extra ``part``."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = data["dependencies"] if part == "dependencies" else data["optional-dependencies"][part]
    return {_name(x) for x in specs}


# What a student's JupyterLab needs, and the maintainers' tools it must not install.
STUDENT = {"jupyterlab", "ipykernel", "ipywidgets", "numpy", "pandas", "matplotlib", "openai"}
MAINTAINERS = {
    "mypy",
    "ruff",
    "playwright",
    "hypothesis",
    "pytest",
    "pytest-xdist",
    "nbval",
    "statsmodels",
    "scikit-learn",
    "krippendorff",
    "ppi-python",
    "judgy",
    "jupyter-book",
}
# import name -> distribution name, where they differ
DISTRIBUTION = {"sklearn": "scikit-learn", "ppi_py": "ppi-python", "PIL": "pillow"}


def test_same_package_names_everywhere():
    env, _ = environment_pip()
    assert set(requirements()) == set(env) == pyproject()
    assert set(requirements("requirements-test.txt")) == pyproject("test")


def test_same_pins_in_requirements_and_environment():
    env, _ = environment_pip()
    assert requirements() == env
    assert all("==" in spec for spec in env.values())
    assert all("==" in spec for spec in requirements("requirements-test.txt").values())


def test_the_students_set_is_what_the_notebooks_need_and_no_maintainers_tool():
    student, extras = set(requirements()), set(requirements("requirements-test.txt"))
    assert student == STUDENT
    assert not student & extras, "a package pinned in both files"
    assert not student & MAINTAINERS
    assert extras <= MAINTAINERS, f"unknown maintainers' tools {extras - MAINTAINERS}: add them"
    assert {"pytest", "ruff", "mypy", "playwright"} <= extras


def runtime_nodes(tree):
    """Every node of ``tree`` except those under ``if TYPE_CHECKING:`` (imports only a type
    checker reads, e.g. typing_extensions' Unpack: never imported when the code runs)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))


def third_party_imports(sources):
    """Top-level module names imported by the Python ``sources`` that are neither the
    standard library nor lessonlib, when the code runs (not for a type checker)."""
    names = set()
    for source in sources:
        for node in runtime_nodes(ast.parse(source)):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n != "lessonlib"}


def notebook_sources():
    for path in sorted((ROOT / "notebooks").rglob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] == "code":
                src = "".join(cell["source"])
                yield "\n".join(ln for ln in src.splitlines() if ln.lstrip()[:1] not in "%!")


def test_imports_only_a_type_checker_reads_are_left_out():
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import yaml\nimport numpy"
    assert third_party_imports([source]) == {"numpy"}
    assert third_party_imports(["if True:\n    import yaml"]) == {"yaml"}


def test_the_students_set_covers_every_import_of_the_notebooks_and_of_lessonlib():
    sources = list(notebook_sources())
    sources += [p.read_text(encoding="utf-8") for p in (ROOT / "lessonlib").rglob("*.py")]
    needed = {
        DISTRIBUTION.get(n, n).replace("_", "-").lower() for n in third_party_imports(sources)
    }
    # jupyterlab brings traitlets and the nbformat family; matplotlib brings pillow
    brought = {"traitlets", "nbformat", "pillow", "ipython"}
    missing = needed - set(requirements()) - brought
    assert not missing, f"imported by a notebook or lessonlib, not in requirements.txt: {missing}"


def test_imports_of_the_maintainers_tools_are_found():
    found = third_party_imports(
        ["import sklearn.metrics\nfrom statsmodels.stats import x\nimport os"]
    )
    assert found == {"sklearn", "statsmodels"}


def test_make_lab_installs_the_students_set_and_make_test_the_extras():
    """Read, not run: the targets' prerequisites in the Makefile."""
    text = (ROOT / "Makefile").read_text()
    rules = dict(re.findall(r"^([\w$().-]+):[ \t]*(.*)$", text, flags=re.M))
    assert "requirements-test.txt" not in text.split("$(READY): ", 1)[1].split("\n\n", 1)[0]
    assert "$(TEST_READY)" not in rules["lab"] and "$(READY)" in rules["lab"]
    for target in ("check", "lint", "test", "test-slides", "bench"):
        assert "$(TEST_READY)" in rules[target], target
    recipe = text.split("\n$(TEST_READY): ", 1)[1].split("\n\n", 1)[0]
    assert "-r requirements.txt -r requirements-test.txt" in recipe
    oldest = text.split("\n$(OLDEST)/.ready: ", 1)[1].split("\n\n", 1)[0]
    assert "-r requirements-test.txt" in oldest


def test_environment_installs_the_package_editable():
    text = (ROOT / "environment.yml").read_text()
    assert re.search(r"^\s+- -e \.\s*$", text, flags=re.M)


# ---------------------------------------------------------------- oldest supported versions

sys.path.insert(0, str(ROOT / "scripts"))
import oldest_requirements  # noqa: E402


def lower_bounds():
    """{name: version} of pyproject.toml's dependencies written 'name>=version'."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    return {_name(x): x.split(">=", 1)[1].split(",")[0].strip() for x in data if ">=" in x}


def test_every_lower_bound_is_the_version_test_oldest_installs():
    oldest = oldest_requirements.pins(ROOT / "requirements-oldest.txt")
    assert {"numpy", "pandas", "matplotlib"} <= set(oldest)
    assert lower_bounds() == {n: line.split("==", 1)[1] for n, line in oldest.items()}


def test_the_oldest_environment_swaps_only_the_bounded_pins():
    current = requirements()
    merged = {_name(x): x for x in oldest_requirements.merged() if x and not x.startswith("#")}
    assert set(merged) == set(current)
    changed = {n for n in merged if merged[n] != current[n]}
    assert changed == set(lower_bounds())


def test_an_oldest_pin_of_an_unknown_package_is_refused(tmp_path):
    (tmp_path / "requirements.txt").write_text("numpy==2.4.6\n")
    (tmp_path / "requirements-oldest.txt").write_text("# c\nnumpy==1.26.4\nscipy==1.0\n")
    with pytest.raises(ValueError, match="scipy"):
        oldest_requirements.merged(tmp_path)
    (tmp_path / "requirements-oldest.txt").write_text("numpy==1.26.4\n")
    assert oldest_requirements.merged(tmp_path) == ["numpy==1.26.4"]


def test_ci_runs_the_tests_in_both_environments():
    steps = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert "make test" in steps and "make test-oldest" in steps


# ---------------------------------------------------------------- make in a read-only clone


def as_other_user():
    """A command prefix that drops root's right to write anywhere (root ignores chmod)."""
    if os.geteuid() != 0:
        return []
    if not shutil.which("setpriv"):
        pytest.skip("running as root without setpriv: cannot make a folder unwritable")
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.mark.parametrize(
    "target, what", [("node_modules/.ready", "node_modules/"), (".venv/.ready", ".venv/")]
)
def test_make_in_a_read_only_clone_says_the_folder_is_not_writable(target, what):
    if not shutil.which("make"):
        pytest.skip("no make")
    folder = pathlib.Path(tempfile.mkdtemp(prefix="read-only-clone-"))
    try:
        for name in (
            "Makefile",
            "package.json",
            "package-lock.json",
            "requirements.txt",
            "pyproject.toml",
        ):
            shutil.copy(ROOT / name, folder / name)
            (folder / name).chmod(0o644)
        folder.chmod(0o555)
        run = subprocess.run(
            [*as_other_user(), "make", "--no-print-directory", "-C", str(folder), target],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder)
    assert run.returncode != 0
    assert f"this folder ({folder}) is not writable, so {what} cannot be created" in run.stdout
    assert "npm error" not in run.stdout + run.stderr


# ---------------------------------------------------------------- pytest run directly


def test_pytest_run_directly_checks_what_make_test_checks():
    """`pytest -n 2 --nbval notebooks` without the Makefile: a notebook stays on one worker
    (else 75 NameErrors), short cell and start-up timeouts, the session plugin loaded."""
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    opts = ini["addopts"].split()
    assert opts[opts.index("--dist") + 1] == "loadscope"
    assert "nbsession" in [opts[i + 1] for i, o in enumerate(opts) if o == "-p"]
    timeouts = dict(o.split("=") for o in opts if o.startswith("--nbval-") and "=" in o)
    assert float(timeouts["--nbval-cell-timeout"]) <= 300
    assert float(timeouts["--nbval-kernel-startup-timeout"]) >= 60
    recipes = [
        ln
        for ln in (ROOT / "Makefile").read_text().splitlines()
        if not ln.lstrip().startswith("#")
    ]
    assert not [ln for ln in recipes if "--dist" in ln or "--nbval-cell" in ln], (
        "the Makefile must not be the only place that says it"
    )


def test_make_stops_a_pytest_run_past_its_whole_run_timeout(tmp_path):
    """make test and make test-oldest share the timed pytest run; test-oldest is tried here
    (make test would also start the decks beside it)."""
    if not shutil.which("make") or not shutil.which("timeout"):
        pytest.skip("no make or timeout")
    for name in (
        "Makefile",
        "requirements.txt",
        "requirements-test.txt",
        "requirements-oldest.txt",
        "pyproject.toml",
    ):
        shutil.copy(ROOT / name, tmp_path / name)
    python = tmp_path / ".venv-oldest" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\nexec sleep 60\n")  # a pytest run that never ends
    python.chmod(0o755)
    ready = tmp_path / ".venv-oldest" / ".ready"
    ready.touch()
    os.utime(ready, (time.time() + 60, time.time() + 60))
    run = subprocess.run(
        ["make", "--no-print-directory", "-C", str(tmp_path), "test-oldest", "TEST_TIMEOUT=1"],
        capture_output=True,
        text=True,
        timeout=50,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode != 0
    assert (
        "make test-oldest: pytest stopped after TEST_TIMEOUT=1 s (whole-run timeout)" in run.stdout
    )


# ------------------------------------------------------------ make lesson with nothing installed

EXPECTED = "\n".join(
    p.read_text(encoding="utf-8") for p in sorted((ROOT / "data" / "expected").glob("*.txt"))
)


def test_make_lesson_needs_no_venv_and_no_numpy(tmp_path):
    """A fresh clone: `make lesson` prints the three blocks at once with the standard library
    only.  The copy has no .venv, and numpy, pandas and matplotlib there fail on import
    (they shadow any installed ones), so a core path that needs them fails here."""
    if not shutil.which("make"):
        pytest.skip("no make")
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    shutil.copytree(
        ROOT / "lessonlib", tmp_path / "lessonlib", ignore=shutil.ignore_patterns("__pycache__")
    )
    for heavy in ("numpy", "pandas", "matplotlib"):
        (tmp_path / heavy).mkdir()
        (tmp_path / heavy / "__init__.py").write_text(
            f"raise ImportError('{heavy} is not installed in this clone')\n"
        )
    make = [
        "make",
        "--no-print-directory",
        "-C",
        str(tmp_path),
        "lesson",
        f"PYTHON={sys.executable}",
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    plan = subprocess.run(
        [*make, "-n"],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    planned = plan.stdout.replace(sys.executable, "PYTHON").replace(str(tmp_path), "CLONE")
    assert plan.returncode == 0 and "PYTHON -S -m lessonlib" in planned
    assert not [w for w in ("pip", "venv", ".ready") if w in planned], planned
    start = time.monotonic()
    run = subprocess.run(
        make, capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == EXPECTED
    assert run.stderr == ""
    assert not (tmp_path / ".venv").exists()
    assert time.monotonic() - start < 30


# ------------------------------------------------------------ make check and the linters


def test_make_check_is_the_linters_and_the_unit_tests_without_the_slow_ones():
    if not shutil.which("make"):
        pytest.skip("no make")
    plan = subprocess.run(
        [
            "make",
            "--no-print-directory",
            "-n",
            "-o",
            ".venv/.ready",
            "-o",
            ".venv/.test-ready",
            "check",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert plan.returncode == 0, plan.stderr
    assert "ruff check ." in plan.stdout and "mypy lessonlib" in plan.stdout
    pytest_run = plan.stdout.split("-m pytest", 1)[1].split(";", 1)[0]
    assert '-m "not slow" tests' in pytest_run and "--nbval" not in pytest_run
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert any(m.startswith("slow:") for m in ini["markers"])
    for heavy in ("test_lab_explorers.py", "test_nb_idempotence.py"):
        assert "pytest.mark.slow" in (ROOT / "tests" / heavy).read_text(), heavy


def test_make_test_runs_the_linters_and_everything():
    """Read, not run: `make -n test` would run pytest (its recipe calls $(MAKE))."""
    text = (ROOT / "Makefile").read_text()
    recipe = text.split("\ntest: $(TEST_READY)\n", 1)[1].split("\n\n", 1)[0]
    assert "$(lint)" in recipe and "$$lrc -eq 0" in recipe
    assert "$(call pytest,$(BIN)/python)" in recipe  # the default: --nbval notebooks tests
    assert "--nbval notebooks tests" in text


def test_make_lab_turns_the_jupyter_news_question_off():
    """`make lab` puts scripts/jupyterlab/overrides.json where JupyterLab reads its
    environment's setting overrides; the override names a setting JupyterLab's own schema
    has, with a value the schema allows, that stops the "Jupyter news?" question (the
    announcements plugin asks while fetchNews is "none")."""
    import json

    overrides = json.loads((ROOT / "scripts" / "jupyterlab" / "overrides.json").read_text())
    assert overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    schemas = pathlib.Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas"
    if not schemas.is_dir():
        pytest.skip("no JupyterLab in this environment")
    for plugin, settings in overrides.items():
        package, name = plugin.rsplit(":", 1)
        schema = json.loads((schemas / package / f"{name}.json").read_text())["properties"]
        for key, value in settings.items():
            allowed = [c["const"] for c in schema[key].get("oneOf", [])]
            assert value in allowed if allowed else isinstance(value, bool), (key, value)
    make = (ROOT / "Makefile").read_text()
    assert "LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json" in make
    assert re.search(r"^lab: .*\$\(LAB_OVERRIDES\)", make, re.M)
