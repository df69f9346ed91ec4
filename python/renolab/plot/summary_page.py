"""The one-page summary of a run: its headline, its flows and four time series."""

from __future__ import annotations

from typing import TYPE_CHECKING

from renolab.plot._common import NEEDS, divide, fmt, missing
from renolab.plot.figure import new_figure
from renolab.plot.time_series import cwnd, queue, seq, throughput

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from renolab.results import Result


def summary(run: Result) -> Figure:
    """One page: the run's headline and flow table, then cwnd, time-sequence graph,
    throughput and queue length (a panel says which trace to record when one is missing)."""
    fig = new_figure(11.0, 8.5, layout=None)  # fixed margins: a layout engine costs more than the drawing
    grid = fig.add_gridspec(3, 2, height_ratios=[0.7, 2, 2], left=0.07, right=0.98, bottom=0.06, top=0.95,
                            hspace=0.42, wspace=0.2)
    head = fig.add_subplot(grid[0, :])
    head.axis("off")
    s = run.summary
    title = (
        f"{len(run.flows)} flow(s), {fmt(s.get('sim_time_s'), '{:.6g}')} s simulated, "
        f"{s.get('events', '?')} events, stop: {s.get('stop_reason', '?')}, seed {s.get('seed', '?')}"
    )
    head.set_title(title, fontsize="medium", loc="left")
    rows = []
    for r in run.flows.head(8).to_dict("records"):
        rows.append(
            [
                str(r.get("flow")),
                str(r.get("variant")),
                fmt(r.get("completion_time_s"), "{:.4g}"),
                fmt(divide(r.get("goodput_bps", r.get("throughput_bps")), 1e6), "{:.4g}"),
                fmt(r.get("mu"), "{:.3f}"),
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
            missing(ax, NEEDS[kind], label)
    return fig
