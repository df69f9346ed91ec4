"""Topology helpers expand to the same links in Python and in TOML."""

from __future__ import annotations

from pathlib import Path

import pytest

import renolab
from renolab import topology


def test_dumbbell_builds_access_links_around_one_bottleneck():
    links = topology.dumbbell(2, access={"rate": "100Mbps", "delay": "1ms"},
                              bottleneck={"rate": "2Mbps", "delay": "20ms"})
    assert [(l["name"], l["from"], l["to"]) for l in links] == [
        ("s1-r1", "s1", "r1"), ("s2-r1", "s2", "r1"), ("bottleneck", "r1", "r2"),
        ("r2-d1", "r2", "d1"), ("r2-d2", "r2", "d2"),
    ]
    assert links[2]["rate"] == "2Mbps"


def test_fickling_chain_runs_a_flow_end_to_end():
    links = topology.chain(6, link={"rate": "10Mbps", "delay": "10ms"})
    assert [l["name"] for l in links] == ["N1-N2", "N2-N3", "N3-N4", "N4-N5", "N5-N6"]
    result = renolab.Scenario(link=links, flow=[{"name": "f", "src": "N1", "dst": "N6", "bytes": 100_000}]).run()
    assert result.flows.bytes_delivered[0] == 100_000


def test_the_toml_form_gives_the_same_links():
    toml = renolab.Scenario.from_toml_str(
        '[[topology]]\nkind = "chain"\nnodes = 3\nlink = { rate = "10Mbps", delay = "10ms" }\n'
        '[[flow]]\nname = "f"\nsrc = "N1"\ndst = "N3"\nbytes = 1000\n'
    ).validate()
    helper = renolab.Scenario(link=topology.chain(3, link={"rate": "10Mbps", "delay": "10ms"}),
                              flow=[{"name": "f", "src": "N1", "dst": "N3", "bytes": 1000}]).validate()
    assert toml["link"] == helper["link"]


def test_a_bad_helper_argument_names_the_field():
    with pytest.raises(renolab.ScenarioError, match=r"topology\[0\]\.nodes"):
        topology.chain(1, link={"rate": "10Mbps"})


DUMBBELL_TOML = """
[simulation]
duration = "20s"

[[topology]]
kind = "dumbbell"
n = 3
access = { rate = "100Mbps", delay = "1ms" }
receiver_access = { loss = { kind = "uniform", p = 0.01, applies_to = "data" } }
rtt = ["20ms", "40ms", "80ms"]
bottleneck = { rate = "10Mbps", delay = "5ms", queue = { kind = "droptail", limit = "1bdp" } }
"""


def _dumbbell_flows(n: int) -> list[dict]:
    return [{"name": f"f{i}", "src": f"s{i}", "dst": f"d{i}", "variant": "reno"} for i in range(1, n + 1)]


def test_the_dumbbell_helper_takes_sides_per_flow_rtts_and_bdp_limits_as_toml_does():
    helper = topology.dumbbell(
        3,
        access={"rate": "100Mbps", "delay": "1ms"},
        receiver_access={"loss": {"kind": "uniform", "p": 0.01, "applies_to": "data"}},
        rtt=["20ms", "40ms", "80ms"],
        bottleneck={"rate": "10Mbps", "delay": "5ms", "queue": {"kind": "droptail", "limit": "1bdp"}},
    )
    toml = renolab.Scenario.from_toml_str(DUMBBELL_TOML).to_dict()
    assert renolab.Scenario(simulation={"duration": "20s"}, link=helper, flow=_dumbbell_flows(3)).validate()["link"] == \
        renolab.Scenario.from_dict({**toml, "flow": _dumbbell_flows(3)}).validate()["link"]
    by_name = {l["name"]: l for l in helper}
    # Sender i's link makes its pair's round trip: 2 x (5 + 1) ms elsewhere.
    assert [by_name[f"s{i}-r1"]["delay"] for i in (1, 2, 3)] == ["4ms", "14ms", "34ms"]
    assert "loss" not in by_name["s1-r1"] and by_name["r2-d1"]["loss"]["p"] == 0.01
    # 10 Mb/s x 46.7 ms (the mean of the three RTTs) = 58,333 bytes: 39 packets of 1500.
    assert by_name["bottleneck"]["queue"]["limit"] == 39


def test_each_pair_of_the_dumbbell_runs_at_its_rtt_and_meets_the_receivers_loss_once():
    scenario = renolab.Scenario.from_dict({**renolab.Scenario.from_toml_str(DUMBBELL_TOML).to_dict(),
                                           "flow": _dumbbell_flows(3)})
    result = scenario.run(trace=["rtt"])
    rtt = result.trace("rtt").groupby("flow", observed=True)["rtt_s"].min()
    # The smallest sample: the base RTT plus serialising a segment and its ACK on the way.
    for flow, base in (("f1", 0.020), ("f2", 0.040), ("f3", 0.080)):
        assert base < rtt[flow] < base + 0.0015, (flow, rtt[flow])
    links = result.links.set_index("link")
    assert links.loc[[f"s{i}-r1" for i in (1, 2, 3)], "random_drops"].sum() == 0
    assert links.loc[[f"r2-d{i}" for i in (1, 2, 3)], "random_drops"].sum() > 0


def test_the_dumbbell_documents_that_access_applies_to_both_sides():
    both = topology.dumbbell(1, access={"rate": "100Mbps", "loss": {"kind": "uniform", "p": 0.01}},
                             bottleneck={"rate": "10Mbps"})
    assert sum("loss" in l for l in both) == 2  # met twice on the way: docs/scenario.md says so
    text = (Path(__file__).resolve().parents[2] / "docs" / "scenario.md").read_text(encoding="utf-8")
    assert "a loss model here is met twice on the way" in text
