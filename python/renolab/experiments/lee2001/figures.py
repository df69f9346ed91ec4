"""lee2001's figures, drawn from the grid's results: mu against BDP (Fig. 2), T_N(t)
(Figs. 3-5), the time-sequence graphs of one recovery (Fig. 6) and the buffer gain (Fig. 7)."""

from __future__ import annotations

from typing import Any

from matplotlib.lines import Line2D

from renolab.experiments.lee2001.runs import TN_BIN_S, GridResults
from renolab.experiments.lee2001.scenarios import ALPHA_NAMES, SETTING_LABELS, SETTINGS, VARIANT_LABELS, VARIANTS
from renolab.plot.figure import figure_legend, new_axes

#: A colour per variant, a line style per setting.
COLOURS = {"reno": "tab:blue", "newreno": "tab:red", "sack": "tab:green"}
STYLES = {"ns235": "-", "era2001": "--"}
#: A colour per W*, the same in every figure.
WSTAR_COLOURS = dict(zip([20, 40, 80, 160, 320, 640], ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown"]))


def _variant_and_style_handles() -> list[Any]:
    """Legend entries of Fig. 2: a colour per variant, a line style per setting, the paper's
    mark: readable where one entry per (variant, setting) line was not (the dashes of a
    short handle look solid)."""
    handles = [Line2D([], [], color=c, marker="o", ms=3, label=VARIANT_LABELS[v]) for v, c in COLOURS.items()]
    handles += [Line2D([], [], color="0.3", ls=STYLES[s], label=SETTING_LABELS[s]) for s in SETTINGS]
    handles.append(Line2D([], [], color="0.3", marker="x", ls="none", ms=7, mew=2, label="paper"))
    return handles


def utilisation_vs_bdp(results: GridResults, paper_mu: dict[tuple[str, int, float], float]) -> Any:
    """Fig. 2: mu against W* (log 2), a panel per buffer size, a line per (variant, setting);
    *paper_mu*: the paper's values by (variant, W*, alpha), drawn as crosses."""
    fractions, wstars = results.fractions, results.wstars
    n = len(fractions)
    rows_, cols_ = (2, 2) if n == 4 else (1, n)
    fig, axes = new_axes(4.2 * cols_, 3.3 * rows_, rows_, cols_, squeeze=False)
    for k, a in enumerate(fractions):
        ax = axes.flat[k]
        for setting in SETTINGS:
            for variant in VARIANTS:
                ys = [results.mu(setting, variant, w, a) for w in wstars]
                ax.plot(wstars, ys, STYLES[setting], marker="o", ms=3, color=COLOURS[variant],
                        label=f"{VARIANT_LABELS[variant]}, {SETTING_LABELS[setting]}")
        for (variant, w, aa), value in paper_mu.items():
            if aa == a and w in wstars:
                ax.plot([w], [value], "x", color=COLOURS[variant], ms=9, mew=2)
        ax.set_xscale("log", base=2)
        ax.set_xticks(wstars, [str(w) for w in wstars])
        ax.set_ylim(0, 1.02)
        ax.set_title(f"({'abcd'[k]}) {ALPHA_NAMES.get(a, f'B = {a:g} W*')}", fontsize="small")
        ax.set_xlabel("W* (packets)")
        ax.set_ylabel("μ (fraction of C)")
        ax.grid(alpha=0.3)
        ax.label_outer()  # the panels share their scales: label the outer ones only
    figure_legend(fig, _variant_and_style_handles(), handlelength=3.5)
    return fig


def normalised_throughput(results: GridResults, variant: str) -> Any:
    """Figs. 3-5: T_N(t) of *variant* at B = W*/2 (ns-2.35 defaults), a step line per W*."""
    fig, axes = new_axes(7.5, 3.6, 1, 1, squeeze=False)
    ax = axes[0, 0]
    top = 1.0
    for w in results.wstars:
        tn = results.detail("ns235", variant, w, 0.5)["tn"]
        ax.step(tn["time_s"] + TN_BIN_S, tn["t_n"], where="pre", color=WSTAR_COLOURS.get(w), lw=1.1, label=f"W* = {w}")
        if len(tn) and tn["time_s"].iloc[-1] + TN_BIN_S < 10:  # the transfer completed: say so
            end = float(tn["time_s"].iloc[-1]) + TN_BIN_S
            ax.plot([end], [float(tn["t_n"].iloc[-1])], "|", color=WSTAR_COLOURS.get(w), ms=10, mew=2)
        top = max(top, float(tn["t_n"].max()) if len(tn) else 0.0)
    ax.plot([], [], "|", color="0.3", ms=10, mew=2, ls="none", label="transfer complete")
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 1.05 * top)  # no curve clipped
    ax.set_xlabel("time (s)")
    ax.set_ylabel("T_N (goodput / C)")
    ax.grid(alpha=0.3)
    figure_legend(fig)
    return fig


def recovery_time_sequence(results: GridResults) -> Any:
    """Fig. 6: time-sequence graphs of Reno and NewReno at W* = 640, B = W*/4, a row per
    setting."""
    fig, axes = new_axes(11, 7, 2, 2, squeeze=False)
    for i, setting in enumerate(SETTINGS):
        for j, variant in enumerate(("reno", "newreno")):
            ax = axes[i, j]
            s = results.detail(setting, variant, 640, 0.25).get("seq")
            if s is not None:
                for event, style in (("sent", dict(s=1, c="0.3")), ("retransmitted", dict(s=8, c="tab:red", marker="s")),
                                     ("dropped", dict(s=10, c="tab:orange", marker="x"))):
                    part = s[s["event"] == event]
                    ax.scatter(part["time_s"], part["seq"], label=event, rasterized=True, linewidths=0.8, **style)
            r = results.row(setting, variant, 640, 0.25)
            ax.set_title(f"({'ab'[j]}) {VARIANT_LABELS[variant]}, {SETTING_LABELS[setting]}: t_c = {r['t_c_s']:.2f} s", fontsize="small")
            ax.set_xlabel("time (s)")
            ax.set_ylabel("sequence number (segments)")
            ax.set_xlim(0, max(results.row(st, vv, 640, 0.25)["t_c_s"] for st in SETTINGS for vv in ("reno", "newreno")) * 1.02)
            ax.grid(alpha=0.3)
    figure_legend(fig, markerscale=3)
    return fig


def buffer_gain(results: GridResults, gain: Any, paper_bg: dict[tuple[str, int, float], float]) -> Any:
    """Fig. 7: the buffer gain against B/W*, a panel per (setting, variant), a line per W*;
    *gain(setting, variant, w, a)* gives it, *paper_bg* the paper's values (crosses)."""
    fractions = results.fractions
    fig, axes = new_axes(13, 7, 2, 3, squeeze=False)
    for i, setting in enumerate(SETTINGS):
        for j, variant in enumerate(("reno", "sack", "newreno")):
            ax = axes[i, j]
            for w in results.wstars:
                ax.plot(fractions, [gain(setting, variant, w, a) for a in fractions], "-o", ms=3, color=WSTAR_COLOURS.get(w), label=f"W* = {w}")
            for (v, w, a), value in paper_bg.items():
                if v == variant and w in results.wstars:
                    ax.plot([a], [value], "x", color=WSTAR_COLOURS.get(w), ms=9, mew=2)
            ax.set_title(f"({'abc'[j]}) {VARIANT_LABELS[variant]}, {SETTING_LABELS[setting]}", fontsize="small")
            ax.set_xticks(fractions, [f"{a:g}" for a in fractions])
            ax.set_xlabel("B / W* (fraction of the pipe)")
            ax.set_ylabel("BG (μ / μ at B = W*/4)")
            ax.grid(alpha=0.3)
    paper = Line2D([], [], color="0.3", marker="x", ls="none", ms=7, mew=2, label="paper")
    figure_legend(fig, [*axes[0, 0].get_legend_handles_labels()[0], paper])
    return fig
