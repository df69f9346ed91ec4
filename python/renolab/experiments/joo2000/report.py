"""joo2000's report: ``reproduce()`` runs the grid (and, in full mode, the round-trip
sensitivity runs) and writes the report in reading order: setup, the first-loss patterns
(Figs. 2-3), then the recoveries with and without PWD (Table 1, Figs. 4-6)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pandas as pd

from renolab._files import write_atomic
from renolab.experiments.joo2000 import claims, figures, tables
from renolab.experiments.joo2000.grid import FULL_SEEDS, FULL_SEEDS_NOPWD, plan, run_scenario, scenario_name
from renolab.experiments.joo2000.runs import run_plan, run_sensitivity
from renolab.experiments.joo2000.scenarios import (
    BASE_MBPS,
    BOTTLENECK_DELAY,
    FIG3_FLOWS,
    SENSITIVITY_DELAY,
    SENSITIVITY_FLOWS,
    base_rtt_ms,
)
from renolab.experiments.report import Report, paper_values


def reproduce(out: Any, quick: bool = False, workers: int | None = None) -> Path:
    """Run joo2000's experiments and write the figures, tables and report into *out*."""
    start = time.perf_counter()
    out = Path(out)
    paper = paper_values("joo2000")
    runs_plan = plan(quick)
    runs = run_plan(runs_plan, workers)
    sensitivity = None if quick else run_sensitivity(workers)
    report = Report("joo2000", paper["paper"]["title"], paper["paper"]["citation"], out, quick=quick)
    report.meta["mode"] = "quick (n in {3, 6}, 10 seeds)" if quick else f"full ({FULL_SEEDS} seeds with PWD, {FULL_SEEDS_NOPWD} without, per point)"
    report.meta["runs"] = len(runs_plan) + (0 if sensitivity is None else len(sensitivity))
    _setup(report, paper, quick)
    _first_losses(report, runs, paper, sensitivity)
    _recoveries(report, runs, paper)
    for n, b, dl, p in sorted({(n, b, dl, p) for n, b, dl, p, _ in runs_plan}):
        report.scenario(scenario_name(n, b, dl, p), run_scenario((n, b, dl, p, 1)))
    report.meta["wall time"] = f"{time.perf_counter() - start:.1f} s"
    write_atomic(out / "runs.csv", runs.drop(columns=["new_per_rtt"]).to_csv(index=False, lineterminator="\n"))
    return report.write()


def _setup(report: Report, paper: dict[str, Any], quick: bool) -> None:
    red = paper["setup"]["red"]
    report.note(
        f"**Setup.** n existing long-lived FTP flows and one new flow share a RED bottleneck of {BASE_MBPS} Mb/s "
        f"(limit {red['limit']}, min_th {red['min_th']}, max_th {red['max_th']}, max_p {red['max_p']}; packet-mode RED as in "
        "ns-2.1b5: `gentle` off, `wait` on, w_q 0.002), 1000-byte packets, unlimited receiver windows, ns-2 timers "
        "(profile `ns2`, no SYN, initial window 1). Every sender is NewReno as the paper configures it: Slow-but-Steady "
        "timer, one retransmission per partial ACK, Less Careful, no Limited Transmit. The existing flows start at random "
        "in [0, 1] s; the new flow starts at random in [50, 51] s (drawn from each run's seed). Its first loss "
        "episode is classified from its `seq` trace (metrics.recovery_episodes): detected by timeout (RTO), or by fast "
        "retransmit with 1, 2, 3 or more drops among the packets sent before the fast retransmit. The paper does not "
        f"give link delays (its Fig. 1 is not in the text); we use 10 Mb/s, 2 ms access links and a {BOTTLENECK_DELAY} "
        "bottleneck (100 ms round trip): an assumption that moves the numbers (longer round trips give larger start-up "
        "windows and more multiple drops)."
    )
    report.note(
        "The new flow runs with PWD (Figs. 2-6) and, with the same seeds, without PWD (Figs. 4-6); the existing flows keep "
        "PWD. Up to its first loss detection the new flow behaves the same with or without PWD, so Figs. 2-3 use the runs "
        "with PWD. Confidence intervals are 95 %: Wilson intervals for percentages, Student t for means."
        + (" **Quick mode**: n in {3, 6}, 10 seeds per point: the intervals are wide." if quick else "")
    )


def _first_losses(report: Report, runs: pd.DataFrame, paper: dict[str, Any], sensitivity: pd.DataFrame | None) -> None:
    """Figs. 2-3 and their data, their claims, and the round-trip sensitivity."""
    report.heading("How the new flow detects its first loss (Figs. 2-3)")
    with_pwd = runs[runs["pwd"]]
    flows_n = sorted(int(n) for n in runs[runs["bandwidth_mbps"] == BASE_MBPS]["n"].unique())
    bands = sorted(float(b) for b in runs[runs["n"] == FIG3_FLOWS]["bandwidth_mbps"].unique())
    fig2 = tables.fig2_table(with_pwd, paper)
    paper_points = {dl: v for dl, v in tables.paper_n9(paper).items() if 9 in flows_n}
    report.figure(figures.loss_patterns(fig2, "n", "existing connections n (flows)", paper_points), "Fig. 2",
                  f"Statistics of detected drop patterns with {BASE_MBPS} Mb/s bottleneck (error bars: 95 % CI; x: the paper's n = 9 values)")
    report.table(fig2, "Fig. 2 data", "First-loss detection patterns, % of runs, with 95 % Wilson intervals (paper: n = 9, from its text)")
    fig3 = tables.pattern_table(with_pwd[with_pwd["n"] == FIG3_FLOWS], "bandwidth_mbps")
    report.figure(figures.loss_patterns(fig3, "bandwidth_mbps", "bottleneck bandwidth (Mb/s)", {}), "Fig. 3",
                  f"Statistics of detected drop patterns with {FIG3_FLOWS} TCP connections (error bars: 95 % CI)")
    report.table(fig3, "Fig. 3 data", f"First-loss detection patterns vs bottleneck bandwidth, n = {FIG3_FLOWS}")
    claims.multiple_drops_frequent(report, fig2, paper)
    claims.multiple_drops_fall_with_n(report, fig2)
    claims.shares_at_n9(report, fig2, flows_n, paper)
    claims.multiple_drops_grow_with_bandwidth(report, fig3, bands)
    claims.delayed_ack_fewer_multiple_drops(report, fig2, with_pwd, flows_n)
    if sensitivity is not None and len(sensitivity):
        _round_trip_sensitivity(report, tables.sensitivity_table(with_pwd, sensitivity), paper)


def _round_trip_sensitivity(report: Report, sens: pd.DataFrame, paper: dict[str, Any]) -> None:
    p2 = paper["fig2"]
    report.table(sens, "Sensitivity data", "First-loss patterns (no delayed ACK, 1.6 Mb/s) with the default bottleneck delay and a longer one (round trip about 100 ms vs 200 ms): the paper does not give its delays")

    def share(delay: str, n: int, key: str) -> float:
        column = key if key.startswith("mean_") else f"{key}_pct"
        return float(sens[(sens["bottleneck_delay"] == delay) & (sens["n"] == n)][column].iloc[0])

    report.note(
        f"**Round trip matters.** With a {SENSITIVITY_DELAY} bottleneck instead of {BOTTLENECK_DELAY} (base round trip "
        f"{base_rtt_ms(SENSITIVITY_DELAY):.0f} ms instead of {base_rtt_ms(BOTTLENECK_DELAY):.0f} ms; no delayed ACK) the share of multiple drops at n = "
        + " and n = ".join(f"{n} goes from {share(BOTTLENECK_DELAY, n, 'multiple'):.0f} % to {share(SENSITIVITY_DELAY, n, 'multiple'):.0f} %"
                           for n in SENSITIVITY_FLOWS)
        + f" and RTO at n = {SENSITIVITY_FLOWS[-1]} from {share(BOTTLENECK_DELAY, SENSITIVITY_FLOWS[-1], 'rto'):.0f} % to "
        f"{share(SENSITIVITY_DELAY, SENSITIVITY_FLOWS[-1], 'rto'):.0f} % (paper at n = 9: {p2['no_delack_n9']['multiple']} % and "
        f"{p2['no_delack_n9']['rto']} %); the new flow's mean window when its first dropped packet is sent goes from "
        + " and ".join(f"{share(BOTTLENECK_DELAY, n, 'mean_cwnd_at_first_drop'):.1f} to {share(SENSITIVITY_DELAY, n, 'mean_cwnd_at_first_drop'):.1f} packets (n = {n})"
                       for n in SENSITIVITY_FLOWS)
        + ". The absolute shares of Figs. 2-3 depend on this parameter, which the paper does not state."
    )


def _recoveries(report: Report, runs: pd.DataFrame, paper: dict[str, Any]) -> None:
    """Figs. 4-6, Table 1 and their claims."""
    report.heading("Fast recovery with and without PWD (Table 1, Figs. 4-6)")
    bands = sorted(float(b) for b in runs[runs["n"] == FIG3_FLOWS]["bandwidth_mbps"].unique())
    fr = tables.episodes(runs, clean_recovery=False)
    clean = tables.episodes(runs, clean_recovery=True)
    means = tables.recovery_means(fr, clean)
    report.figure(figures.recovery_means((means["fig4_n"], means["fig4_b"]), "new_segments", "new packets during recovery (packets)"), "Fig. 4",
                  "Average total number of new packets sent during recovery (runs with a timeout before or during recovery excluded; error bars: 95 % CI)")
    report.table(tables.means_data(means["fig4_n"], means["fig4_b"]), "Fig. 4 data", "Mean new packets sent during the first fast recovery, with 95 % CI half-width")
    report.figure(figures.recovery_means((means["fig5_n"], means["fig5_b"]), "burst", "burst size (packets)"), "Fig. 5",
                  "Average size of the packet burst after recovery (runs with drops during recovery excluded; error bars: 95 % CI)")
    report.table(tables.means_data(means["fig5_n"], means["fig5_b"]), "Fig. 5 data", "Mean burst after the first fast recovery, with 95 % CI half-width")
    report.figure(figures.burst_vs_window(clean), "Fig. 6", "Packet burst size after recovery versus window size W")
    t1 = tables.table1(fr, clean, paper)
    report.table(t1, "Table 1", "Table 1's formulas checked on the first fast recoveries without timeout (episodes) and, of those, without any drop during the recovery (clean_episodes, which the formulas assume): pct_total_exact = % of episodes where the total new packets equals the PWD formula (with PWD) or is below 2W (without); pct_N_k_exact = % where every N_k = max(0, W-d+k-1) (with PWD) or N_1 = max(0, W-d) (without); pct_burst_rule = % of clean recoveries whose burst is 1 (with PWD) or at most W (without)")
    report.note(
        "Table 1's W is the window when the first dropped packet was sent; as in renolab's own test of these formulas "
        "(crates/renolab-core/tests/variants.rs, `newreno_episode`), we take W as the ssthresh set at the fast retransmit "
        "(the flight size halved), which is the window NewReno recovers with. d is the number of packets dropped "
        "from the window before the fast retransmit. N_k counts new packets between the k-th and (k+1)-th retransmission."
    )
    claims.table1_formulas(report, t1)
    claims.bursts_after_recovery(report, t1, clean)
    claims.pwd_sends_more(report, means, bands)
    claims.fewer_new_packets_with_more_flows(report, means)
    claims.burst_follows_fair_share(report, means, clean)
    claims.drops_during_recovery(report, t1, paper)
