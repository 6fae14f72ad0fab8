"""Where a notebook's kernel time goes: start-up, the imports, the cells (MAINTAINING.md, costs).

Each notebook (and solutions notebook) gets a fresh ``python3`` kernel in its own folder, as
nbval gives it; the kernel's CPU seconds (user + system, from /proc) are read when it is
ready, after the first code cell (the imports) and after the other cells, run once each in
order (one Run All; ``make test`` runs each notebook three times in that one kernel: nbval,
Run All again, each cell again alone).  ``--imports`` times instead what a bare kernel costs
and what each heavy import adds to it, each in a fresh kernel, the median of ``--repeats``.

Run: .venv/bin/python scripts/kernel_cost.py [--imports] [--repeats N]   (Linux: reads /proc)
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from jupyter_client import KernelManager

ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")
PROBES = {
    "lessonlib": ["import lessonlib as L"],
    "numpy": ["import numpy"],
    "pandas (with numpy)": ["import pandas"],
    "matplotlib.pyplot (with numpy)": ["import matplotlib.pyplot as plt"],
    "matplotlib.pyplot after pandas": ["import pandas", "import matplotlib.pyplot as plt"],
    "lessonlib, pandas, matplotlib.pyplot": [
        "import lessonlib as L, pandas, matplotlib.pyplot as plt"
    ],
}


def kernel_cpu(pid):
    """CPU seconds of the kernel process and its reaped children."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / TICK


class Kernel:
    def __init__(self, cwd):
        start = time.monotonic()
        self.manager = KernelManager(kernel_name="python3")
        self.manager.start_kernel(cwd=str(cwd), stderr=subprocess.DEVNULL)
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=120)
        self.start_wall = time.monotonic() - start
        self.pid = self.manager.provisioner.process.pid
        self.start_cpu = kernel_cpu(self.pid)

    def run(self, code):
        """Kernel CPU and wall seconds of one execution of ``code``."""
        cpu, wall = kernel_cpu(self.pid), time.monotonic()
        reply = self.client.execute_interactive(code, timeout=300, output_hook=lambda m: None)
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"{code[:60]!r} failed: {reply['content'].get('evalue')}")
        return kernel_cpu(self.pid) - cpu, time.monotonic() - wall

    def stop(self):
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


def notebooks():
    paths = sorted((ROOT / "notebooks").glob("*.ipynb"))
    paths += sorted((ROOT / "notebooks" / "solutions").glob("*.ipynb"))
    print(
        f"{'notebook (kernel CPU s)':40} {'start':>6} {'imports':>8} {'cells':>6}"
        f"   wall: {'start':>5}"
    )
    total = [0.0, 0.0, 0.0]
    for path in paths:
        cells = [
            "".join(c["source"])
            for c in json.loads(path.read_text())["cells"]
            if c["cell_type"] == "code"
            # the launch cell (scripts/launch_cell.py) does nothing where lessonlib is installed
            and "launch-cell" not in c["metadata"].get("tags", [])
        ]
        kernel = Kernel(path.parent)
        try:
            imports = kernel.run(cells[0])[0]
            rest = sum(kernel.run(cell)[0] for cell in cells[1:])
        finally:
            kernel.stop()
        row = (kernel.start_cpu, imports, rest)
        total = [t + x for t, x in zip(total, row)]
        print(
            f"{path.name:40} {row[0]:6.2f} {row[1]:8.2f} {row[2]:6.2f}"
            f"         {kernel.start_wall:5.2f}"
        )
    n = len(paths)
    print(f"{f'total, {n} notebooks':40} {total[0]:6.2f} {total[1]:8.2f} {total[2]:6.2f}")
    print(f"{'mean per notebook':40} {total[0] / n:6.2f} {total[1] / n:8.2f} {total[2] / n:6.2f}")


def imports(repeats):
    rows = {"bare kernel start-up": []}
    rows.update({name: [] for name in PROBES})
    for _ in range(repeats):
        for name, steps in PROBES.items():
            kernel = Kernel(ROOT / "notebooks")
            try:
                for step in steps[:-1]:
                    kernel.run(step)
                rows[name].append(kernel.run(steps[-1])[0])
                rows["bare kernel start-up"].append(kernel.start_cpu)
            finally:
                kernel.stop()
    print(f"median kernel CPU seconds of {repeats} fresh kernels each")
    for name, values in rows.items():
        print(f"  {name:40} {statistics.median(values):5.2f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--imports", action="store_true", help="time the heavy imports")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"load average at the start: {os.getloadavg()[0]:.1f}")
    imports(args.repeats) if args.imports else notebooks()
    print(f"load average at the end:   {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    sys.exit(main())
