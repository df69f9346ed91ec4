"""joo2000's claims, each checked against the runs: how the new flow detects its first loss
(Figs. 2-3), Table 1's formulas and the bursts (Fig. 6), and the recoveries with and without
PWD (Figs. 4-5)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from renolab.experiments.joo2000.scenarios import FIG3_FLOWS
from renolab.experiments.joo2000.tables import PATTERN_LABELS, paper_n9
from renolab.experiments.report import Report, against, all_of
from renolab.stats import spearman


def multiple_drops_frequent(report: Report, fig2: pd.DataFrame, paper: dict[str, Any]) -> None:
    """§III, Fig. 2: multiple drops are over a threshold share at every n."""
    for dl in (False, True):
        t = fig2[fig2["delayed_ack"] == dl]
        threshold = paper["fig2"]["multiple_min_delack" if dl else "multiple_min_no_delack"]["value"]
        low = t.loc[t["multiple_pct"].idxmin()]
        report.claim(
            f"§III, Fig. 2 ({'with' if dl else 'without'} delayed ACK): multiple drops are frequent; over {threshold} % of first loss detections in all simulations.",
            f"multiple drops: {', '.join(f'{r.multiple_pct:.0f} %' for r in t.itertuples())} for n = {', '.join(str(int(n)) for n in t['n'])}; "
            f"lowest {low.multiple_pct:.1f} % (95 % CI {low.multiple_lo:.1f}–{low.multiple_hi:.1f}) at n = {int(low.n)}. "
            f"Holds if the 95 % interval lies above {threshold} % at every n (inconclusive if one contains it).",
            all_of(against(r.multiple_lo, r.multiple_hi, threshold) for r in t.itertuples()),
            interval=True,
        )


def multiple_drops_fall_with_n(report: Report, fig2: pd.DataFrame) -> None:
    """§III, Fig. 2: the share of multiple drops decreases as n grows."""
    for dl in (False, True):
        t = fig2[fig2["delayed_ack"] == dl].sort_values("n")
        if len(t) < 2:
            continue
        rho = spearman(t["n"].to_numpy(dtype=float), t["multiple_pct"].to_numpy(dtype=float))
        first, last = t.iloc[0], t.iloc[-1]
        report.claim(
            f"§III, Fig. 2 ({'with' if dl else 'without'} delayed ACK): the share of multiple drops decreases as the number of existing connections grows.",
            f"{first.multiple_pct:.1f} % (CI {first.multiple_lo:.1f}–{first.multiple_hi:.1f}) at n = {int(first.n)} → {last.multiple_pct:.1f} % "
            f"(CI {last.multiple_lo:.1f}–{last.multiple_hi:.1f}) at n = {int(last.n)}; Spearman rank correlation with n: {rho:+.2f}. "
            "Holds if the correlation is negative and the share at the largest n is below the share at the smallest.",
            rho < 0 and last.multiple_pct < first.multiple_pct,
        )


def shares_at_n9(report: Report, fig2: pd.DataFrame, flows_n: list[int], paper: dict[str, Any]) -> None:
    """§III, Fig. 2: the paper's shares of each pattern at n = 9."""
    if 9 not in flows_n:
        report.claim("§III, Fig. 2, n = 9: the paper's percentages.", "n = 9 is not in the quick grid.", None)
        return
    names = {"rto": "rto", "d1": "1", "d2": "2", "d3": "3", "dmore": ">3"}
    for dl in (False, True):
        r = fig2[(fig2["n"] == 9) & (fig2["delayed_ack"] == dl)].iloc[0]
        values = paper_n9(paper)[dl][1]
        diffs = {k: r[f"{k}_pct"] - values[k] for k in ("rto", "d1", "d2", "d3", "dmore")}
        inside = [k for k in diffs if r[f"{k}_lo"] <= values[k] <= r[f"{k}_hi"]]
        worst = max(diffs, key=lambda k: abs(diffs[k]))
        report.claim(
            f"§III, Fig. 2 ({'b' if dl else 'a'}), n = 9: RTO {values['rto']} %, 1 drop {values['d1']} %, 2 drops {values['d2']} %, 3 drops {values['d3']} %, over 3 drops {values['dmore']} % ({values['source']}).",
            f"renolab: RTO {r.rto_pct:.1f} %, 1 drop {r.d1_pct:.1f} %, 2 drops {r.d2_pct:.1f} %, 3 drops {r.d3_pct:.1f} %, over 3 {r.dmore_pct:.1f} % "
            f"({int(r.runs)} runs); the paper's value lies in our 95 % CI for {len(inside)} of 5 classes; largest difference {diffs[worst]:+.1f} points ({PATTERN_LABELS[names[worst]]}). "
            "Holds if every class is within 10 points.",
            all(abs(d) <= 10 for d in diffs.values()),
        )


def multiple_drops_grow_with_bandwidth(report: Report, fig3: pd.DataFrame, bands: list[float]) -> None:
    """§III, Fig. 3: more multiple drops and fewer timeouts with a larger bandwidth."""
    if len(bands) < 2:
        return
    for dl in (False, True):
        t = fig3[fig3["delayed_ack"] == dl].sort_values("bandwidth_mbps")
        lo_b, hi_b = t.iloc[0], t.iloc[-1]
        report.claim(
            f"§III, Fig. 3 ({'with' if dl else 'without'} delayed ACK): with a larger bottleneck bandwidth the share of multiple drops increases and that of RTO decreases.",
            f"multiple drops {lo_b.multiple_pct:.1f} % at {lo_b.bandwidth_mbps:g} Mb/s → {hi_b.multiple_pct:.1f} % at {hi_b.bandwidth_mbps:g} Mb/s; "
            f"RTO {lo_b.rto_pct:.1f} % → {hi_b.rto_pct:.1f} %; over 3 drops {lo_b.dmore_pct:.1f} % → {hi_b.dmore_pct:.1f} %.",
            hi_b.multiple_pct > lo_b.multiple_pct and hi_b.rto_pct <= lo_b.rto_pct,
        )


def delayed_ack_fewer_multiple_drops(report: Report, fig2: pd.DataFrame, with_pwd: pd.DataFrame, flows_n: list[int]) -> None:
    """§III: delayed ACK makes the sender more conservative."""
    fewer = []
    for n in flows_n:
        a = fig2[(fig2["n"] == n) & (~fig2["delayed_ack"])]["multiple_pct"].iloc[0]
        b = fig2[(fig2["n"] == n) & (fig2["delayed_ack"])]["multiple_pct"].iloc[0]
        fewer.append((n, a, b))
    pooled_a = float(with_pwd[(~with_pwd["delayed_ack"])]["pattern"].isin(["2", "3", ">3"]).mean() * 100)
    pooled_b = float(with_pwd[(with_pwd["delayed_ack"])]["pattern"].isin(["2", "3", ">3"]).mean() * 100)
    report.claim(
        "§III: delayed ACK makes the sender more conservative: it has fewer multiple drops.",
        "multiple drops without / with delayed ACK: " + ", ".join(f"n = {n}: {a:.0f} / {b:.0f} %" for n, a, b in fewer)
        + f"; all runs pooled: {pooled_a:.1f} / {pooled_b:.1f} %. Holds if fewer pooled and at most n.",
        pooled_b < pooled_a and sum(b < a for _, a, b in fewer) * 2 > len(fewer),
    )


def _table1_row(t1: pd.DataFrame, dl: bool, pwd: bool) -> Any:
    return t1[(t1["delayed_ack"] == dl) & (t1["pwd"] == pwd)].iloc[0]


def table1_formulas(report: Report, t1: pd.DataFrame) -> None:
    """Table 1 (without delayed ACK): the new packets in recovery with and without PWD."""
    r = _table1_row(t1, False, True)
    report.claim(
        "Table 1, §IV (without delayed ACK): NewReno with PWD sends N_k = max(0, W-d+k-1) new packets in the k-th RTT of recovery, "
        "W(W-1)/2 - max(0, (W-d)(W-d-1)/2) in total.",
        f"{r.pct_total_exact:.0f} % of {int(r.clean_episodes)} first recoveries without drops during recovery match the total exactly, {r.pct_N_k_exact:.0f} % match every N_k "
        f"(mean measured {r.mean_new:.1f} vs formula {r.mean_formula:.1f}). Holds if ≥ 90 % match.",
        r.clean_episodes > 0 and r.pct_total_exact >= 90,
    )
    r = _table1_row(t1, False, False)
    report.claim(
        "Table 1 (without delayed ACK): NewReno without PWD sends N_1 = max(0, W-d) new packets in the first RTT of recovery and fewer than 2W in total.",
        f"{r.pct_N_k_exact:.0f} % of {int(r.clean_episodes)} first recoveries without drops during recovery have N_1 = max(0, W-d); {r.pct_total_exact:.0f} % send fewer than 2W "
        f"(mean {r.mean_new:.1f} vs mean 2W {r.mean_formula:.1f}). Holds if ≥ 90 % for both.",
        r.clean_episodes > 0 and r.pct_N_k_exact >= 90 and r.pct_total_exact >= 90,
    )


def bursts_after_recovery(report: Report, t1: pd.DataFrame, clean: pd.DataFrame) -> None:
    """§IV, Fig. 6: the burst after recovery is 1 (2) packets with PWD, at most W without."""
    for dl in (False, True):
        r = _table1_row(t1, dl, True)
        want = "1" if not dl else "1 or 2"
        share = r.pct_burst_rule if not dl else r.pct_burst_le_2
        report.claim(
            f"§IV, Fig. 6 ({'b' if dl else 'a'}): with PWD the burst after recovery is {want} packet{'s' if dl else ''}"
            + (" (delayed ACK can hide a duplicate ACK)" if dl else "") + ".",
            f"{share:.0f} % of clean first recoveries with PWD end with a burst of {want} (mean burst "
            f"{clean[(clean['delayed_ack'] == dl) & clean['pwd']]['burst'].mean():.2f}). Holds if ≥ 90 %.",
            share >= 90,
        )
        r = _table1_row(t1, dl, False)
        report.claim(
            f"§IV, Fig. 6 ({'b' if dl else 'a'}): without PWD the burst after recovery is at most W.",
            f"{r.pct_burst_rule:.0f} % of clean first recoveries without PWD have burst ≤ W (mean burst "
            f"{clean[(clean['delayed_ack'] == dl) & ~clean['pwd']]['burst'].mean():.2f}, mean W {clean[(clean['delayed_ack'] == dl) & ~clean['pwd']]['w'].mean():.2f}). Holds if ≥ 95 %.",
            r.pct_burst_rule >= 95,
        )


def pwd_sends_more(report: Report, means: dict[str, pd.DataFrame], bands: list[float]) -> None:
    """§IV, Fig. 4: PWD sends more new packets, the more so the larger the bandwidth."""
    fig4_n, fig4_b = means["fig4_n"], means["fig4_b"]
    more, total = 0, 0
    for table, x in ((fig4_n, "n"), (fig4_b, "bandwidth_mbps")):
        for (dl, xv), g in table.groupby(["delayed_ack", x]):
            a = g[g["pwd"]]["mean_new_segments"]
            b = g[~g["pwd"]]["mean_new_segments"]
            if len(a) and len(b):
                total += 1
                more += float(a.iloc[0]) > float(b.iloc[0])
    gaps = []
    for dl in (False, True):
        g = fig4_b[fig4_b["delayed_ack"] == dl]
        for b in bands:
            a_ = g[(g["pwd"]) & (g["bandwidth_mbps"] == b)]["mean_new_segments"]
            b_ = g[(~g["pwd"]) & (g["bandwidth_mbps"] == b)]["mean_new_segments"]
            if len(a_) and len(b_):
                gaps.append((dl, b, float(a_.iloc[0]) - float(b_.iloc[0])))
    grows = all(
        [gp for d_, b, gp in gaps if d_ == dl][-1] > [gp for d_, b, gp in gaps if d_ == dl][0] for dl in (False, True)
        if len([1 for d_, _, _ in gaps if d_ == dl]) >= 2
    )
    report.claim(
        "§IV, Fig. 4: NewReno with PWD sends more new packets during recovery than without PWD in all cases, and the difference grows with the bottleneck bandwidth.",
        f"PWD sends more at {more} of {total} (n or bandwidth, delayed ACK) points; gap PWD − no PWD vs bandwidth: "
        + "; ".join(f"{'delack' if d_ else 'no delack'} {b:g} Mb/s {gp:+.1f}" for d_, b, gp in gaps) + ".",
        total > 0 and more == total and grows,
    )


def fewer_new_packets_with_more_flows(report: Report, means: dict[str, pd.DataFrame]) -> None:
    """§IV, Fig. 4 (a): fewer new packets during recovery as n grows."""
    fig4_n = means["fig4_n"]
    for pwd in (True, False):
        t = fig4_n[(~fig4_n["delayed_ack"]) & (fig4_n["pwd"] == pwd)].sort_values("n")
        if len(t) >= 2:
            report.claim(
                f"§IV, Fig. 4 (a): as the number of existing connections grows, NewReno {'with' if pwd else 'without'} PWD sends fewer new packets during recovery.",
                f"mean new packets {t['mean_new_segments'].iloc[0]:.1f} at n = {int(t['n'].iloc[0])} → {t['mean_new_segments'].iloc[-1]:.1f} at n = {int(t['n'].iloc[-1])}.",
                t["mean_new_segments"].iloc[-1] < t["mean_new_segments"].iloc[0],
            )


def burst_follows_fair_share(report: Report, means: dict[str, pd.DataFrame], clean: pd.DataFrame) -> None:
    """§IV, Fig. 5: without PWD the burst grows with the fair share; delayed ACK shrinks it."""
    fig5_n, fig5_b = means["fig5_n"], means["fig5_b"]
    nopwd = fig5_n[(~fig5_n["delayed_ack"]) & (~fig5_n["pwd"])].sort_values("n")
    nopwd_b = fig5_b[(~fig5_b["delayed_ack"]) & (~fig5_b["pwd"])].sort_values("bandwidth_mbps")
    if len(nopwd) >= 2:
        rho_n = spearman(nopwd["n"].to_numpy(dtype=float), nopwd["mean_burst"].to_numpy(dtype=float))
        report.claim(
            "§IV, Fig. 5 (a): without PWD the burst after recovery is larger with fewer existing connections (a larger fair share).",
            f"mean burst {', '.join(f'{b:.1f}' for b in nopwd['mean_burst'])} for n = {', '.join(str(int(n)) for n in nopwd['n'])} "
            f"(95 % CI half-widths {min(nopwd['ci95']):.1f}–{max(nopwd['ci95']):.1f}); Spearman correlation with n {rho_n:+.2f}. Holds if negative.",
            rho_n < 0,
        )
    if len(nopwd_b) >= 2:
        rho_b = spearman(nopwd_b["bandwidth_mbps"].to_numpy(dtype=float), nopwd_b["mean_burst"].to_numpy(dtype=float))
        report.claim(
            f"§IV, Fig. 5 (a): without PWD the burst after recovery is larger with a larger bottleneck bandwidth (a larger fair share; n = {FIG3_FLOWS}).",
            f"mean burst {', '.join(f'{b:.1f}' for b in nopwd_b['mean_burst'])} at {', '.join(f'{b:g}' for b in nopwd_b['bandwidth_mbps'])} Mb/s; "
            f"Spearman correlation with bandwidth {rho_b:+.2f}. Holds if positive.",
            rho_b > 0,
        )
    a = clean[(clean["delayed_ack"]) & ~clean["pwd"]]
    b = clean[(~clean["delayed_ack"]) & ~clean["pwd"]]
    if len(a) and len(b):
        report.claim(
            "§IV, Fig. 5 (b): with delayed ACK, NewReno without PWD has a smaller window and so a smaller burst.",
            f"pooled over all points, with / without delayed ACK: mean burst {a['burst'].mean():.2f} / {b['burst'].mean():.2f}, "
            f"mean W {a['w'].mean():.2f} / {b['w'].mean():.2f}. Holds if both are smaller with delayed ACK.",
            a["burst"].mean() < b["burst"].mean() and a["w"].mean() < b["w"].mean(),
        )


def drops_during_recovery(report: Report, t1: pd.DataFrame, paper: dict[str, Any]) -> None:
    """§IV: drops during recovery, with and without PWD and delayed ACK."""
    pr = {(dl, p): _table1_row(t1, dl, p).drop_in_recovery_pct for dl in (False, True) for p in (True, False)}
    red_pct = paper["recovery_drops"]["delack_reduction"]["value"]
    reduction = [100 * (1 - pr[(True, p)] / pr[(False, p)]) if pr[(False, p)] else math.nan for p in (True, False)]
    report.claim(
        f"§IV: NewReno without PWD has slightly lower probability of drops during recovery than with PWD; delayed ACK lowers it by about {red_pct} %.",
        f"first recoveries with a drop during recovery: with PWD {pr[(False, True)]:.1f} % / without {pr[(False, False)]:.1f} % (no delayed ACK), "
        f"{pr[(True, True)]:.1f} % / {pr[(True, False)]:.1f} % (delayed ACK); delayed ACK changes it by {-reduction[0]:+.0f} % (PWD) and {-reduction[1]:+.0f} % (no PWD). "
        "Holds if without PWD ≤ with PWD in both cases and delayed ACK lowers it for both.",
        pr[(False, False)] <= pr[(False, True)] and pr[(True, False)] <= pr[(True, True)] and all(x > 0 for x in reduction),
    )
