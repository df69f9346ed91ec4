"""lee2001's tables: the grid with the paper's values beside it (Table 1), the T_N slopes
(Table 2), what Fig. 6 shows (Fig. 6 data) and the buffer gains (Fig. 7 data)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from renolab.experiments.lee2001.claims import (
    Gain,
    paper_buffer_gains,
    paper_completion_times,
    paper_slopes,
    recovery_time,
)
from renolab.experiments.lee2001.runs import GridResults
from renolab.experiments.lee2001.scenarios import RTT_S, SETTINGS


def grid_table(results: GridResults, paper: dict[str, Any]) -> pd.DataFrame:
    """Table 1: every point's t_c, mu and counts, and the paper's t_c and mu where its text
    gives them."""
    x_bits = paper["setup"]["transfer_bits"]["value"]
    paper_tc = paper_completion_times(paper)
    t1 = results.table[["setting", "variant", "capacity_mbps", "w_star", "buffer", "alpha", "t_c_s", "mu", "timeouts",
                        "retransmits", "drops", "slow_start_loss"]].copy()
    t1["paper_t_c_s"] = [paper_tc.get((v, w, a), math.nan) for v, w, a in zip(t1.variant, t1.w_star, t1.alpha)]
    t1["paper_mu"] = [x_bits / (c * 1e6 * t) if math.isfinite(t) else math.nan for c, t in zip(t1.capacity_mbps, t1.paper_t_c_s)]
    return t1


def slope_table(results: GridResults, paper: dict[str, Any]) -> pd.DataFrame:
    """Table 2: the slope of T_N per W*, setting and variant, the paper's and the theory's."""
    paper_slope = paper_slopes(paper)
    rows = []
    for w in results.wstars:
        entry: dict[str, Any] = {"w_star": w}
        for setting in SETTINGS:
            for variant in ("reno", "sack"):
                entry[f"{variant}_{setting}"] = results.row(setting, variant, w, 0.5)["slope"]
        entry["paper_reno"], entry["paper_sack"] = paper_slope.get(w, (math.nan, math.nan))
        entry["theory_1_over_w_rtt"] = 1.0 / (w * RTT_S)
        rows.append(entry)
    return pd.DataFrame(rows)


def recovery_table(results: GridResults, paper: dict[str, Any]) -> pd.DataFrame:
    """Fig. 6 data: what the time-sequence graphs show, in both settings, beside the paper."""
    p6, p_fig2 = paper["fig6"], paper["fig2"]

    def d6(setting: str, variant: str) -> dict[str, Any]:
        return results.detail(setting, variant, 640, 0.25)

    def fig6_row(quantity: str, key: Any, paper_entry: dict[str, Any], index: int | None = None) -> dict[str, Any]:
        entry: dict[str, Any] = {"quantity": quantity}
        for setting in SETTINGS:
            entry[f"renolab_{setting}"] = key(setting)
        entry["paper"] = paper_entry["value"] if index is None else paper_entry["value"][index]
        entry["paper_source"] = paper_entry["source"]
        return entry

    return pd.DataFrame([
        fig6_row("NewReno Hoe ssthresh estimate (packets)", lambda s: d6(s, "newreno")["hoe_estimate"], p6["hoe_estimate_packets"]),
        fig6_row("drops in the first window (NewReno)", lambda s: d6(s, "newreno")["burst_drops"], p6["drops_in_window"]),
        fig6_row("first drop (s)", lambda s: d6(s, "newreno")["burst_start_s"], p6["drop_period_s"], 0),
        fig6_row("last drop of the window (s)", lambda s: d6(s, "newreno")["burst_end_s"], p6["drop_period_s"], 1),
        fig6_row("Reno: 1st retransmission (s)", lambda s: (d6(s, "reno")["first_retx_s"] + [math.nan])[0], p6["reno_fast_retransmits_s"], 0),
        fig6_row("Reno: 2nd retransmission (s)", lambda s: (d6(s, "reno")["first_retx_s"] + [math.nan] * 2)[1], p6["reno_fast_retransmits_s"], 1),
        fig6_row("Reno: first timeout (s)", lambda s: (d6(s, "reno")["timeout_s"] + [math.nan])[0], p6["reno_timeout_s"]),
        fig6_row("Reno: recovery of the window (s, first drop to ACK of all)", lambda s: recovery_time(results, s, "reno"), p6["reno_recovery_s"]),
        fig6_row("NewReno: recovery of the window (s)", lambda s: recovery_time(results, s, "newreno"), p6["newreno_recovery_s"]),
        fig6_row("Reno t_c (s)", lambda s: results.row(s, "reno", 640, 0.25)["t_c_s"], p_fig2["tc_reno_w640_b160"]),
        fig6_row("NewReno t_c (s)", lambda s: results.row(s, "newreno", 640, 0.25)["t_c_s"], p_fig2["tc_newreno_w640_b160"]),
    ])


def buffer_gains(results: GridResults) -> pd.DataFrame:
    """BG(alpha) = mu(B = alpha W*) / mu(B = W*/4) per setting, variant and W*."""
    from renolab import metrics

    grid = results.table
    return pd.concat(
        [metrics.buffer_gain(grid[grid.setting == s], value="mu", buffer="alpha", by=("variant", "w_star")).assign(setting=s) for s in SETTINGS],
        ignore_index=True,
    )


def gain_lookup(bg: pd.DataFrame) -> Gain:
    """``gain(setting, variant, w_star, alpha)`` from :func:`buffer_gains` (NaN off the grid)."""
    by_gain = {(r["setting"], r["variant"], int(r["w_star"]), float(r["alpha"])): float(r["buffer_gain"]) for r in bg.to_dict("records")}

    def gain(setting: str, variant: str, w: int, a: float) -> float:
        return by_gain.get((setting, variant, int(w), float(a)), math.nan)

    return gain


def buffer_gain_table(bg: pd.DataFrame, paper: dict[str, Any]) -> pd.DataFrame:
    """Fig. 7 data: the buffer gains with the paper's values where its text gives them."""
    paper_bg = paper_buffer_gains(paper)
    bg_table = bg[["setting", "variant", "w_star", "alpha", "mu", "buffer_gain"]].copy()
    bg_table["paper_buffer_gain"] = [paper_bg.get((v, w, a), math.nan) for v, w, a in zip(bg_table.variant, bg_table.w_star, bg_table.alpha)]
    return bg_table
