"""Figures of a run: cwnd, time-sequence graph, throughput, queue length, the controllers'
state (BBR's pacing rate and modes) and a summary page.

Every function takes a :class:`renolab.Result` -- fresh from a run, or read back from a run
directory with :meth:`renolab.Result.load` -- and returns a :class:`matplotlib.figure.Figure`
(no pyplot state, so they work headless and in notebooks alike)::

    fig = result.plot.cwnd()            # or renolab.plot.cwnd(result)
    fig.savefig("cwnd.svg")

``renolab plot DIR [--kind cwnd,seq,throughput,queue,cc,summary] [--format png,svg]``
(:mod:`renolab.cli.plot`) writes them from the saved files of a run directory.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from renolab.results import Result

#: The figures, in the order ``renolab plot`` writes them.
KINDS = ("cwnd", "seq", "throughput", "queue", "cc", "summary")
#: The trace each figure needs.
NEEDS = {"cwnd": "cwnd", "seq": "seq", "throughput": "seq", "queue": "queue", "cc": "cc"}
#: Image formats :func:`save_figures` writes.
IMAGE_FORMATS = ("png", "svg", "pdf")

_UNBOUNDED = 1e9  # ssthresh at or above this is not drawn: inf (unset), or 4294967295 in old run directories
_RASTER_POINTS = 50_000  # series longer than this are rasterised inside vector files


def _new_figure(width: float = 8.0, height: float = 4.5) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _target(ax: Axes | None, width: float = 8.0, height: float = 4.5) -> tuple[Figure, Axes]:
    if ax is not None:
        return ax.figure, ax  # type: ignore[return-value]
    fig = _new_figure(width, height)
    return fig, fig.add_subplot()


def _flows(frame: pd.DataFrame, flows: Sequence[str] | str | None) -> list[str]:
    present = [str(f) for f in pd.unique(frame["flow"].dropna().astype(str))]
    if flows is None:
        return present
    wanted = [flows] if isinstance(flows, str) else [str(f) for f in flows]
    return [f for f in wanted if f in present]


def _end_time(run: Result, frame: pd.DataFrame) -> float:
    sim = run.summary.get("sim_time_s")
    last = float(frame["time_s"].max()) if len(frame) else 0.0
    return max(float(sim), last) if isinstance(sim, (int, float)) else last


def _label_time_axes(ax: Axes, ylabel: str, title: str, *, from_zero: bool = True, **legend: Any) -> None:
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


def _missing(ax: Axes, trace: str, title: str) -> None:
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


def cwnd(
    run: Result,
    *,
    flows: Sequence[str] | str | None = None,
    ssthresh: bool = True,
    inflated: bool = False,
    ax: Axes | None = None,
) -> Figure:
    """The congestion controller's window (solid) and slow-start threshold (dashed) vs time,
    per flow, in segments; an unbounded ssthresh is not drawn.  The window is cwnd without
    Reno's fast-recovery inflation; *inflated* adds the window the sender may fill during
    fast recovery (dotted, the ``inflated_cwnd`` column)."""
    fig, ax = _target(ax)
    frame = run.trace("cwnd")
    end = _end_time(run, frame)
    for i, flow in enumerate(_flows(frame, flows)):
        part = frame[frame["flow"].astype(str) == flow]
        t = np.append(part["time_s"].to_numpy(dtype=np.float64), end)
        colour = f"C{i % 10}"
        w = part["cwnd"].to_numpy(dtype=np.float64)
        ax.step(t, np.append(w, w[-1:]), where="post", color=colour, lw=1.2, label=f"{flow} cwnd",
                rasterized=len(t) > _RASTER_POINTS)
        if inflated and "inflated_cwnd" in part:
            v = part["inflated_cwnd"].to_numpy(dtype=np.float64)
            ax.step(t, np.append(v, v[-1:]), where="post", color=colour, lw=0.8, ls=":",
                    label=f"{flow} cwnd + recovery inflation", rasterized=len(t) > _RASTER_POINTS)
        if ssthresh:
            s = part["ssthresh"].to_numpy(dtype=np.float64)
            s = np.where(s >= _UNBOUNDED, np.nan, s)
            if not np.all(np.isnan(s)):
                ax.step(t, np.append(s, s[-1:]), where="post", color=colour, lw=1.0, ls="--",
                        label=f"{flow} ssthresh", rasterized=len(t) > _RASTER_POINTS)
    ylabel = "window (segments)" if inflated else "cwnd, no recovery inflation (segments)"
    _label_time_axes(ax, ylabel, "Congestion window")
    return fig


def seq(run: Result, *, flow: str | None = None, ax: Axes | None = None) -> Figure:
    """Time-sequence graph of one flow (default: the first), tcptrace style: segments sent
    (dots), retransmissions (red circles), the cumulative ACK (green step line), data
    segments dropped (black crosses) and ACKs dropped (grey pluses)."""
    fig, ax = _target(ax)
    frame = run.trace("seq")
    names = _flows(frame, flow)
    if not names:
        ax.set_title("Time-sequence graph")
        return fig
    name = names[0]
    part = frame[frame["flow"].astype(str) == name]
    event = part["event"].astype(str).to_numpy()
    t = part["time_s"].to_numpy(dtype=np.float64)
    s = part["seq"].to_numpy(dtype=np.float64)
    big = len(part) > _RASTER_POINTS

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
    _label_time_axes(ax, "sequence number (segments)", f"Time-sequence graph: {name}", from_zero=False,
                     loc="upper left", markerscale=1.5)
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
    receiver, each once, so no curve exceeds the bottleneck), in Mb/s, in bins of *bin_s*
    (default about a hundredth of the run); the bottleneck capacity as a grey line.  *sent*
    adds the sending rate (dotted: every data segment sent, retransmissions included, which
    may exceed the bottleneck while the queue fills).  A ``seq`` trace recorded before
    renolab traced arrivals at the receiver falls back to the ACK-based goodput, said in the
    legend."""
    fig, ax = _target(ax)
    series = run.throughput(bin_s)
    bin_width = float(series["time_s"].diff().dropna().iloc[0]) if series["time_s"].nunique() > 1 else (bin_s or 1.0)
    delivered = "delivered_bps" in series and bool(series["delivered_bps"].notna().any())
    for i, flow in enumerate(_flows(series, flows)):
        part = series[series["flow"].astype(str) == flow]
        t = np.append(part["time_s"].to_numpy(dtype=np.float64), part["time_s"].iloc[-1] + bin_width)
        colour = f"C{i % 10}"
        column, what = ("delivered_bps", "delivered") if delivered else ("goodput_bps", "goodput (ACK-based)")
        g = part[column].to_numpy(dtype=np.float64) / 1e6
        ax.step(t, np.append(g, g[-1:]), where="post", color=colour, lw=1.2, label=f"{flow} {what}")
        if sent:
            r = part["sent_bps"].to_numpy(dtype=np.float64) / 1e6
            ax.step(t, np.append(r, r[-1:]), where="post", color=colour, lw=0.8, ls=":", label=f"{flow} sent")
    if "bottleneck_bps" in run.flows:
        capacities = sorted({float(c) for c in run.flows["bottleneck_bps"].dropna()})
        for c in capacities[:3]:
            ax.axhline(c / 1e6, color="0.5", lw=0.8, ls="--")
        if capacities:
            ax.plot([], [], color="0.5", lw=0.8, ls="--", label="bottleneck capacity")
    _label_time_axes(ax, "throughput at the receiver (Mb/s)" if delivered else "goodput, ACK-based (Mb/s)",
                     f"Delivered throughput ({_seconds(bin_width)} bins)" if delivered else f"Throughput ({_seconds(bin_width)} bins)")
    return fig


def queue(
    run: Result, *, links: Sequence[str] | str | None = None, average: bool = True, ax: Axes | None = None
) -> Figure:
    """Queue length (packets waiting) vs time per link direction; by default the flows'
    bottlenecks (``flows.csv``'s ``bottleneck`` column), else every direction whose queue ever
    held a packet.  For a RED queue, *average* adds RED's average queue (dashed, the
    trace's ``avg_packets``)."""
    fig, ax = _target(ax)
    frame = run.trace("queue")
    present = [str(x) for x in pd.unique(frame["link"].dropna().astype(str))]
    if links is None:
        chosen = [x for x in bottlenecks(run) if x in present]
        if not chosen:
            busy = frame.groupby(frame["link"].astype(str))["packets"].max()
            chosen = [x for x in present if busy.get(x, 0) > 0] or present
    else:
        wanted = [links] if isinstance(links, str) else [str(x) for x in links]
        chosen = [x for x in wanted if x in present]
    end = _end_time(run, frame)
    for i, link in enumerate(chosen):
        part = frame[frame["link"].astype(str) == link]
        t = np.append(part["time_s"].to_numpy(dtype=np.float64), end)
        q = part["packets"].to_numpy(dtype=np.float64)
        ax.step(t, np.append(q, q[-1:]), where="post", color=f"C{i % 10}", lw=1.0, label=link,
                rasterized=len(t) > _RASTER_POINTS)
        if average and "avg_packets" in part:
            a = part["avg_packets"].to_numpy(dtype=np.float64)
            if np.isfinite(a).any():
                ax.step(t, np.append(a, a[-1:]), where="post", color=f"C{i % 10}", lw=1.2, ls="--",
                        label=f"{link} RED average", rasterized=len(t) > _RASTER_POINTS)
    _label_time_axes(ax, "queue length (packets)", "Queue length" + (" at the bottleneck" if links is None and len(chosen) == 1 else ""))
    return fig


#: Colours of the controller modes in :func:`cc`.
MODE_COLOURS = {"startup": "tab:red", "drain": "tab:orange", "probe_bw": "tab:green", "probe_rtt": "tab:purple"}


def cc(run: Result, *, flows: Sequence[str] | str | None = None) -> Figure:
    """The controllers' state from the ``cc`` trace: pacing rate (solid),
    bottleneck-bandwidth estimate (dashed) and delivery-rate samples (dots) per flow in Mb/s
    of payload, above a timeline of
    each flow's mode (BBR's Startup, Drain, ProbeBW and ProbeRTT as coloured bands).  Flows
    whose controller reports neither rates nor modes (Reno, CUBIC: its W_max and K are in
    the trace, its window in :func:`cwnd`) do not appear."""
    from matplotlib.patches import Patch

    fig = _new_figure(8.0, 5.5)
    grid = fig.add_gridspec(2, 1, height_ratios=[3, 1])
    ax = fig.add_subplot(grid[0])
    lanes = fig.add_subplot(grid[1], sharex=ax)
    frame = run.trace("cc")
    end = _end_time(run, frame)
    rated = frame[frame["mode"].notna() | frame["pacing_rate_bps"].notna()] if len(frame) else frame
    names = [f for f in _flows(frame, flows) if (rated["flow"].astype(str) == f).any()]
    seen: list[str] = []
    for i, flow in enumerate(names):
        part = frame[frame["flow"].astype(str) == flow]
        t = np.append(part["time_s"].to_numpy(dtype=np.float64), end)
        colour = f"C{i % 10}"
        big = len(t) > _RASTER_POINTS
        for column, style, what in (("pacing_rate_bps", "-", "pacing rate"), ("btl_bw_bps", "--", "btl_bw")):
            y = part[column].to_numpy(dtype=np.float64) / 1e6
            if not np.all(np.isnan(y)):
                ax.step(t, np.append(y, y[-1:]), where="post", color=colour, ls=style, lw=1.1,
                        label=f"{flow} {what}", rasterized=big)
        samples = part["delivery_rate_bps"].to_numpy(dtype=np.float64) / 1e6
        if not np.all(np.isnan(samples)):
            ax.plot(t[:-1], samples, ls="none", marker=".", ms=1.5, alpha=0.4, color=colour,
                    label=f"{flow} delivery rate", rasterized=big)
        mode = part["mode"].astype(object).to_numpy()
        starts = [k for k in range(len(mode)) if k == 0 or mode[k] != mode[k - 1]]
        for j, k in enumerate(starts):
            if not isinstance(mode[k], str):
                continue
            stop = t[starts[j + 1]] if j + 1 < len(starts) else t[-1]
            lanes.broken_barh([(t[k], stop - t[k])], (i - 0.4, 0.8), color=MODE_COLOURS.get(mode[k], "0.6"))
            if mode[k] not in seen:
                seen.append(mode[k])
    lanes.set_yticks(range(len(names)), names)
    lanes.set_ylim(-0.6, max(len(names), 1) - 0.4)
    lanes.set_xlabel("time (s)")
    lanes.set_title("Mode", fontsize="medium")
    if seen:
        handles = [Patch(color=MODE_COLOURS.get(m, "0.6"), label=m) for m in seen]
        lanes.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.45), fontsize="small",
                     ncol=len(seen), frameon=False)
    _label_time_axes(ax, "rate (Mb/s)", "Pacing rate and bandwidth estimate")
    ax.set_xlabel("")
    ax.set_ylim(top=ax.get_ylim()[1])
    return fig


def bottlenecks(run: Result) -> list[str]:
    """The link directions that are some flow's bottleneck, in order of first appearance."""
    if "bottleneck" not in run.flows:
        return []
    return [str(x) for x in pd.unique(run.flows["bottleneck"].dropna().astype(str))]


def summary(run: Result) -> Figure:
    """One page: the run's headline and flow table, then cwnd, time-sequence graph,
    throughput and queue length (a panel says which trace to record when one is missing)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11.0, 8.5))  # fixed margins: a layout engine costs more than the drawing
    grid = fig.add_gridspec(3, 2, height_ratios=[0.7, 2, 2], left=0.07, right=0.98, bottom=0.06, top=0.95,
                            hspace=0.42, wspace=0.2)
    head = fig.add_subplot(grid[0, :])
    head.axis("off")
    s = run.summary
    title = (
        f"{len(run.flows)} flow(s), {_fmt(s.get('sim_time_s'), '{:.6g}')} s simulated, "
        f"{s.get('events', '?')} events, stop: {s.get('stop_reason', '?')}, seed {s.get('seed', '?')}"
    )
    head.set_title(title, fontsize="medium", loc="left")
    rows = []
    for r in run.flows.head(8).to_dict("records"):
        rows.append(
            [
                str(r.get("flow")),
                str(r.get("variant")),
                _fmt(r.get("completion_time_s"), "{:.4g}"),
                _fmt(_div(r.get("goodput_bps", r.get("throughput_bps")), 1e6), "{:.4g}"),
                _fmt(r.get("mu"), "{:.3f}"),
                str(r.get("retransmits", "")),
                str(r.get("timeouts", "")),
                str(r.get("data_drops", r.get("drops", ""))),
            ]
        )
    if rows:
        table = head.table(
            cellText=rows,
            colLabels=["flow", "variant", "t_c (s)", "goodput (Mb/s)", "mu", "retx", "timeouts", "drops"],
            loc="center",
            cellLoc="center",
        )
        table.auto_set_font_size(False)
        table.set_fontsize(8)
    panels = [("cwnd", cwnd, "Congestion window"), ("seq", seq, "Time-sequence graph"),
              ("throughput", throughput, "Throughput"), ("queue", queue, "Queue length")]
    for i, (kind, draw, label) in enumerate(panels):
        ax = fig.add_subplot(grid[1 + i // 2, i % 2])
        if run.has_trace(NEEDS[kind]):
            draw(run, ax=ax)
        else:
            _missing(ax, NEEDS[kind], label)
    return fig


def sweep_params(summary: pd.DataFrame) -> list[str]:
    """The parameter columns of a sweep's summary table (between ``point`` and ``flow``)."""
    columns = list(summary.columns)
    return columns[columns.index("point") + 1 : columns.index("flow")]


def sweep(
    summary: pd.DataFrame,
    *,
    x: str | None = None,
    y: str = "goodput_bps",
    hue: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """A sweep's metric *y* against parameter *x*: the mean over the replications with its
    95 % confidence interval as an error bar, one line per value of parameter *hue* (and per
    flow when the sweep has several).  *summary* is ``summary.parquet``
    (:func:`renolab.sweep.summarise`).  Default *x*: the first numeric parameter (a rate or
    duration's ``_bps`` / ``_s`` column), else the first; default *hue*: another parameter,
    if any."""
    params = sweep_params(summary)
    metrics = [str(m) for m in pd.unique(summary["metric"].astype(str))]
    if not params:
        raise ValueError("the sweep varies no parameter: nothing to plot against")
    numeric = [p for p in params if pd.api.types.is_numeric_dtype(summary[p]) and not pd.api.types.is_bool_dtype(summary[p])]
    x = x or (numeric[0] if numeric else params[0])
    twins = {x, x.removesuffix("_bps").removesuffix("_s")}
    for name, value, allowed in (("--x", x, params), ("--hue", hue, params), ("--y", y, metrics)):
        if value is not None and value not in allowed:
            raise ValueError(f"{name}: {value!r} is not a {'metric' if name == '--y' else 'parameter'} of this sweep; allowed: {', '.join(allowed)}")
    if hue is None:
        others = [p for p in params if p not in twins and f"{p}_bps" not in twins and f"{p}_s" not in twins
                  and p not in (f"{q}_bps" for q in params) and p not in (f"{q}_s" for q in params)]
        hue = others[0] if others else None
    fig, ax = _target(ax)
    rows = summary[summary["metric"].astype(str) == y]
    flows = [str(f) for f in pd.unique(rows["flow"].astype(str))]
    categorical = not (pd.api.types.is_numeric_dtype(rows[x]) and not pd.api.types.is_bool_dtype(rows[x]))
    if categorical:
        levels = [str(v) for v in pd.unique(rows[x].astype(str))]
        position = {v: i for i, v in enumerate(levels)}
        ax.set_xticks(range(len(levels)), levels)
    groups = [(None, rows)] if hue is None else list(rows.groupby(rows[hue].astype(str), sort=False))
    if categorical:
        dodge = 0.6
    else:
        steps = np.diff(np.unique(rows[x].to_numpy(dtype=np.float64)))
        dodge = 0.3 * float(steps.min()) if len(steps) else 0.0
    n_lines = len(groups) * len(flows)
    line = 0
    for value, part in groups:
        for flow in flows:
            points = part[part["flow"].astype(str) == flow]
            xs = (points[x].astype(str).map(position).to_numpy(dtype=np.float64) if categorical
                  else points[x].to_numpy(dtype=np.float64))
            order = np.argsort(xs, kind="stable")
            xs = xs[order]
            if n_lines > 1:  # dodge: error bars side by side, not on top of each other
                xs = xs + (line - (n_lines - 1) / 2) * dodge / n_lines
            label = ", ".join(str(v) for v in ((f"{hue} = {value}" if hue else None), (flow if len(flows) > 1 else None)) if v)
            ax.errorbar(xs, points["mean"].to_numpy(dtype=np.float64)[order],
                        yerr=points["ci95"].to_numpy(dtype=np.float64)[order], marker="o", ms=4, capsize=3,
                        lw=1.2, color=f"C{line % 10}", label=label or None)
            line += 1
    n = rows["n"]
    runs = f"{int(n.min())}" if len(n) and n.min() == n.max() else f"{int(n.min())}-{int(n.max())}" if len(n) else "0"
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title(f"{y} vs {x}: mean and 95 % confidence interval over {runs} runs")
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small", loc="best")
    return fig


def available_kinds(run: Result) -> list[str]:
    """The figures the recorded traces allow (the summary always)."""
    return [k for k in KINDS if k == "summary" or run.has_trace(NEEDS[k])]


def save_figures(
    run: Result,
    out_dir: Any,
    *,
    kinds: Sequence[str] | None = None,
    formats: Sequence[str] = ("png",),
    dpi: int = 120,
    flow: str | None = None,
    links: Sequence[str] | None = None,
) -> list[Path]:
    """Write ``<kind>.<format>`` for every figure in *kinds* (default
    :func:`available_kinds`) and format into *out_dir*; returns the paths.  *flow* picks the
    flow of the time-sequence graph (and the only flow of the cwnd and throughput figures),
    *links* the link directions of the queue figure (default: the bottlenecks)."""
    import matplotlib

    chosen = available_kinds(run) if kinds is None else list(kinds)
    for kind in chosen:
        if kind not in KINDS:
            raise ValueError(f"unknown figure {kind!r}; allowed: {', '.join(KINDS)}")
        if kind != "summary" and not run.has_trace(NEEDS[kind]):
            raise ValueError(f"figure {kind!r} needs the {NEEDS[kind]!r} trace (renolab run ... --trace {NEEDS[kind]})")
    for fmt in formats:
        if fmt not in IMAGE_FORMATS:
            raise ValueError(f"unknown image format {fmt!r}; allowed: {', '.join(IMAGE_FORMATS)}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if flow is not None and flow not in [str(f) for f in run.flows["flow"]]:
        raise ValueError(f"no flow named {flow!r}; flows: {', '.join(str(f) for f in run.flows['flow'])}")
    if links is not None:
        known = [str(x) for x in run.links["link"]]
        unknown = [x for x in links if x not in known]
        if unknown:
            raise ValueError(f"no link direction named {unknown[0]!r}; links: {', '.join(known)}")
    draw = {
        "cwnd": lambda r: cwnd(r, flows=flow),
        "seq": lambda r: seq(r, flow=flow),
        "throughput": lambda r: throughput(r, flows=flow),
        "queue": lambda r: queue(r, links=links),
        "cc": lambda r: cc(r, flows=flow),
        "summary": summary,
    }
    written = []
    with matplotlib.rc_context({"svg.hashsalt": "renolab", "svg.fonttype": "none"}):
        for kind in chosen:
            fig = draw[kind](run)
            for fmt in formats:
                path = out / f"{kind}.{fmt}"
                metadata = {"Date": None} if fmt in ("svg", "pdf") else {"Software": None}
                fig.savefig(path, format=fmt, dpi=dpi, metadata=metadata)
                written.append(path)
    return written


# ----- helpers ----------------------------------------------------------------------------------


def _div(value: Any, by: float) -> Any:
    return value / by if isinstance(value, (int, float)) else value


def _fmt(value: Any, fmt: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    try:
        return fmt.format(value)
    except (TypeError, ValueError):
        return str(value)


def _seconds(value: float) -> str:
    return f"{value * 1e3:g} ms" if value < 1 else f"{value:g} s"
