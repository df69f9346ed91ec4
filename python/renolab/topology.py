"""Topology helpers: build the ``[[link]]`` tables of common shapes.

They are the Python face of the scenario file's ``[[topology]]`` tables and expand the same
way (the expansion lives in the core), so a helper's links and a ``[[topology]]`` table's
links are identical::

    from renolab import Scenario, topology

    links = topology.dumbbell(3, access={"rate": "100Mbps", "delay": "1ms"},
                              bottleneck={"rate": "1.6Mbps", "delay": "20ms",
                                          "queue": {"kind": "red", "limit": 60}})
    scenario = Scenario(link=links, flow=[...])
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from renolab import _core


def _expand(table: Mapping[str, Any]) -> list[dict[str, Any]]:
    return json.loads(_core.expand_topology(json.dumps({"topology": [dict(table)]})))


def dumbbell(
    n: int,
    *,
    access: Mapping[str, Any],
    bottleneck: Mapping[str, Any],
    left: str = "r1",
    right: str = "r2",
    sender_prefix: str = "s",
    receiver_prefix: str = "d",
) -> list[dict[str, Any]]:
    """Senders s1..sN - left router = right router - receivers d1..dN.

    ``access`` and ``bottleneck`` are link settings (``rate``, ``delay``, ``queue``, ``loss``,
    ``latency``, ``reverse``); the bottleneck link is named ``bottleneck`` unless its settings
    give a ``name``.
    """
    return _expand(
        {
            "kind": "dumbbell",
            "n": n,
            "access": dict(access),
            "bottleneck": dict(bottleneck),
            "left": left,
            "right": right,
            "sender_prefix": sender_prefix,
            "receiver_prefix": receiver_prefix,
        }
    )


def chain(nodes: int, *, link: Mapping[str, Any], prefix: str = "N") -> list[dict[str, Any]]:
    """Nodes N1 - N2 - ... - Nn in a line, every link with the settings ``link``
    (fickling's six-node chain is ``chain(6, link={"rate": "10Mbps", "delay": "10ms"})``)."""
    return _expand({"kind": "chain", "nodes": nodes, "link": dict(link), "prefix": prefix})
