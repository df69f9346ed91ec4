"""``renolab run SCENARIO.toml --out DIR``: simulate a scenario and write its results.

Without traces (or with CSV traces) this imports neither pyarrow nor matplotlib, and
without traces not pandas either: ``flows.csv`` and ``links.csv`` are written with the
standard library (:func:`renolab.tables.write_csv`).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from renolab import __version__
from renolab._core import SimulationError
from renolab.cli._common import EXIT_OK, EXIT_SIMULATION_FAILED, fail
from renolab.scenario import Scenario

if TYPE_CHECKING:
    from renolab.results import Result


def _trace_names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def add_arguments(run: argparse.ArgumentParser) -> None:
    run.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    run.add_argument("--out", metavar="DIR", required=True, help="output directory (created if missing)")
    run.add_argument(
        "--trace",
        metavar="NAME[,NAME...]",
        type=_trace_names,
        action="append",
        default=[],
        help="record traces: cwnd, seq, rtt, queue, drops, hops, cc (repeatable or comma-separated)",
    )
    run.add_argument(
        "--format",
        choices=["parquet", "csv"],
        default="parquet",
        help="file format of the traces (default parquet); flows.csv and links.csv are always CSV",
    )
    run.add_argument("--pcap", action="store_true", help="write one pcap file per link into DIR/pcap")
    run.add_argument("--ns2-trace", action="store_true", help="write DIR/ns2.tr, an ns-2 trace (+ - r d lines)")
    run.add_argument("--seed", type=int, metavar="N", help="override simulation.seed")
    run.add_argument("--check-invariants", action="store_true", help="enable the core's internal consistency checks")


def run(args: argparse.Namespace) -> int:
    scenario = Scenario.from_toml(args.scenario)
    if args.seed is not None:
        scenario = scenario.with_seed(args.seed)
    traces = list(dict.fromkeys(name for group in args.trace for name in group))

    def simulate(recorded: list[str], trace_dir: Any, pcap_dir: Any) -> Result:
        return scenario.run(
            trace=recorded, check_invariants=args.check_invariants, trace_dir=trace_dir, pcap_dir=pcap_dir
        )

    scenario.validate()  # a bad scenario leaves no output directory behind
    try:
        written = run_and_save(traces, args, simulate)
    except SimulationError as exc:
        if getattr(exc, "kind", None) != "panic":
            raise
        report = _write_panic_report(args.out, exc)
        where = f"; scenario and seed written to {report}" if report else ""
        return fail(f"simulation failed: {exc}{where}", EXIT_SIMULATION_FAILED)
    result = written.pop(0)
    print(format_flows_table(result))
    s = result.summary
    print(
        f"\nsimulated {s['sim_time_s']:.6g} s ({s['events']} events, stop: {s['stop_reason']}) "
        f"in {s['wall_time_s']:.3g} s; seed {s['seed']}"
    )
    print(f"wrote {', '.join(p.relative_to(args.out).as_posix() for p in written)} to {args.out}")
    return EXIT_OK


def run_and_save(
    traces: list[str], args: argparse.Namespace, execute: Callable[[list[str], Any, Any], Result]
) -> list[Any]:
    """Run (``execute(traces, trace_dir, pcap_dir) -> Result``: the simulator, or the
    emulator of ``renolab emulate``) with the traces streamed to a scratch directory inside
    --out, then write them in --format chunk by chunk; returns [result, *paths written]."""
    import shutil
    import tempfile
    from pathlib import Path

    ns2_trace = getattr(args, "ns2_trace", False)
    recorded = traces + (["hops"] if ns2_trace and "hops" not in traces else [])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".renolab-traces-", dir=out)) if recorded else None
    try:
        result = execute(recorded, scratch, out / "pcap" if args.pcap else None)
        written = result.save(out, format=args.format, traces=traces, ns2_trace=ns2_trace)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    if args.pcap:
        written += sorted((out / "pcap").glob("*.pcap"))
    return [result, *written]


def _write_panic_report(out_dir: str, exc: SimulationError) -> str | None:
    """Write ``OUT/panic.json`` (message, seed, scenario, version): what reproduces an
    internal error.  Returns its path, or None if it could not be written."""
    import json
    from pathlib import Path

    scenario_text = getattr(exc, "scenario", None)
    try:
        scenario: Any = json.loads(scenario_text) if scenario_text else None
    except ValueError:
        scenario = scenario_text
    report = {
        "message": str(exc),
        "seed": getattr(exc, "seed", None),
        "renolab_version": __version__,
        "scenario": scenario,
    }
    path = Path(out_dir) / "panic.json"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    except OSError:
        return None
    return str(path)


def format_flows_table(result: Result) -> str:
    """Render the per-flow results as an aligned plain-text table (from the result's rows:
    no DataFrame is built)."""
    headers = ["flow", "variant", "bytes", "completion s", "throughput Mb/s", "retx", "timeouts", "drops"]
    rows = [
        [
            str(row["flow"]),
            str(row["variant"]),
            str(int(row["bytes_delivered"])),
            _fmt_float(row["completion_time_s"], "{:.4f}"),
            _fmt_float(None if row["throughput_bps"] is None else row["throughput_bps"] / 1e6, "{:.3f}"),
            str(int(row["retransmits"])),
            str(int(row["timeouts"])),
            str(int(row["drops"])),
        ]
        for row in result._records("flows")
    ]
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows)]
    left_aligned = {0, 1}

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            cell.ljust(w) if i in left_aligned else cell.rjust(w) for i, (cell, w) in enumerate(zip(cells, widths))
        ).rstrip()

    return "\n".join([line(headers), *(line(r) for r in rows)])


def _fmt_float(value: Any, fmt: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return fmt.format(value)
