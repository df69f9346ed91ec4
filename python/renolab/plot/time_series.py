"""The time series of one run: congestion window, time-sequence graph, throughput and
queue length, each against simulated time, with units on both axes and the legend outside
the data."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from renolab.plot._common import (
    NO_SSTHRESH,
    UNBOUNDED,
    bottlenecks,
    colour_of,
    end_time,
    flow_colours,
    flow_names,
    label_time_axes,
    payload_capacities,
    seconds_text,
    target,
)
from renolab.plot.figure import RASTER_POINTS

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from renolab.results import Result


def _steps(ax: Axes, t: np.ndarray, values: np.ndarray, **style: Any) -> None:
    """*values* as a step line held until the end time (the last element of *t*)."""
    ax.step(t, np.append(values, values[-1:]), where="post", rasterized=len(t) > RASTER_POINTS, **style)


def _variants(run: Result) -> dict[str, str]:
    if "variant" not in run.flows:
        return {}
    return dict(zip(run.flows["flow"].astype(str), run.flows["variant"].astype(str)))


def cwnd(
    run: Result,
    *,
    flows: Sequence[str] | str | None = None,
    ssthresh: bool = True,
    inflated: bool = False,
    ax: Axes | None = None,
) -> Figure:
    """The congestion controller's window (solid) and slow-start threshold (dashed) vs time,
    per flow, in segments; an unbounded ssthresh is not drawn, nor the ssthresh of a
    controller without one (BBR).  The window is cwnd without Reno's fast-recovery
    inflation; *inflated* adds the window the sender may fill during fast recovery (dotted,
    the ``inflated_cwnd`` column)."""
    fig, ax = target(ax)
    frame = run.trace("cwnd")
    end = end_time(run, frame)
    colours, variants = flow_colours(run), _variants(run)
    names = flow_names(frame, flows)
    styles = [("cwnd", {"ls": "-"})]
    for i, flow in enumerate(names):
        part = frame[frame["flow"].astype(str) == flow]
        t = np.append(part["time_s"].to_numpy(dtype=np.float64), end)
        colour = colour_of(colours, flow, i)
        _steps(ax, t, part["cwnd"].to_numpy(dtype=np.float64), color=colour, lw=1.2, label=f"{flow} cwnd")
        if inflated and "inflated_cwnd" in part:
            _steps(ax, t, part["inflated_cwnd"].to_numpy(dtype=np.float64), color=colour, lw=0.8, ls=":",
                   label=f"{flow} cwnd + recovery inflation")
        if ssthresh and variants.get(flow) not in NO_SSTHRESH:
            s = part["ssthresh"].to_numpy(dtype=np.float64)
            s = np.where(s >= UNBOUNDED, np.nan, s)
            if not np.all(np.isnan(s)):
                _steps(ax, t, s, color=colour, lw=1.0, ls="--", label=f"{flow} ssthresh")
    styles += [("cwnd + recovery inflation", {"ls": ":", "lw": 0.8})] if inflated else []
    styles += [("ssthresh", {"ls": "--", "lw": 1.0})] if ssthresh else []
    ylabel = "window (segments)" if inflated else "cwnd, no recovery inflation (segments)"
    label_time_axes(ax, ylabel, "Congestion window", flows=len(names), styles=styles)
    return fig


def seq(run: Result, *, flow: str | None = None, ax: Axes | None = None) -> Figure:
    """Time-sequence graph of one flow (default: the first), tcptrace style: segments sent
    (dots), retransmissions (red circles), the cumulative ACK (green step line), data
    segments dropped (black crosses) and ACKs dropped (grey pluses)."""
    fig, ax = target(ax)
    frame = run.trace("seq")
    names = flow_names(frame, flow)
    if not names:
        ax.set_title("Time-sequence graph")
        return fig
    name = names[0]
    part = frame[frame["flow"].astype(str) == name]
    event = part["event"].astype(str).to_numpy()
    t = part["time_s"].to_numpy(dtype=np.float64)
    s = part["seq"].to_numpy(dtype=np.float64)
    big = len(part) > RASTER_POINTS

    def mark(which: str, **style: Any) -> None:
        m = event == which
        if m.any():
            ax.plot(t[m], s[m], ls="none", rasterized=big, **style)

    acked = event == "acked"
    if acked.any():
        cum = np.maximum.accumulate(s[acked])
        ax.step(t[acked], cum, where="post", color="tab:green", lw=1.0, label="cumulative ACK", rasterized=big)
    mark("sent", marker=".", ms=2.5, color="tab:blue", label="sent")
    mark("retransmitted", marker="o", ms=5, mfc="none", color="tab:red", label="retransmitted")
    mark("dropped", marker="x", ms=5, color="black", label="dropped")
    mark("ack_dropped", marker="+", ms=5, color="0.5", label="ACK dropped")
    label_time_axes(ax, "sequence number (segments)", f"Time-sequence graph: {name}", from_zero=False, markerscale=1.5)
    return fig


def throughput(
    run: Result,
    *,
    bin_s: float | None = None,
    flows: Sequence[str] | str | None = None,
    sent: bool = False,
    ax: Axes | None = None,
) -> Figure:
    """Delivered throughput per flow vs time (solid: payload of the segments reaching the
    receiver, each once, so no curve exceeds the bottleneck's payload capacity), in Mb/s, in
    bins of *bin_s* (default about a hundredth of the run); the bottleneck's payload
    capacity, C x MSS / (MSS + headers), as a grey dashed line.  *sent* adds the sending rate
    (dotted: every data segment sent, retransmissions included, which may exceed the
    bottleneck while the queue fills).  A ``seq`` trace recorded before renolab traced
    arrivals at the receiver falls back to the ACK-based goodput, said in the legend."""
    fig, ax = target(ax)
    series = run.throughput(bin_s)
    bin_width = float(series["time_s"].diff().dropna().iloc[0]) if series["time_s"].nunique() > 1 else (bin_s or 1.0)
    delivered = "delivered_bps" in series and bool(series["delivered_bps"].notna().any())
    column, what = ("delivered_bps", "delivered") if delivered else ("goodput_bps", "goodput (ACK-based)")
    colours = flow_colours(run)
    names = flow_names(series, flows)
    for i, flow in enumerate(names):
        part = series[series["flow"].astype(str) == flow]
        t = np.append(part["time_s"].to_numpy(dtype=np.float64), part["time_s"].iloc[-1] + bin_width)
        colour = colour_of(colours, flow, i)
        g = part[column].to_numpy(dtype=np.float64) / 1e6
        ax.step(t, np.append(g, g[-1:]), where="post", color=colour, lw=1.2, label=f"{flow} {what}")
        if sent:
            r = part["sent_bps"].to_numpy(dtype=np.float64) / 1e6
            ax.step(t, np.append(r, r[-1:]), where="post", color=colour, lw=0.8, ls=":", label=f"{flow} sent")
    capacities = payload_capacities(run)
    for _, payload in capacities[:3]:
        ax.axhline(payload / 1e6, color="0.5", lw=0.8, ls="--")
    capacity_label = "bottleneck payload capacity, C × MSS/(MSS + headers)"
    if capacities:
        ax.plot([], [], color="0.5", lw=0.8, ls="--", label=capacity_label)
    styles = [(what, {"ls": "-"})] + ([("sent", {"ls": ":", "lw": 0.8})] if sent else [])
    styles += [(capacity_label, {"ls": "--", "lw": 0.8, "color": "0.5"})] if capacities else []
    label_time_axes(ax, "payload throughput at the receiver (Mb/s)" if delivered else "goodput, ACK-based (Mb/s)",
                    f"Delivered throughput ({seconds_text(bin_width)} bins)" if delivered else f"Throughput ({seconds_text(bin_width)} bins)",
                    flows=len(names), styles=styles)
    return fig


def queue(
    run: Result, *, links: Sequence[str] | str | None = None, average: bool = True, ax: Axes | None = None
) -> Figure:
    """Queue length (packets waiting) vs time per link direction; by default the flows'
    bottlenecks (``flows.csv``'s ``bottleneck`` column), else every direction whose queue ever
    held a packet.  For a RED queue, *average* adds RED's average queue (dashed, the
    trace's ``avg_packets``); a DualPI2 queue adds its L and classic queues (dotted and
    dash-dotted, the trace's ``queue`` rows ``l`` and ``c``)."""
    fig, ax = target(ax)
    frame = run.trace("queue")
    sub_rows = frame["queue"].astype(str) if "queue" in frame else None
    chosen = chosen_links(run, frame, links, "packets")
    end = end_time(run, frame)
    for i, link in enumerate(chosen):
        here = frame["link"].astype(str) == link
        part = frame[here & (sub_rows == "all")] if sub_rows is not None else frame[here]
        t = np.append(part["time_s"].to_numpy(dtype=np.float64), end)
        _steps(ax, t, part["packets"].to_numpy(dtype=np.float64), color=f"C{i % 10}", lw=1.0, label=link)
        for name, style, label in (("l", ":", "L queue"), ("c", "-.", "classic queue")):
            sub = frame[here & (sub_rows == name)] if sub_rows is not None else frame.iloc[:0]
            if len(sub) and sub["packets"].max() > 0:
                ts = np.append(sub["time_s"].to_numpy(dtype=np.float64), end)
                _steps(ax, ts, sub["packets"].to_numpy(dtype=np.float64), color=f"C{i % 10}", lw=0.9, ls=style,
                       label=f"{link} {label}")
        if average and "avg_packets" in part:
            a = part["avg_packets"].to_numpy(dtype=np.float64)
            if np.isfinite(a).any():
                _steps(ax, t, a, color=f"C{i % 10}", lw=1.2, ls="--", label=f"{link} RED average")
    label_time_axes(ax, "queue length (packets)", "Queue length" + (" at the bottleneck" if links is None and len(chosen) == 1 else ""))
    return fig


def chosen_links(run: Result, frame: pd.DataFrame, links: Sequence[str] | str | None, busy_column: str | None) -> list[str]:
    """The link directions to draw: *links* if given (those in *frame*), else the flows'
    bottlenecks, else every direction whose *busy_column* is ever above 0 (else all)."""
    present = [str(x) for x in pd.unique(frame["link"].dropna().astype(str))]
    if links is not None:
        wanted = [links] if isinstance(links, str) else [str(x) for x in links]
        return [x for x in wanted if x in present]
    chosen = [x for x in bottlenecks(run) if x in present]
    if not chosen and busy_column is not None:
        busy = frame.groupby(frame["link"].astype(str))[busy_column].max()
        chosen = [x for x in present if busy.get(x, 0) > 0]
    return chosen or present
