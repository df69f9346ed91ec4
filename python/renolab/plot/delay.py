"""Delay figures of one run: the RTT samples over time and their distribution (``rtt``
trace), and every packet's queueing delay over time and its distribution (``hops`` trace,
:func:`renolab.metrics.queue_delays`), all in milliseconds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from renolab.plot._common import colour_of, flow_colours, flow_names, label_time_axes, target
from renolab.plot.figure import RASTER_POINTS, legend_outside
from renolab.plot.time_series import chosen_links

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from renolab.results import Result


def rtt(run: Result, *, flows: Sequence[str] | str | None = None, ax: Axes | None = None) -> Figure:
    """Every RTT sample a sender took (dots) and its smoothed RTT (line), per flow, in ms."""
    fig, ax = target(ax)
    frame = run.trace("rtt")
    colours = flow_colours(run)
    names = flow_names(frame, flows)
    for i, flow in enumerate(names):
        part = frame[frame["flow"].astype(str) == flow]
        t = part["time_s"].to_numpy(dtype=np.float64)
        big = len(t) > RASTER_POINTS
        colour = colour_of(colours, flow, i)
        ax.plot(t, part["rtt_s"].to_numpy(dtype=np.float64) * 1e3, ls="none", marker=".", ms=2, alpha=0.5,
                color=colour, label=f"{flow} RTT sample", rasterized=big)
        ax.plot(t, part["srtt_s"].to_numpy(dtype=np.float64) * 1e3, color=colour, lw=1.0, label=f"{flow} smoothed RTT",
                rasterized=big)
    label_time_axes(ax, "round-trip time (ms)", "RTT samples at the senders", flows=len(names),
                    styles=[("RTT sample", {"ls": "none", "marker": "."}), ("smoothed RTT", {"ls": "-"})], markerscale=2)
    return fig


def _cdf(ax: Axes, values: np.ndarray, **style: object) -> None:
    """The empirical CDF of *values* as a step line from 0 to 1."""
    x = np.sort(values[np.isfinite(values)])
    if len(x):
        y = np.arange(1, len(x) + 1) / len(x)
        ax.step(np.concatenate([[x[0]], x]), np.concatenate([[0.0], y]), where="post",
                rasterized=len(x) > RASTER_POINTS, **style)


def _finish_cdf(ax: Axes, xlabel: str, title: str) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction of samples (CDF)")
    ax.set_ylim(0, 1.02)
    ax.set_xlim(left=0)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    legend_outside(ax, max_entries=20)


def rtt_cdf(run: Result, *, flows: Sequence[str] | str | None = None, ax: Axes | None = None) -> Figure:
    """The distribution of each flow's RTT samples (empirical CDF), in ms."""
    fig, ax = target(ax)
    frame = run.trace("rtt")
    colours = flow_colours(run)
    for i, flow in enumerate(flow_names(frame, flows)):
        part = frame[frame["flow"].astype(str) == flow]
        _cdf(ax, part["rtt_s"].to_numpy(dtype=np.float64) * 1e3, color=colour_of(colours, flow, i), lw=1.2, label=flow)
    _finish_cdf(ax, "round-trip time (ms)", "Distribution of the RTT samples")
    return fig


def _delays(run: Result, links: Sequence[str] | str | None) -> tuple[pd.DataFrame, list[str]]:
    """The packets' queueing delays on the chosen link directions, and those directions."""
    from renolab import metrics

    hops = run.trace("hops")
    chosen = chosen_links(run, hops, links, None)
    return metrics.queue_delays(hops, links=chosen), chosen


def queue_delay(run: Result, *, links: Sequence[str] | str | None = None, ax: Axes | None = None) -> Figure:
    """Every packet's queueing delay (enqueue to start of transmission, from the ``hops``
    trace) at the time it left the queue, per link direction (default: the bottlenecks), in ms."""
    fig, ax = target(ax)
    delays, chosen = _delays(run, links)
    for i, link in enumerate(chosen):
        part = delays[delays["link"] == link]
        ax.plot(part["dequeued_s"], part["delay_s"] * 1e3, ls="none", marker=".", ms=2, color=f"C{i % 10}",
                label=link, rasterized=len(part) > RASTER_POINTS)
    label_time_axes(ax, "queueing delay (ms)", "Queueing delay of each packet" + (" at the bottleneck" if links is None and len(chosen) == 1 else ""),
                    markerscale=4)
    return fig


def queue_delay_cdf(run: Result, *, links: Sequence[str] | str | None = None, ax: Axes | None = None) -> Figure:
    """The distribution (empirical CDF) of the packets' queueing delays per link direction
    (default: the bottlenecks), in ms."""
    fig, ax = target(ax)
    delays, chosen = _delays(run, links)
    for i, link in enumerate(chosen):
        _cdf(ax, delays.loc[delays["link"] == link, "delay_s"].to_numpy(dtype=np.float64) * 1e3, color=f"C{i % 10}", lw=1.2, label=link)
    _finish_cdf(ax, "queueing delay (ms)", "Distribution of the packets' queueing delay")
    return fig
