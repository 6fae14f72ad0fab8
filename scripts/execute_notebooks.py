"""Execute notebooks in place so their stored outputs are fresh and deterministic.

Usage: python scripts/execute_notebooks.py [NOTEBOOK ...]   (default: every notebook)

Each notebook runs top to bottom in a fresh ``python3`` kernel started in the
notebook's own folder.  No timing metadata is recorded, and the random ids of
widget models are replaced by ids derived from the notebook's name and the
widget's place, so re-executing an unchanged notebook leaves the file
unchanged.  Widget state is stored so that explorers show in the slides and on
GitHub.
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import uuid

import nbformat
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]


def notebooks(root=ROOT):
    """Every notebook under notebooks/ (solutions included), checkpoints left out."""
    return sorted(
        p
        for p in (pathlib.Path(root) / "notebooks").glob("**/*.ipynb")
        if ".ipynb_checkpoints" not in p.parts
    )


def _writable(folder):
    """Whether ``folder`` exists (or can be made) and a file can be written in it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def matplotlib_config(environ=None, python=sys.executable):
    """Set MPLCONFIGDIR in ``environ`` (default os.environ, which the kernels inherit) when
    it is unset and matplotlib's own folders under HOME cannot be written; returns it.

    With a read-only HOME matplotlib falls back to a new temporary folder and says so on
    stderr, then builds its font cache there and says that too: every notebook cell that
    imports it would print to stderr and fail nbval.  The folder chosen is ``mplconfig`` in
    the environment (``sys.prefix``) or, if that is read-only too, one in the temporary
    folder; its font cache is built here, quietly, before any kernel starts.
    """
    environ = os.environ if environ is None else environ
    if environ.get("MPLCONFIGDIR"):
        return environ["MPLCONFIGDIR"]
    home = pathlib.Path(environ.get("HOME") or pathlib.Path.home())
    defaults = (
        pathlib.Path(environ.get("XDG_CONFIG_HOME") or home / ".config") / "matplotlib",
        pathlib.Path(environ.get("XDG_CACHE_HOME") or home / ".cache") / "matplotlib",
    )
    if all(_writable(folder) for folder in defaults):
        return None
    for folder in (
        pathlib.Path(sys.prefix) / "mplconfig",
        pathlib.Path(tempfile.gettempdir()) / f"mplconfig-{os.getuid()}",
    ):
        if _writable(folder):
            environ["MPLCONFIGDIR"] = str(folder)
            subprocess.run(
                [python, "-c", "import matplotlib.font_manager"],
                env=dict(environ),
                capture_output=True,
                check=False,
            )
            return str(folder)
    return None


def client(nb, path, **options):
    """A NotebookClient for ``nb`` (read from ``path``): a ``python3`` kernel started in the
    notebook's folder, no timing metadata, 600 s a cell.  ``options`` go to NotebookClient
    (tests/nbtools.py adds allow_errors and its own timeout)."""
    options = {"timeout": 600, "coalesce_streams": True, **options}  # one stream a cell
    matplotlib_config()  # a read-only HOME must not make matplotlib write to stderr
    return NotebookClient(
        nb,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(pathlib.Path(path).parent)}},
        **options,
    )


def execute(path):
    nb = nbformat.read(path, as_version=4)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    client(nb, path).execute()
    # language_info stays whole (its Python version included): JupyterLab writes the
    # kernel's language_info into the notebook when it connects, so a notebook stored
    # without the version showed as modified the moment it was opened.
    nbformat.write(stable_widget_ids(figure_alt_text(nb), path.stem), path)


WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def figure_alt_text(nb):
    """Give every PNG output an alternative text: 'Figure: ' + the nearest heading above it.

    The slide decks and HTML exports show it to screen readers (and where the image fails).
    """
    heading = nb.metadata.get("title", "")
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            lines = [ln for ln in cell.source.splitlines() if ln.startswith("#")]
            if lines:
                heading = lines[-1].lstrip("#").strip()
        elif cell.cell_type == "code":
            for out in cell.get("outputs", []):
                if "image/png" in out.get("data", {}):
                    meta = out.setdefault("metadata", {}).setdefault("image/png", {})
                    meta["alt"] = f"Figure: {heading}" if heading else "Figure"
    return nb


def stable_widget_ids(nb, name):
    """Replace each widget model id (a random uuid4) by one derived from ``name`` and its order."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    if not state:
        return nb
    text = json.dumps(nb)
    for index, old in enumerate(list(state)):
        text = text.replace(old, uuid.uuid5(uuid.NAMESPACE_URL, f"{name}/{index}").hex)
    return nbformat.from_dict(json.loads(text))


def main(argv):
    paths = [pathlib.Path(p) for p in argv] or notebooks()
    for path in paths:
        if ".ipynb_checkpoints" in path.parts:
            continue
        execute(path.resolve())
        print("executed", path.relative_to(ROOT) if path.is_absolute() else path)


if __name__ == "__main__":
    main(sys.argv[1:])
