"""``renolab bench``: renolab's speed, side by side with ns-2.35 (:mod:`renolab.bench`)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

from renolab import __version__, bench
from renolab.cli._common import EXIT_OK, UsageError


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: must be at least 1")
    return value


def _duration_arg(text: str) -> float:
    try:
        return bench.parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _against(text: str) -> str:
    if text != "ns2":
        raise argparse.ArgumentTypeError(f"{text!r}: the only peer is ns2")
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``renolab bench``."""
    parser.description = (
        f"{parser.description}\n\n"
        "Measure renolab on the reference dumbbell (1 and 10 Reno flows over 1 Gb/s, 30 simulated "
        "seconds), optionally side by side with ns-2.35 on the same scenario. Figure of merit: data "
        "packets delivered in order per wall-clock second of the run. Each run is a fresh child "
        "process; the report gives the median and [min-max] over the repeats."
    )
    parser.add_argument(
        "--against", type=_against, metavar="ns2", help="also run ns-2.35 (`ns`) on the same scenario, alternating"
    )
    parser.add_argument(
        "--flows",
        type=_positive_int,
        action="append",
        metavar="N",
        help="reference dumbbell with N flows (repeatable; default: 1 and 10 unless --large or --lee2001-grid)",
    )
    parser.add_argument("--repeat", type=_positive_int, default=3, metavar="K", help="runs per case (default 3)")
    parser.add_argument(
        "--duration",
        type=_duration_arg,
        metavar="TIME",
        help=f"simulated time of the dumbbell cases, e.g. 1s (default {bench.REFERENCE_DURATION}; "
        f"{bench.LARGE_DURATION} for --large; the shortest, {bench.SCALING_DURATION}, for --scaling)",
    )
    parser.add_argument(
        "--large",
        action="store_true",
        help=f"{bench.LARGE_FLOWS} flows over a {bench.LARGE_RATE_BPS / 1e9:g} Gb/s bottleneck",
    )
    parser.add_argument(
        "--lee2001-grid",
        action="store_true",
        help="the 72 runs of lee2001's grid as a sweep over every core (wall time)",
    )
    parser.add_argument(
        "--scaling",
        action="store_true",
        help="how cost grows: flows 1, 10, 100, 1000 on one 10 Gb/s bottleneck; a 100 Mb/s, 1, 10 and "
        "100 Gb/s bottleneck with one flow; 10, 30 and 100 simulated seconds (--duration sets the "
        "shortest run, the longer ones are 3 and 10 times it), the cases in turn, --repeat rounds; "
        "with --against ns2, ns-2 beside each "
        f"case unless predicted to take over {bench.NS2_TIME_LIMIT_S / 60:g} minutes",
    )
    parser.add_argument("--jobs", type=_positive_int, metavar="N", help="worker processes for the grid (default: cores)")
    parser.add_argument(
        "--python-cc",
        nargs="?",
        const=bench.DEFAULT_PYTHON_CC,
        metavar="FILE.py:Class",
        help="the 1-flow reference dumbbell with the built-in Reno and with a Python controller "
        f"(default {bench.DEFAULT_PYTHON_CC}): speed ratio and controller calls per second",
    )
    parser.add_argument(
        "--ns2-script",
        metavar="FILE",
        help="the ns-2 side (default: benchmarks/dumbbell.tcl of the source tree)",
    )


def _cases(args: argparse.Namespace) -> Iterator[bench.Case]:
    flows = args.flows or ([] if (args.large or args.lee2001_grid or args.python_cc or args.scaling) else [1, 10])
    for n in flows:
        seconds = args.duration or bench.parse_duration(bench.REFERENCE_DURATION)
        yield bench.Case(
            "reference dumbbell", n, bench.REFERENCE_RATE_BPS, seconds, bench.bdp_packets(bench.REFERENCE_RATE_BPS)
        )
    if args.large:
        seconds = args.duration or bench.parse_duration(bench.LARGE_DURATION)
        yield bench.Case(
            "large dumbbell", bench.LARGE_FLOWS, bench.LARGE_RATE_BPS, seconds, bench.bdp_packets(bench.LARGE_RATE_BPS)
        )


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "CPU"


def run(args: argparse.Namespace) -> int:
    """Run the selected cases and print one report per case."""
    against_ns2 = args.against == "ns2"
    script: Optional[Path] = None
    note: Optional[str] = None
    if against_ns2:
        script = Path(args.ns2_script) if args.ns2_script else bench.default_ns2_script()
        if not script.is_file():
            raise FileNotFoundError(2, "ns-2 script not found (run from the source tree or pass --ns2-script)", str(script))
        if bench.ns2_executable() is None:
            note = "skipped: ns-2 is not installed (no `ns` on PATH)"
            script = None
    else:
        note = "not run (pass --against ns2)"

    def progress(message: str) -> None:
        if sys.stderr.isatty():
            print(f"... {message}", file=sys.stderr, flush=True)

    print(
        f"renolab bench: renolab {__version__}, Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} x {_cpu_model()}{'' if script is None else f'; ns-2: {bench.ns2_executable()}'}",
        flush=True,
    )
    for case in _cases(args):
        case.ns2_note = note
        bench.run_case(case, args.repeat, against_ns2=script is not None, ns2_script=script, progress=progress)
        print("\n" + bench.format_case(case), flush=True)
    if args.scaling:
        rows = bench.scaling_rows(args.duration or bench.parse_duration(bench.SCALING_DURATION))
        for row in rows:
            row.case.ns2_note = note
        bench.run_scaling(rows, args.repeat, against_ns2=script is not None, ns2_script=script, progress=progress)
        print("\n" + bench.format_scaling(rows), flush=True)
    if args.python_cc:
        seconds = args.duration or bench.parse_duration(bench.REFERENCE_DURATION)
        try:
            case = bench.PythonCcCase(args.python_cc, seconds)
            case.scenarios()
        except ValueError as exc:
            raise UsageError(f"--python-cc: {exc}") from None
        bench.run_python_cc(case, args.repeat, progress)
        print("\n" + bench.format_python_cc(case), flush=True)
    if args.lee2001_grid:
        runs = []
        for k in range(args.repeat):
            progress(f"lee2001 grid {k + 1}/{args.repeat}")
            runs.append(bench.run_lee2001_grid(args.jobs))
        print("\n" + bench.format_grid(runs), flush=True)
    return EXIT_OK
