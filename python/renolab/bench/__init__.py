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
  events per delivered packet, events per second, packet transmissions per second (every
  packet put on every link) and peak memory; ns-2 beside each case unless its predicted
  time passes ten minutes;
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

from renolab.bench.dumbbell import (
    ACCESS_QUEUE_PACKETS,
    ACCESS_SPEEDUP,
    AGREEMENT,
    HEADER_BYTES,
    LARGE_DURATION,
    LARGE_FLOWS,
    LARGE_RATE_BPS,
    MSS_BYTES,
    REFERENCE_DURATION,
    REFERENCE_RATE_BPS,
    RTT_S,
    WIRE_BYTES,
    Case,
    bdp_packets,
    format_case,
    reference_scenario,
    run_case,
)
from renolab.bench.grid import GRID_VARIANTS, GridRun, format_grid, lee2001_grid_points, run_lee2001_grid
from renolab.bench.measure import (
    START_SPACING_MS,
    Run,
    default_ns2_script,
    ns2_executable,
    python_overhead,
    run_ns2,
    run_renolab,
    run_with_package,
)
from renolab.bench.python_cc import DEFAULT_PYTHON_CC, PythonCcCase, format_python_cc, python_cc_variant, run_python_cc
from renolab.bench.scaling import (
    NS2_TIME_LIMIT_S,
    SCALING_DURATION,
    SCALING_DURATION_FACTORS,
    SCALING_FLOWS,
    SCALING_FLOWS_RATE_BPS,
    SCALING_RATES_BPS,
    SCALING_SPACING_MS,
    ScalingRow,
    format_scaling,
    predict_ns2_s,
    run_scaling,
    scaling_rows,
)
from renolab.bench.text import parse_duration

__all__ = [
    "ACCESS_QUEUE_PACKETS", "ACCESS_SPEEDUP", "AGREEMENT", "DEFAULT_PYTHON_CC", "GRID_VARIANTS", "HEADER_BYTES",
    "LARGE_DURATION", "LARGE_FLOWS", "LARGE_RATE_BPS", "MSS_BYTES", "NS2_TIME_LIMIT_S", "REFERENCE_DURATION",
    "REFERENCE_RATE_BPS", "RTT_S", "SCALING_DURATION", "SCALING_DURATION_FACTORS", "SCALING_FLOWS",
    "SCALING_FLOWS_RATE_BPS", "SCALING_RATES_BPS", "SCALING_SPACING_MS", "START_SPACING_MS", "WIRE_BYTES",
    "Case", "GridRun", "PythonCcCase", "Run", "ScalingRow", "bdp_packets", "default_ns2_script", "format_case",
    "format_grid", "format_python_cc", "format_scaling", "lee2001_grid_points", "ns2_executable", "parse_duration",
    "predict_ns2_s", "python_cc_variant", "python_overhead", "reference_scenario", "run_case", "run_lee2001_grid",
    "run_ns2", "run_python_cc", "run_renolab", "run_scaling", "run_with_package", "scaling_rows",
]
