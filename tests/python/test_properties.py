"""Property tests through the Python API (hypothesis).

- Random small scenarios (chains of 2-4 nodes, every variant, queue and profile, losses
  including 0 and 1, random starts) run with the core's per-event audit: packet
  conservation, cwnd >= 1 and ssthresh >= 2 segments, in-order delivery exactly once. A
  finished transfer delivered exactly its bytes; without loss models every transfer
  finishes; the same seed gives the same tables.
- Hostile edits of a valid scenario (any field replaced by a value of the wrong type, sign
  or size) end in a result or a ScenarioError whose message starts with the field path:
  never a SimulationError, a Rust panic or any other exception.

The Rust property tests (crates/renolab-core/tests/properties.rs) cover far more cases;
these check the same contract end to end through the binding. ``HYPOTHESIS_EXAMPLES=N``
runs more examples; ``HYPOTHESIS_RANDOM=1`` draws new ones instead of the fixed set.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from renolab import Scenario, ScenarioError, SimulationError

EXAMPLES = int(os.environ.get("HYPOTHESIS_EXAMPLES", "40"))
# Derandomized: CI runs the examples a developer ran; HYPOTHESIS_RANDOM=1 explores others.
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=os.environ.get("HYPOTHESIS_RANDOM") != "1",
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

rates = st.integers(min_value=3, max_value=9).flatmap(
    lambda e: st.integers(min_value=10**e, max_value=10 ** (e + 1))
).map(lambda bps: f"{bps}bps")
delays = st.one_of(st.just("0s"), st.integers(min_value=1, max_value=200_000_000).map(lambda ns: f"{ns}ns"))
probabilities = st.one_of(st.just(0.0), st.just(1.0), st.floats(min_value=0.0, max_value=0.2))
queues = st.one_of(
    st.integers(min_value=1, max_value=100_000).map(lambda n: {"kind": "droptail", "limit": n}),
    st.integers(min_value=2, max_value=500).map(lambda n: {"kind": "red", "limit": n}),
    st.integers(min_value=1, max_value=500).map(lambda n: {"kind": "codel", "limit": n}),
    st.integers(min_value=1, max_value=500).map(lambda n: {"kind": "fq_codel", "limit": n, "flows": 16}),
    st.tuples(st.integers(min_value=1, max_value=500), st.integers(min_value=0, max_value=20)).map(
        lambda t: {"kind": "dualpi2", "limit": t[0], "step_thresh": t[1]}
    ),
)
losses = st.one_of(
    st.none(),
    st.none(),
    probabilities.map(lambda p: {"kind": "uniform", "p": p}),
    st.lists(st.integers(min_value=0, max_value=30), max_size=4).map(lambda s: {"kind": "drop", "packets": s}),
)


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, Any]:
    nodes = draw(st.integers(min_value=2, max_value=4))
    links = []
    for i in range(nodes - 1):
        link = {"from": f"n{i}", "to": f"n{i + 1}", "rate": draw(rates), "delay": draw(delays), "queue": draw(queues)}
        loss = draw(losses)
        if loss is not None:
            link["loss"] = loss
        links.append(link)
    flows = []
    for k in range(draw(st.integers(min_value=1, max_value=3))):
        a, b = draw(st.lists(st.integers(min_value=0, max_value=nodes - 1), min_size=2, max_size=2, unique=True))
        flows.append(
            {
                "name": f"f{k}",
                "variant": draw(st.sampled_from(["tahoe", "reno", "newreno", "sack", "vegas"])),
                "profile": draw(st.sampled_from(["rfc", "ns2", "opnet"])),
                "src": f"n{a}",
                "dst": f"n{b}",
                "mss": draw(st.integers(min_value=100, max_value=1460)),
                "bytes": draw(st.integers(min_value=1, max_value=60_000)),
                "start": f"{draw(st.integers(min_value=0, max_value=500))}ms",
            }
        )
    return {
        "simulation": {"seed": draw(st.integers(min_value=0, max_value=2**64 - 1)), "time_limit": "100000s"},
        "link": links,
        "flow": flows,
    }


@SETTINGS
@given(scenarios())
def test_random_scenarios_keep_every_invariant(doc):
    scenario = Scenario.from_dict(doc)
    result = scenario.run(check_invariants=True)
    flows = result.flows.set_index("flow")
    for spec in doc["flow"]:
        row = flows.loc[spec["name"]]
        assert row["bytes_delivered"] <= spec["bytes"]
        if row["finish_s"] == row["finish_s"]:  # not NaN: finished
            assert row["bytes_delivered"] == spec["bytes"]
    if not any("loss" in link for link in doc["link"]):
        assert flows["bytes_delivered"].tolist() == [f["bytes"] for f in doc["flow"]]
        assert result.summary["stop_reason"] == "all_flows_finished"
    again = scenario.run()
    assert again.flows.drop(columns=[]).equals(result.flows)


def _leaves(value: Any, path: tuple = ()) -> list[tuple]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, (*path, k))]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, (*path, i))]
    return [path]


hostile = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", " ", "0", "-1ms", "1e400s", "1e18Gbps", "NaN", "inf", "10 Mbits", "10 mbps", "\x00", "é", "1" * 400]),
    st.text(max_size=20),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


@SETTINGS
@given(data=st.data())
def test_hostile_values_anywhere_get_a_scenario_error_or_run(data, small_scenario):
    normalised = Scenario.from_dict(small_scenario).validate()
    path = data.draw(st.sampled_from(_leaves(normalised)))
    value = data.draw(hostile)
    doc = json.loads(json.dumps(normalised))
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    if value is None:
        del target[path[-1]]
    doc["simulation"]["max_events"] = 200_000
    scenario = Scenario.from_dict(doc)
    try:
        scenario.validate()
        scenario.run()
    except ScenarioError as exc:
        message = str(exc)
        assert message.split(":")[0].split(".")[0].split("[")[0] in {"simulation", "link", "flow", "trace", ""} or message.startswith(
            ("simulation", "link", "flow")
        ), message
    except SimulationError as exc:  # pragma: no cover - the failure we look for
        pytest.fail(f"{path} = {value!r}: {exc}")
