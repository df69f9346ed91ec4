"""Resource limits and internal errors: refused early, stopped cleanly, reported reproducibly."""

from __future__ import annotations

import json
import re

import pytest

import renolab
from renolab import Scenario, ScenarioError, SimulationError
from renolab.cli import main


@pytest.fixture(autouse=True)
def _no_backtraces(monkeypatch):
    """A panic prints a Rust backtrace when RUST_BACKTRACE is set; these tests want quiet."""
    monkeypatch.delenv("RUST_BACKTRACE", raising=False)


def test_the_limits_appear_in_the_normalised_scenario(small_scenario):
    simulation = Scenario.from_dict(small_scenario).validate()["simulation"]
    assert simulation["max_events"] == 10_000_000_000
    assert simulation["max_memory"] == 8 << 30


def test_a_panic_becomes_a_simulation_error_carrying_seed_and_scenario(small_scenario, monkeypatch):
    monkeypatch.setenv("RENOLAB_TEST_PANIC", "run")
    scenario = Scenario.from_dict(small_scenario).with_seed(42)
    with pytest.raises(SimulationError) as info:
        scenario.run()
    err = info.value
    assert "internal error in run: deliberate panic" in str(err)
    assert "seed 42" in str(err)
    assert (err.kind, err.seed) == ("panic", 42)
    assert json.loads(err.scenario) == json.loads(scenario.to_json())


def test_a_panic_while_validating_is_caught_too(small_scenario, monkeypatch):
    monkeypatch.setenv("RENOLAB_TEST_PANIC", "validate")
    with pytest.raises(SimulationError) as info:
        Scenario.from_dict(small_scenario).validate()
    assert info.value.kind == "panic" and info.value.seed == 1


def test_without_the_hook_the_same_run_succeeds(small_scenario, monkeypatch):
    monkeypatch.delenv("RENOLAB_TEST_PANIC", raising=False)
    assert Scenario.from_dict(small_scenario).run().summary["stop_reason"] == "all_flows_finished"


def test_the_command_line_writes_panic_json_with_scenario_and_seed(small_scenario, write_scenario, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RENOLAB_TEST_PANIC", "run")
    out = tmp_path / "out"
    code = main(["run", str(write_scenario(small_scenario)), "--out", str(out), "--seed", "7"])
    err = capsys.readouterr().err.splitlines()
    assert code == 1 and len(err) == 1 and err[0].endswith(f"written to {out / 'panic.json'}")
    report = json.loads((out / "panic.json").read_text())
    assert report["seed"] == 7
    assert report["scenario"]["simulation"]["seed"] == 7
    assert report["scenario"]["flow"] == small_scenario["flow"]
    assert "deliberate panic" in report["message"] and report["renolab_version"] == renolab.__version__
    # The report reproduces the failure: the scenario it holds panics again under the hook.
    with pytest.raises(SimulationError):
        Scenario.from_dict(report["scenario"]).run()


def test_a_trace_too_large_for_memory_is_refused_before_the_run_but_streams_to_disk(small_scenario, tmp_path):
    scenario = Scenario.from_dict(small_scenario)
    with pytest.raises(ScenarioError, match=r"^trace hops: the run would record about \d+ bytes"):
        scenario.run(trace="hops", trace_memory_limit=1000)
    result = scenario.run(trace="hops", trace_memory_limit=1000, trace_dir=tmp_path / "traces")
    assert len(result.trace("hops")) > 100


def test_a_trace_that_outgrows_the_limit_while_running_stops_with_a_clear_error(small_scenario):
    # Losses add retransmissions and drops to the loss-free estimate the early check uses:
    # the limit still holds while the run records.
    small_scenario["link"][1]["loss"] = {"kind": "uniform", "p": 0.1}
    scenario = Scenario.from_dict(small_scenario)
    with pytest.raises(ScenarioError) as refused:
        scenario.run(trace="seq", trace_memory_limit=1)
    estimate = int(re.search(r"about (\d+) bytes", str(refused.value)).group(1))
    with pytest.raises(SimulationError) as info:
        scenario.run(trace="seq", trace_memory_limit=estimate)
    assert f"exceeds the in-memory trace limit of {estimate} bytes" in str(info.value)
    assert info.value.kind == "trace"


def test_max_events_stops_a_run_that_the_estimate_let_through(small_scenario):
    small_scenario["simulation"]["max_events"] = 600
    with pytest.raises(ScenarioError, match=r"^simulation.max_events: the run passed 600 events at t = "):
        Scenario.from_dict(small_scenario).run()
    small_scenario["simulation"]["max_events"] = 100_000
    assert Scenario.from_dict(small_scenario).run().summary["events"] < 100_000
