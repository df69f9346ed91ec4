#!/usr/bin/env python3
"""Run a renolab scenario file (or the harness's Wi-Fi file) in ns-3.44.

    python tests/ns3/run_ns3.py SCENARIO.toml --out DIR [--run N] [--repeat K] [--map cubic=TcpCubic ...]

Writes DIR/flows.csv (renolab's columns where ns-3 has them, plus mean RTT),
DIR/links.csv (per link direction: drops, ECN marks, mean and max queue) or DIR/wifi.csv
(per station: frames, MAC retries, drops) and DIR/summary.json; with --repeat K, runs
N..N+K-1 one after the other in this process (ns-3's import is paid once) into
DIR/run-<n>/. Needs `pip install ns3`;
see tests/ns3/README.md for what is matched and what is not.
Exit status: 0 done, 2 bad input (one line naming the field), 1 ns-3 failed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ns3ref import output  # noqa: E402
from ns3ref.spec import SpecError, load, parse_variant_map, warn  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="run_ns3.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", metavar="SCENARIO.toml")
    parser.add_argument("--out", metavar="DIR", required=True, type=Path, help="output directory")
    parser.add_argument("--run", metavar="N", type=int, default=1,
                        help="ns-3 RngRun: independent random streams for replication N (default 1)")
    parser.add_argument("--repeat", metavar="K", type=int, default=1,
                        help="do runs N..N+K-1, each into DIR/run-<n>/ (default 1: one run, into DIR)")
    parser.add_argument("--seed", metavar="N", type=int, help="override simulation.seed (ns-3 RngSeed)")
    parser.add_argument("--map", metavar="VARIANT=TYPE", action="append", default=[],
                        help="map a renolab variant to an ns-3 TCP type (repeatable), e.g. cubic=TcpCubic")
    parser.add_argument("--quiet", action="store_true", help="do not print the per-flow table")
    args = parser.parse_args(argv)
    if args.run < 1:
        parser.error("--run: must be at least 1 (ns-3's RngRun)")
    if args.repeat < 1:
        parser.error("--repeat: must be at least 1")
    try:
        variant_map = parse_variant_map(args.map)
        scenario = load(args.scenario)
        if args.seed is not None:
            from dataclasses import replace  # noqa: PLC0415

            scenario.simulation = replace(scenario.simulation, seed=args.seed)
    except SpecError as exc:
        print(f"run_ns3: error: {exc}", file=sys.stderr)
        return 2
    for note in scenario.ignored:
        warn(note)
    from ns3ref.run import run_scenario  # noqa: PLC0415

    for run in range(args.run, args.run + args.repeat):
        out = args.out if args.repeat == 1 else args.out / f"run-{run}"
        try:
            summary = run_scenario(scenario, out, run_number=run, variant_map=variant_map)
        except SpecError as exc:
            print(f"run_ns3: error: {exc}", file=sys.stderr)
            return 2
        if not args.quiet:
            print_flows(out, summary)
    return 0


def print_flows(out: Path, summary: dict) -> None:
    rows = output.read_csv(out / "flows.csv")
    print(f"run {summary['run']}:")
    print(f"{'flow':<12} {'ns-3 type':<16} {'Mb/s':>8} {'retx':>6} {'RTOs':>5} {'RTT ms':>8}")
    for r in rows:
        rtt = f"{float(r['mean_rtt_s']) * 1e3:8.2f}" if r["mean_rtt_s"] else f"{'':>8}"
        print(f"{r['flow']:<12} {r['ns3_type'].removeprefix('ns3::'):<16} "
              f"{float(r['throughput_bps']) / 1e6:8.3f} {r['retransmits']:>6} {r['timeouts']:>5} {rtt}")
    print(f"simulated {summary['sim_time_s']:.3f} s in {summary['wall_time_s']:.1f} s "
          f"(ns-3 event loop {summary['ns3_run_wall_s']:.1f} s); files in {out}")


if __name__ == "__main__":
    sys.exit(main())
