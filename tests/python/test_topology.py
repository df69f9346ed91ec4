"""Topology helpers expand to the same links in Python and in TOML."""

from __future__ import annotations

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
