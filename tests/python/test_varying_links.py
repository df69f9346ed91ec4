"""Links that change (docs/scenario.md, "Links that change"): trace files relative to the
scenario file, the generated cellular traces, the tables' rates of varying links, and the
documentation of every key."""

from __future__ import annotations

import importlib.util
import math
import re
import sys
from pathlib import Path

import pytest

from renolab import Scenario, ScenarioError
from renolab.cli import main
from renolab.sweep import Sweep

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _generator():
    spec = importlib.util.spec_from_file_location("_renolab_cellular_traces", EXAMPLES / "traces" / "cellular.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_shipped_cellular_traces_are_what_their_generator_writes(tmp_path):
    _generator().main(["--out", str(tmp_path)])
    for name in ("cellular.down", "cellular.up"):
        assert (tmp_path / name).read_bytes() == (EXAMPLES / "traces" / name).read_bytes(), name
    lines = [int(x) for x in (EXAMPLES / "traces" / "cellular.down").read_text().split()]
    assert lines == sorted(lines) and lines[-1] == 10_000
    assert sum(f.stat().st_size for f in (EXAMPLES / "traces").glob("cellular.*")) < 64_000, "small"


def _scenario_text(trace: str, extra: str = "") -> str:
    return f"""
[simulation]
duration = "2s"
[[link]]
name = "cell"
from = "a"
to = "b"
rate = {{ trace = "{trace}" }}
delay = "10ms"
{extra}
[[flow]]
name = "f"
variant = "cubic"
src = "a"
dst = "b"
"""


def test_a_trace_is_relative_to_the_scenario_file_wherever_it_runs(tmp_path, monkeypatch):
    folder = tmp_path / "study"
    (folder / "traces").mkdir(parents=True)
    (folder / "traces" / "two.up").write_text("1\n1\n")  # 2 opportunities a ms: 24 Mb/s
    (folder / "run.toml").write_text(_scenario_text("traces/two.up"))
    monkeypatch.chdir(tmp_path)  # not the scenario's folder
    scenario = Scenario.from_toml(folder / "run.toml")
    assert scenario.to_dict()["link"][0]["rate"]["trace"] == str(folder / "traces" / "two.up")
    result = scenario.run()
    # The table's rate is the trace's mean; the flow fills most of it.
    assert result.links.loc[0, "rate_bps"] == pytest.approx(24e6)
    assert result.flows.loc[0, "bottleneck_bps"] == pytest.approx(24e6)
    assert 0.5 * 24e6 < result.flows.loc[0, "goodput_bps"] < 24e6
    # The command line resolves it the same way.
    assert main(["run", str(folder / "run.toml"), "--out", str(tmp_path / "out")]) == 0
    # An absolute path stays as written.
    absolute = Scenario.from_toml_str(_scenario_text(str(folder / "traces" / "two.up")))
    assert absolute.validate()["link"][0]["rate"]["trace"] == str(folder / "traces" / "two.up")


def test_a_sweeps_inline_base_finds_its_trace_beside_the_sweep_file(tmp_path):
    (tmp_path / "one.up").write_text("1\n")
    base = _scenario_text("one.up").replace("[simulation]", "[base.simulation]").replace("[[link]]", "[[base.link]]")
    base = base.replace("[[flow]]", "[[base.flow]]")
    (tmp_path / "sweep.toml").write_text('[sweep]\ngrid = { "flow.f.variant" = ["cubic", "reno"] }\n' + base)
    sweep = Sweep.from_toml(tmp_path / "sweep.toml")
    assert sweep.base.to_dict()["link"][0]["rate"]["trace"] == str(tmp_path / "one.up")


def test_varying_rates_and_delays_give_their_mean_over_the_run_in_the_links_table():
    scenario = Scenario(
        simulation={"duration": "4s"},
        link=[{
            "name": "sat", "from": "a", "to": "b",
            "rate": {"schedule": [["0s", "10Mbps"], ["1s", "30Mbps"]]},
            "delay": {"schedule": [["0s", "10ms"], ["3s", "30ms"]]},
            "outages": [["2s", "2.1s"]],
        }],
        flow=[{"name": "f", "variant": "cubic", "src": "a", "dst": "b"}],
    )
    result = scenario.run()
    links = result.links.set_index("link")
    assert links.loc["sat", "rate_bps"] == pytest.approx((10e6 * 1 + 30e6 * 3) / 4)
    assert links.loc["sat", "delay_s"] == pytest.approx((0.010 * 3 + 0.030 * 1) / 4)
    assert links.loc["sat", "outage_drops"] > 0
    # outage_drops is the last column: the columns before it never moved.
    assert list(result.links.columns)[-3:] == ["queue_delay_p99_s", "mean_queue_packets", "outage_drops"]
    drops = Scenario.from_dict(scenario.to_dict()).run(trace="drops").trace("drops")
    outage = drops[drops["cause"] == "outage"]
    assert len(outage) == links.loc["sat", "outage_drops"] + links.loc["sat/rev", "outage_drops"]
    assert (outage["time_s"] == 2.0).all(), "dropped when the link goes down"


def test_a_bad_trace_is_one_line_on_the_command_line(tmp_path, capsys):
    (tmp_path / "bad.up").write_text("1\n2\nthree\n")
    (tmp_path / "run.toml").write_text(_scenario_text("bad.up"))
    assert main(["check", str(tmp_path / "run.toml")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    # The line's text is not shown: a trace path may name any file.
    assert err == [f"renolab: error: link[0].rate.trace: {tmp_path / 'bad.up'}: line 3: the line is not a whole "
                   "number of milliseconds"]
    with pytest.raises(ValueError, match="line 3"):
        from renolab import _core

        _core.trace_rate(str(tmp_path / "bad.up"))


def _allowed_keys(data: dict) -> list[str]:
    """The keys the core allows where *data* has an unknown one, from its error."""
    with pytest.raises(ScenarioError) as err:
        Scenario.from_dict(data).validate()
    match = re.search(r"unknown key \"\w+\"; allowed: (.*)$", str(err.value))
    assert match, str(err.value)
    return match.group(1).split(", ")


def test_docs_scenario_md_documents_every_key_of_a_link_that_changes():
    docs = (ROOT / "docs" / "scenario.md").read_text(encoding="utf-8")
    link = {"from": "a", "to": "b", "rate": "1Mbps", "nope": 1}
    flows = [{"name": "f", "src": "a", "dst": "b", "bytes": 1000}]
    tables = {
        "[[link]]": {"link": [link], "flow": flows},
        "rate": {"link": [{**link, "nope": None, "rate": {"nope": 1}}], "flow": flows},
        "delay": {"link": [{**link, "nope": None, "delay": {"nope": 1}}], "flow": flows},
        "loss schedule": {"link": [{**link, "nope": None, "loss": {"schedule": [], "nope": 1}}], "flow": flows},
    }
    for where, data in tables.items():
        data["link"][0] = {k: v for k, v in data["link"][0].items() if v is not None}
        for key in _allowed_keys(data):
            assert f"`{key}`" in docs, f"{where}: {key}"
    for phrase in ("outage_drops", "1504 bytes", "mm-link", "in order", "[start, end)"):
        assert phrase in docs, phrase


def test_an_estimate_takes_a_traces_mean_rate(tmp_path):
    (tmp_path / "fast.up").write_text("".join("1\n" for _ in range(1000)))  # 1000 a ms: 12 Gb/s
    text = _scenario_text(str(tmp_path / "fast.up")).replace('duration = "2s"', 'duration = "2s"\nmax_events = 1000')
    with pytest.raises(ScenarioError, match=r"simulation\.duration: the run would take about"):
        Scenario.from_toml_str(text).validate()
    slow = _scenario_text(str(tmp_path / "fast.up")).replace("fast.up", "slow.up")
    (tmp_path / "slow.up").write_text("1000\n")  # one opportunity a second
    assert math.isfinite(Scenario.from_toml_str(slow).run().links.loc[0, "rate_bps"])
