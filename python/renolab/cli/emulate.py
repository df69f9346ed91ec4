"""``renolab emulate SCENARIO.toml --out DIR [--trace cwnd] [--pcap]``: run the scenario's
TCP flows with the Linux kernel's own TCP, in network namespaces whose packets cross the
scenario's links as renolab models them, in real time (root; :mod:`renolab.emulate`). It
writes the same files as ``renolab run``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from renolab.cli._common import EXIT_BAD_INPUT, EXIT_OK, EXIT_SIMULATION_FAILED, fail, names
from renolab.cli.run import (
    add_output_arguments,
    format_flows_table,
    interrupted,
    run_and_save,
    stopped_short,
)
from renolab.scenario import RunError, RunInterrupted, Scenario

if TYPE_CHECKING:
    from renolab.results import Result


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    p.add_argument(
        "--out",
        metavar="DIR",
        required=True,
        help="output directory (created if missing; an earlier run's files in it are replaced)",
    )
    p.add_argument(
        "--trace",
        metavar="NAME[,NAME...]",
        type=names,
        action="append",
        default=[],
        help="record traces: cwnd, rtt, cc (from TCP_INFO), seq, queue, drops, hops (repeatable or comma-separated)",
    )
    p.add_argument("--format", choices=["parquet", "csv"], default="parquet", help="file format of the traces")
    p.add_argument("--pcap", action="store_true", help="write one pcap file per link (real datagrams) into DIR/pcap")
    p.add_argument("--seed", type=int, metavar="N", help="override simulation.seed (the links' random losses)")
    add_output_arguments(p)


def run(args: argparse.Namespace) -> int:
    from renolab import emulate as emu

    scenario = Scenario.from_toml(args.scenario)
    if args.seed is not None:
        scenario = scenario.with_seed(args.seed)
    traces = list(dict.fromkeys(name for group in args.trace for name in group))
    emu.check(scenario)  # names and variants: refused before anything is created
    reason = emu.unsupported_reason()
    if reason:
        return fail(reason, EXIT_BAD_INPUT)

    def execute(recorded: list[str], trace_dir: Any, pcap_dir: Any) -> Result:
        return emu.emulate(scenario, recorded, trace_dir=trace_dir, pcap_dir=pcap_dir)

    try:
        written = run_and_save(traces, args, execute, scenario)
    except RunInterrupted as exc:
        return interrupted(exc, args.out)
    except RunError as exc:
        return stopped_short(exc, args.out)
    except emu.EmulationError as exc:
        if getattr(exc, "kind", "") == "unsupported":
            return fail(exc, EXIT_BAD_INPUT)
        return fail(f"emulation failed: {exc}", EXIT_SIMULATION_FAILED)
    result = written.pop(0)
    print(format_flows_table(result))
    print("\n" + emu.timing_line(result))
    print(f"wrote {', '.join(p.relative_to(args.out).as_posix() for p in written)} to {args.out}")
    return EXIT_OK
