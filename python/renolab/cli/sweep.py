"""``renolab sweep SWEEP.toml --out DIR``: run a parameter sweep (:mod:`renolab.sweep`)."""

from __future__ import annotations

import argparse

from renolab.cli._common import EXIT_BAD_INPUT, EXIT_OK, UsageError, add_allow_python, check_workers, fail
from renolab.sweep import Sweep


def add_arguments(sweep: argparse.ArgumentParser) -> None:
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
    add_allow_python(sweep, "sweep")


def run(args: argparse.Namespace) -> int:
    from renolab.outdir import checked_path

    check_workers(args.workers)
    try:
        checked_path(args.out)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    sweep = Sweep.from_toml(args.sweep)
    try:
        result = sweep.run(
            args.out,
            workers=args.workers,
            scheduler=args.scheduler,
            dask=args.dask,
            progress=not args.no_progress,
            allow_python=args.allow_python,
        )
    except ImportError as exc:  # Dask asked for but not installed
        return fail(exc, EXIT_BAD_INPUT)
    print(result.describe())
    return EXIT_OK
