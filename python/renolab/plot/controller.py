"""The congestion controllers' own state, from the ``cc`` trace."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from renolab.plot._common import end_time, flow_names, label_time_axes
from renolab.plot.figure import RASTER_POINTS, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from renolab.results import Result


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

    fig = new_figure(8.0, 5.5)
    grid = fig.add_gridspec(2, 1, height_ratios=[3, 1])
    ax = fig.add_subplot(grid[0])
    lanes = fig.add_subplot(grid[1], sharex=ax)
    frame = run.trace("cc")
    end = end_time(run, frame)
    rated = frame[frame["mode"].notna() | frame["pacing_rate_bps"].notna()] if len(frame) else frame
    names = [f for f in flow_names(frame, flows) if (rated["flow"].astype(str) == f).any()]
    seen: list[str] = []
    for i, flow in enumerate(names):
        part = frame[frame["flow"].astype(str) == flow]
        t = np.append(part["time_s"].to_numpy(dtype=np.float64), end)
        colour = f"C{i % 10}"
        big = len(t) > RASTER_POINTS
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
    label_time_axes(ax, "rate (Mb/s)", "Pacing rate and bandwidth estimate")
    ax.set_xlabel("")
    ax.set_ylim(top=ax.get_ylim()[1])
    return fig
