"""Validation against the Linux kernel: the same scenario through renolab's simulated
senders and through real kernel TCP endpoints (:mod:`renolab.emulate`), compared flow by
flow in the table ``renolab validate`` prints against ns-2.

The kernel is not deterministic (timer and scheduling jitter move every packet by
microseconds), so both sides run *runs* times, on consecutive seeds (which drive the links'
random losses on both sides), and the means are compared with their 95 % confidence
intervals, as for a random scenario against ns-2 (:func:`renolab.ns2.compare`).

The simulator runs the scenario under ``profile = "linux"`` (a Linux-like sender: IW10,
SACK and timestamps, 200 ms minimum RTO, PRR, RACK-TLP) when this renolab has that profile;
otherwise under the scenario's own profile, and the report says so.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from renolab._core import ScenarioError
from renolab.emulate import emulate
from renolab.ns2 import COLUMNS, Ns2Run, Report, Tolerance, compare, load
from renolab.scenario import Scenario

__all__ = ["LINUX_TOLERANCE", "KernelReport", "simulator_scenario", "validate"]

#: Default tolerances against the kernel: the simulator models the kernel's sender, not its
#: every heuristic, so its figures agree in the large (see docs/emulation.md).
LINUX_TOLERANCE = Tolerance(completion_time_s=0.05, bytes_delivered=0.05, drops=0.25, retransmits=5, timeouts=1)

#: The profile the simulator runs against the kernel when it has it.
LINUX_PROFILE = "linux"


@dataclass
class KernelReport:
    """A :class:`renolab.ns2.Report` against the kernel, with the notes on what ran."""

    report: Report
    notes: list[str]

    @property
    def ok(self) -> bool:
        return self.report.ok

    def format(self) -> str:
        lines = [self.report.format()]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


def has_linux_profile() -> bool:
    """Whether this renolab's simulator knows ``profile = "linux"``."""
    probe = {
        "simulation": {"profile": LINUX_PROFILE},
        "link": [{"from": "a", "to": "b", "rate": "1Mbps", "delay": "1ms"}],
    }
    try:
        Scenario.from_dict(probe).validate()
    except ScenarioError:
        return False
    return True


def simulator_scenario(scenario: Scenario) -> tuple[Scenario, list[str]]:
    """*scenario* for the simulator's side: under ``profile = "linux"`` if this renolab has
    it (flows' own profiles removed), else unchanged; with a note saying which."""
    if not has_linux_profile():
        own = (scenario.to_dict().get("simulation") or {}).get("profile", "rfc")
        return scenario, [
            f'this renolab has no profile "{LINUX_PROFILE}" yet: the simulator ran the scenario\'s own profile "{own}"'
        ]
    data = scenario.to_dict()
    data["simulation"] = {**dict(data.get("simulation") or {}), "profile": LINUX_PROFILE}
    data["flow"] = [{k: v for k, v in f.items() if k != "profile"} for f in _flows(data)]
    return Scenario.from_dict(data), [f'the simulator ran profile "{LINUX_PROFILE}"']


def _flows(data: dict[str, Any]) -> list[dict[str, Any]]:
    flows = data.get("flow") or []
    return [dict(f) for f in (flows if isinstance(flows, list) else [flows])]


def _rows(result: Any) -> list[dict[str, Any]]:
    rows = []
    for rec in result.flows.to_dict("records"):
        row = {k: rec.get(k) for k in COLUMNS if k in rec}
        for k in ("completion_time_s", "first_send_s", "finish_s", "timeouts"):
            v = row.get(k)
            row[k] = None if v is None or v != v else v
        rows.append(row)
    return rows


def validate(
    scenario: Scenario,
    *,
    runs: int = 5,
    seed: int | None = None,
    tolerance: Tolerance | None = None,
    name: str = "scenario",
    progress: Callable[[str], None] | None = None,
) -> KernelReport:
    """Run *scenario* *runs* times through the kernel and *runs* times in renolab (seeds
    *seed*, *seed* + 1, ...; default the scenario's) and compare the means."""
    if runs < 1:
        raise ValueError("runs must be at least 1")
    simulated, notes = simulator_scenario(scenario)
    try:
        normalised = simulated.validate()
    except ScenarioError as exc:
        raise ScenarioError(f"the simulator cannot run this scenario, so there is nothing to compare: {exc}") from None
    base = normalised["simulation"]["seed"] if seed is None else seed
    seeds = [base + i for i in range(runs)]
    kernel_runs, renolab_runs = [], []
    for i, s in enumerate(seeds):
        if progress:
            progress(f"run {i + 1}/{runs} (seed {s}): kernel")
        kernel_runs.append(Ns2Run(_rows(emulate(scenario.with_seed(s))), seed=s))
        renolab_runs.append(_rows(simulated.with_seed(s).run()))
    report = compare(
        name,
        kernel_runs,
        renolab_runs,
        random=True,
        tolerance=tolerance or LINUX_TOLERANCE,
        seeds=seeds,
        reference="Linux",
    )
    return KernelReport(report, notes)
