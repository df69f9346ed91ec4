"""The examples gallery: every file is listed with its purpose, every scenario runs, the
Python example and the tour notebook execute."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from renolab import Scenario
from renolab.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: Scenario files (a sweep file, with its [sweep] table, is not one).
SCENARIOS = sorted(p for p in EXAMPLES.glob("*.toml") if "\n[sweep]" not in "\n" + p.read_text(encoding="utf-8"))


def _listed() -> dict[str, str]:
    """File name -> purpose, from the table of examples/README.md."""
    rows = re.findall(r"^\| \[([^\]]+)\]\([^)]+\) \| ([^|]+) \|", (EXAMPLES / "README.md").read_text(encoding="utf-8"), re.M)
    return {name: purpose.strip() for name, purpose in rows}


def test_the_gallery_lists_every_example_with_its_purpose():
    listed = _listed()
    files = {p.name for p in EXAMPLES.iterdir() if p.suffix in (".toml", ".py", ".ipynb")} - {"sweep_dumbbell.toml"}
    assert set(listed) == files
    assert len(listed) >= 10
    assert all(len(purpose) > 20 for purpose in listed.values())


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_every_example_scenario_runs_and_says_how_to_run_it(path, tmp_path, capsys):
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# ") and "renolab run examples/" + path.name in text.replace("\\\n", ""), path.name
    assert main(["check", str(path)]) == 0
    result = Scenario.from_toml(path).run()
    assert result.flows["bytes_delivered"].min() > 0, path.name
    assert result.summary["wall_time_s"] < 5


def test_the_sweep_example_runs(tmp_path):
    assert main(["sweep", str(EXAMPLES / "sweep_variants.toml"), "--out", str(tmp_path), "--workers", "2"]) == 0
    assert main(["plot", str(tmp_path)]) == 0


def test_the_python_example_runs(tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, str(EXAMPLES / "python_api.py"), str(tmp_path)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert {"cwnd.png", "throughput.png", "queue.png", "flows.csv"} <= {p.name for p in tmp_path.iterdir()}


def test_the_tour_notebook_executes(tmp_path):
    import nbclient
    import nbformat

    notebook = nbformat.read(EXAMPLES / "tour.ipynb", as_version=4)
    assert not any(cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), "commit it without outputs"
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    images = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 4
