"""Flow completion times of a run with finite flows (a workload's, or ``[[flow]]`` tables
with ``bytes``): slowdown against flow size (median and 99th percentile per size bucket,
logarithmic buckets) and the distribution of the completion times (``flows.csv``'s
``size_bytes``, ``fct_s``, ``slowdown``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from renolab.plot.delay import _cdf, _finish_cdf
from renolab.plot.figure import legend_outside, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from renolab.results import Result

#: Size buckets a decade is cut into for the slowdown figure.
BUCKETS_PER_DECADE = 4


def has_fct(run: Result) -> bool:
    """True when *run*'s scenario has a ``[[workload]]`` and one of its flows finished: the
    figure is drawn by default then (``--kind fct`` draws it for any run)."""
    scenario = run.summary.get("scenario") or {}
    flows = run.flows
    return bool(scenario.get("workload")) and "fct_s" in flows and bool(flows["fct_s"].notna().any())


def fct(run: Result) -> Figure:
    """Left: the slowdown of the finished flows against their size, median and 99th
    percentile per size bucket (a quarter of a decade each), with every flow as a faint dot.
    Right: the empirical CDF of their completion times (ms)."""
    fig = new_figure(11.0, 4.5)
    left, right = fig.subplots(1, 2)
    flows = run.flows
    done = flows[flows["fct_s"].notna()] if "fct_s" in flows else flows.iloc[0:0]
    with_ideal = done[done["slowdown"].notna()] if "slowdown" in done else done.iloc[0:0]
    sizes = with_ideal["size_bytes"].to_numpy(dtype=np.float64)
    slowdowns = with_ideal["slowdown"].to_numpy(dtype=np.float64)
    if len(sizes):
        left.plot(sizes, slowdowns, ls="none", marker=".", ms=3, color="0.5", alpha=0.5, label="a flow",
                  rasterized=len(sizes) > 5000)
        lo, hi = np.floor(np.log10(sizes.min())), np.ceil(np.log10(sizes.max())) + 1e-9
        edges = 10 ** np.arange(lo, hi + 1.0 / BUCKETS_PER_DECADE, 1.0 / BUCKETS_PER_DECADE)
        which = np.digitize(sizes, edges)
        centres, medians, p99s = [], [], []
        for b in np.unique(which):
            part = slowdowns[which == b]
            centres.append(float(np.sqrt(edges[b - 1] * edges[min(b, len(edges) - 1)])))
            medians.append(float(np.median(part)))
            p99s.append(float(np.percentile(part, 99)))
        left.plot(centres, medians, marker="o", ms=4, color="C0", label="median")
        left.plot(centres, p99s, marker="^", ms=4, color="C3", label="99th percentile")
        left.set_xscale("log")
        if slowdowns.max() > 20:  # heavy tails: a decade per tick
            left.set_yscale("log")
        else:
            left.set_ylim(bottom=min(0.9, float(slowdowns.min()) - 0.1))
    else:
        left.text(0.5, 0.5, "no finished flow with an ideal time", ha="center", va="center", transform=left.transAxes)
    left.axhline(1.0, color="0.3", lw=0.8, ls=":")
    left.set_xlabel("flow size (bytes)")
    left.set_ylabel("slowdown (FCT / ideal FCT)")
    left.set_title(f"Slowdown by flow size ({len(sizes)} flows)")
    left.grid(True, which="both", alpha=0.3)
    legend_outside(left)
    _cdf(right, done["fct_s"].to_numpy(dtype=np.float64) * 1e3, color="C0", lw=1.2, label="all flows")
    _finish_cdf(right, "flow completion time (ms)", "Distribution of the completion times")
    right.set_ylabel("fraction of flows (CDF)")
    if len(done) and float(done["fct_s"].min()) > 0:  # completion times span decades
        right.set_xlim(left=float(done["fct_s"].min()) * 1e3 / 1.5)
        right.set_xscale("log")
    return fig
