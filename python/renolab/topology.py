"""Topology helpers: build the ``[[link]]`` tables of common shapes.

They are the Python face of the scenario file's ``[[topology]]`` tables and expand the same
way (the expansion lives in the core), so a helper's links and a ``[[topology]]`` table's
links are identical::

    from renolab import Scenario, topology

    links = topology.dumbbell(3, access={"rate": "100Mbps", "delay": "1ms"},
                              bottleneck={"rate": "1.6Mbps", "delay": "20ms",
                                          "queue": {"kind": "red", "limit": 60}})
    # One-way losses on the receivers' side only, RTTs of 20, 40 and 80 ms, a 1-BDP buffer:
    links = topology.dumbbell(3, access={"rate": "100Mbps", "delay": "1ms"},
                              receiver_access={"loss": {"kind": "uniform", "p": 0.01}},
                              rtt=["20ms", "40ms", "80ms"],
                              bottleneck={"rate": "10Mbps", "delay": "5ms",
                                          "queue": {"kind": "droptail", "limit": "1bdp"}})
    scenario = Scenario(link=links, flow=[...])
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from renolab import _core


def _expand(table: Mapping[str, Any]) -> list[dict[str, Any]]:
    return json.loads(_core.expand_topology(json.dumps({"topology": [dict(table)]})))


def dumbbell(
    n: int,
    *,
    bottleneck: Mapping[str, Any],
    access: Mapping[str, Any] | None = None,
    sender_access: Mapping[str, Any] | None = None,
    receiver_access: Mapping[str, Any] | None = None,
    rtt: str | Sequence[str] | None = None,
    left: str = "r1",
    right: str = "r2",
    sender_prefix: str = "s",
    receiver_prefix: str = "d",
) -> list[dict[str, Any]]:
    """Senders s1..sN - left router = right router - receivers d1..dN.

    ``access``, ``sender_access``, ``receiver_access`` and ``bottleneck`` are link settings
    (``rate``, ``delay``, ``queue``, ``loss``, ``latency``, ``reverse``). ``access`` applies
    to the links of both sides (a loss model in it is met twice on the way), and
    ``sender_access`` / ``receiver_access`` add to or override it on one side. ``rtt`` (one
    duration, or one per sender) sets each pair's base round-trip time: the sender's access
    link gets the delay that, with the bottleneck's and the receiver side's, adds up to it.
    A queue ``limit`` (packets of 1500 bytes) or ``limit_bytes`` may be given as a multiple of
    the bandwidth-delay product, ``"1bdp"``: the bottleneck's rate times the pairs' mean base
    RTT. The bottleneck link is named ``bottleneck`` unless its settings give a ``name``.
    docs/scenario.md has the rules and an example.
    """
    table: dict[str, Any] = {"kind": "dumbbell", "n": n, "bottleneck": dict(bottleneck)}
    for key, value in (("access", access), ("sender_access", sender_access), ("receiver_access", receiver_access)):
        if value is not None:
            table[key] = dict(value)
    if rtt is not None:
        table["rtt"] = rtt if isinstance(rtt, str) else list(rtt)
    table.update(left=left, right=right, sender_prefix=sender_prefix, receiver_prefix=receiver_prefix)
    return _expand(table)


def chain(nodes: int, *, link: Mapping[str, Any], prefix: str = "N") -> list[dict[str, Any]]:
    """Nodes N1 - N2 - ... - Nn in a line, every link with the settings ``link``
    (fickling's six-node chain is ``chain(6, link={"rate": "10Mbps", "delay": "10ms"})``)."""
    return _expand({"kind": "chain", "nodes": nodes, "link": dict(link), "prefix": prefix})
