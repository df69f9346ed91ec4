"""joo2000's figures: first-loss patterns against n and bandwidth (Figs. 2-3), the mean
new packets and bursts of the first fast recoveries (Figs. 4-5), the burst against W (Fig. 6)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from renolab.experiments.joo2000.scenarios import BASE_MBPS, FIG3_FLOWS
from renolab.experiments.joo2000.tables import PATTERN_KEYS, PATTERN_LABELS, PATTERNS
from renolab.plot.figure import clipped_errors, figure_legend, new_axes

#: A colour per first-loss pattern.
PATTERN_COLOURS = {"rto": "tab:gray", "1": "tab:blue", "2": "tab:orange", "3": "tab:green", ">3": "tab:red"}


def loss_patterns(table: pd.DataFrame, by: str, xlabel: str, paper_points: dict[bool, Any]) -> Any:
    """Figs. 2-3: the share of each first-loss pattern against *by*, without and with delayed
    ACK, with Wilson intervals; *paper_points*: the paper's (x, shares) by delayed ACK."""
    fig, axes = new_axes(11, 4, 1, 2, squeeze=False)
    for j, dl in enumerate((False, True)):
        ax = axes[0, j]
        t = table[table["delayed_ack"] == dl]
        xs = t[by].to_numpy(dtype=float)
        # Dodge: the patterns' error bars side by side at each x, not on top of each other.
        step = 0.5 * float(np.diff(np.unique(xs)).min()) if len(np.unique(xs)) > 1 else 0.5
        offsets = (np.arange(len(PATTERNS)) - (len(PATTERNS) - 1) / 2) * step / len(PATTERNS)
        for p, offset in zip(PATTERNS, offsets):
            key = PATTERN_KEYS[p]
            y = t[f"{key}_pct"].to_numpy(dtype=float)
            err = np.vstack([y - t[f"{key}_lo"].to_numpy(dtype=float), t[f"{key}_hi"].to_numpy(dtype=float) - y])
            ax.errorbar(xs + offset, y, yerr=err, marker="o", ms=3, capsize=2, color=PATTERN_COLOURS[p], label=PATTERN_LABELS[p])
            pp = paper_points.get(dl)
            if pp is not None:
                ax.plot([pp[0] + offset], [pp[1][key]], "x", ms=9, mew=2, color=PATTERN_COLOURS[p])
        ax.set_title(f"({'ab'[j]}) {'with' if dl else 'without'} delayed ACK", fontsize="small")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("first loss detections (%)")
        ax.set_ylim(0, 100)
        ax.set_xticks(xs, [f"{x:g}" for x in xs])
        ax.grid(alpha=0.3)
    figure_legend(fig)
    return fig


def recovery_means(tables: tuple[pd.DataFrame, pd.DataFrame], value: str, ylabel: str) -> Any:
    """Figs. 4-5: the mean of *value* with and without PWD, against n (left) and the
    bandwidth (right), without (top) and with (bottom) delayed ACK."""
    fig, axes = new_axes(11, 7, 2, 2, squeeze=False)
    for i, dl in enumerate((False, True)):
        for j, (table, x, xlabel) in enumerate(((tables[0], "n", f"existing connections n (flows; {BASE_MBPS} Mb/s)"), (tables[1], "bandwidth_mbps", f"bottleneck bandwidth (Mb/s; n = {FIG3_FLOWS})"))):
            ax = axes[i, j]
            values = np.unique(table[x].to_numpy(dtype=float))
            step = 0.08 * float(np.diff(values).min()) if len(values) > 1 else 0.08
            for pwd, offset, style in ((True, -step, dict(color="tab:blue", marker="o")), (False, step, dict(color="tab:red", marker="x"))):
                t = table[(table["delayed_ack"] == dl) & (table["pwd"] == pwd)]
                if len(t):
                    mean = t[f"mean_{value}"].to_numpy(dtype=float)
                    ax.errorbar(t[x].to_numpy(dtype=float) + offset, mean, yerr=clipped_errors(mean, t["ci95"], low=0.0), capsize=3,
                                label=f"NewReno {'with' if pwd else 'without'} PWD", **style)
            ax.set_xticks(values, [f"{v:g}" for v in values])
            ax.set_title(f"({'ab'[i]}) {'with' if dl else 'without'} delayed ACK" + ("" if j == 0 else ", vs bandwidth"), fontsize="small")
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
            ax.set_ylim(bottom=0)
    figure_legend(fig)
    return fig


def burst_vs_window(clean: pd.DataFrame) -> Any:
    """Fig. 6: the burst after each clean first recovery against W, with and without PWD."""
    fig, axes = new_axes(11, 4.2, 1, 2, squeeze=False)
    for j, dl in enumerate((False, True)):
        ax = axes[0, j]
        t = clean[clean["delayed_ack"] == dl]
        for pwd, style in ((False, dict(marker="x", color="tab:red", s=18)), (True, dict(marker=".", color="tab:blue", s=18))):
            part = t[t["pwd"] == pwd]
            ax.scatter(part["w"], part["burst"], label=f"NewReno {'with' if pwd else 'without'} PWD", alpha=0.6, **style)
        top = max(2.0, float(t["w"].max()) if len(t) else 2.0)
        ax.plot([0, top], [0, top], "k-", lw=0.8, label="burst size = W (ssthresh)")
        ax.set_xlabel("W = ssthresh at detection (packets)")
        ax.set_ylabel("burst size (packets)")
        ax.set_title(f"({'ab'[j]}) {'with' if dl else 'without'} delayed ACK", fontsize="small")
        ax.grid(alpha=0.3)
    figure_legend(fig)
    return fig
