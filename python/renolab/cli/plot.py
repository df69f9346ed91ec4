"""``renolab plot DIR``: draw the figures of a run directory (:mod:`renolab.plot`), or a
sweep's metric against its parameters when DIR is a sweep's output directory."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from renolab.cli._common import EXIT_BAD_INPUT, EXIT_OK, UsageError, fail, names
from renolab.plot import KINDS, save_figures
from renolab.results import Result


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``renolab plot``."""
    parser.add_argument("run_dir", metavar="DIR", help="a run directory (renolab run) or a sweep directory (renolab sweep)")
    parser.add_argument(
        "--kind",
        metavar="KIND[,KIND...]",
        type=names,
        action="append",
        help=f"run figures to draw: {', '.join(KINDS)} (default: every one the recorded traces allow)",
    )
    parser.add_argument("--flow", metavar="NAME", help="the flow of the time-sequence graph, cwnd and throughput figures (default: all; seq: the first)")
    parser.add_argument(
        "--link",
        metavar="NAME[,NAME...]",
        type=names,
        action="append",
        help="link directions of the queue figure (default: the flows' bottlenecks)",
    )
    parser.add_argument("--x", metavar="PARAM", help="sweep: the parameter on the x axis (default: the first numeric one)")
    parser.add_argument("--y", metavar="METRIC", default="goodput_bps", help="sweep: the metric plotted (default goodput_bps)")
    parser.add_argument("--hue", metavar="PARAM", help="sweep: one line per value of this parameter (default: another parameter)")
    parser.add_argument(
        "--format",
        metavar="FMT[,FMT...]",
        type=names,
        default=None,
        help="image formats: png, svg, pdf (default png)",
    )
    parser.add_argument("--out", metavar="PLOT_DIR", help="where to write the figures (default DIR/plots)")


def run(args: argparse.Namespace) -> int:
    """Draw the figures of a run directory, or a sweep's metric against a parameter."""
    directory = Path(args.run_dir)
    formats = args.format or ["png"]
    out = Path(args.out) if args.out else directory / "plots"
    if (directory / "sweep.json").is_file():
        return _sweep(args, directory, out, formats)
    if args.x or args.hue:
        raise UsageError(f"--x and --hue are for a sweep directory; {directory} is not one (no sweep.json)")
    if not (directory / "flows.csv").is_file():
        return fail(f"{directory}: not a renolab run directory (no flows.csv) nor a sweep directory (no sweep.json)", EXIT_BAD_INPUT)
    result = Result.load(directory)
    kinds = [k for group in args.kind for k in group] if args.kind else None
    links = [x for group in args.link for x in group] if args.link else None
    try:
        written = save_figures(result, out, kinds=kinds, formats=formats, flow=args.flow, links=links)
    except ValueError as exc:  # an unknown kind, format, flow or link
        return fail(exc, EXIT_BAD_INPUT)
    print(f"wrote {', '.join(p.name for p in written)} to {out}")
    return EXIT_OK


def _sweep(args: argparse.Namespace, directory: Path, out: Path, formats: list[str]) -> int:
    import pandas as pd

    from renolab.plot import IMAGE_FORMATS, sweep
    from renolab.plot.figure import save_figure
    from renolab.plot.sweep_figure import sweep_axes

    if args.kind or args.flow or args.link:
        raise UsageError("--kind, --flow and --link are for a run directory; for a sweep use --x, --y and --hue")
    summary_path = directory / "summary.parquet"
    if not summary_path.is_file():
        return fail(f"{directory}: the sweep has not finished (no summary.parquet); run the same renolab sweep again to finish it", EXIT_BAD_INPUT)
    for fmt in formats:
        if fmt not in IMAGE_FORMATS:
            return fail(f"unknown image format {fmt!r}; allowed: {', '.join(IMAGE_FORMATS)}", EXIT_BAD_INPUT)
    summary = pd.read_parquet(summary_path)
    try:
        x, hue = sweep_axes(summary, x=args.x, y=args.y, hue=args.hue)
        fig = sweep(summary, x=x, y=args.y, hue=hue)
    except ValueError as exc:
        return fail(exc, EXIT_BAD_INPUT)
    out.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{args.y}-vs-{x}")
    written = [save_figure(fig, out / f"{stem}.{fmt}", dpi=120, fmt=fmt) for fmt in formats]
    print(f"wrote {', '.join(p.name for p in written)} to {out}")
    return EXIT_OK
