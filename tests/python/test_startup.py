"""Start-up cost: ``import renolab`` and the light commands load none of the heavy libraries.

Each case runs in a fresh interpreter and reports which of pandas, pyarrow, matplotlib and
numpy ended up in ``sys.modules`` (issue 18: ``renolab --help``, ``renolab check`` and a
``renolab run`` without traces must not import them; tables become DataFrames when read).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tomli_w

HEAVY = ("pandas", "pyarrow", "matplotlib", "numpy")

PROBE = """
import json, sys
{code}
print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


def _loaded(code: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(code=code, heavy=HEAVY)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _cli(*argv: str) -> str:
    return f"from renolab.cli import main\ncode = main({list(argv)!r})\nassert code == 0, code"


@pytest.fixture
def scenario_file(tmp_path: Path, small_scenario: dict) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(tomli_w.dumps(small_scenario), encoding="utf-8")
    return path


def test_import_renolab_loads_no_heavy_library():
    assert _loaded("import renolab") == []


def test_the_public_names_resolve_without_heavy_libraries():
    assert _loaded("from renolab import Result, Scenario, ScenarioError, SimulationError, Sweep") == []


def test_renolab_help_loads_no_heavy_library():
    assert _loaded("from renolab.cli import main\nassert main(['--help']) == 0") == []


def test_renolab_check_loads_no_heavy_library(scenario_file):
    assert _loaded(_cli("check", str(scenario_file))) == []


def test_renolab_run_without_traces_loads_no_heavy_library(scenario_file, tmp_path):
    out = tmp_path / "out"
    assert _loaded(_cli("run", str(scenario_file), "--out", str(out), "--format", "csv")) == []
    assert (out / "flows.csv").read_text().startswith("flow,variant,")


def test_csv_traces_need_pandas_but_not_matplotlib(scenario_file, tmp_path):
    # Traces are decoded into DataFrames (and pandas >= 3 loads pyarrow itself).
    out = tmp_path / "out"
    loaded = _loaded(_cli("run", str(scenario_file), "--out", str(out), "--format", "csv", "--trace", "cwnd"))
    assert "pandas" in loaded and "matplotlib" not in loaded
    assert (out / "cwnd.csv").is_file()


def test_tables_are_still_dataframes_when_read(small_scenario):
    import pandas as pd

    from renolab import Scenario

    result = Scenario.from_dict(small_scenario).run()
    assert isinstance(result.flows, pd.DataFrame) and isinstance(result.links, pd.DataFrame)
    assert result.flows["flow"].tolist() == ["f1"]
