"""fickling's figures (experiments 1-3), drawn from the experiments' mean tables."""

from __future__ import annotations

from typing import Any

import pandas as pd

from renolab.experiments.fickling.scenarios import EXP3_CBR_START_S, VARIANTS
from renolab.experiments.style import VARIANT_COLOURS, VARIANT_LABELS
from renolab.plot.figure import figure_legend, new_axes


def metric_vs_cbr_rate(e1: pd.DataFrame, metric: str, label: str) -> Any:
    """Figs. 2-4: experiment 1's mean *metric* of each variant against the CBR rate."""
    fig, ax = new_axes(7.0, 4.2)
    for v in VARIANTS:
        part = e1[e1["variant"] == v].sort_values("cbr_mbps")
        ax.plot(part["cbr_mbps"], part[metric], marker="o", ms=3, color=VARIANT_COLOURS[v], label=VARIANT_LABELS[v])
    ax.set_xlabel("CBR rate (Mb/s)")
    ax.set_ylabel(label)
    ax.grid(True, alpha=0.3)
    figure_legend(fig)
    return fig


def pair_metric_vs_cbr_rate(e2: pd.DataFrame, pair: str, metric: str, label: str, runs: pd.DataFrame | None = None) -> Any:
    """Figs. 5-8: the two flows' mean *metric* of *pair* against the CBR rate (and seed 1's,
    dotted, when *runs* is given)."""
    fig, ax = new_axes(7.0, 4.2)
    first, second = pair.split("-")
    part = e2[e2["pair"] == pair].sort_values("cbr_mbps")
    colours = ("#d62728", "#1f77b4") if first == second else (VARIANT_COLOURS[first], VARIANT_COLOURS[second])
    for flow, variant, colour in (("a", first, colours[0]), ("b", second, colours[1])):
        ax.plot(part["cbr_mbps"], part[f"{flow}_{metric}"], marker="o", ms=3, color=colour, label=f"{VARIANT_LABELS[variant]} ({flow}, mean)")
        if runs is not None:
            r = runs[(runs["pair"] == pair) & (runs["seed"] == 1)].sort_values("cbr_mbps")
            ax.plot(r["cbr_mbps"], r[f"{flow}_{metric}"], ls=":", color=colour, label=f"{VARIANT_LABELS[variant]} ({flow}, seed 1)")
    ax.set_xlabel("CBR rate (Mb/s)")
    ax.set_ylabel(label)
    ax.grid(True, alpha=0.3)
    figure_legend(fig)
    return fig


def newreno_vegas(e2: pd.DataFrame) -> Any:
    """Fig. R1: NewReno's and Vegas' throughput and latency when they compete."""
    fig, (ax_t, ax_l) = new_axes(11.0, 4.0, 1, 2)
    part = e2[e2["pair"] == "newreno-vegas"].sort_values("cbr_mbps")
    for flow, v in (("a", "newreno"), ("b", "vegas")):
        ax_t.plot(part["cbr_mbps"], part[f"{flow}_mbps"], marker="o", ms=3, color=VARIANT_COLOURS[v], label=VARIANT_LABELS[v])
        ax_l.plot(part["cbr_mbps"], part[f"{flow}_latency_ms"], marker="o", ms=3, color=VARIANT_COLOURS[v], label=VARIANT_LABELS[v])
    ax_t.set_ylabel("throughput (Mb/s)")
    ax_l.set_ylabel("mean one-way latency (ms)")
    for ax in (ax_t, ax_l):
        ax.set_xlabel("CBR rate (Mb/s)")
        ax.grid(True, alpha=0.3)
    figure_legend(fig)
    return fig


def jain_vs_cbr_rate(e2: pd.DataFrame) -> Any:
    """Fig. R2: each pair's mean Jain's index against the CBR rate."""
    fig, ax = new_axes(7.0, 4.2)
    styles = {"vegas-vegas": VARIANT_COLOURS["vegas"], "reno-reno": VARIANT_COLOURS["reno"], "reno-newreno": VARIANT_COLOURS["newreno"], "newreno-vegas": "#8c564b"}
    for pair, colour in styles.items():
        part = e2[e2["pair"] == pair].sort_values("cbr_mbps")
        a, b = pair.split("-")
        ax.plot(part["cbr_mbps"], part["jain"], marker="o", ms=3, color=colour, label=f"{VARIANT_LABELS[a]}-{VARIANT_LABELS[b]}")
    ax.set_ylim(0.45, 1.02)
    ax.set_xlabel("CBR rate (Mb/s)")
    ax.set_ylabel("Jain's fairness index (mean of seeds)")
    ax.grid(True, alpha=0.3)
    figure_legend(fig)
    return fig


def throughput_when_cbr_joins(series: dict[Any, Any], variant: str) -> Any:
    """Figs. 9-10: seed 1's TCP and CBR throughput over time, Drop Tail and RED side by side."""
    fig, axes = new_axes(11.0, 4.0, 1, 2, sharey=True)
    for ax, q in zip(axes, ("droptail", "red")):
        val = series[(variant, q)]
        t = val["time_s"] + 0.25
        ax.plot(t, val["tcp_bps"] / 1e6, color=VARIANT_COLOURS[variant], label=f"TCP {VARIANT_LABELS[variant]}")
        ax.plot(t, val["cbr_bps"] / 1e6, color=VARIANT_COLOURS["cbr"], label="CBR/UDP")
        ax.axvline(EXP3_CBR_START_S, color="0.5", ls=":", lw=0.8)
        ax.set_title("Drop Tail" if q == "droptail" else "RED", fontsize="small")
        ax.set_xlabel("time (s)")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("throughput (Mb/s, 0.5 s bins)")
    figure_legend(fig)
    return fig
