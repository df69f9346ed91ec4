"""fickling's setup as scenarios: the six-node chain, the CBR flow and the TCP flows of the
three experiments.

Six nodes N1..N6 in a chain of five 10 Mb/s, 10 ms DropTail links
(``topology.chain(6, ...)``); a CBR/UDP flow between the inner nodes N2 and N3; the TCP flow
under study from N1 to N4 (the paper's §2). Three experiments:

1. One TCP flow of each variant against CBR rates from 0 to 10 Mb/s: throughput, latency and
   drop rate (Figs. 2-4).
2. Two TCP flows, both N1 -> N4, of the pairs Vegas/Vegas, Reno/Reno, Reno/NewReno and
   NewReno/Vegas against the same CBR rates: per-flow throughput, drops and Jain's fairness
   index (Figs. 5-8).
3. One Reno or SACK flow from 0 s; an 8 Mb/s CBR flow joins at 5 s; DropTail against RED on
   every link (Figs. 9-10).

ns-2 defaults throughout (the paper used them "whenever we had the option"), i.e. renolab's
``ns2`` profile: 1000-byte segments, SYN handshake, a plain ACK per segment, 200 ms minimum RTO,
50-packet DropTail queues (ns-2's ``limit_``) and RED with ns-2.35's defaults; CBR packets of
1000 bytes without jitter. One exception: the receiver window. ns-2's default ``window_`` of 20
segments caps a flow at 2.7 Mb/s on this 62 ms round trip, so it could neither fill the link
(experiment 3: "TCP had been able to fully utilize the network") nor build the ~80 ms latencies
of §3a; the paper's results need a larger window, and we use 1000 segments (no limit here).

Not in the paper and chosen here: 20 s per run (10 s in quick mode), TCP start times drawn
uniformly from the first 100 ms (seeds differ in those and in the SYN clock phase), the CBR
rate of experiment 3 (8 Mb/s) and the second flow's endpoints in experiment 2 (the same as the
first: the paper does not name them, and a chain offers no other path through N2 -> N3 with the
same round trip).
"""

from __future__ import annotations

from typing import Any

from renolab import topology
from renolab.scenario import Scenario

STUDY = "fickling"
TITLE = "Performance Comparisons of Reno, New-Reno, Tahoe, and Vegas TCP"

VARIANTS = ("tahoe", "reno", "newreno", "vegas")
PAIRS = (("vegas", "vegas"), ("reno", "reno"), ("reno", "newreno"), ("newreno", "vegas"))
WINDOW = 1000
#: ns-2's default receiver window (``Agent/TCP set window_ 20``).
NS2_WINDOW = 20
QUEUE_LIMIT = 50
CBR_PACKET = 1000
EXP3_CBR_MBPS = 8.0
EXP3_CBR_START_S = 5.0
MSS = 1000


def _links(queue: str = "droptail") -> list[dict[str, Any]]:
    q: dict[str, Any] = {"kind": queue, "limit": QUEUE_LIMIT}
    return topology.chain(6, link={"rate": "10Mbps", "delay": "10ms", "queue": q})


def _tcp(name: str, variant: str, start: Any = None, window: int = WINDOW) -> dict[str, Any]:
    return {
        "name": name,
        "variant": variant,
        "src": "N1",
        "dst": "N4",
        "start": start if start is not None else {"uniform": ["0s", "0.1s"]},
        "options": {"window": window},
    }


def _cbr(rate_mbps: float, start: str = "0s") -> dict[str, Any]:
    return {"name": "cbr", "kind": "cbr", "src": "N2", "dst": "N3", "rate": f"{rate_mbps:g}Mbps", "packet_bytes": CBR_PACKET, "start": start}


def experiment1(variant: str, cbr_mbps: float, *, seed: int = 1, duration_s: float = 20.0) -> Scenario:
    """One TCP flow (N1 -> N4) against CBR at *cbr_mbps* (N2 -> N3)."""
    flows = [_tcp("tcp", variant)]
    if cbr_mbps > 0:
        flows.append(_cbr(cbr_mbps))
    return Scenario(
        description=f"fickling experiment 1: {variant} against {cbr_mbps:g} Mb/s CBR on the six-node chain",
        simulation={"seed": seed, "profile": "ns2", "duration": f"{duration_s:g}s"},
        link=_links(),
        flow=flows,
    )


def experiment2(pair: tuple[str, str], cbr_mbps: float, *, seed: int = 1, duration_s: float = 20.0) -> Scenario:
    """Two TCP flows ``a`` and ``b`` (both N1 -> N4) of the variants *pair* against CBR."""
    flows = [_tcp("a", pair[0]), _tcp("b", pair[1])]
    if cbr_mbps > 0:
        flows.append(_cbr(cbr_mbps))
    return Scenario(
        description=f"fickling experiment 2: {pair[0]} and {pair[1]} against {cbr_mbps:g} Mb/s CBR",
        simulation={"seed": seed, "profile": "ns2", "duration": f"{duration_s:g}s"},
        link=_links(),
        flow=flows,
    )


def experiment3(variant: str, queue: str, *, seed: int = 1, duration_s: float = 20.0, window: int = WINDOW) -> Scenario:
    """One TCP flow from 0 s and an 8 Mb/s CBR flow from 5 s; *queue* is droptail or red on every link;
    *window*: the receiver window (ns-2's default is 20)."""
    return Scenario(
        description=f"fickling experiment 3: {variant}, {queue} queues, window {window}, CBR {EXP3_CBR_MBPS:g} Mb/s from {EXP3_CBR_START_S:g} s",
        simulation={"seed": seed, "profile": "ns2", "duration": f"{duration_s:g}s"},
        link=_links(queue),
        flow=[_tcp("tcp", variant, window=window), _cbr(EXP3_CBR_MBPS, start=f"{EXP3_CBR_START_S:g}s")],
    )
