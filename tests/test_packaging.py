"""requirements.txt, environment.yml and pyproject.toml name the same packages."""

import re
import tomllib

from conftest import ROOT


def _name(spec):
    return re.split(r"[=<>!~\[ ]", spec.strip(), maxsplit=1)[0].lower()


def requirements():
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    return {_name(x): x.strip() for x in lines if x.strip() and not x.startswith("#")}


def environment_pip():
    text = (ROOT / "environment.yml").read_text()
    pip_part = text.split("- pip:", 1)[1]
    specs = re.findall(r"^\s+- (\S+)\s*$", pip_part, flags=re.M)
    return {_name(x): x for x in specs if not x.startswith("-")}, specs


def pyproject():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {_name(x) for x in data["dependencies"]}
    for extra in ("test",):
        names |= {_name(x) for x in data["optional-dependencies"][extra]}
    return names


def test_same_package_names_everywhere():
    env, _ = environment_pip()
    assert set(requirements()) == set(env) == pyproject()


def test_same_pins_in_requirements_and_environment():
    env, _ = environment_pip()
    assert requirements() == env
    assert all("==" in spec for spec in env.values())


def test_environment_installs_the_package_editable():
    text = (ROOT / "environment.yml").read_text()
    assert re.search(r"^\s+- -e \.\s*$", text, flags=re.M)
