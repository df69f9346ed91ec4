"""``renolab bench``: renolab measured side by side with ns-2.35.

Three cases:

- the reference dumbbell (:func:`reference_scenario`): S_i -(10 Gb/s, 1 ms)- R1 -(1 Gb/s,
  8 ms)- R2 -(10 Gb/s, 1 ms)- D_i, RTT 20 ms, a DropTail bottleneck of one BDP (1667
  packets), one unlimited Reno transfer per pair, flow i starting at (i-1) x 10 ms, 30
  simulated seconds; 1 and 10 flows;
- the large case (``--large``): the same dumbbell with 100 flows and a 10 Gb/s bottleneck;
- the lee2001 grid (``--lee2001-grid``): the 72 runs of C x B x {reno, newreno (Hoe), sack}
  of :mod:`renolab.experiments.lee2001`, as a sweep over every core;
- how cost grows (``--scaling``): flows 1, 10, 100, 1000 on one 10 Gb/s bottleneck (flows
  1 ms apart: issue 18's 1000-flow scenario), bottlenecks of 100 Mb/s to 100 Gb/s with one
  flow, and 10, 30 and 100 simulated seconds of the one-flow reference dumbbell: wall time,
  events per delivered packet, events per second and peak memory; ns-2 beside each case
  unless its predicted time passes ten minutes;
- a Python controller (``--python-cc``): the one-flow reference dumbbell with the built-in
  Reno and with the Python Reno of ``examples/python_reno.py`` (or another controller),
  alternating, each in a fresh child process: their speed ratio and the Python
  controller's calls (ACKs, nearly all) per second of the run.

For the dumbbells each repeat runs renolab and then (with ``--against ns2``) ns-2 on
``benchmarks/dumbbell.tcl``, each in a fresh child process that reports its own peak RSS
(``VmHWM``), alternating the two so that a change in the machine's load hits both. The
figure of merit is data packets delivered in order per wall-clock second of the simulation
run itself (renolab: the call into the engine, scenario parsing included; ns-2: ``$ns run``).

Like for like: renolab runs under ``profile = "ns2"`` (ns-2.35's one-way agents, its
DropTail limit that counts the packet on the wire, its tick-based RTO), with the settings of
the ns-2 script written out; both print how many packets they delivered, which must agree.

The renolab child loads only the engine (``renolab._core``), not the package's pandas-based
layer, so its RSS is the simulator's plus a bare interpreter's, as ns-2's is the simulator's
plus a Tcl interpreter's. What the Python layer costs in time is measured separately, in
this process: ``Scenario.run()`` against the core's own timing of its event loop.
"""

from __future__ import annotations

import json
import math
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from renolab import _core
from renolab._core import SimulationError
from renolab.pool import cpu_count, run_each
from renolab.scenario import Scenario
from renolab.units import duration_ns

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
START_SPACING_MS = 10.0



# -- the scenario -------------------------------------------------------------


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


def parse_duration(text: str) -> float:
    """``"30s"``, ``"500ms"``, ``"1.5min"`` (read as a scenario's durations are,
    :func:`renolab.units.duration_ns`) or a bare number of seconds, in seconds."""
    try:
        seconds = float(text)
    except ValueError:
        try:
            seconds = duration_ns(text) / 1e9
        except ValueError:
            raise ValueError(f"{text!r} is not a duration; use e.g. 30s or 500ms") from None
    if not (seconds > 0 and math.isfinite(seconds)):
        raise ValueError(f"{text!r}: the duration must be positive")
    return seconds


def _duration_text(seconds: float) -> str:
    return f"{seconds:.9g}s"


# -- measuring one run in a child process ---------------------------------------


@dataclass
class Run:
    """One simulation run in a child process."""

    run_wall_s: float  #: wall time of the simulation run itself
    process_wall_s: float  #: wall time of the whole child process
    peak_rss_bytes: Optional[int]  #: the child's peak resident set size (None: unknown)
    delivered: int  #: data packets delivered in order
    events: Optional[int] = None  #: events processed (renolab only)
    controller_calls: Optional[int] = None  #: calls into a Python controller
    outcome: Optional[tuple[Any, ...]] = None  #: the flow's retransmits, timeouts, drops

    @property
    def delivered_per_s(self) -> float:
        return self.delivered / self.run_wall_s

    @property
    def events_per_s(self) -> Optional[float]:
        return None if self.events is None else self.events / self.run_wall_s


def _run_measured(argv: Sequence[str], stdin_text: str, what: str) -> tuple[str, float]:
    """Runs *argv* feeding it *stdin_text*; returns (stdout, wall seconds of the process)."""
    start = time.perf_counter()
    proc = subprocess.run(list(argv), input=stdin_text, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        detail = " ".join(proc.stderr.strip().splitlines()[-3:]) or f"exit status {proc.returncode}"
        raise SimulationError(f"{what} failed: {detail}")
    return proc.stdout, wall


#: The renolab child: loads the engine alone (not the package, which imports pandas),
#: reads the scenario as JSON on stdin, runs it and prints what it measured, its peak RSS
#: included. The peak RSS is read by each child itself (VmHWM in /proc/self/status, in kB):
#: getrusage() and wait4() report a ru_maxrss that survives exec(), so a child forked from
#: this (large) Python process would show this process's RSS.
_RENOLAB_CHILD = """\
import importlib.util, json, sys, time
def vmhwm():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None
spec = importlib.util.spec_from_file_location("renolab._core", sys.argv[1])
core = importlib.util.module_from_spec(spec)
spec.loader.exec_module(core)
scenario = sys.stdin.read()
start = time.perf_counter()
out = core.run(scenario)
wall = time.perf_counter() - start
s = out["summary"]
print(json.dumps({"wall_s": wall, "events": s["events"], "delivered": s["packets_delivered"], "rss": vmhwm()}))
"""


def run_renolab(scenario: Scenario) -> Run:
    """Runs *scenario* in a child Python process that loads only the engine."""
    core_path = getattr(_core, "__file__", None)
    if not core_path:  # pragma: no cover - a built-in module
        raise SimulationError("renolab._core has no file to load in a child process")
    argv = [sys.executable, "-c", _RENOLAB_CHILD, core_path]
    out, wall = _run_measured(argv, scenario.to_json(), "renolab")
    data = json.loads(out.strip().splitlines()[-1])
    return Run(
        run_wall_s=data["wall_s"],
        process_wall_s=wall,
        peak_rss_bytes=data["rss"],
        delivered=int(data["delivered"]),
        events=int(data["events"]),
    )


#: The Python-controller child: loads the package (renolab.cc resolves the controller),
#: times the engine's run alone.
_PYTHON_CC_CHILD = """\
import json, sys, time
from renolab import _core
from renolab.cc.load import controllers, names_python_controller
from renolab.scenario import Scenario
scenario = Scenario.from_dict(json.loads(sys.stdin.read()))
text = scenario.to_json()
python = controllers(scenario._data, text) if names_python_controller(scenario._data) else None
start = time.perf_counter()
out = _core.run(text, [], False, None, None, None, controllers=python)
wall = time.perf_counter() - start
s, f = out["summary"], out["flows"]
print(json.dumps({"wall_s": wall, "events": s["events"], "delivered": s["packets_delivered"],
                  "calls": s.get("python_controller_calls"),
                  "outcome": [f["retransmits"][0], f["timeouts"][0], f["drops"][0]]}))
"""


def run_with_package(scenario: Scenario) -> Run:
    """Runs *scenario* in a child Python process that loads the package (what a Python
    controller needs)."""
    out, wall = _run_measured([sys.executable, "-c", _PYTHON_CC_CHILD], scenario.to_json(), "renolab")
    data = json.loads(out.strip().splitlines()[-1])
    return Run(
        run_wall_s=data["wall_s"],
        process_wall_s=wall,
        peak_rss_bytes=None,
        delivered=int(data["delivered"]),
        events=int(data["events"]),
        controller_calls=data["calls"],
        outcome=tuple(data["outcome"]),
    )


def ns2_executable() -> Optional[str]:
    """Path of ns-2's ``ns``, or None when it is not installed."""
    return shutil.which("ns")


def default_ns2_script() -> Path:
    """``benchmarks/dumbbell.tcl`` of the source tree (or of the current directory)."""
    candidates = [
        Path(__file__).resolve().parents[2] / "benchmarks" / "dumbbell.tcl",
        Path.cwd() / "benchmarks" / "dumbbell.tcl",
    ]
    for path in candidates:
        if path.is_file():
            return path
    return candidates[-1]


def run_ns2(
    flows: int,
    bottleneck_bps: int,
    duration_s: float,
    buffer_packets: int,
    script: Path,
    start_spacing_ms: float = START_SPACING_MS,
) -> Run:
    """Runs ns-2 on the dumbbell script; its ``result`` line gives delivered packets and run time."""
    ns = ns2_executable()
    if ns is None:
        raise SimulationError("ns-2 is not installed (no `ns` on PATH)")
    argv = [ns, str(script), str(flows), str(bottleneck_bps), f"{duration_s:.9g}", str(buffer_packets)]
    if start_spacing_ms != START_SPACING_MS:
        argv.append(f"{start_spacing_ms / 1000:.9g}")
    out, wall = _run_measured(argv, "", "ns-2")
    lines = [line.split() for line in out.splitlines() if line.startswith("result ")]
    if not lines or len(lines[-1]) != 7:
        raise SimulationError(f"ns-2 printed no result line (got {out.strip()[-200:]!r})")
    fields = lines[-1]
    return Run(
        run_wall_s=float(fields[5]),
        process_wall_s=wall,
        peak_rss_bytes=int(fields[6]) * 1024 if fields[6].isdigit() else None,
        delivered=int(fields[4]),
    )


def python_overhead(scenario: Scenario) -> tuple[float, float]:
    """Runs *scenario* through ``Scenario.run()`` here; returns (its wall time, the core's
    own wall time of the event loop) in seconds."""
    start = time.perf_counter()
    result = scenario.run()
    wall = time.perf_counter() - start
    return wall, float(result.summary["core_wall_time_s"])


# -- the dumbbell cases -----------------------------------------------------------


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
            _duration_text(self.duration_s),
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
) -> Case:
    """Measures *case* *repeat* times, renolab and ns-2 alternating.

    *skip_ns2*, asked after the first renolab run, may give a reason not to run ns-2 at all
    (it becomes the case's ``ns2_note``).
    """
    scenario = case.scenario()
    skip: Optional[str] = None
    for k in range(repeat):
        progress(f"{case.title}: renolab run {k + 1}/{repeat}")
        case.renolab.append(run_renolab(scenario))
        if against_ns2 and ns2_script is not None:
            if k == 0:
                skip = skip_ns2(case)
                if skip is not None:
                    case.ns2_note = skip
            if skip is None:
                progress(f"{case.title}: ns-2 run {k + 1}/{repeat}")
                case.ns2.append(
                    run_ns2(
                        case.flows,
                        case.bottleneck_bps,
                        case.duration_s,
                        case.buffer_packets,
                        ns2_script,
                        case.start_spacing_ms,
                    )
                )
        if measure_python:
            progress(f"{case.title}: Scenario.run() {k + 1}/{repeat}")
            case.python.append(python_overhead(scenario))
    return case


def _spread(values: Sequence[float]) -> tuple[float, float, float]:
    return min(values), statistics.median(values), max(values)


def _si(value: float) -> str:
    for scale, suffix in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.3g}"


def _ranged(values: Sequence[float], fmt: Callable[[float], str]) -> str:
    lo, mid, hi = _spread(values)
    if len(values) == 1:
        return fmt(mid)
    return f"{fmt(mid)} [{fmt(lo)}-{fmt(hi)}]"


def _peak_rss(runs: Sequence[Run]) -> str:
    known = [r.peak_rss_bytes for r in runs if r.peak_rss_bytes is not None]
    return f"{max(known) / 1e6:.1f}" if known else "n/a"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return [line(headers), *(line(r) for r in rows)]


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
                _ranged([r.run_wall_s for r in runs], lambda v: f"{v:.3f}"),
                f"{statistics.median(r.process_wall_s for r in runs):.3f}",
                _peak_rss(runs),
                _si(statistics.median(events)) if events else "n/a",
                f"{runs[-1].delivered:,}",
                _ranged([r.delivered_per_s for r in runs], _si),
            ]
        )
    lines += ["  " + line for line in _table(headers, rows)]
    if case.ns2:
        ratios = [a.delivered_per_s / b.delivered_per_s for a, b in zip(case.renolab, case.ns2)]
        lo, mid, hi = _spread(ratios)
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
        lo, mid, hi = _spread(overheads)
        wall = statistics.median(w for w, _ in case.python)
        core = statistics.median(c for _, c in case.python)
        lines.append(
            f"  Python overhead: Scenario.run() {wall:.3f} s vs the core's event loop {core:.3f} s: "
            f"median {mid:+.1%} (min {lo:+.1%}, max {hi:+.1%})"
        )
    return "\n".join(lines)


# -- how cost grows ---------------------------------------------------------------


#: Flows on one bottleneck (of SCALING_FLOWS_RATE_BPS, flows SCALING_SPACING_MS apart).
SCALING_FLOWS = (1, 10, 100, 1000)
SCALING_FLOWS_RATE_BPS = 10_000_000_000
#: 1000 flows 10 ms apart would not all have started in 10 s: issue 18's scenario starts
#: them 1 ms apart.
SCALING_SPACING_MS = 1.0
#: Bottleneck rates with one flow.
SCALING_RATES_BPS = (100_000_000, 1_000_000_000, 10_000_000_000, 100_000_000_000)
#: The shortest run, and the longer ones as multiples of it (one flow, 1 Gb/s).
SCALING_DURATION = "10s"
SCALING_DURATION_FACTORS = (1, 3, 10)
#: ns-2 is not run on a case it is predicted to take longer than this on (seconds).
NS2_TIME_LIMIT_S = 600.0


@dataclass
class ScalingRow:
    """One row of the scaling table: the axis it belongs to and its case (rows with the same
    settings share one case, measured once)."""

    axis: str
    case: Case


def scaling_rows(base_s: float) -> list[ScalingRow]:
    """The rows of ``--scaling`` with a shortest run of *base_s* seconds: flows, bottleneck
    rate and duration in turn. Rows with the same settings share one :class:`Case`."""
    cases: dict[tuple[int, int, float, float], Case] = {}

    def case(flows: int, rate: int, seconds: float, spacing: float) -> Case:
        # One flow starts at 0 whatever the spacing: the same run.
        key = (flows, rate, seconds, spacing if flows > 1 else START_SPACING_MS)
        if key not in cases:
            cases[key] = Case("scaling", flows, rate, seconds, bdp_packets(rate), start_spacing_ms=key[3])
        return cases[key]

    rows = [ScalingRow("flows", case(n, SCALING_FLOWS_RATE_BPS, base_s, SCALING_SPACING_MS)) for n in SCALING_FLOWS]
    rows += [ScalingRow("bottleneck", case(1, rate, base_s, START_SPACING_MS)) for rate in SCALING_RATES_BPS]
    rows += [
        ScalingRow("duration", case(1, REFERENCE_RATE_BPS, base_s * k, START_SPACING_MS)) for k in SCALING_DURATION_FACTORS
    ]
    return rows


def _label(row: ScalingRow) -> str:
    case = row.case
    if row.axis == "flows":
        return f"flows={case.flows}"
    if row.axis == "bottleneck":
        return f"bottleneck={_rate_text(case.bottleneck_bps)}"
    return f"duration={case.duration_s:g}s"


def _rate_text(bps: int) -> str:
    return f"{bps / 1e9:g} Gb/s" if bps >= 1_000_000_000 else f"{bps / 1e6:g} Mb/s"


def predict_ns2_s(row: ScalingRow, done: Sequence[ScalingRow]) -> Optional[tuple[float, ScalingRow]]:
    """ns-2's predicted run time on *row*'s case, from its first renolab run and the
    ns-2/renolab ratio of the last case measured with both on the same axis (else on any),
    and that case's row; None when no case has been measured with both."""
    measured = [r for r in done if r.case.ns2 and r.case is not row.case]
    same_axis = [r for r in measured if r.axis == row.axis]
    basis = (same_axis or measured or [None])[-1]
    if basis is None or not row.case.renolab:
        return None
    ratio = statistics.median(r.run_wall_s for r in basis.case.ns2) / statistics.median(
        r.run_wall_s for r in basis.case.renolab
    )
    return row.case.renolab[0].run_wall_s * ratio, basis


def run_scaling(
    rows: Sequence[ScalingRow],
    repeat: int,
    *,
    against_ns2: bool,
    ns2_script: Optional[Path],
    progress: Callable[[str], None] = lambda _m: None,
) -> Sequence[ScalingRow]:
    """Measures each distinct case of *rows* *repeat* times (renolab and ns-2 alternating),
    leaving ns-2 out of a case predicted to take it longer than :data:`NS2_TIME_LIMIT_S`."""
    done: list[ScalingRow] = []
    for row in rows:
        if not row.case.renolab:

            def skip(case: Case, row: ScalingRow = row) -> Optional[str]:
                predicted = predict_ns2_s(row, done)
                if predicted is None or predicted[0] <= NS2_TIME_LIMIT_S:
                    return None
                seconds, basis = predicted
                return (
                    f"not run: predicted {seconds:.0f} s > {NS2_TIME_LIMIT_S:.0f} s (renolab's "
                    f"{case.renolab[0].run_wall_s:.2f} s x the ns-2/renolab time ratio at {_label(basis)})"
                )

            row.case.title = f"scaling {_label(row)}"
            run_case(
                row.case,
                repeat,
                against_ns2=against_ns2,
                ns2_script=ns2_script,
                measure_python=False,
                progress=progress,
                skip_ns2=skip,
            )
        done.append(row)
    return rows


def format_scaling(rows: Sequence[ScalingRow]) -> str:
    """The scaling table: a row per case (renolab, then ns-2 where it ran), then why ns-2
    was left out where it was."""
    n = len(rows[0].case.renolab)
    lines = [
        "scaling: the reference dumbbell (access links 10x the bottleneck, 1 ms; bottleneck 8 ms "
        "with a one-BDP DropTail queue; unlimited Reno flows) as the work grows: flows "
        f"{SCALING_SPACING_MS:g} ms apart on {_rate_text(SCALING_FLOWS_RATE_BPS)}; one flow on each "
        f"bottleneck; one flow on {_rate_text(REFERENCE_RATE_BPS)} for longer; "
        f"{n} repeat{'s' * (n != 1)}, median (peak RSS: largest)"
    ]
    headers = [
        "case",
        "flows",
        "bottleneck",
        "sim s",
        "run wall s",
        "process s",
        "peak RSS MB",
        "events",
        "events/pkt",
        "events/s",
        "delivered",
        "ns-2 run s",
        "ns-2 RSS MB",
        "ns-2/renolab",
        "delivered vs ns-2",
    ]
    table = []
    notes: dict[int, str] = {}
    for row in rows:
        case, runs = row.case, row.case.renolab
        run_s = statistics.median(r.run_wall_s for r in runs)
        events = runs[-1].events or 0
        delivered = runs[-1].delivered
        cells = [
            _label(row),
            str(case.flows),
            _rate_text(case.bottleneck_bps),
            f"{case.duration_s:g}",
            f"{run_s:.3f}",
            f"{statistics.median(r.process_wall_s for r in runs):.3f}",
            _peak_rss(runs),
            _si(events),
            f"{events / delivered:.2f}" if delivered else "n/a",
            _si(events / run_s),
            f"{delivered:,}",
        ]
        if case.ns2:
            ns2_s = statistics.median(r.run_wall_s for r in case.ns2)
            theirs = case.ns2[-1].delivered
            cells += [
                f"{ns2_s:.3f}",
                _peak_rss(case.ns2),
                f"{ns2_s / run_s:.2f}",
                f"{(delivered - theirs) / theirs:+.2%}" if theirs else "n/a",
            ]
        else:
            cells += ["-", "-", "-", "-"]
            if case.ns2_note:
                notes.setdefault(id(case), f"{_label(row)}: {case.ns2_note}")
        table.append(cells)
    lines += ["  " + line for line in _table(headers, table)]
    if any(sum(o.case is r.case for o in rows) > 1 for r in rows):
        lines.append("  (rows with the same settings are one measured case)")
    reasons = {note.split(": ", 1)[1] for note in notes.values()}
    if len(notes) > 1 and len(reasons) == 1:
        lines.append(f"  ns-2: {reasons.pop()}")
    else:
        lines += [f"  ns-2 at {note}" for note in notes.values()]
    return "\n".join(lines)


# -- the lee2001 grid -------------------------------------------------------------


GRID_VARIANTS = ("reno", "newreno", "sack")


def lee2001_grid_points() -> list[tuple[int, int, str]]:
    """The 72 points (capacity Mb/s, buffer packets, variant) of C x B x {reno, newreno, sack}."""
    from renolab.experiments import lee2001

    return [
        (c, lee2001.buffer_packets(c, fraction), variant)
        for c in lee2001.CAPACITIES_MBPS
        for fraction in lee2001.BUFFER_FRACTIONS
        for variant in GRID_VARIANTS
    ]


def _grid_point(point: tuple[int, int, str]) -> tuple[int, int, str, Optional[float], int, float]:
    """One grid run (in a worker): (C, B, variant, completion s, events, wall s)."""
    from renolab.experiments import lee2001

    capacity, buffer, variant = point
    start = time.perf_counter()
    result = lee2001.scenario(capacity, buffer, variant).run()
    wall = time.perf_counter() - start
    completion = result.flows["completion_time_s"].iloc[0]
    done = None if completion is None or math.isnan(completion) else float(completion)
    return capacity, buffer, variant, done, int(result.summary["events"]), wall


@dataclass
class GridRun:
    """One sweep over the grid."""

    wall_s: float
    workers: int
    points: list[tuple[int, int, str, Optional[float], int, float]]


def run_lee2001_grid(
    jobs: Optional[int] = None, points: Optional[Sequence[tuple[int, int, str]]] = None
) -> GridRun:
    """Runs the lee2001 grid (or *points*) on *jobs* worker processes (default: every core).

    The wall time covers the whole sweep, starting the workers included.
    """
    todo = list(lee2001_grid_points() if points is None else points)
    workers = jobs or cpu_count()
    done: list[Any] = [None] * len(todo)
    start = time.perf_counter()
    for index, point, error in run_each(_grid_point, todo, workers=workers, in_process_errors=()):
        if error is not None:
            raise error
        done[index] = point
    return GridRun(wall_s=time.perf_counter() - start, workers=workers, points=done)


def format_grid(runs: Sequence[GridRun]) -> str:
    n = len(runs)
    first = runs[0]
    finished = sum(1 for p in first.points if p[3] is not None)
    events = sum(p[4] for p in first.points)
    cpu = statistics.median(sum(p[5] for p in r.points) for r in runs)
    lo, mid, hi = _spread([r.wall_s for r in runs])
    return "\n".join(
        [
            f"lee2001 grid: {len(first.points)} runs (C x B x {{{', '.join(GRID_VARIANTS)}}}, 8 MiB each) "
            f"on {first.workers} worker process{'es' * (first.workers != 1)}; {n} repeat{'s' * (n != 1)}",
            f"  wall time: min {lo:.2f} s, median {mid:.2f} s, max {hi:.2f} s",
            f"  sum of the runs' own times: {cpu:.2f} s; {events:,} events; "
            f"{finished}/{len(first.points)} transfers finished",
        ]
    )


# -- a Python controller against the built-in Reno --------------------------------------


#: The controller ``--python-cc`` measures by default: the Python Reno of the examples.
DEFAULT_PYTHON_CC = "examples/python_reno.py:Reno"


def python_cc_variant(controller: str) -> str:
    """The variant naming *controller*: ``"python:..."`` as given, or ``FILE.py:Class``
    (relative to the current directory, else to the source tree) made absolute."""
    if controller.startswith("python:"):
        return controller
    path, sep, name = controller.rpartition(":")
    if not sep or not path.endswith(".py"):
        raise ValueError(f"{controller!r}: give FILE.py:Class or python:<module>:<Class>")
    candidates = [Path(path), Path(__file__).resolve().parents[2] / path]
    for candidate in candidates:
        if candidate.is_file():
            return f"python:{candidate.resolve()}:{name}"
    raise FileNotFoundError(2, "controller file not found (run from the source tree or give its path)", path)


@dataclass
class PythonCcCase:
    """The reference dumbbell with the built-in Reno and with a Python controller."""

    controller: str
    duration_s: float
    builtin: list[Run] = field(default_factory=list)
    python: list[Run] = field(default_factory=list)

    def scenarios(self) -> tuple[Scenario, Scenario]:
        builtin = reference_scenario(1, duration=_duration_text(self.duration_s))
        data = builtin.to_dict()
        data["flow"][0]["variant"] = python_cc_variant(self.controller)
        return builtin, Scenario.from_dict(data)


def run_python_cc(case: PythonCcCase, repeat: int, progress: Callable[[str], None] = lambda _m: None) -> PythonCcCase:
    """Measures *case* *repeat* times, the built-in and the Python controller alternating."""
    builtin, python = case.scenarios()
    python.validate()  # the controller exists and takes its arguments, before anything runs
    for k in range(repeat):
        progress(f"built-in reno run {k + 1}/{repeat}")
        case.builtin.append(run_with_package(builtin))
        progress(f"Python controller run {k + 1}/{repeat}")
        case.python.append(run_with_package(python))
    return case


def format_python_cc(case: PythonCcCase) -> str:
    """The report: a row per controller, then the speed ratio and the agreement."""
    n = len(case.python)
    lines = [
        f"Python controller {case.controller} against the built-in reno: reference dumbbell, 1 flow, "
        f"1 Gb/s bottleneck, {case.duration_s:g} s simulated; {n} repeat{'s' * (n != 1)}, median [min-max]"
    ]
    headers = ["controller", "run wall s", "delivered pkts", "controller calls", "calls/s"]
    rows = []
    for name, runs in (("built-in reno", case.builtin), ("Python", case.python)):
        calls = runs[-1].controller_calls
        rows.append(
            [
                name,
                _ranged([r.run_wall_s for r in runs], lambda v: f"{v:.3f}"),
                f"{runs[-1].delivered:,}",
                "-" if calls is None else f"{calls:,}",
                "-" if calls is None else _ranged([(r.controller_calls or 0) / r.run_wall_s for r in runs], _si),
            ]
        )
    lines += ["  " + line for line in _table(headers, rows)]
    ratios = [b.run_wall_s / p.run_wall_s for b, p in zip(case.builtin, case.python)]
    lo, mid, hi = _spread(ratios)
    lines.append(
        f"  speed of the Python controller / the built-in's: median {mid:.2f} (min {lo:.2f}, max {hi:.2f}) "
        f"over {len(ratios)} paired run{'s' * (len(ratios) != 1)}"
    )
    same = all(
        (b.delivered, b.outcome) == (p.delivered, p.outcome) for b, p in zip(case.builtin, case.python)
    )
    ours = case.python[-1]
    lines.append(
        f"  delivered packets, retransmits, timeouts and drops: {'identical' if same else 'DIFFERENT'} "
        f"({ours.delivered:,}; {ours.outcome[0] if ours.outcome else '?'} retransmits)"
    )
    return "\n".join(lines)
