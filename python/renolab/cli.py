"""The ``renolab`` command line.

``renolab run SCENARIO.toml --out DIR [--trace cwnd,seq,rtt,queue,drops,hops] [--format parquet|csv]
[--pcap] [--ns2-trace] [--seed N] [--check-invariants]`` simulates a scenario and writes
``flows.csv``, ``links.csv``, ``summary.json`` and one Parquet (or CSV) file per trace (see
docs/outputs.md); ``renolab check SCENARIO.toml`` only validates it.
``renolab emulate SCENARIO.toml --out DIR [--trace cwnd] [--pcap]`` runs the scenario's TCP
flows with the Linux kernel across the same links (root; see :mod:`renolab.emulate`).
``renolab plot DIR [--kind cwnd,seq,throughput,queue,summary] [--format png,svg]`` draws the
figures of a run directory (see :mod:`renolab.plot`).
``renolab sweep SWEEP.toml --out DIR [--workers N] [--scheduler ADDRESS | --dask]`` runs a
parameter sweep (see :mod:`renolab.sweep`).
``renolab export ns2 SCENARIO.toml [-o FILE.tcl]`` writes an equivalent ns-2.35 script and
``renolab validate SCENARIO.toml [--runs N]`` runs both simulators and compares them (exit 1
when a figure is outside its tolerance; see :mod:`renolab.ns2`).

Exit codes: 0 success, 1 the simulation failed, 2 bad input (invalid scenario,
unreadable file, bad option).  Errors are reported as a single line
``renolab: error: <message>`` on stderr.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from renolab import __version__
from renolab._core import ScenarioError, SimulationError
from renolab.results import Result
from renolab.scenario import Scenario

EXIT_OK = 0
EXIT_SIMULATION_FAILED = 1
EXIT_BAD_INPUT = 2


class _UsageError(Exception):
    """A command-line usage problem (raised instead of argparse's print-and-exit)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _trace_names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def _build_parser() -> _Parser:
    parser = _Parser(
        prog="renolab",
        description="Packet-level TCP congestion-control simulator.",
    )
    parser.add_argument("--version", action="version", version=f"renolab {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = commands.add_parser("run", help="simulate a scenario and write results")
    run.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    run.add_argument("--out", metavar="DIR", required=True, help="output directory (created if missing)")
    run.add_argument(
        "--trace",
        metavar="NAME[,NAME...]",
        type=_trace_names,
        action="append",
        default=[],
        help="record traces: cwnd, seq, rtt, queue, drops, hops (repeatable or comma-separated)",
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
    run.set_defaults(handler=_cmd_run)

    emulate = commands.add_parser(
        "emulate", help="run a scenario with real Linux TCP endpoints across its links (root)"
    )
    emulate.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    emulate.add_argument("--out", metavar="DIR", required=True, help="output directory (created if missing)")
    emulate.add_argument(
        "--trace",
        metavar="NAME[,NAME...]",
        type=_trace_names,
        action="append",
        default=[],
        help="record traces: cwnd, rtt (from TCP_INFO), seq, queue, drops, hops (repeatable or comma-separated)",
    )
    emulate.add_argument("--format", choices=["parquet", "csv"], default="parquet", help="file format of the traces")
    emulate.add_argument("--pcap", action="store_true", help="write one pcap file per link (real datagrams) into DIR/pcap")
    emulate.add_argument("--seed", type=int, metavar="N", help="override simulation.seed (the links' random losses)")
    emulate.set_defaults(handler=_cmd_emulate)

    check = commands.add_parser("check", help="validate a scenario without running it")
    check.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    check.set_defaults(handler=_cmd_check)

    sweep = commands.add_parser("sweep", help="run a parameter sweep in parallel (resumable)")
    sweep.add_argument("sweep", metavar="SWEEP.toml", help="sweep file (see docs/sweeps.md)")
    sweep.add_argument(
        "--out", metavar="DIR", required=True, help="output directory; finished runs in it are not run again"
    )
    sweep.add_argument("--workers", type=int, metavar="N", help="local worker processes (default: every core)")
    sweep.add_argument(
        "--scheduler", metavar="ADDRESS", help="submit the runs to this Dask scheduler (address or scheduler file)"
    )
    sweep.add_argument("--dask", action="store_true", help="run on a local Dask cluster of --workers processes")
    sweep.add_argument("--no-progress", action="store_true", help="do not print the progress line")
    sweep.set_defaults(handler=_cmd_sweep)

    from renolab import bench as _bench

    bench = commands.add_parser("bench", help="measure renolab's speed, side by side with ns-2")
    _bench.add_arguments(bench)
    bench.set_defaults(handler=_bench.run_command)

    from renolab import plot as _plot

    plot = commands.add_parser("plot", help="draw the figures of a run directory (PNG, SVG)")
    _plot.add_arguments(plot)
    plot.set_defaults(handler=_plot.run_command)

    from renolab import ns2 as _ns2

    export = commands.add_parser("export", help="write the scenario for another simulator (ns2)")
    _ns2.add_export_arguments(export)
    validate = commands.add_parser("validate", help="run the scenario in renolab and ns-2 and compare")
    _ns2.add_validate_arguments(validate)

    from renolab import experiments as _experiments

    reproduce = commands.add_parser("reproduce", help="reproduce a published study: figures, tables, report")
    _experiments.add_arguments(reproduce)
    reproduce.set_defaults(handler=_experiments.run_command)
    return parser


def _cmd_run(args: argparse.Namespace) -> int:
    scenario = Scenario.from_toml(args.scenario)
    if args.seed is not None:
        scenario = scenario.with_seed(args.seed)
    traces = list(dict.fromkeys(name for group in args.trace for name in group))

    def simulate(recorded: list[str], trace_dir: Any, pcap_dir: Any) -> Result:
        return scenario.run(
            trace=recorded, check_invariants=args.check_invariants, trace_dir=trace_dir, pcap_dir=pcap_dir
        )

    scenario.validate()  # a bad scenario leaves no output directory behind
    if args.ns2_trace and scenario.to_dict().get("medium"):
        return _fail(
            "--ns2-trace: ns-2's trace lines name a link's two nodes, which a medium's frames do not have; run without it",
            EXIT_BAD_INPUT,
        )
    try:
        written = _run_and_save(scenario, traces, args, simulate)
    except SimulationError as exc:
        if getattr(exc, "kind", None) != "panic":
            raise
        report = _write_panic_report(args.out, exc)
        where = f"; scenario and seed written to {report}" if report else ""
        return _fail(f"simulation failed: {exc}{where}", EXIT_SIMULATION_FAILED)
    result = written.pop(0)
    print(format_flows_table(result))
    s = result.summary
    print(
        f"\nsimulated {s['sim_time_s']:.6g} s ({s['events']} events, stop: {s['stop_reason']}) "
        f"in {s['wall_time_s']:.3g} s; seed {s['seed']}"
    )
    print(f"wrote {', '.join(p.relative_to(args.out).as_posix() for p in written)} to {args.out}")
    return EXIT_OK


def _run_and_save(scenario: Scenario, traces: list[str], args: argparse.Namespace, run: Any) -> list[Any]:
    """Run (``run(traces, trace_dir, pcap_dir) -> Result``: the simulator or the emulator)
    with the traces streamed to a scratch directory inside --out, then write them in
    --format chunk by chunk; returns [result, *paths written]."""
    import shutil
    import tempfile
    from pathlib import Path

    ns2_trace = getattr(args, "ns2_trace", False)
    recorded = traces + (["hops"] if ns2_trace and "hops" not in traces else [])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".renolab-traces-", dir=out)) if recorded else None
    try:
        result = run(recorded, scratch, out / "pcap" if args.pcap else None)
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


def _cmd_emulate(args: argparse.Namespace) -> int:
    from renolab import emulate as emu

    scenario = Scenario.from_toml(args.scenario)
    if args.seed is not None:
        scenario = scenario.with_seed(args.seed)
    traces = list(dict.fromkeys(name for group in args.trace for name in group))
    emu.check(scenario)  # names and variants: refused before anything is created
    reason = emu.unsupported_reason()
    if reason:
        return _fail(reason, EXIT_BAD_INPUT)

    def run(recorded: list[str], trace_dir: Any, pcap_dir: Any) -> Result:
        return emu.emulate(scenario, recorded, trace_dir=trace_dir, pcap_dir=pcap_dir)

    try:
        written = _run_and_save(scenario, traces, args, run)
    except emu.EmulationError as exc:
        code = EXIT_BAD_INPUT if getattr(exc, "kind", "") == "unsupported" else EXIT_SIMULATION_FAILED
        return _fail(f"emulation failed: {exc}" if code == EXIT_SIMULATION_FAILED else exc, code)
    result = written.pop(0)
    print(format_flows_table(result))
    print("\n" + emu.timing_line(result))
    print(f"wrote {', '.join(p.relative_to(args.out).as_posix() for p in written)} to {args.out}")
    return EXIT_OK


def _cmd_check(args: argparse.Namespace) -> int:
    normalised = Scenario.from_toml(args.scenario).validate()
    n_links, n_flows = len(normalised.get("link", [])), len(normalised.get("flow", []))
    n_media = len(normalised.get("medium", []))
    media = f", {n_media} {'medium' if n_media == 1 else 'media'}" if n_media else ""
    print(f"ok: {_plural(n_links, 'link')}{media}, {_plural(n_flows, 'flow')}")
    return EXIT_OK


def _cmd_sweep(args: argparse.Namespace) -> int:
    from renolab.sweep import Sweep, SweepInterrupted

    if args.workers is not None and args.workers < 1:
        return _fail(f"--workers: {args.workers} is not a whole number >= 1", EXIT_BAD_INPUT)
    sweep = Sweep.from_toml(args.sweep)
    try:
        result = sweep.run(
            args.out,
            workers=args.workers,
            scheduler=args.scheduler,
            dask=args.dask,
            progress=not args.no_progress,
        )
    except SweepInterrupted as exc:
        return _fail(exc, 130)
    except ImportError as exc:
        return _fail(exc, EXIT_BAD_INPUT)
    print(result.describe())
    return EXIT_OK


def format_flows_table(result: Result) -> str:
    """Render the per-flow results as an aligned plain-text table."""
    headers = ["flow", "variant", "bytes", "completion s", "throughput Mb/s", "retx", "timeouts", "drops"]
    rows = [
        [
            str(row["flow"]),
            str(row["variant"]),
            str(int(row["bytes_delivered"])),
            _fmt_float(row["completion_time_s"], "{:.4f}"),
            _fmt_float(row["throughput_bps"] / 1e6, "{:.3f}"),
            str(int(row["retransmits"])),
            str(int(row["timeouts"])),
            str(int(row["drops"])),
        ]
        for row in result.flows.to_dict("records")
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


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _fail(message: object, code: int) -> int:
    text = " ".join(str(message).split("\n")).strip() or type(message).__name__
    print(f"renolab: error: {text}", file=sys.stderr)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with *argv* (default ``sys.argv[1:]``) and return the exit code."""
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        return _fail(exc, EXIT_BAD_INPUT)
    except SystemExit as exc:  # --help / --version
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    try:
        code: int = args.handler(args)
        return code
    except ScenarioError as exc:
        return _fail(exc, EXIT_BAD_INPUT)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        return _fail(f"{where}{exc.strerror or exc}", EXIT_BAD_INPUT)
    except SimulationError as exc:
        return _fail(f"simulation failed: {exc}", EXIT_SIMULATION_FAILED)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)


if __name__ == "__main__":
    sys.exit(main())
