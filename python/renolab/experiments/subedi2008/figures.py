"""subedi2008's figures, from the seed-1 runs' traces: congestion windows (Figs. 1, 3-5) and
throughput against goodput (Figs. 2 and 6)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from renolab.experiments.style import VARIANT_COLOURS
from renolab.experiments.subedi2008.scenarios import LABELS, VARIANTS
from renolab.plot.figure import figure_legend, new_axes

#: Line style and width per variant: identical curves (Reno and NewReno after one loss) stay visible.
LINE_STYLES = {"tahoe": ("-", 1.0), "reno": ("-", 2.6), "sack": ("-", 1.2), "newreno": ("--", 1.2)}


def _cwnd_frame(o: Any) -> pd.DataFrame:
    """The cwnd trace with ``cwnd`` the window the sender may fill (fast-recovery inflation
    included), the window the claims and OPNET's congestion-window statistic use."""
    c = o.trace("cwnd")
    return c.assign(cwnd=c["inflated_cwnd"]) if "inflated_cwnd" in c else c


def cwnd_stack(traces: dict[Any, Any], case: str) -> Any:
    """Figs. 1 and 5: each variant's cwnd (with recovery inflation) in its own panel."""
    fig, axes = new_axes(9.0, 7.5, len(VARIANTS), 1, sharex=True, sharey=True)
    for ax, v in zip(axes, VARIANTS):
        c = _cwnd_frame(traces[(case, v)])
        ax.step(c["time_s"], c["cwnd"], where="post", color=VARIANT_COLOURS[v], lw=0.8)
        ax.axhline(44, color="0.5", ls=":", lw=0.8)
        ax.set_ylabel("cwnd + infl. (segments)")
        ax.text(0.01, 0.85, LABELS[v], transform=ax.transAxes, fontsize="small")
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time (s)   (dotted: the 65,535-byte receive window, 44 segments)")
    return fig


def cwnd_overlay(traces: dict[Any, Any], case: str) -> Any:
    """Figs. 3-4: the variants' cwnd on one axes, the whole download and around the loss."""
    fig, (full, zoom) = new_axes(11.0, 4.2, 1, 2)
    cut = math.inf
    for v in VARIANTS:
        c = _cwnd_frame(traces[(case, v)])
        w = c["cwnd"].to_numpy()
        drops = np.nonzero(np.diff(w) < 0)[0]
        if len(drops):
            cut = min(cut, float(c["time_s"].iloc[drops[0] + 1]))
        style, width = LINE_STYLES[v]
        for ax in (full, zoom):
            ax.step(c["time_s"], c["cwnd"], where="post", color=VARIANT_COLOURS[v], label=LABELS[v], lw=width, ls=style)
    if math.isfinite(cut):
        zoom.set_xlim(cut - 1.0, cut + 6.0)
    for ax in (full, zoom):
        ax.axhline(44, color="0.5", ls=":", lw=0.8)
        ax.set_xlabel("time (s)")
        ax.grid(True, alpha=0.3)
    full.set_ylabel("cwnd with recovery inflation (segments)")
    full.set_title("whole download", fontsize="small")
    zoom.set_title("around the loss", fontsize="small")
    figure_legend(fig)
    return fig


def rates(traces: dict[Any, Any], case: str, bin_s: float) -> Any:
    """Figs. 2 and 6: throughput (retransmissions included) and goodput in bins of *bin_s*."""
    from renolab import metrics

    fig, (ax_t, ax_g) = new_axes(11.0, 4.2, 1, 2, sharey=True)
    for v in VARIANTS:
        o = traces[(case, v)]
        seq = o.trace("seq")
        series = metrics.throughput_series(seq, bin_s, 1460.0)
        series = series[series["time_s"] + bin_s <= float(seq["time_s"].max()) + 1e-9]  # whole bins only
        style, width = LINE_STYLES[v]
        ax_t.plot(series["time_s"] + bin_s / 2, series["sent_bps"] / 1e6, color=VARIANT_COLOURS[v], label=LABELS[v], lw=width, ls=style)
        ax_g.plot(series["time_s"] + bin_s / 2, series["goodput_bps"] / 1e6, color=VARIANT_COLOURS[v], label=LABELS[v], lw=width, ls=style)
    ax_t.set_title("throughput (retransmissions included)", fontsize="small")
    ax_g.set_title("goodput (each byte once)", fontsize="small")
    ax_t.set_ylabel("payload rate (Mb/s)")
    for ax in (ax_t, ax_g):
        ax.set_xlabel("time (s)")
        ax.grid(True, alpha=0.3)
    figure_legend(fig)
    return fig
