"""Same scenario and seed give byte-identical CSV output."""

from __future__ import annotations

import csv

import pandas as pd

from renolab import Scenario
from renolab.cli import main


def _run_cli(scenario_path, out, seed, capsys):
    code = main(["run", str(scenario_path), "--out", str(out), "--trace", "cwnd", "--seed", str(seed), "--format", "csv"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return out


def test_the_same_seed_twice_gives_byte_identical_csv_files(small_scenario, write_scenario, tmp_path, capsys):
    path = write_scenario(small_scenario)
    first = _run_cli(path, tmp_path / "a", 3, capsys)
    second = _run_cli(path, tmp_path / "b", 3, capsys)
    for name in ["flows.csv", "cwnd.csv"]:
        data = (first / name).read_bytes()
        assert data, name
        assert data == (second / name).read_bytes(), name


def test_a_different_seed_also_runs_to_completion(small_scenario, write_scenario, tmp_path, capsys):
    path = write_scenario(small_scenario)
    out = _run_cli(path, tmp_path / "c", 12345, capsys)
    flows = pd.read_csv(out / "flows.csv")
    assert list(flows["flow"]) == ["f1"]
    assert flows["bytes_delivered"].iloc[0] == 100_000


def test_trace_csv_round_trips_times_exactly(small_scenario, tmp_path):
    result = Scenario.from_dict(small_scenario).run(trace=["cwnd"])
    result.save(tmp_path, format="csv")
    with open(tmp_path / "cwnd.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    expected = result.trace("cwnd")
    assert list(rows[0]) == list(expected.columns)
    assert len(rows) == len(expected)
    assert [float(r["time_s"]) for r in rows] == expected["time_s"].tolist()
    assert [float(r["cwnd"]) for r in rows] == expected["cwnd"].tolist()
