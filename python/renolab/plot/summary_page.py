"""The one-page summary of a run: its headline, a table of its flows (up to
:data:`TABLE_ROWS`; each flow's colour in the figures beside its name) and four time series.

The page grows with the flows: every row of the table keeps its height, so 50 flows and
long variant names (a Python controller's path) fit without any text overlapping."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from renolab.plot._common import NEEDS, divide, flow_colours, fmt, missing, payload_capacities, style_handles
from renolab.plot.figure import new_figure
from renolab.plot.time_series import cwnd, queue, seq, throughput

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from renolab.results import Result

#: The most flows the table lists (the others are counted below it).
TABLE_ROWS = 60
#: Height of a table row and of a panel row, inches; the page's width.
ROW_IN, PANEL_IN, WIDTH_IN = 0.22, 3.9, 12.0
#: Variant names longer than this are shortened in the middle.
NAME_CHARS = 36
#: The table's columns: header and the flows.csv column it shows (``drops`` as the CLI).
COLUMNS = ("flow", "variant", "t_c (s)", "goodput (Mb/s)", "mu", "retx", "timeouts", "drops")


def short_name(text: str, limit: int = NAME_CHARS) -> str:
    """*text* fitted to *limit* characters: a Python controller's path reduced to its file
    (``python:/a/b/python_reno.py:Reno`` -> ``python:python_reno.py:Reno``), then anything
    still too long cut in the middle with an ellipsis."""
    if text.startswith("python:"):
        path, _, cls = text[len("python:"):].rpartition(":")
        if path and cls:
            text = f"python:{path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{cls}"
    if len(text) <= limit:
        return text
    keep = limit - 1
    return text[: (keep + 1) // 2] + "…" + text[len(text) - keep // 2 :]


def _rows(run: Result) -> list[list[str]]:
    rows = []
    for r in run.flows.head(TABLE_ROWS).to_dict("records"):
        rows.append([
            "■ " + short_name(str(r.get("flow")), 20),
            short_name(str(r.get("variant"))),
            fmt(r.get("completion_time_s"), "{:.4g}"),
            fmt(divide(r.get("goodput_bps", r.get("throughput_bps")), 1e6), "{:.4g}"),
            fmt(r.get("mu"), "{:.3f}"),
            str(r.get("retransmits", "")),
            str(r.get("timeouts", "")),
            str(r.get("drops", "")),
        ])
    return rows


def _widths(run: Result) -> list[int]:
    """The longest text of each column, in characters."""
    return [max(len(c) for c in column) for column in zip(COLUMNS, *_rows(run))]


def _table(ax: Axes, run: Result) -> None:
    """The flow table filling *ax*, column widths from their longest text, each flow's
    square in its colour."""
    rows = _rows(run)
    longest = _widths(run)
    table = ax.table(cellText=rows, colLabels=list(COLUMNS), colWidths=[w / sum(longest) for w in longest],
                     cellLoc="center", bbox=(0.0, 0.0, 1.0, 1.0))
    table.auto_set_font_size(False)
    table.set_fontsize(8)
    colours = flow_colours(run)
    for i, name in enumerate(str(f) for f in run.flows["flow"].head(TABLE_ROWS)):
        table[i + 1, 0].get_text().set_color(colours.get(name, "black"))
    ax.axis("off")


def _legend_below(ax: Axes, handles: list[Any]) -> None:
    """Replace the panel's legend by *handles* under its time axis (the table names the flows)."""
    if ax.get_legend() is not None:
        ax.get_legend().remove()
    if handles:
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.17), ncol=3, fontsize="x-small", frameon=False)


def _panel_handles(run: Result, kind: str, ax: Axes) -> list[Any]:
    if kind == "cwnd":
        return style_handles([("cwnd", {"ls": "-"}), ("ssthresh", {"ls": "--", "lw": 1.0})])
    if kind == "throughput":
        styles = [("delivered", {"ls": "-"})]
        if payload_capacities(run):
            styles.append(("bottleneck payload capacity", {"ls": "--", "lw": 0.8, "color": "0.5"}))
        return style_handles(styles)
    legend = ax.get_legend()
    return list(legend.legend_handles) if legend is not None else []


def summary(run: Result) -> Figure:
    """One page: the run's headline and flow table, then cwnd, time-sequence graph,
    throughput and queue length (a panel says which trace to record when one is missing)."""
    shown = min(len(run.flows), TABLE_ROWS)
    more = len(run.flows) - shown
    table_in = ROW_IN * (shown + 1)
    head_in, gap_in, foot_in = 0.6, 0.75 + (0.25 if more else 0.0), 0.4
    height = head_in + table_in + gap_in + 2 * PANEL_IN + foot_in
    fig = new_figure(WIDTH_IN, height, layout=None)  # fixed layout: rows of known height

    def y(inches_from_top: float) -> float:
        return 1.0 - inches_from_top / height

    s = run.summary
    fig.text(0.5 / WIDTH_IN, y(0.2), f"{len(run.flows)} flow(s), {fmt(s.get('sim_time_s'), '{:.6g}')} s simulated, "
             f"{s.get('events', '?')} events, stop: {s.get('stop_reason', '?')}, seed {s.get('seed', '?')}",
             va="top", fontsize="medium")
    # About 0.08 inch per character at 8 points, and a margin per cell.
    table_width = min(WIDTH_IN - 1.0, 0.08 * sum(_widths(run)) + 0.25 * len(COLUMNS))
    head = fig.add_axes((0.5 / WIDTH_IN, y(head_in + table_in), table_width / WIDTH_IN, table_in / height))
    _table(head, run)
    if more:
        fig.text(0.5 / WIDTH_IN, y(head_in + table_in + 0.1), f"... and {more} more flows (flows.csv)", va="top", fontsize="small")
    top = head_in + table_in + gap_in
    grid = fig.add_gridspec(2, 2, left=0.07, right=0.96, top=y(top), bottom=y(height - foot_in - 0.45), hspace=0.62, wspace=0.2)
    panels = [("cwnd", cwnd, "Congestion window"), ("seq", seq, "Time-sequence graph"),
              ("throughput", throughput, "Throughput"), ("queue", queue, "Queue length")]
    for i, (kind, draw, label) in enumerate(panels):
        ax = fig.add_subplot(grid[i // 2, i % 2])
        if run.has_trace(NEEDS[kind]):
            draw(run, ax=ax)
            _legend_below(ax, _panel_handles(run, kind, ax))
        else:
            missing(ax, NEEDS[kind], label)
    return fig
