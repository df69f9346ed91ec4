"""``renolab validate SCENARIO.toml [--runs N]``: run renolab and ns-2 side by side and
compare them (:func:`renolab.ns2.validate`); exit 1 when a figure is outside its tolerance."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace

from renolab.cli._common import EXIT_BAD_INPUT, EXIT_OK, EXIT_SIMULATION_FAILED, UsageError, fail
from renolab.ns2 import Ns2Error, Ns2NotFound, Tolerance, load, validate


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file (a [validation] table may set tolerances)")
    p.add_argument("--runs", type=int, metavar="N", help="seeds to run (default: 30 for a random scenario, else 1)")
    p.add_argument("--seed", type=int, metavar="S", help="first seed (default: simulation.seed)")
    p.add_argument("--jobs", type=int, default=1, metavar="J", help="ns-2 runs at once (default 1)")
    d = Tolerance()
    p.add_argument("--time-tol", type=float, metavar="F",
                   help=f"relative tolerance on completion times (default {d.completion_time_s})")
    p.add_argument("--bytes-tol", type=float, metavar="F",
                   help=f"relative tolerance on delivered bytes (default {d.bytes_delivered})")
    p.add_argument("--drops-tol", type=float, metavar="F", help=f"relative tolerance on drops (default {d.drops})")
    p.add_argument("--retransmits-tol", type=float, metavar="N", help="retransmissions that may differ (default 0)")
    p.add_argument("--timeouts-tol", type=float, metavar="N", help="timeouts that may differ (default 0)")
    p.add_argument("--ns", default="ns", metavar="PATH", help="the ns-2 command (default: ns)")


def run(args: argparse.Namespace) -> int:
    for name in ("runs", "jobs"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise UsageError(f"--{name}: {value} is not a whole number >= 1")
    scenario, extra = load(args.scenario)
    tolerance = Tolerance.from_mapping(extra)
    given = {
        "completion_time_s": args.time_tol,
        "bytes_delivered": args.bytes_tol,
        "drops": args.drops_tol,
        "retransmits": args.retransmits_tol,
        "timeouts": args.timeouts_tol,
    }
    tolerance = replace(tolerance, **{k: v for k, v in given.items() if v is not None})
    runs = args.runs if args.runs is not None else extra.get("runs")
    try:
        report = validate(
            scenario,
            runs=runs,
            tolerance=tolerance,
            seed=args.seed,
            jobs=args.jobs,
            ns=args.ns,
            name=os.path.basename(args.scenario),
        )
    except Ns2NotFound as exc:
        return fail(exc, EXIT_BAD_INPUT)
    except Ns2Error as exc:
        return fail(exc, EXIT_SIMULATION_FAILED)
    print(report.format())
    return EXIT_OK if report.ok else EXIT_SIMULATION_FAILED
