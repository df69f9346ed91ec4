"""What the figures of one run share: picking flows, the end of the run, finishing axes
drawn against time, the panel that says a trace is missing, number formatting."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from renolab.plot.figure import new_figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from renolab.results import Result

#: The figures, in the order ``renolab plot`` writes them.
KINDS = ("cwnd", "seq", "throughput", "queue", "cc", "summary")
#: The trace each figure needs.
NEEDS = {"cwnd": "cwnd", "seq": "seq", "throughput": "seq", "queue": "queue", "cc": "cc"}
#: ssthresh at or above this is not drawn: inf (unset), or 4294967295 in old run directories.
UNBOUNDED = 1e9


def target(ax: Axes | None, width: float = 8.0, height: float = 4.5) -> tuple[Figure, Axes]:
    """*ax* and its figure, or a new figure with one axes when *ax* is None."""
    if ax is not None:
        return ax.figure, ax  # type: ignore[return-value]
    fig = new_figure(width, height)
    return fig, fig.add_subplot()


def flow_names(frame: pd.DataFrame, flows: Sequence[str] | str | None) -> list[str]:
    """The flows of *frame* named in *flows* (all of them for None), in the trace's order."""
    present = [str(f) for f in pd.unique(frame["flow"].dropna().astype(str))]
    if flows is None:
        return present
    wanted = [flows] if isinstance(flows, str) else [str(f) for f in flows]
    return [f for f in wanted if f in present]


def end_time(run: Result, frame: pd.DataFrame) -> float:
    """The end of the run: its simulated time, or the last row of *frame* if later."""
    sim = run.summary.get("sim_time_s")
    last = float(frame["time_s"].max()) if len(frame) else 0.0
    return max(float(sim), last) if isinstance(sim, (int, float)) else last


def label_time_axes(ax: Axes, ylabel: str, title: str, *, from_zero: bool = True, **legend: Any) -> None:
    """Finish a plot against time: axis labels, title, grid, both axes from 0 (unless
    *from_zero* is false) and a legend (small font; *legend* overrides ``loc="best"`` and adds
    options) when anything is labelled."""
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if from_zero:
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**{"loc": "best", "fontsize": "small", **legend})


def missing(ax: Axes, trace: str, title: str) -> None:
    """Fill *ax* with a note that the figure needs *trace*, and how to record it."""
    ax.set_title(title)
    ax.text(
        0.5,
        0.5,
        f"trace '{trace}' not recorded\n(renolab run ... --trace {trace})",
        ha="center",
        va="center",
        transform=ax.transAxes,
        color="0.4",
    )
    ax.set_xticks([])
    ax.set_yticks([])


def bottlenecks(run: Result) -> list[str]:
    """The link directions that are some flow's bottleneck, in order of first appearance."""
    if "bottleneck" not in run.flows:
        return []
    return [str(x) for x in pd.unique(run.flows["bottleneck"].dropna().astype(str))]


def divide(value: Any, by: float) -> Any:
    """*value* / *by* for a number, *value* itself otherwise."""
    return value / by if isinstance(value, (int, float)) else value


def fmt(value: Any, pattern: str) -> str:
    """*value* formatted by *pattern*; "-" for None and NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    try:
        return pattern.format(value)
    except (TypeError, ValueError):
        return str(value)


def seconds_text(value: float) -> str:
    """A bin width as text: ``"50 ms"``, ``"2 s"``."""
    return f"{value * 1e3:g} ms" if value < 1 else f"{value:g} s"
