"""One ns-3 run of a scenario file, written to an output directory."""

from __future__ import annotations

import platform
import time
from pathlib import Path
from typing import Any, Mapping, Optional

from ns3ref import output
from ns3ref.sim import FLOW_COLUMNS, ns3_version, wire_factor
from ns3ref.spec import DEFAULT_VARIANT_MAP, Scenario

#: Files a run writes.
FLOWS_CSV = "flows.csv"
LINKS_CSV = "links.csv"
WIFI_CSV = "wifi.csv"
SUMMARY_JSON = "summary.json"


def run_scenario(
    scenario: Scenario,
    out_dir: Path,
    *,
    run_number: int = 1,
    variant_map: Optional[Mapping[str, str]] = None,
) -> dict[str, Any]:
    """Run `scenario` once in ns-3 (``RngRun = run_number``) and write flows.csv,
    links.csv (wired) or wifi.csv (Wi-Fi) and summary.json into `out_dir`.
    Returns the summary."""
    variant_map = dict(DEFAULT_VARIANT_MAP if variant_map is None else variant_map)
    t0 = time.perf_counter()
    if scenario.wifi is not None:
        from ns3ref.wifi import WIFI_COLUMNS, WifiRun  # noqa: PLC0415

        sim: Any = WifiRun(scenario, variant_map, run_number)
    else:
        from ns3ref.wired import LINK_COLUMNS, WiredRun  # noqa: PLC0415

        sim = WiredRun(scenario, variant_map, run_number)
    build_t0 = time.perf_counter()
    sim.build()
    sim.run_simulator()
    out_dir.mkdir(parents=True, exist_ok=True)
    flows = sim.flow_rows()
    output.write_csv(out_dir / FLOWS_CSV, FLOW_COLUMNS, flows)
    if scenario.wifi is not None:
        output.write_csv(out_dir / WIFI_CSV, WIFI_COLUMNS, sim.wifi_rows())
    else:
        output.write_csv(out_dir / LINKS_CSV, LINK_COLUMNS, sim.link_rows())
    summary = {
        "simulator": "ns-3",
        "ns3_version": ns3_version(),
        "scenario_file": scenario.source,
        "seed": scenario.simulation.seed,
        "run": run_number,
        "sim_time_s": sim.end_s,
        "stop_reason": sim.stop_reason,
        "wall_time_s": time.perf_counter() - t0,
        "ns3_setup_s": build_t0 - t0,
        "ns3_run_wall_s": sim.wall_s,
        "ns3_run_cpu_s": sim.cpu_s,
        "ns3_events": sim.events,
        "machine": f"{platform.node()} {platform.machine()} python {platform.python_version()}",
        "mss": scenario.mss,
        "variant_map": variant_map,
        "wire_rate_factor": None if scenario.wifi is not None else wire_factor(scenario.mss),
        "ignored": scenario.ignored,
    }
    sim.finish()
    output.write_json(out_dir / SUMMARY_JSON, summary)
    return summary
