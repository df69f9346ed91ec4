"""Real kernels through renolab's links: run a scenario's TCP flows with the Linux kernel.

:func:`emulate` turns every node a TCP flow starts or ends at into a network namespace with
a TUN device, opens one real socket pair per flow (the sender's ``TCP_CONGESTION`` set to the
flow's variant), and carries every IP packet across the scenario's links with the
simulator's own link, queue and loss models, on the wall clock (the ``renolab-emu`` crate;
see ``docs/emulation.md``). It returns a :class:`renolab.Result` with the same tables and
traces as :meth:`renolab.Scenario.run`, plus ``summary["emulation"]``: how late the emulator
delivered packets against their schedule, the kernel settings in force in each namespace
and each sender's last ``TCP_INFO``.

Linux and root (CAP_NET_ADMIN and CAP_SYS_ADMIN) only: :func:`unsupported_reason` says why
a machine cannot. The scenario's names and variants are checked first on every platform
(:func:`check`), so a hostile name is refused before anything exists.

Variants: any congestion control the kernel offers (``reno``, ``cubic``, ``bbr``, ...);
``newreno`` is the kernel's reno without SACK and ``sack`` reno with SACK (Linux has no
Reno without NewReno's partial-ACK rule); ``tahoe`` is refused.
"""

from __future__ import annotations

import json
import os
import time
import warnings
from collections.abc import Iterable
from typing import Any, Union

from renolab import _core
from renolab._core import EmulationError, ScenarioError
from renolab.results import Result
from renolab.scenario import (
    PathLike,
    RenolabWarning,
    Scenario,
    _directory,
    _trace_names,
    _whole_number,
    stopped_short,
)

__all__ = [
    "EmulationError",
    "check",
    "disturbed",
    "emulate",
    "kernel_congestion_controls",
    "machine_disturbance",
    "timing_line",
    "unsupported_reason",
]

ScenarioLike = Union[Scenario, "dict[str, Any]"]

# A run whose deliveries were this late at the 99th percentile is not the path's: its kernels
# saw another network (docs/emulation.md, "Limits, measured": a quiet machine gives tens of
# microseconds).
SPOILED_P99_US = 1000.0
# The machine disturbed a run when the probe (a real-time thread woken every millisecond,
# `emulation.host_timer`) woke this late at the 99th percentile: a virtual machine's timers
# wake about 50 us late at the median and under 130 us at the 99th percentile even beside
# other work (measured on the 2-core VM of docs/emulation.md), so 300 us is the emulator's own
# 200 us budget plus the probe's base.
QUIET_TIMER_P99_US = 300.0
# ... or when its hypervisor took this share of the CPUs' time (`emulation.host_steal`).
QUIET_STEAL = 0.01


def _cpu_times() -> tuple[int, int] | None:
    """(all CPU time, time stolen by the hypervisor) of the machine so far, in clock ticks,
    from the first line of ``/proc/stat``; None where there is none."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if len(fields) < 9 or fields[0] != "cpu":
        return None
    ticks = [int(v) for v in fields[1:9]]  # user nice system idle iowait irq softirq steal
    return sum(ticks), ticks[7]


def _steal_fraction(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    if before is None or after is None or after[0] <= before[0]:
        return None
    return (after[1] - before[1]) / (after[0] - before[0])


def _as_scenario(scenario: ScenarioLike) -> Scenario:
    return scenario if isinstance(scenario, Scenario) else Scenario.from_dict(scenario)


def unsupported_reason() -> str | None:
    """Why this machine cannot emulate (not Linux, not root, no ``/dev/net/tun``, no
    iproute2), or None when it can."""
    reason: str | None = _core.emulation_unsupported()
    return reason


def kernel_congestion_controls() -> list[str]:
    """The congestion controls the running kernel offers (empty off Linux)."""
    return list(_core.kernel_congestion_controls())


def check(scenario: ScenarioLike) -> list[str]:
    """Check that *scenario* can be emulated (names that can safely name namespaces and
    devices, variants with a kernel counterpart) without creating anything; raises
    :class:`renolab.ScenarioError`, else returns the notes on what the emulator changes."""
    return list(_core.emulate_check(_as_scenario(scenario).to_json()))


def emulate(
    scenario: ScenarioLike,
    trace: str | Iterable[str] = (),
    *,
    trace_dir: PathLike | None = None,
    pcap_dir: PathLike | None = None,
    trace_memory_limit: int | None = None,
    tcp_info_interval_ms: float = 2.0,
    spin_us: float = 20.0,
    cpu: int | None = None,
    realtime: bool = True,
) -> Result:
    """Run *scenario* with real Linux TCP endpoints and return its :class:`renolab.Result`.

    *trace* as for :meth:`renolab.Scenario.run`: ``cwnd`` and ``rtt`` come from each
    sender's ``TCP_INFO`` sampled every *tcp_info_interval_ms* (``rtt`` holds the kernel's
    smoothed RTT: ``TCP_INFO`` has no per-ACK sample), ``cc`` from the same samples
    (pacing and delivery rates, min RTT; BBR's bandwidth estimate, gains and mode from
    ``TCP_CC_INFO``), ``seq``, ``queue``, ``drops`` and
    ``hops`` from the emulator's links. *pcap_dir* gets one pcap file per link with the real
    datagrams. The emulator's driver spins for the last *spin_us* before each departure,
    runs at real-time priority unless *realtime* is false, and is pinned to *cpu* if given.

    Raises :class:`renolab.ScenarioError` for a scenario it refuses (nothing is created),
    :class:`EmulationError` (``kind`` ``"unsupported"`` or ``"failed"``) when the machine
    cannot emulate or the run fails, :class:`renolab.RunInterrupted` on Ctrl-C (or SIGTERM,
    SIGHUP where the command line handles them) with what was collected up to then, and
    :class:`renolab.scenario.RunError` (``kind`` ``"trace"``) if a trace could not be
    written whole; every namespace created is removed in all cases, and only namespaces a
    run of renolab provably left behind are removed besides (docs/emulation.md).
    """
    sc = _as_scenario(scenario)
    text = sc.to_json()
    normalised = json.loads(_core.emulate_normalise(text))
    traces = _trace_names(trace)
    directories = [_directory(d, name) for d, name in ((trace_dir, "trace_dir"), (pcap_dir, "pcap_dir"))]
    limit = _whole_number(trace_memory_limit, "trace_memory_limit")
    for name, value in (("tcp_info_interval_ms", tcp_info_interval_ms), ("spin_us", spin_us)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1e9:
            raise ScenarioError(f"{name}: expected a number from 0 to 1e9, got {value!r:.60}")
    if cpu is not None and (isinstance(cpu, bool) or not isinstance(cpu, int) or not 0 <= cpu < 1 << 16):
        raise ScenarioError(f"cpu: expected the number of a CPU, got {cpu!r:.60}")
    for directory in directories:
        if directory is not None:
            os.makedirs(directory, exist_ok=True)
    cpu_before = _cpu_times()
    start = time.perf_counter()
    raw = _core.emulate(
        text,
        traces,
        *directories,
        limit,
        max(1, round(tcp_info_interval_ms * 1000)),
        max(0, round(spin_us)),
        cpu,
        bool(realtime),
    )
    wall_time_s = time.perf_counter() - start
    steal = _steal_fraction(cpu_before, _cpu_times())
    result = Result(raw, scenario=json.loads(text), wall_time_s=wall_time_s, normalised=normalised, unique=True)
    emulation = result.summary.setdefault("emulation", {})
    emulation["host_steal"] = steal
    warning = disturbed(result)
    if warning:
        warnings.warn(warning, RenolabWarning, stacklevel=2)
    stopped_short(result)
    return result


def machine_disturbance(result: Result) -> str | None:
    """What the machine did to *result*'s emulation, or None if it left it alone: the probe
    thread woke late by :data:`QUIET_TIMER_P99_US` or more at the 99th percentile, or the
    hypervisor took :data:`QUIET_STEAL` or more of the CPUs' time."""
    em = result.summary.get("emulation") or {}
    timer = em.get("host_timer") or {}
    steal = em.get("host_steal") or 0.0
    reasons = []
    if timer.get("count") and timer.get("p99_us", 0.0) >= QUIET_TIMER_P99_US:
        reasons.append(f"a real-time timer woke late by {timer['p99_us'] / 1000:.3g} ms at the 99th percentile")
    if steal >= QUIET_STEAL:
        reasons.append(f"the hypervisor took {100 * steal:.1f} % of the CPUs' time")
    return " and ".join(reasons) or None


def disturbed(result: Result) -> str | None:
    """Why *result*'s kernel figures are not the path's (the emulator delivered packets a
    millisecond or more late at the 99th percentile; whether the machine or the emulator was
    the cause), or None for a sound run."""
    em = result.summary.get("emulation") or {}
    p99 = (em.get("lateness") or {}).get("p99_us") or 0.0
    if p99 < SPOILED_P99_US:
        return None
    late = f"deliveries were late by {p99 / 1000:.3g} ms at the 99th percentile (a quiet machine: tens of microseconds)"
    machine = machine_disturbance(result)
    if machine:
        return (
            f"the machine was too busy for this emulation: {late}; {machine}; run it again on a quiet "
            "machine before reading the kernel's figures"
        )
    return (
        f"the emulator fell behind: {late} while the machine kept time; the kernel's figures are not "
        "the path's: the packet rate may be more than one core can drive (docs/emulation.md, \"Limits, measured\")"
    )


def timing_line(result: Result) -> str:
    """One line on how an emulation went: lateness and the kernel."""
    em = result.summary.get("emulation") or {}
    late = em.get("lateness") or {}
    kernel = em.get("kernel_release", "?")
    ccs = ", ".join(em.get("congestion_available") or [])
    return (
        f"emulated {result.summary.get('sim_time_s', 0):.6g} s in real time "
        f"(stop: {result.summary.get('stop_reason')}); deliveries late by median "
        f"{late.get('median_us', 0):.0f} us, p99 {late.get('p99_us', 0):.0f} us, max "
        f"{late.get('max_us', 0):.0f} us over {late.get('count', 0)} packets{_machine_words(em)}; "
        f"Linux {kernel} ({ccs})"
    )


def _machine_words(em: dict[str, Any]) -> str:
    timer = em.get("host_timer") or {}
    steal = em.get("host_steal")
    words = [f"timer probe p99 {timer['p99_us']:.0f} us"] if timer.get("count") else []
    words += [] if steal is None else [f"CPU steal {100 * steal:.1f} %"]
    return f" (machine: {', '.join(words)})" if words else ""
