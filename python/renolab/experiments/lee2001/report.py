"""lee2001's report: ``reproduce()`` runs the grid and writes the report in reading order --
setup, then one section per figure of the paper with its tables and claims, then the
differences from the paper explained."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from renolab.experiments.lee2001 import claims, figures, tables
from renolab.experiments.lee2001.grid import point_name, point_scenario, points
from renolab.experiments.lee2001.runs import TN_BIN_S, GridResults, run_grid
from renolab.experiments.lee2001.scenarios import VARIANT_LABELS
from renolab.experiments.report import Report, paper_values


def reproduce(out: Any, quick: bool = False, workers: int | None = None) -> Path:
    """Run lee2001's grid and write its figures, tables and report into *out*; returns report.md."""
    start = time.perf_counter()
    out = Path(out)
    paper = paper_values("lee2001")
    grid = points(quick)
    results = run_grid(grid, workers)
    report = Report("lee2001", paper["paper"]["title"], paper["paper"]["citation"], out, quick=quick)
    report.meta["mode"] = "quick (reduced grid)" if quick else "full grid"
    report.meta["runs"] = len(grid)
    _setup(report, quick)
    _utilisation(report, results, paper)
    _normalised_throughput(report, results, paper)
    _recovery_at_w640(report, results, paper)
    _buffer_gain(report, results, paper)
    _differences(report)
    for point in grid:
        report.scenario(point_name(point), point_scenario(point))
    report.meta["wall time"] = f"{time.perf_counter() - start:.1f} s"
    return report.write()


def _setup(report: Report, quick: bool) -> None:
    report.note(
        "**Setup.** One bottleneck G1–G2 of capacity C (1–32 Mb/s), round-trip delay 100 ms, DropTail buffer "
        "B = W*/4 … W* (W* = 20 C packets), one 8 MiB transfer of 640-byte packets, no delayed ACKs, receiver "
        "window never limiting, NewReno with Hoe's start-up ssthresh estimate; scenarios from "
        "`renolab.experiments.lee2001.scenario` (profile `ns2`), validated against ns-2.35 on this grid "
        "(docs/validation.md: 144 of 144 points within 2 %). mu = x / (C t_c) with x = 64 Mbit; T_N(t) is the "
        f"goodput (new data cumulatively ACKed) in {TN_BIN_S:g}-s bins divided by C."
    )
    report.note(
        "**Two sender settings.** `ns235` uses ns-2.35's defaults (the validated setup). The paper used an older ns "
        "(2000–2001). `era2001` applies the three sender switches in which that ns differs "
        "(tests/ns2/lee2001.tcl `era2001`): no Limited Transmit (`singledup_ 0`) for every variant and, for "
        "NewReno, no protection against repeated fast retransmits (`bugFix_ false`, renolab `careful = false`) "
        "and the Slow-but-Steady timer (`newreno_changes1_ 0`). ns-2's `bugFix_ false` also lets Reno fast-"
        "retransmit again inside one window; renolab's Reno has no such switch, so its era Reno differs from the "
        "era ns only there. Both settings are run on the whole grid; claims are checked on each."
        + (" **Quick mode**: C in {1, 8, 32} Mb/s only; claims that need other grid points "
           "are marked not testable." if quick else "")
    )


def _utilisation(report: Report, results: GridResults, paper: dict[str, Any]) -> None:
    """Fig. 2 and Table 1, and the claims about mu."""
    report.heading("Link utilisation vs BDP (Fig. 2)")
    x_bits = paper["setup"]["transfer_bits"]["value"]
    paper_mu = {(v, w, a): x_bits / (w / 20 * 1e6 * tc) for (v, w, a), tc in claims.paper_completion_times(paper).items()}
    report.figure(figures.utilisation_vs_bdp(results, paper_mu), "Fig. 2", "Average link utilisation μ vs BDP (solid: ns-2.35 defaults, dashed: 2001-era ns; x: the paper's values from its text)")
    report.table(tables.grid_table(results, paper), "Table 1", "The simulation grid of the paper's Table 1 with renolab's completion time t_c and utilisation mu per point (paper values where its text gives them)")
    claims.conclusion_1(report, results)
    claims.conclusion_2(report, results)
    claims.sack_highest_with_small_buffer(report, results)
    claims.reno_above_newreno_at_w640(report, results, paper)
    claims.newreno_highest_with_larger_buffers(report, results, paper)


def _normalised_throughput(report: Report, results: GridResults, paper: dict[str, Any]) -> None:
    """Figs. 3-5 and Table 2, and the claims about T_N."""
    report.heading("Normalised throughput T_N(t) at B = W*/2 (Figs. 3-5) and its slope (Table 2)")
    if 0.5 not in results.fractions:
        return
    for number, variant in (("Fig. 3", "reno"), ("Fig. 4", "sack"), ("Fig. 5", "newreno")):
        report.figure(
            figures.normalised_throughput(results, variant),
            number,
            f"T_N of {VARIANT_LABELS[variant]} when B = W*/2 (ns-2.35 defaults; {TN_BIN_S:g}-s bins). A curve ends "
            "where its 64 Mbit transfer completes (|); T_N counts bytes when their ACK arrives, so the ACK that ends "
            "a loss recovery lifts a bin above 1",
        )
    report.table(tables.slope_table(results, paper), "Table 2", "Slope of T_N (1/s) while it climbs to one in congestion avoidance after the start-up losses, B = W*/2; theory: one packet per RTT, 1/(W* RTT)")
    report.note(
        "Table 2's slope is fitted (least squares on the T_N bins) over the first congestion-avoidance climb: "
        "from the end of a loss recovery (the ACK covering everything sent before it; metrics.recovery_episodes) "
        "plus one bin, until T_N reaches 0.95, the next recovery starts or the transfer ends. The paper does not "
        "say how it measured its slopes; it read them off Figs. 3-4."
    )
    claims.slope_inverse_to_wstar(report, results, paper)
    claims.newreno_reaches_one(report, results, paper)


def _recovery_at_w640(report: Report, results: GridResults, paper: dict[str, Any]) -> None:
    """Fig. 6 and its data, and the claims about the recovery at W* = 640."""
    report.heading("NewReno's slow recovery vs Reno's timeout at W* = 640, B = 160 (Fig. 6)")
    if 640 not in results.wstars or 0.25 not in results.fractions:
        return
    report.figure(figures.recovery_time_sequence(results), "Fig. 6", "Packet loss recovery of Reno (a) and NewReno (b) when W* = 640 and B = W*/4 (time-sequence graphs)")
    report.table(tables.recovery_table(results, paper), "Fig. 6 data", "What Fig. 6 shows, measured in both settings, beside the paper's numbers")
    claims.hoe_estimate_and_drop_burst(report, results, paper)
    claims.newreno_recovers_slowly(report, results, paper)
    claims.completion_times_at_w640(report, results, paper)


def _buffer_gain(report: Report, results: GridResults, paper: dict[str, Any]) -> None:
    """Fig. 7 and its data, and the claims about the buffer gain."""
    report.heading("Buffer gain (Fig. 7)")
    bg = tables.buffer_gains(results)
    gain = tables.gain_lookup(bg)
    report.figure(figures.buffer_gain(results, gain, claims.paper_buffer_gains(paper)), "Fig. 7", "Buffer gain BG_k(α) = μ_k(B = α W*) / μ_k(B = W*/4) (x: the paper's values from its text)")
    report.table(tables.buffer_gain_table(bg, paper), "Fig. 7 data", "Buffer gain per variant, W* and B (paper values where its text gives them)")
    claims.conclusion_3(report, results, gain)
    claims.newreno_buffer_gain_values(report, results, gain, paper)
    claims.reno_buffer_gain_above(report, results, gain, paper)


def _differences(report: Report) -> None:
    report.heading("Differences from the paper, explained")
    report.note(
        "- **Absolute times at W* = 640, B = W*/4 depend on the ns version.** ns-2.35 (and renolab's validated `ns235` "
        "setting) gives NewReno about 8.4 s, because its Impatient timer (`newreno_changes1_ 1`) ends NewReno's "
        "one-packet-per-RTT recovery with a timeout after about 0.3 s of partial ACKs. With the 2001-era switches "
        "(Slow-but-Steady timer, no multiple-fast-retransmit protection) NewReno retransmits one packet per RTT for "
        "the whole window, as the paper describes, and its t_c comes close to the paper's 21.551 s.\n"
        "- **Reno at W* = 640, B = W*/4.** The paper's Reno (14.292 s; fast retransmits at 1.05399 and 1.25455 s, a "
        "timeout at 1.65482 s) matches ns-2 with `bugFix_ false`, which lets Reno fast-retransmit twice in one "
        "window (ns-2 era run: 15.97 s, docs/ns2-behaviour.md §11). renolab's Reno always keeps the protection "
        "(no switch for it), so its Reno recovers faster than the paper's in both settings and the paper's large Reno "
        "buffer gains (BG_Reno > 2) are not reproduced: its Reno utilisation at B = W*/4 is about twice the paper's.\n"
        "- **T_N slopes** follow one packet per RTT, 1/(W* RTT), in both the paper and renolab; the paper's values "
        "are read off its figures, ours are least-squares fits, so ±20 % differences at small W* are within reading error."
    )
