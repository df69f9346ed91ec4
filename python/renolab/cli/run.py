"""``renolab run SCENARIO.toml --out DIR``: simulate a scenario and write its results.

Without traces (or with CSV traces) this imports neither pyarrow nor matplotlib, and
without traces not pandas either: ``flows.csv`` and ``links.csv`` are written with the
standard library (:func:`renolab.tables.write_csv`).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from renolab import __version__
from renolab._core import SimulationError
from renolab._files import TEMP_PREFIX
from renolab.cli._common import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_SIMULATION_FAILED,
    UsageError,
    add_allow_python,
    fail,
    names,
)
from renolab.scenario import RunError, RunInterrupted, Scenario
from renolab.stats import jain_index

if TYPE_CHECKING:
    from renolab.results import Result


def add_arguments(run: argparse.ArgumentParser) -> None:
    run.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    run.add_argument(
        "--out",
        metavar="DIR",
        required=True,
        help="output directory (created if missing; an earlier run's files in it are replaced)",
    )
    run.add_argument(
        "--trace",
        metavar="NAME[,NAME...]",
        type=names,
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
    run.add_argument(
        "--quiet", action="store_true", help="no progress line on the terminal (none is drawn when stderr is not one)"
    )
    add_output_arguments(run)
    add_allow_python(run, "scenario")


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a run directory, shared with ``renolab emulate``."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="write into --out even if it holds files a renolab run did not write (they are left there)",
    )


def run(args: argparse.Namespace) -> int:
    from renolab.cc.load import require_allowed
    from renolab.progress import RunProgress
    from renolab.units import parse_duration_s

    scenario = Scenario.from_toml(args.scenario)
    if args.seed is not None:
        scenario = scenario.with_seed(args.seed)
    traces = list(dict.fromkeys(name for group in args.trace for name in group))
    # A bad scenario (or one whose code is not allowed) leaves no output directory behind.
    duration = scenario.validate(allow_python=args.allow_python)["simulation"].get("duration")
    require_allowed(scenario._data, args.allow_python)  # reads it: no copy needed
    progress = RunProgress(parse_duration_s(duration) if duration else None, enabled=not args.quiet)

    def simulate(recorded: list[str], trace_dir: Any, pcap_dir: Any) -> Result:
        try:
            return scenario.run(
                trace=recorded,
                check_invariants=args.check_invariants,
                trace_dir=trace_dir,
                pcap_dir=pcap_dir,
                progress=progress.update,
                allow_python=args.allow_python,
            )
        finally:
            progress.close()

    if args.ns2_trace and scenario.to_dict().get("medium"):
        return fail(
            "--ns2-trace: ns-2's trace lines name a link's two nodes, which a medium's frames do not have; run without it",
            EXIT_BAD_INPUT,
        )
    try:
        written = run_and_save(traces, args, simulate, scenario)
    except RunError as exc:
        return stopped_short(exc, args.out)
    except SimulationError as exc:
        if getattr(exc, "kind", None) != "panic":
            raise
        report = _write_panic_report(args.out, exc)
        where = f"; scenario and seed written to {report}" if report else ""
        return fail(f"simulation failed: {exc}{where}", EXIT_SIMULATION_FAILED)
    except RunInterrupted as exc:
        return interrupted(exc, args.out)
    result = written.pop(0)
    print(format_flows_table(result))
    s = result.summary
    print(
        f"\nsimulated {s['sim_time_s']:.6g} s ({s['events']} events, stop: {s['stop_reason']}) "
        f"in {s['wall_time_s']:.3g} s; seed {s['seed']}"
    )
    print(f"wrote {', '.join(p.relative_to(args.out).as_posix() for p in written)} to {args.out}")
    return EXIT_OK


def interrupted(exc: RunInterrupted, out: str) -> int:
    """The line and exit status of a run stopped by Ctrl-C, SIGTERM or SIGHUP (128 + the
    signal's number, as a shell reports a process it killed)."""
    s = exc.result.summary
    cut = sorted(name for name, state in (s.get("traces") or {}).items() if not state.get("complete", True))
    cut_line = f"; traces not written whole: {', '.join(cut)} (summary.json: traces)" if cut else ""
    return fail(
        f"interrupted at t = {s['sim_time_s']:.6g} s ({s['events']} events); what was collected is in "
        f"{out} (summary.json: stop_reason = \"interrupted\"){cut_line}",
        exit_status_of(exc),
    )


def stopped_short(exc: RunError, out: str) -> int:
    """The line of a run short of memory, or one of whose traces was cut: its results are
    written all the same (exit status 1)."""
    where = (
        "flows.csv, links.csv and summary.json are complete"
        if exc.kind == "trace"
        else "what it collected is written"
    )
    return fail(f"{exc}; {where} in {out} (see summary.json)", EXIT_SIMULATION_FAILED)


def exit_status_of(exc: BaseException) -> int:
    """128 + the number of the signal that raised *exc* (see :func:`renolab.cli.main`), or
    130 (SIGINT)."""
    from renolab.cli.main import signal_received

    received = signal_received()
    return 128 + received if received else EXIT_INTERRUPTED


def run_and_save(
    traces: list[str],
    args: argparse.Namespace,
    execute: Callable[[list[str], Any, Any], Result],
    scenario: Scenario,
) -> list[Any]:
    """Run (``execute(traces, trace_dir, pcap_dir) -> Result``: the simulator, or the
    emulator of ``renolab emulate``) with the traces streamed to a scratch directory inside
    --out, then write them in --format chunk by chunk; returns [result, *paths written].

    --out is checked first (not empty; room on its disk for the traces, roughly), then
    locked and cleared of an earlier run's files (:mod:`renolab.outdir`). A run stopped by
    Ctrl-C (:class:`RunInterrupted`) or short of memory or of room for a trace
    (:class:`RunError`) is written as far as it went, then its exception goes on; the traces
    of an interrupted run get a few seconds (:data:`renolab.saving.INTERRUPTED_WRITE_S`)."""
    import shutil
    import tempfile

    from renolab.outdir import checked_path, run_directory
    from renolab.saving import INTERRUPTED_WRITE_S

    try:
        out_path = checked_path(args.out)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    ns2_trace = getattr(args, "ns2_trace", False)
    recorded = traces + (["hops"] if ns2_trace and "hops" not in traces else [])
    check_disk_space(scenario, recorded, args, out_path)
    with run_directory(out_path, force=getattr(args, "force", False)) as out:
        scratch = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}traces-", dir=out)) if recorded else None
        pcap = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}pcap-", dir=out)) if args.pcap else None
        stopped: RunInterrupted | RunError | None = None
        try:
            try:
                result = execute(recorded, scratch, pcap)
            except (RunInterrupted, RunError) as exc:  # keep what the run collected
                result, stopped = exc.result, exc
            written = result._save_into(
                out,
                format=args.format,
                traces=traces,
                ns2_trace=ns2_trace,
                pcap_from=pcap,
                discard_raw=True,
                time_limit_s=INTERRUPTED_WRITE_S if isinstance(stopped, RunInterrupted) else None,
            )
        finally:
            for directory in (scratch, pcap):
                if directory is not None:
                    shutil.rmtree(directory, ignore_errors=True)
    if stopped is not None:
        raise stopped
    return [result, *written]


def check_disk_space(scenario: Scenario, traces: list[str], args: argparse.Namespace, out: Path) -> None:
    """Refuses a run whose traces and pcap files would not fit on --out's disk, by the
    core's estimate of their records (it errs low) and what each format takes of them."""
    import shutil

    from renolab import _core
    from renolab._text import human_bytes

    if not traces and not args.pcap:
        return
    try:
        estimate = _core.estimate_output_bytes(scenario.to_json(), traces)
    except Exception:  # noqa: BLE001 - an emulated variant the simulator does not know: no estimate
        return
    # The records in the scratch directory, then the file written from them (CSV text runs
    # about 1.5 times the records, Parquet about half); ns2.tr lines about twice the hops'.
    factor = 1.0 + (1.5 if args.format == "csv" else 0.5)
    need = {name: int(estimate.get(name, 0) * factor) for name in traces}
    if getattr(args, "ns2_trace", False):
        need["ns2.tr"] = 2 * estimate.get("hops", 0)
    if args.pcap:
        need["pcap"] = estimate.get("pcap", 0)
    total = sum(need.values())
    existing = next(p for p in (out, *out.resolve().parents) if p.exists())
    free = shutil.disk_usage(existing).free
    if total > free:
        parts = ", ".join(f"{name} {human_bytes(size)}" for name, size in sorted(need.items(), key=lambda x: -x[1]) if size)
        raise UsageError(
            f"--trace: the run's files would take about {human_bytes(total)} on disk ({parts}), more than the "
            f"{human_bytes(free)} free where {out} is; record fewer traces, shorten the run, or free space"
        )


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
    from renolab._files import write_atomic

    path = Path(out_dir) / "panic.json"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(report, indent=2) + "\n")
    except OSError:
        return None
    return str(path)


#: Most flows the terminal's table lists (a workload may run 100,000: flows.csv has them all).
TABLE_FLOWS = 200


def format_flows_table(result: Result) -> str:
    """Render the per-flow results as an aligned plain-text table (from the result's rows:
    no DataFrame is built), with each flow's share of the goodput through its bottleneck
    and, per bottleneck that flows share, Jain's index of those goodputs; the table lists the
    first :data:`TABLE_FLOWS` flows (the shares and indices count them all)."""
    from renolab._text import aligned

    records = result._records("flows")
    groups = _bottleneck_goodputs(records)
    headers = ["flow", "variant", "bytes", "completion s", "throughput Mb/s", "retx", "timeouts", "drops", "share"]
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
            _fmt_float(_share(row, groups), "{:.1%}"),
        ]
        for row in records[:TABLE_FLOWS]
    ]
    lines = aligned(headers, rows, left=(0, 1))
    lines += [
        f'Jain\'s index over the {len(goodputs)} flows through "{bottleneck}": '
        f"{_fmt_float(jain_index(goodputs), '{:.4f}')} (1 = equal goodputs; share = a flow's part of their sum)"
        for bottleneck, goodputs in groups.items()
        if len(goodputs) > 1
    ]
    if len(records) > TABLE_FLOWS:
        lines.append(f"... and {len(records) - TABLE_FLOWS} more flows (flows.csv has every one)")
    return "\n".join(lines)


def _bottleneck_goodputs(records: list[dict[str, Any]]) -> dict[str, list[float]]:
    """The goodputs of the flows through each bottleneck link direction, in flow order."""
    groups: dict[str, list[float]] = {}
    for row in records:
        if row.get("bottleneck") is not None and row.get("goodput_bps") is not None:
            groups.setdefault(str(row["bottleneck"]), []).append(float(row["goodput_bps"]))
    return groups


def _share(row: dict[str, Any], groups: dict[str, list[float]]) -> float | None:
    """A flow's goodput over the summed goodput of the flows through its bottleneck."""
    total = sum(groups.get(str(row.get("bottleneck")), []))
    goodput = row.get("goodput_bps")
    return goodput / total if goodput is not None and total > 0 else None


def _fmt_float(value: Any, fmt: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return fmt.format(value)
