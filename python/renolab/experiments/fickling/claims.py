"""fickling's claims, each checked against the experiments' means: experiment 1 (one flow
against a rising CBR rate), experiment 2 (pairs of flows) and experiment 3 (Drop Tail
against RED when a CBR flow joins)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from renolab.experiments.fickling.grid import Mode
from renolab.experiments.fickling.runs import Results
from renolab.experiments.fickling.scenarios import EXP3_CBR_START_S, VARIANTS
from renolab.experiments.report import Report
from renolab.experiments.style import VARIANT_LABELS
from renolab.stats import spearman

#: The three loss-based variants.
LOSS_BASED = ("tahoe", "reno", "newreno")


def throughput_equivalent(report: Report, results: Results, m: Mode) -> None:
    """Fig. 2: the four variants' throughputs are about equal; they trend to zero."""
    mean, rates = results.exp1, m.rates
    loaded = [r for r in rates if 0 < r < 10]
    spread = [
        (max(mean(v, r, "throughput_mbps") for v in VARIANTS) - min(mean(v, r, "throughput_mbps") for v in VARIANTS)) / 10.0
        for r in loaded
    ]
    report.claim(
        "Throughput of the four variants is approximately equivalent at every level of congestion (Fig. 2).",
        f"largest spread between variants at one CBR rate: {100 * max(spread):.1f} % of the link (median "
        f"{100 * float(np.median(spread)):.1f} %)",
        max(spread) <= 0.15,
    )
    rho = {v: spearman(rates, [mean(v, r, "throughput_mbps") for r in rates]) for v in VARIANTS}
    last = max(mean(v, rates[-1], "throughput_mbps") for v in VARIANTS)
    report.claim(
        "Throughput trends to zero as the network gets more congested (Fig. 2).",
        "rank correlation of throughput with the CBR rate: "
        + ", ".join(f"{VARIANT_LABELS[v]} {rho[v]:.3f}" for v in VARIANTS)
        + f"; at {rates[-1]:g} Mb/s CBR the best gets {last:.3f} Mb/s",
        all(x <= -0.95 for x in rho.values()) and last < 0.5,
    )


def light_congestion_order(report: Report, results: Results, m: Mode) -> None:
    """§3a: under little congestion Tahoe does a little better, Vegas a little worse."""
    mean = results.exp1
    low = [r for r in m.rates if 0 < r <= 2]
    tahoe_best = sum(mean("tahoe", r, "throughput_mbps") >= max(mean(v, r, "throughput_mbps") for v in ("reno", "newreno")) for r in low)
    vegas_worse = sum(mean("vegas", r, "throughput_mbps") < min(mean(v, r, "throughput_mbps") for v in LOSS_BASED) for r in low)
    report.claim(
        "Under little congestion Tahoe does a little better than Reno and New-Reno, and Vegas a little worse (§3a).",
        f"at CBR <= 2 Mb/s Tahoe beats Reno and NewReno at {tahoe_best}/{len(low)} rates; Vegas is below the other "
        f"three at {vegas_worse}/{len(low)}",
        tahoe_best == len(low) and vegas_worse == len(low),
    )


def losses(report: Report, results: Results, m: Mode, paper: dict[str, Any]) -> None:
    """Fig. 4: low losses up to 80 % congestion for the loss-based variants, none for Vegas."""
    mean, rates = results.exp1, m.rates
    up_to = float(paper["exp1"]["loss_below_pct_up_to_80"]["congestion_pct"]) / 10.0
    limit = float(paper["exp1"]["loss_below_pct_up_to_80"]["value"])
    worst = max(mean(v, r, "drop_rate_pct") for v in LOSS_BASED for r in rates if r <= up_to)
    report.claim(
        f"Tahoe, Reno and New-Reno lose below {limit:g} % of their packets up to {up_to * 10:g} % congestion; "
        "beyond 80 % losses skyrocket (Fig. 4).",
        f"highest drop rate up to {up_to:g} Mb/s CBR: {worst:.2f} %; at {rates[-2]:g} Mb/s: "
        + ", ".join(f"{VARIANT_LABELS[v]} {mean(v, rates[-2], 'drop_rate_pct'):.1f} %" for v in LOSS_BASED),
        worst < limit,
    )
    vegas_to = float(paper["exp1"]["vegas_no_loss_up_to_pct"]["value"]) / 10.0
    vegas_drops = [mean("vegas", r, "drops") for r in rates if r <= vegas_to]
    report.claim(
        f"Between 0 and {vegas_to * 10:g} % congestion TCP Vegas has no packet loss (Fig. 4).",
        f"Vegas loses {sum(vegas_drops) * m.reps:.0f} packets in all {len(vegas_drops) * m.reps} runs up to "
        f"{vegas_to:g} Mb/s CBR (a run's first slow start may overflow the queue)",
        max(vegas_drops) <= 1.0,
    )


def latency(report: Report, results: Results, m: Mode, paper: dict[str, Any]) -> None:
    """Fig. 3: Vegas has the lowest latency; the others jump to about 80 ms."""
    mean, rates = results.exp1, m.rates
    below = [r for r in rates if r < 10]
    vegas_lower = [mean("vegas", r, "latency_ms") < min(mean(v, r, "latency_ms") for v in LOSS_BASED) for r in below]
    upto = below[vegas_lower.index(False) - 1] if False in vegas_lower and vegas_lower.index(False) > 0 else below[-1]
    report.claim(
        "Vegas always has lower latency than Tahoe, Reno and New-Reno (Fig. 3).",
        f"Vegas' mean one-way latency is the lowest at {sum(vegas_lower)}/{len(vegas_lower)} CBR rates below 10 Mb/s, "
        f"every rate up to {upto:g} Mb/s "
        f"(e.g. at 5 Mb/s: Vegas {mean('vegas', 5.0, 'latency_ms'):.1f} ms, Reno {mean('reno', 5.0, 'latency_ms'):.1f} ms)",
        all(vegas_lower),
    )
    target = float(paper["exp1"]["loss_latency_ms"]["value"])
    lat = [mean(v, r, "rtt_ms") for v in LOSS_BASED for r in rates if 0 < r < 10]
    one_way = [mean(v, r, "latency_ms") for v in LOSS_BASED for r in rates if 0 < r < 10]
    report.claim(
        f"Tahoe, Reno and New-Reno jump to around {target:g} ms delay as soon as there is minimal congestion (Fig. 3).",
        f"their mean RTT with CBR between 0 and 10 Mb/s is {min(lat):.0f}-{max(lat):.0f} ms (one-way latency "
        f"{min(one_way):.0f}-{max(one_way):.0f} ms; "
        "the propagation RTT is 60 ms)",
        0.75 * target <= float(np.median(lat)) <= 1.25 * target,
    )


def vegas_pairs(report: Report, results: Results) -> None:
    """Fig. 5 and §3b: two Vegas flows share equally; against NewReno Vegas loses throughput
    but keeps a lower latency."""
    runs2, e2 = results.runs2, results.e2
    vv = runs2[(runs2["pair"] == "vegas-vegas") & (runs2["cbr_mbps"] < 10)]
    report.claim(
        "Two Vegas flows have near identical throughput over the entire range of congestion (Fig. 5).",
        f"Jain's index of the two Vegas flows: median {vv['jain'].median():.3f}, lowest {vv['jain'].min():.3f} over "
        f"{len(vv)} runs",
        float(vv["jain"].median()) >= 0.98,
    )
    nv = e2[(e2["pair"] == "newreno-vegas") & (e2["cbr_mbps"] < 10)]
    nr_wins = int((nv["a_mbps"] > nv["b_mbps"]).sum())
    share = float((nv["b_mbps"] / (nv["a_mbps"] + nv["b_mbps"])).mean())
    report.claim(
        "Against New-Reno, Vegas gets overwhelmed in throughput (§3b).",
        f"NewReno out-sends Vegas at {nr_wins}/{len(nv)} CBR rates; Vegas' mean share of the two flows' throughput "
        f"is {100 * share:.0f} %",
        nr_wins == len(nv) and share < 0.4,
    )
    vlow = int((nv["b_latency_ms"] < nv["a_latency_ms"]).sum())
    report.claim(
        "Vegas has universally lower latency than a competing New-Reno flow (§3b).",
        f"Vegas' one-way latency is below NewReno's at {vlow}/{len(nv)} CBR rates",
        vlow == len(nv),
    )


def reno_pairs(report: Report, results: Results) -> None:
    """Figs. 6-8: two Renos take turns dominating with equal drop rates; NewReno takes more
    than its share from Reno."""
    runs2, e2 = results.runs2, results.e2
    vv = runs2[(runs2["pair"] == "vegas-vegas") & (runs2["cbr_mbps"] < 10)]
    rr = runs2[(runs2["pair"] == "reno-reno") & (runs2["cbr_mbps"] < 10)]
    report.claim(
        "When two Reno flows compete one dominates the other; the dominating flow swaps as congestion increases "
        "(Fig. 6).",
        f"per run, the larger Reno flow gets {rr['ratio'].median():.2f}x the smaller (median; Vegas pair "
        f"{vv['ratio'].median():.2f}x); Jain's index median {rr['jain'].median():.3f}; flow a leads in "
        f"{int((rr['a_mbps'] > rr['b_mbps']).sum())}/{len(rr)} runs",
        float(rr["ratio"].median()) >= 1.2,
    )
    rrm = e2[(e2["pair"] == "reno-reno") & (e2["cbr_mbps"] < 10)]
    drop_gap = float((rrm["a_drop_pct"] - rrm["b_drop_pct"]).abs().mean())
    drop_level = float(((rrm["a_drop_pct"] + rrm["b_drop_pct"]) / 2).mean())
    report.claim(
        "Two competing Reno flows have the same drop rate (Fig. 7).",
        f"the two flows' mean drop rates differ by {drop_gap:.2f} percentage points on average over the CBR rates, "
        f"against an average drop rate of {drop_level:.2f} % (holds within a quarter of it)",
        drop_gap <= 0.25 * drop_level,
    )
    rn = e2[(e2["pair"] == "reno-newreno") & (e2["cbr_mbps"] < 10)]
    nr_more = int((rn["b_mbps"] > rn["a_mbps"]).sum())
    nr_share = float((rn["b_mbps"] / (rn["a_mbps"] + rn["b_mbps"])).mean())
    report.claim(
        "Against Reno, New-Reno uses more than its fair share of the bandwidth (Fig. 8).",
        f"NewReno out-sends Reno at {nr_more}/{len(rn)} CBR rates; its mean share is {100 * nr_share:.1f} %",
        nr_more > len(rn) / 2 and nr_share > 0.5,
    )


def drop_tail_against_red(report: Report, results: Results, paper: dict[str, Any]) -> None:
    """§3b, §4: RED causes more TCP drops; Drop Tail has slightly better latency and
    performs better."""
    mean = results.exp3
    more = all(mean(v, "red", "tcp_drops_after_cbr") > mean(v, "droptail", "tcp_drops_after_cbr") for v in ("reno", "sack"))
    pap = paper["exp3"]["sack_tcp_drops_after_cbr"]
    report.claim(
        f"RED causes more TCP drops than Drop Tail after the CBR flow starts (SACK: {pap['red']} with RED, "
        f"{pap['droptail']} with Drop Tail).",
        f"mean TCP drops after {results.cbr_start_s:g} s: "
        + "; ".join(f"{VARIANT_LABELS[v]} RED {mean(v, 'red', 'tcp_drops_after_cbr'):.1f}, Drop Tail {mean(v, 'droptail', 'tcp_drops_after_cbr'):.1f}" for v in ("reno", "sack")),
        more,
    )
    lat_better = all(mean(v, "droptail", "rtt_after_cbr_ms") < mean(v, "red", "rtt_after_cbr_ms") for v in ("reno", "sack"))
    report.claim(
        "Latency with Drop Tail is slightly better than with RED (§3b).",
        f"mean RTT after {results.cbr_start_s:g} s: "
        + "; ".join(f"{VARIANT_LABELS[v]} Drop Tail {mean(v, 'droptail', 'rtt_after_cbr_ms'):.1f} ms, RED {mean(v, 'red', 'rtt_after_cbr_ms'):.1f} ms" for v in ("reno", "sack")),
        lat_better,
    )
    tput_better = all(mean(v, "droptail", "tcp_mbps") > mean(v, "red", "tcp_mbps") for v in ("reno", "sack"))
    report.claim(
        "For the TCP variants tested, drop tail queuing performs better than RED (§4).",
        "TCP throughput over the run: "
        + "; ".join(f"{VARIANT_LABELS[v]} Drop Tail {mean(v, 'droptail', 'tcp_mbps'):.2f}, RED {mean(v, 'red', 'tcp_mbps'):.2f} Mb/s" for v in ("reno", "sack")),
        tput_better,
    )


def sack_faster(report: Report, results: Results) -> None:
    """§3b: SACK has a higher throughput than Reno and so more drops."""
    mean = results.exp3
    sack_more = all(mean("sack", q, "tcp_drops_after_cbr") > mean("reno", q, "tcp_drops_after_cbr") for q in ("droptail", "red"))
    report.claim(
        "SACK has a higher throughput than Reno and, being faster, experiences more drops (§3b).",
        "TCP throughput "
        + ", ".join(f"{q}: SACK {mean('sack', q, 'tcp_mbps'):.2f} vs Reno {mean('reno', q, 'tcp_mbps'):.2f} Mb/s" for q in ("droptail", "red"))
        + f"; drops after {results.cbr_start_s:g} s "
        + ", ".join(f"{q}: SACK {mean('sack', q, 'tcp_drops_after_cbr'):.1f} vs Reno {mean('reno', q, 'tcp_drops_after_cbr'):.1f}" for q in ("droptail", "red")),
        sack_more and all(mean("sack", q, "tcp_mbps") > mean("reno", q, "tcp_mbps") for q in ("droptail", "red")),
    )


def dip_and_recovery(report: Report, results: Results) -> None:
    """Figs. 9-10: TCP drops to (nearly) zero when the CBR flow starts, then bounces back."""
    dips = []
    for (v, q), val in results.series3.items():
        t, tcp = val["time_s"], val["tcp_bps"]
        dip = tcp[(t >= EXP3_CBR_START_S) & (t < EXP3_CBR_START_S + 2)].min()
        later = tcp[t >= EXP3_CBR_START_S + 3].mean()
        dips.append(dip / later if later > 0 else math.nan)
    report.claim(
        "Both TCP Reno and TCP SACK drop to (nearly) zero throughput when the CBR flow starts, then quickly bounce "
        "back to use what the CBR flow leaves (Figs. 9-10).",
        f"lowest 0.5 s goodput in the 2 s after the CBR start: {100 * min(dips):.0f}-{100 * max(dips):.0f} % of the "
        "flow's mean goodput from 3 s after the start on (seed 1; holds below 50 %)",
        max(dips) <= 0.5,
    )
