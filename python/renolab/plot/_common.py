"""What the figures of one run share: picking flows and their colours, the end of the run,
finishing axes drawn against time (units on both, the legend outside the data), the panel
that says a trace is missing, number formatting."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from renolab.plot.figure import legend_outside, new_figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from renolab.results import Result

#: The figures, in the order ``renolab plot`` writes them.
KINDS = ("cwnd", "seq", "throughput", "queue", "rtt", "rtt_cdf", "queue_delay", "queue_delay_cdf", "cc", "summary", "fct")
#: The trace each figure needs (the summary and the flow completion times need none).
NEEDS = {
    "cwnd": "cwnd", "seq": "seq", "throughput": "seq", "queue": "queue", "rtt": "rtt", "rtt_cdf": "rtt",
    "queue_delay": "hops", "queue_delay_cdf": "hops", "cc": "cc",
}
#: Up to this many flows a figure's legend names each flow; beyond, it names the line
#: styles and the colours follow the flows' order in flows.csv.
LEGEND_FLOWS = 10
#: Variants whose controller has no slow-start threshold worth drawing (BBR keeps one only
#: for the kernel's bookkeeping).
NO_SSTHRESH = ("bbr",)
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


def flow_colours(run: Result) -> dict[str, Any]:
    """A colour per flow, by its row in flows.csv: matplotlib's ten for up to ten flows,
    else as many distinct colours along the 'turbo' colour map (so that 50 flows are 50
    colours, the same in every figure and in the summary's table)."""
    from matplotlib import colormaps

    names = [str(f) for f in run.flows["flow"]] if "flow" in run.flows else []
    if len(names) <= 10:
        return {name: f"C{i}" for i, name in enumerate(names)}
    cmap = colormaps["turbo"]
    return {name: cmap(0.05 + 0.9 * i / (len(names) - 1)) for i, name in enumerate(names)}


def colour_of(colours: dict[str, Any], flow: str, index: int) -> Any:
    """*flow*'s colour (one of matplotlib's ten by *index* for a flow flows.csv does not list)."""
    return colours.get(flow, f"C{index % 10}")


def style_handles(styles: Sequence[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Grey legend entries for line styles: ``[("cwnd", {"ls": "-"}), ("ssthresh", {"ls": "--"})]``."""
    from matplotlib.lines import Line2D

    return [Line2D([], [], **{"color": "0.35", "lw": 1.2, **style}, label=label) for label, style in styles]


def label_time_axes(
    ax: Axes,
    ylabel: str,
    title: str,
    *,
    from_zero: bool = True,
    flows: int = 0,
    styles: Sequence[tuple[str, dict[str, Any]]] = (),
    **legend: Any,
) -> None:
    """Finish a plot against time: axis labels with units, title, grid, both axes from 0
    (unless *from_zero* is false) and a legend outside the data when anything is labelled.
    With more than :data:`LEGEND_FLOWS` *flows* the legend lists *styles* (one grey entry
    per line style) instead of every flow, and the title says how many flows are drawn;
    *legend* adds options to :func:`renolab.plot.figure.legend_outside`."""
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    many = flows > LEGEND_FLOWS
    ax.set_title(f"{title}, {flows} flows (a colour each)" if many else title)
    if from_zero:
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    if many and styles:
        legend_outside(ax, handles=style_handles(styles), **legend)
    elif not many:
        legend_outside(ax, **legend)


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


def payload_capacities(run: Result) -> list[tuple[float, float]]:
    """(wire capacity, payload capacity) of the flows' bottlenecks, in bit/s, distinct pairs
    in order: the payload capacity is C x MSS / (MSS + header bytes), what a flow's goodput
    can reach (the wire rate carries the headers too)."""
    if "bottleneck_bps" not in run.flows:
        return []
    sizes = run.segment_bytes()
    headers = run.header_bytes()
    pairs: list[tuple[float, float]] = []
    for name, capacity in zip(run.flows["flow"].astype(str), run.flows["bottleneck_bps"]):
        mss, header = sizes.get(name, math.nan), headers.get(name, math.nan)
        if capacity is None or not math.isfinite(float(capacity)) or not (math.isfinite(mss) and math.isfinite(header)):
            continue
        pair = (float(capacity), float(capacity) * mss / (mss + header))
        if pair not in pairs:
            pairs.append(pair)
    return pairs


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
