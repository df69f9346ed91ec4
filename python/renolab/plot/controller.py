"""The congestion controllers' own state, from the ``cc`` trace: a panel per quantity a
controller traced (BBR's rates, min-RTT estimate and gains, CUBIC's W_max and K, every value
a Python controller lists), with its unit, above BBR's mode timeline.  Nothing is drawn for
values no controller traced."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from renolab.plot._common import colour_of, end_time, flow_colours, flow_names
from renolab.plot.figure import RASTER_POINTS, legend_outside, new_figure
from renolab.plot.quantities import metric

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from renolab.results import Result

#: Colours of the controller modes in :func:`cc`.
MODE_COLOURS = {"startup": "tab:red", "drain": "tab:orange", "probe_bw": "tab:green", "probe_rtt": "tab:purple",
                # BBRv3's ProbeBW phases.
                "probe_bw_down": "tab:cyan", "probe_bw_cruise": "tab:green", "probe_bw_refill": "tab:olive",
                "probe_bw_up": "tab:blue"}

#: The built-in columns of the ``cc`` trace, grouped by what they measure: (the axis label,
#: the scale from the stored unit, [(column, what, style)]).
PANELS: tuple[tuple[str, float, tuple[tuple[str, str, str], ...]], ...] = (
    ("rate (Mb/s of payload)", 1e-6, (("pacing_rate_bps", "pacing rate", "-"), ("btl_bw_bps", "btl_bw", "--"),
                                      ("delivery_rate_bps", "delivery rate", "."),
                                      ("bw_hi_bps", "bw_hi", ":"), ("bw_lo_bps", "bw_lo", "-."))),
    ("flight bounds (segments)", 1.0, (("inflight_hi", "inflight_hi", "-"), ("inflight_lo", "inflight_lo", "--"))),
    ("min RTT estimate (ms)", 1e3, (("min_rtt_s", "min_rtt", "-"),)),
    ("gain (x btl_bw or BDP)", 1.0, (("pacing_gain", "pacing gain", "-"), ("cwnd_gain", "cwnd gain", "--"))),
    ("window at the last loss (segments)", 1.0, (("w_max", "W_max", "-"),)),
    ("K, epoch start to W_max (s)", 1.0, (("k_s", "K", "-"),)),
)
#: Built-in columns not drawn as a series: the mode (a timeline) and the epoch's start (a
#: time, already implied by K's steps).
NOT_SERIES = ("time_s", "flow", "mode", "epoch_start_s", "phase")


def _panels(frame: pd.DataFrame, names: list[str]) -> list[tuple[str, float, list[tuple[str, str, str]]]]:
    """The panels with something to draw for *names*: the built-in groups whose columns hold
    a value, then one per extra column (a Python controller's), its unit read from its name."""
    rows = frame[frame["flow"].astype(str).isin(names)]

    def traced(column: str) -> bool:
        return column in rows and bool(pd.to_numeric(rows[column], errors="coerce").notna().any())

    out = [(label, scale, [c for c in columns if traced(c[0])]) for label, scale, columns in PANELS]
    out = [p for p in out if p[2]]
    known = {c for _, _, columns in PANELS for c, _, _ in columns} | set(NOT_SERIES)
    for column in frame.columns:
        if column not in known and traced(column):
            q = metric(str(column), rows[column].to_numpy(dtype=np.float64))
            out.append((f"{column} ({q.unit})" if q.unit else f"{column} (as traced)", q.scale, [(str(column), str(column), "-")]))
    return out


def traced_flows(run: Result, flows: Sequence[str] | str | None = None) -> list[str]:
    """The flows whose controller traced anything (a value or a mode)."""
    frame = run.trace("cc")
    if not len(frame):
        return []
    values = frame.drop(columns=[c for c in ("time_s", "flow") if c in frame])
    has = values.notna().any(axis=1).to_numpy()
    return [f for f in flow_names(frame, flows) if has[(frame["flow"].astype(str) == f).to_numpy()].any()]


def _series(ax: Axes, t: np.ndarray, y: np.ndarray, style: str, colour: Any, label: str) -> None:
    big = len(t) > RASTER_POINTS
    if np.all(np.isnan(y)):
        return
    if style == ".":
        ax.plot(t[:-1], y, ls="none", marker=".", ms=1.5, alpha=0.4, color=colour, label=label, rasterized=big)
    else:
        ax.step(t, np.append(y, y[-1:]), where="post", color=colour, ls=style, lw=1.1, label=label, rasterized=big)


def _from_zero(ax: Axes) -> None:
    """The y axis from 0 (or the lowest value, if negative) to a little above the highest,
    so that a constant value is not hidden by the frame."""
    values = [np.asarray(line.get_ydata(), dtype=np.float64) for line in ax.lines]
    values = [v[np.isfinite(v)] for v in values if len(v)]
    values = [v for v in values if len(v)]
    if not values:
        return
    low, high = min(0.0, min(float(v.min()) for v in values)), max(float(v.max()) for v in values)
    ax.set_ylim(low, high + 0.08 * (high - low) if high > low else 1.0)


def _modes(lanes: Axes, frame: pd.DataFrame, names: list[str], end: float) -> None:
    from matplotlib.patches import Patch

    seen: list[str] = []
    for i, flow in enumerate(names):
        part = frame[frame["flow"].astype(str) == flow]
        t = np.append(part["time_s"].to_numpy(dtype=np.float64), end)
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
    lanes.set_title("Mode", fontsize="medium")
    legend_outside(lanes, handles=[Patch(color=MODE_COLOURS.get(m, "0.6"), label=m) for m in seen])


def cc(run: Result, *, flows: Sequence[str] | str | None = None) -> Figure:
    """The controllers' state from the ``cc`` trace, one panel per quantity traced, against
    time: BBR's pacing rate (solid), bottleneck-bandwidth estimate (dashed) and delivery-rate
    samples (dots) in Mb/s of payload, its min-RTT estimate in ms and its gains; CUBIC's
    W_max in segments and K in seconds; each value a Python controller traces; then BBR's
    modes (Startup, Drain, ProbeBW, ProbeRTT) as coloured bands.  ValueError when no
    controller of *flows* traced anything (Reno and NewReno trace nothing: their window is
    in :func:`renolab.plot.cwnd`)."""
    frame = run.trace("cc")
    names = traced_flows(run, flows)
    if not names:
        raise ValueError("no congestion controller traced a value in the 'cc' trace (Reno-like controllers trace none; their window is the cwnd figure)")
    panels = _panels(frame, names)
    moded = [f for f in names if "mode" in frame and frame.loc[frame["flow"].astype(str) == f, "mode"].notna().any()]
    count = len(panels) + bool(moded)
    fig = new_figure(9.0, 1.0 + 2.0 * len(panels) + (0.4 + 0.35 * len(moded) if moded else 0.0))
    heights = [3.0] * len(panels) + ([0.6 + 0.5 * len(moded)] if moded else [])
    axes = fig.subplots(count, 1, sharex=True, squeeze=False, gridspec_kw={"height_ratios": heights})[:, 0]
    end = end_time(run, frame)
    colours = flow_colours(run)
    for ax, (label, scale, columns) in zip(axes, panels):
        for i, flow in enumerate(names):
            part = frame[frame["flow"].astype(str) == flow]
            t = np.append(part["time_s"].to_numpy(dtype=np.float64), end)
            for column, what, style in columns:
                y = pd.to_numeric(part[column], errors="coerce").to_numpy(dtype=np.float64) * scale
                _series(ax, t, y, style, colour_of(colours, flow, i), f"{flow} {what}" if len(names) > 1 else what)
        ax.set_ylabel(label)
        _from_zero(ax)
        ax.grid(True, alpha=0.3)
        legend_outside(ax, max_entries=20, markerscale=4)
    if moded:
        _modes(axes[-1], frame, moded, end)
    axes[0].set_title("Congestion controller state")
    axes[-1].set_xlabel("time (s)")
    axes[-1].set_xlim(left=0)
    return fig
