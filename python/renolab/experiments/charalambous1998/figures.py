"""charalambous1998's figures (the paper has none with data): Table 1 drawn (Fig. R1), the
Mathis model comparison (Fig. R2), and throughput against the test length (Fig. R3)."""

from __future__ import annotations

from typing import Any

import numpy as np

from renolab.experiments.charalambous1998.runs import Results
from renolab.experiments.charalambous1998.scenarios import (
    LOSS_DOMINATED_EVENTS,
    OPTIMUM_BPS,
    TEST_S,
    VARIANTS,
    loss_probability,
    mathis_bps,
)
from renolab.experiments.style import VARIANT_COLOURS, VARIANT_LABELS
from renolab.plot.figure import clipped_errors, figure_legend, new_axes


def table1(r: Results) -> Any:
    """Fig. R1: Table 1 drawn, throughput against BER per variant, renolab with its 95 %
    interval (solid) and the paper (dotted, hollow), a colour per RTT."""
    cells, rtts, optimum_mbps = r.cells, r.grid.rtts, OPTIMUM_BPS / 1e6
    fig, axes = new_axes(12.0, 4.2, 1, 3, sharey=True)
    markers = {1.0: "o", 50.0: "s", 100.0: "^", 534.0: "D"}
    from matplotlib import colormaps

    cmap = colormaps["viridis"]
    for ax, v in zip(axes, VARIANTS):
        for i, rtt in enumerate(rtts):
            colour = cmap(i / max(1, len(rtts) - 1) * 0.9)
            part = cells[(cells["variant"] == v) & (cells["rtt_ms"] == rtt)].sort_values("ber")
            ax.errorbar(
                part["ber"], part["mbps"], yerr=clipped_errors(part["mbps"], part["ci95"], low=0.0), marker=markers.get(rtt, "o"),
                color=colour, label=f"RTT {rtt:g} ms", capsize=2,
            )
            ax.plot(part["ber"], part["paper_mbps"], marker=markers.get(rtt, "o"), color=colour, ls=":", mfc="none")
        ax.axhline(optimum_mbps, color="k", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("bit error rate (errors per bit)")
        ax.set_title(VARIANT_LABELS[v])
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("throughput (Mb/s)")
    figure_legend(fig, title="solid: renolab (95 % CI), dotted: paper", title_fontsize="small")
    return fig


def mathis(r: Results) -> Any:
    """Fig. R2: each cell's throughput against the Mathis model, renolab and the paper."""
    cells, optimum_mbps = r.cells, OPTIMUM_BPS / 1e6
    fig, ax = new_axes(6.5, 5.5)
    lo, hi = 0.5, 200.0
    xs = np.logspace(np.log10(lo), np.log10(hi), 50)
    ax.plot(xs, xs, color="k", lw=0.8)
    ax.fill_between(xs, xs / 2, xs * 2, color="0.9")
    shapes = {"reno": "o", "newreno": "^", "sack": "s"}
    for v in VARIANTS:
        part = cells[cells["variant"] == v]
        dom = part["losses"] >= LOSS_DOMINATED_EVENTS
        colour, shape = VARIANT_COLOURS[v], shapes[v]
        ax.scatter(part.loc[dom, "mathis_mbps"], part.loc[dom, "mbps"], color=colour, marker=shape, alpha=0.8, label=f"{VARIANT_LABELS[v]} (renolab)")
        ax.scatter(part.loc[~dom, "mathis_mbps"], part.loc[~dom, "mbps"], color=colour, marker="x")
        ax.scatter(part["mathis_mbps"], part["paper_mbps"], facecolors="none", edgecolors=colour, marker=shape, s=60, label=f"{VARIANT_LABELS[v]} (paper)")
    ax.axhline(optimum_mbps, color="k", ls="--", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("Mathis model MSS/RTT x sqrt(3/4)/sqrt(p) (Mb/s, capped at the optimum)")
    ax.set_ylabel("measured throughput (Mb/s)")
    figure_legend(fig, ncol=3, title="x: < 20 losses per test", title_fontsize="small")
    ax.grid(True, which="both", alpha=0.3)
    return fig


def test_length(r: Results) -> Any:
    """Fig. R3: throughput on the satellite path against the test length, beside the paper's
    value and the Mathis model, a panel per BER."""
    import matplotlib.ticker

    sens, sens_bers = r.lengths, r.grid.length_bers
    fig, axes = new_axes(10.0, 4.0, 1, len(sens_bers))
    lengths = sorted(float(x) for x in sens["length_s"].unique())
    for ax, ber in zip(np.atleast_1d(axes), sens_bers):
        for v, dodge in (("reno", 0.96), ("sack", 1.04)):  # side by side on the log axis
            part = sens[(sens["variant"] == v) & (sens["ber"] == ber)].sort_values("length_s")
            colour = VARIANT_COLOURS[v]
            ax.errorbar(part["length_s"] * dodge, part["mbps"], yerr=clipped_errors(part["mbps"], part["ci95"], low=0.0), color=colour, marker="o", capsize=2, label=f"{VARIANT_LABELS[v]} (renolab)")
            paper = r.paper_mbps(v, 534.0, ber)
            ax.axhline(paper, color=colour, ls=":", label=f"{VARIANT_LABELS[v]} (paper)")
        mathis = mathis_bps(0.534, loss_probability(ber)) / 1e6
        ax.axhline(mathis, color="k", ls="--", lw=0.8, label="Mathis model")
        ax.axvline(TEST_S, color="0.6", lw=0.8)
        ax.set_xscale("log")
        # The test lengths as plain numbers, no minor labels (which overlapped, 3x10^1 4x10^1 ...).
        ax.set_xticks(lengths, [f"{x:g}" for x in lengths])
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel("test length (s)")
        ax.set_title(f"BER {r.grid.ber_name(ber)}")
        ax.grid(True, which="both", alpha=0.3)
    np.atleast_1d(axes)[0].set_ylabel("throughput (Mb/s)")
    figure_legend(fig)
    return fig
