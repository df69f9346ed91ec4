"""Measuring one run: renolab or ns-2 in a fresh child process that reports its own wall
time and peak memory (``VmHWM``), and what the Python layer costs on top of the core."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from renolab import _core
from renolab._core import SimulationError
from renolab.scenario import Scenario

#: Flow i of the dumbbell starts at (i-1) x this many milliseconds (ns-2's script default).
START_SPACING_MS = 10.0


@dataclass
class Run:
    """One simulation run in a child process."""

    run_wall_s: float  #: wall time of the simulation run itself
    process_wall_s: float  #: wall time of the whole child process
    peak_rss_bytes: Optional[int]  #: the child's peak resident set size (None: unknown)
    delivered: int  #: data packets delivered in order
    events: Optional[int] = None  #: events processed (renolab only)
    #: packets put on links, each link a packet crosses counted once (renolab only): the
    #: "packet transmissions" of the parallel-simulation literature
    transmissions: Optional[int] = None
    controller_calls: Optional[int] = None  #: calls into a Python controller
    outcome: Optional[tuple[Any, ...]] = None  #: the flow's retransmits, timeouts, drops

    @property
    def delivered_per_s(self) -> float:
        return self.delivered / self.run_wall_s

    @property
    def events_per_s(self) -> Optional[float]:
        return None if self.events is None else self.events / self.run_wall_s

    @property
    def transmissions_per_s(self) -> Optional[float]:
        return None if self.transmissions is None else self.transmissions / self.run_wall_s


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
tx = sum(out["links"]["packets_sent"])
print(json.dumps({"wall_s": wall, "events": s["events"], "delivered": s["packets_delivered"], "tx": tx, "rss": vmhwm()}))
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
        transmissions=int(data["tx"]),
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
# The controller is the one named on renolab bench's command line: the user's own request.
python = controllers(scenario._data, text, allow_python=True) if names_python_controller(scenario._data) else None
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
        Path(__file__).resolve().parents[3] / "benchmarks" / "dumbbell.tcl",
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
