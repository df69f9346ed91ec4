"""``renolab summary SWEEP_DIR``: print a finished sweep's summary table, one line per point
and flow (:func:`renolab.sweep.summary.format_summary`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from renolab.cli._common import EXIT_BAD_INPUT, EXIT_OK, fail, names


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``renolab summary``."""
    parser.add_argument("sweep_dir", metavar="SWEEP_DIR", help="the output directory of renolab sweep")
    parser.add_argument(
        "--metric",
        metavar="NAME[,NAME...]",
        type=names,
        action="append",
        help="metrics to show (columns of runs.parquet; default: goodput, completion time, "
        "retransmits, timeouts, mean RTT, queueing delay, Jain's index)",
    )
    parser.add_argument("--flow", metavar="NAME", help="only this flow's lines")


def run(args: argparse.Namespace) -> int:
    """Print the summary table of a sweep directory."""
    import pandas as pd

    from renolab.sweep.summary import format_summary

    directory = Path(args.sweep_dir)
    if not (directory / "sweep.json").is_file():
        return fail(f"{directory}: not a sweep directory (no sweep.json); renolab sweep SWEEP.toml --out DIR makes one", EXIT_BAD_INPUT)
    path = directory / "summary.parquet"
    if not path.is_file():
        return fail(f"{directory}: the sweep has not finished (no summary.parquet); run the same renolab sweep again to finish it", EXIT_BAD_INPUT)
    metrics = [m for group in args.metric for m in group] if args.metric else None
    try:
        print(format_summary(pd.read_parquet(path), metrics=metrics, flow=args.flow))
    except ValueError as exc:  # an unknown metric or flow
        return fail(exc, EXIT_BAD_INPUT)
    return EXIT_OK
