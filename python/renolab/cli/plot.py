"""``renolab plot DIR``: draw the figures of a run directory (:mod:`renolab.plot`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from renolab.cli._common import EXIT_BAD_INPUT, EXIT_OK, fail
from renolab.plot import KINDS, save_figures
from renolab.results import Result


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``renolab plot``."""
    parser.add_argument("run_dir", metavar="DIR", help="a run directory (written by renolab run)")
    parser.add_argument(
        "--kind",
        metavar="KIND[,KIND...]",
        type=_names,
        action="append",
        help=f"figures to draw: {', '.join(KINDS)} (default: every one the recorded traces allow)",
    )
    parser.add_argument(
        "--format",
        metavar="FMT[,FMT...]",
        type=_names,
        default=None,
        help="image formats: png, svg, pdf (default png)",
    )
    parser.add_argument("--out", metavar="PLOT_DIR", help="where to write the figures (default DIR/plots)")


def run(args: argparse.Namespace) -> int:
    """Draw the figures of a run directory."""
    result = Result.load(args.run_dir)
    kinds = [k for group in args.kind for k in group] if args.kind else None
    formats = args.format or ["png"]
    out = Path(args.out) if args.out else Path(args.run_dir) / "plots"
    try:
        written = save_figures(result, out, kinds=kinds, formats=formats)
    except ValueError as exc:  # an unknown kind or format
        return fail(exc, EXIT_BAD_INPUT)
    print(f"wrote {', '.join(p.name for p in written)} to {out}")
    return EXIT_OK
