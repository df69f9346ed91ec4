"""The reference dumbbell against ns-2.35: the scenario both simulators run
(``benchmarks/dumbbell.tcl`` on the ns-2 side), a case measured on it, and its report."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from renolab.bench import measure
from renolab.bench.measure import START_SPACING_MS, Run
from renolab.bench.text import duration_text, peak_rss, ranged, si, spread, table
from renolab.scenario import Scenario

#: Payload and header bytes of a data segment (1500 bytes on the wire).
MSS_BYTES = 1460
HEADER_BYTES = 40
WIRE_BYTES = MSS_BYTES + HEADER_BYTES
#: Round-trip propagation delay of the dumbbell, seconds (2 x (1 + 8 + 1) ms).
RTT_S = 0.020
#: The reference bottleneck, bit/s.
REFERENCE_RATE_BPS = 1_000_000_000
#: The reference run length.
REFERENCE_DURATION = "30s"
#: The large case.
LARGE_FLOWS = 100
LARGE_RATE_BPS = 10_000_000_000
LARGE_DURATION = "10s"
#: Access links run this many times faster than the bottleneck.
ACCESS_SPEEDUP = 10
#: Queue of the access links: never the bottleneck.
ACCESS_QUEUE_PACKETS = 100_000
#: Delivered-packet counts of the two simulators must agree this closely (fraction).
AGREEMENT = 0.02
#: Flow i starts at (i-1) x this many milliseconds.


def bdp_packets(bottleneck_bps: int) -> int:
    """One bandwidth-delay product of the dumbbell in 1500-byte packets, rounded up."""
    return -(-bottleneck_bps * 20 // (1000 * 8 * WIRE_BYTES))


def reference_scenario(
    flows: int = 1,
    bottleneck_bps: int = REFERENCE_RATE_BPS,
    duration: str = REFERENCE_DURATION,
    *,
    buffer_packets: int | None = None,
    seed: int = 1,
    start_spacing_ms: float = START_SPACING_MS,
) -> Scenario:
    """The benchmark dumbbell with *flows* Reno flows, as ``benchmarks/dumbbell.tcl`` builds it.

    Access links run at ten times the bottleneck rate with 100000-packet queues; the
    bottleneck buffer defaults to one BDP (1667 packets at 1 Gb/s). Every flow is an
    unlimited Reno transfer of 1460-byte segments plus 40 bytes of header, without delayed
    ACKs, under the ``ns2`` profile with the timer settings of ``reference_dumbbell.toml``
    written out (initial window 2, initial RTO 3 s, minimum RTO 200 ms, 10 ms clock,
    receiver window 100000 segments). Flow i starts at (i-1) x *start_spacing_ms* (10 ms).
    """
    if flows < 1:
        raise ValueError(f"flows must be at least 1, not {flows}")
    buffer = bdp_packets(bottleneck_bps) if buffer_packets is None else buffer_packets
    access: dict[str, Any] = {
        "rate": f"{bottleneck_bps * ACCESS_SPEEDUP}bps",
        "delay": "1ms",
        "queue": {"kind": "droptail", "limit": ACCESS_QUEUE_PACKETS},
    }
    bottleneck = {
        "name": "bottleneck",
        "from": "r1",
        "to": "r2",
        "rate": f"{bottleneck_bps}bps",
        "delay": "8ms",
        "queue": {"kind": "droptail", "limit": buffer},
    }
    access_links: list[dict[str, Any]] = []
    egress_links: list[dict[str, Any]] = []
    flow_specs: list[dict[str, Any]] = []
    for i in range(1, flows + 1):
        suffix = "" if flows == 1 else str(i)
        access_links.append({"name": f"access{suffix}", "from": f"s{i}", "to": "r1", **access})
        egress_links.append({"name": f"egress{suffix}", "from": "r2", "to": f"d{i}", **access})
        flow_specs.append(
            {
                "name": f"f{i}",
                "kind": "tcp",
                "variant": "reno",
                "src": f"s{i}",
                "dst": f"d{i}",
                "start": f"{(i - 1) * start_spacing_ms:g}ms",
                "mss": MSS_BYTES,
                "header_bytes": HEADER_BYTES,
                "receiver": {"delayed_ack": False},
                "options": {
                    "window": 100_000,
                    "initial_window": 2,
                    "initial_rto": "3s",
                    "min_rto": "200ms",
                    "clock_granularity": "10ms",
                },
            }
        )
    return Scenario(
        description=(
            f"renolab bench dumbbell: {flows} Reno flow{'s' * (flows != 1)}, "
            f"{bottleneck_bps / 1e9:g} Gb/s bottleneck, {buffer}-packet DropTail, RTT 20 ms"
        ),
        simulation={"seed": seed, "profile": "ns2", "duration": duration},
        link=[*access_links, bottleneck, *egress_links],
        flow=flow_specs,
    )


@dataclass
class Case:
    """A dumbbell case and what was measured on it."""

    title: str
    flows: int
    bottleneck_bps: int
    duration_s: float
    buffer_packets: int
    renolab: list[Run] = field(default_factory=list)
    ns2: list[Run] = field(default_factory=list)
    python: list[tuple[float, float]] = field(default_factory=list)
    ns2_note: Optional[str] = None
    start_spacing_ms: float = START_SPACING_MS

    def scenario(self) -> Scenario:
        return reference_scenario(
            self.flows,
            self.bottleneck_bps,
            duration_text(self.duration_s),
            buffer_packets=self.buffer_packets,
            start_spacing_ms=self.start_spacing_ms,
        )


def run_case(
    case: Case,
    repeat: int,
    *,
    against_ns2: bool,
    ns2_script: Optional[Path],
    measure_python: bool = True,
    progress: Callable[[str], None] = lambda _m: None,
    skip_ns2: Callable[[Case], Optional[str]] = lambda _c: None,
    rounds: Optional[tuple[int, int]] = None,
) -> Case:
    """Measures *case* *repeat* times, renolab and ns-2 alternating.

    *skip_ns2*, asked after the first renolab run, may give a reason not to run ns-2 at all
    (it becomes the case's ``ns2_note``). *rounds*, ``(done, total)``, says that this call
    adds runs to a case measured in rounds (see :func:`run_scaling`): the first round asks
    *skip_ns2*, later ones keep its answer.
    """
    scenario = case.scenario()
    done, total = rounds if rounds is not None else (0, repeat)
    skip: Optional[str] = case.ns2_note if done else None
    for k in range(done, done + repeat):
        progress(f"{case.title}: renolab run {k + 1}/{total}")
        case.renolab.append(measure.run_renolab(scenario))
        if against_ns2 and ns2_script is not None:
            if k == 0:
                skip = skip_ns2(case)
                if skip is not None:
                    case.ns2_note = skip
            if skip is None:
                progress(f"{case.title}: ns-2 run {k + 1}/{total}")
                case.ns2.append(
                    measure.run_ns2(
                        case.flows,
                        case.bottleneck_bps,
                        case.duration_s,
                        case.buffer_packets,
                        ns2_script,
                        case.start_spacing_ms,
                    )
                )
        if measure_python:
            progress(f"{case.title}: Scenario.run() {k + 1}/{total}")
            case.python.append(measure.python_overhead(scenario))
    return case


def format_case(case: Case) -> str:
    """The report of one dumbbell case: one row per simulator, then the ratios."""
    n = len(case.renolab)
    lines = [
        f"{case.title}: {case.flows} Reno flow{'s' * (case.flows != 1)}, "
        f"{case.bottleneck_bps / 1e9:g} Gb/s bottleneck ({case.buffer_packets}-packet DropTail), RTT 20 ms, "
        f"{case.duration_s:g} s simulated; {n} repeat{'s' * (n != 1)}, median [min-max]"
    ]
    headers = [
        "simulator",
        "run wall s",
        "process wall s",
        "peak RSS MB",
        "events/s",
        "delivered pkts",
        "delivered pkts/s",
    ]
    rows = []
    for name, runs in (("renolab", case.renolab), ("ns-2", case.ns2)):
        if not runs:
            continue
        events = [r.events_per_s for r in runs if r.events_per_s is not None]
        rows.append(
            [
                name,
                ranged([r.run_wall_s for r in runs], lambda v: f"{v:.3f}"),
                f"{statistics.median(r.process_wall_s for r in runs):.3f}",
                peak_rss(runs),
                si(statistics.median(events)) if events else "n/a",
                f"{runs[-1].delivered:,}",
                ranged([r.delivered_per_s for r in runs], si),
            ]
        )
    lines += ["  " + line for line in table(headers, rows)]
    if case.ns2:
        ratios = [a.delivered_per_s / b.delivered_per_s for a, b in zip(case.renolab, case.ns2)]
        lo, mid, hi = spread(ratios)
        lines.append(
            f"  ratio renolab/ns-2 (delivered pkts/s): min {lo:.2f}, median {mid:.2f}, max {hi:.2f} "
            f"over {len(ratios)} paired run{'s' * (len(ratios) != 1)}"
        )
        ours, theirs = case.renolab[-1].delivered, case.ns2[-1].delivered
        diff = (ours - theirs) / theirs if theirs else math.inf
        verdict = "agree" if abs(diff) <= AGREEMENT else f"DIFFER by more than {AGREEMENT:.0%}"
        lines.append(
            f"  delivered packets {verdict}: renolab {ours:,}, ns-2 {theirs:,} ({diff:+.2%})"
        )
    elif case.ns2_note:
        lines.append(f"  ns-2: {case.ns2_note}")
    if case.python:
        overheads = [(wall - core) / core for wall, core in case.python]
        lo, mid, hi = spread(overheads)
        wall = statistics.median(w for w, _ in case.python)
        core = statistics.median(c for _, c in case.python)
        lines.append(
            f"  Python overhead: Scenario.run() {wall:.3f} s vs the core's event loop {core:.3f} s: "
            f"median {mid:+.1%} (min {lo:+.1%}, max {hi:+.1%})"
        )
    return "\n".join(lines)
