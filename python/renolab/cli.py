"""The ``renolab`` command line.

``renolab run SCENARIO.toml --out DIR [--trace cwnd[,...]] [--seed N] [--check-invariants]``
simulates a scenario and writes ``flows.csv``, ``links.csv``, ``summary.json`` and one CSV per
trace; ``renolab check SCENARIO.toml`` only validates it.

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
        help="record traces, e.g. cwnd (repeatable or comma-separated)",
    )
    run.add_argument("--seed", type=int, metavar="N", help="override simulation.seed")
    run.add_argument("--check-invariants", action="store_true", help="enable the core's internal consistency checks")
    run.set_defaults(handler=_cmd_run)

    check = commands.add_parser("check", help="validate a scenario without running it")
    check.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    check.set_defaults(handler=_cmd_check)
    return parser


def _cmd_run(args: argparse.Namespace) -> int:
    scenario = Scenario.from_toml(args.scenario)
    if args.seed is not None:
        scenario = scenario.with_seed(args.seed)
    traces = [name for group in args.trace for name in group]
    result = scenario.run(trace=traces, check_invariants=args.check_invariants)
    written = result.save(args.out)
    print(format_flows_table(result))
    s = result.summary
    print(
        f"\nsimulated {s['sim_time_s']:.6g} s ({s['events']} events, stop: {s['stop_reason']}) "
        f"in {s['wall_time_s']:.3g} s; seed {s['seed']}"
    )
    print(f"wrote {', '.join(p.name for p in written)} to {args.out}")
    return EXIT_OK


def _cmd_check(args: argparse.Namespace) -> int:
    normalised = Scenario.from_toml(args.scenario).validate()
    n_links, n_flows = len(normalised.get("link", [])), len(normalised.get("flow", []))
    print(f"ok: {_plural(n_links, 'link')}, {_plural(n_flows, 'flow')}")
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
