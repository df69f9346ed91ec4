"""``renolab validate SCENARIO.toml [--against ns2|linux] [--runs N]``: run renolab and
ns-2 (:func:`renolab.ns2.validate`) or real Linux TCP through renolab's links
(:func:`renolab.kernel_validation.validate`, root) side by side and compare them; exit 1
when a figure is outside its tolerance."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace

from renolab.cli._common import EXIT_BAD_INPUT, EXIT_OK, EXIT_SIMULATION_FAILED, UsageError, fail
from renolab.ns2 import Ns2Error, Ns2NotFound, Tolerance, load, validate


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file (a [validation] table may set tolerances)")
    p.add_argument(
        "--against",
        choices=["ns2", "linux"],
        default="ns2",
        help="compare with ns-2.35 (default) or with real Linux TCP through renolab's links (root; runs default 5)",
    )
    p.add_argument("--runs", type=int, metavar="N", help="seeds to run (default: 30 for a random scenario, else 1)")
    p.add_argument("--seed", type=int, metavar="S", help="first seed (default: simulation.seed)")
    p.add_argument("--jobs", type=int, default=1, metavar="J", help="ns-2 runs at once (default 1)")
    d = Tolerance()
    p.add_argument("--time-tol", type=float, metavar="F",
                   help=f"relative tolerance on completion times (default {d.completion_time_s})")
    p.add_argument("--bytes-tol", type=float, metavar="F",
                   help=f"relative tolerance on delivered bytes (default {d.bytes_delivered})")
    p.add_argument("--drops-tol", type=float, metavar="F", help=f"relative tolerance on drops (default {d.drops})")
    p.add_argument("--retransmits-tol", type=float, metavar="N",
                   help=f"retransmissions that may differ (default {d.retransmits:g})")
    p.add_argument("--timeouts-tol", type=float, metavar="N", help=f"timeouts that may differ (default {d.timeouts:g})")
    p.add_argument("--ns", default="ns", metavar="PATH", help="the ns-2 command (default: ns)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def _tolerance(args: argparse.Namespace, base: Tolerance, extra: dict) -> Tolerance:
    given = {
        "completion_time_s": args.time_tol,
        "bytes_delivered": args.bytes_tol,
        "drops": args.drops_tol,
        "retransmits": args.retransmits_tol,
        "timeouts": args.timeouts_tol,
    }
    tolerance = Tolerance.from_mapping(extra, base=base)
    return replace(tolerance, **{k: v for k, v in given.items() if v is not None})


def _against_linux(args: argparse.Namespace) -> int:
    from renolab import emulate as emu
    from renolab.kernel_validation import LINUX_TOLERANCE, validate as validate_linux

    if args.runs is not None and args.runs < 1:
        raise UsageError(f"--runs: {args.runs} is not a whole number >= 1")
    scenario, extra = load(args.scenario)
    emu.check(scenario)
    reason = emu.unsupported_reason()
    if reason:
        return fail(reason, EXIT_BAD_INPUT)
    runs = args.runs if args.runs is not None else int(extra.get("runs", 5))
    try:
        result = validate_linux(
            scenario,
            runs=runs,
            seed=args.seed,
            tolerance=_tolerance(args, LINUX_TOLERANCE, extra),
            name=os.path.basename(args.scenario),
            progress=None if args.quiet else (lambda m: print(m, file=sys.stderr, flush=True)),
        )
    except emu.EmulationError as exc:
        code = EXIT_BAD_INPUT if getattr(exc, "kind", "") == "unsupported" else EXIT_SIMULATION_FAILED
        return fail(exc, code)
    print(result.format())
    return EXIT_OK if result.ok else EXIT_SIMULATION_FAILED


def run(args: argparse.Namespace) -> int:
    if args.against == "linux":
        return _against_linux(args)
    for name in ("runs", "jobs"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise UsageError(f"--{name}: {value} is not a whole number >= 1")
    scenario, extra = load(args.scenario)
    tolerance = _tolerance(args, Tolerance(), extra)
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
            progress=not args.quiet,
        )
    except Ns2NotFound as exc:
        return fail(exc, EXIT_BAD_INPUT)
    except Ns2Error as exc:
        return fail(exc, EXIT_SIMULATION_FAILED)
    print(report.format())
    return EXIT_OK if report.ok else EXIT_SIMULATION_FAILED
