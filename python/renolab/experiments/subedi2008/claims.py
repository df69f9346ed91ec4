"""subedi2008's claims, each checked against the runs: the wireless download, the wired
path with one or two scripted losses, and the wired path with random loss.

The scripted-loss cases are one deterministic run each, the same in quick and full mode
(``exact=True``); the random cases' orderings are read from the 95 % interval of the
per-seed difference (``interval=True``); the rest compare means."""

from __future__ import annotations

from typing import Any

from renolab.experiments.report import Report, all_of
from renolab.experiments.subedi2008.runs import Results, higher_than, names, ranking
from renolab.experiments.subedi2008.scenarios import LABELS, VARIANTS


def paper_response(paper: dict[str, Any], case: str) -> dict[str, float]:
    """The slides' download response times of *case* (``wireless`` or ``wired``), by variant."""
    return {v: float(paper[f"{case}_response"][v]) for v in VARIANTS}


def wireless_response(report: Report, r: Results, paper: dict[str, Any], reps: int) -> None:
    """Wireless: Reno fastest, then SACK, NewReno slowest."""
    rt_w = r.by_variant("wireless", "response_s")
    ci_w = r.by_variant("wireless", "response_s_ci95")
    paper_w = paper_response(paper, "wireless")
    report.claim(
        "Wireless: Reno has the shortest file download response time, followed by Reno with SACK; NewReno has the "
        f"longest (table: {', '.join(f'{LABELS[v]} {paper_w[v]:g} s' for v in VARIANTS)}).",
        f"mean of {reps} fading channels: {', '.join(f'{LABELS[v]} {rt_w[v]:.0f} ± {ci_w[v]:.0f} s' for v in VARIANTS)}; "
        f"order {r.rank('wireless', 'response_s')} (paper: {ranking(paper_w)}; '=': not significantly different)",
        all_of([*(r.exceeds("wireless", "response_s", v, "reno") for v in VARIANTS if v != "reno"),
                *(r.exceeds("wireless", "response_s", "newreno", v) for v in VARIANTS if v != "newreno")]),
        interval=True,
    )


def wireless_windows_and_rates(report: Report, r: Results) -> None:
    """Wireless: congestion windows, throughput and goodput of the four."""
    cw_w = r.by_variant("wireless", "avg_window")
    report.claim(
        "Wireless: Reno with SACK has a larger congestion window than Tahoe and NewReno.",
        f"time-averaged window min(cwnd, rwnd): {', '.join(f'{LABELS[v]} {cw_w[v]:.1f}' for v in VARIANTS)} segments",
        all_of([r.exceeds("wireless", "avg_window", "sack", "tahoe"), r.exceeds("wireless", "avg_window", "sack", "newreno")]),
        interval=True,
    )
    rel = abs(cw_w["tahoe"] - cw_w["newreno"]) / max(cw_w["tahoe"], cw_w["newreno"])
    report.claim(
        "Wireless: Tahoe and NewReno have comparable congestion windows.",
        f"time-averaged window differs by {100 * rel:.0f} % (comparable: within 20 %)",
        rel <= 0.2,
    )
    gp_w = r.by_variant("wireless", "goodput_bps")
    th_w = r.by_variant("wireless", "throughput_bps")
    report.claim(
        "Wireless: Reno has the highest throughput and goodput of the four.",
        f"goodput {', '.join(f'{LABELS[v]} {gp_w[v] / 1e6:.3f}' for v in VARIANTS)} Mb/s; throughput "
        f"{', '.join(f'{LABELS[v]} {th_w[v] / 1e6:.3f}' for v in VARIANTS)} Mb/s",
        all_of(r.exceeds("wireless", m, "reno", v) for m in ("goodput_bps", "throughput_bps") for v in VARIANTS if v != "reno"),
        interval=True,
    )
    report.claim(
        "Wireless: Reno with SACK has higher throughput and goodput than NewReno and Tahoe.",
        f"goodput order {r.rank('wireless', 'goodput_bps')}; throughput order {r.rank('wireless', 'throughput_bps')} "
        "('=': the 95 % CI of the per-seed difference includes 0)",
        all_of(r.exceeds("wireless", m, "sack", v) for m in ("goodput_bps", "throughput_bps") for v in ("newreno", "tahoe")),
        interval=True,
    )


def single_loss(report: Report, r: Results) -> None:
    """One scripted loss: Tahoe restarts, the others recover; the times are equal."""
    low1 = r.by_variant("single", "min_cwnd_after_loss")
    report.claim(
        "Single packet loss: Tahoe falls back to slow start; the others use fast retransmit and fast recovery.",
        f"smallest cwnd within 2 s of the loss: {', '.join(f'{LABELS[v]} {low1[v]:.0f}' for v in VARIANTS)} segments",
        low1["tahoe"] <= 1.0 and all(low1[v] > 1.0 for v in ("reno", "sack", "newreno")),
        exact=True,
    )
    rt1 = r.by_variant("single", "response_s")
    spread1 = (max(rt1.values()) - min(rt1.values())) / min(rt1.values())
    report.claim(
        "Single packet loss: the four algorithms have the same file download response time.",
        f"{', '.join(f'{LABELS[v]} {rt1[v]:.2f} s' for v in VARIANTS)}: spread {100 * spread1:.2f} %",
        spread1 < 0.01,
        exact=True,
    )


def two_losses(report: Report, r: Results) -> None:
    """Two scripted losses in a window: SACK best, Reno worst."""
    rt2 = r.by_variant("two", "response_s")
    cw2 = r.by_variant("two", "avg_window")
    report.claim(
        "Two packet losses in a window: Reno with SACK has a shorter download response time than the other three.",
        f"response {', '.join(f'{LABELS[v]} {rt2[v]:.3f} s' for v in VARIANTS)}",
        all(higher_than(rt2[v], rt2["sack"], 1e-5) for v in VARIANTS if v != "sack"),
        exact=True,
    )
    report.claim(
        "Two packet losses in a window: Reno with SACK has a larger congestion window than the other three.",
        f"time-averaged window min(cwnd, rwnd): {', '.join(f'{LABELS[v]} {cw2[v]:.2f}' for v in VARIANTS)} segments",
        all(higher_than(cw2["sack"], cw2[v]) for v in VARIANTS if v != "sack"),
        exact=True,
    )
    rel2 = abs(cw2["tahoe"] - cw2["newreno"]) / max(cw2["tahoe"], cw2["newreno"])
    report.claim(
        "Two packet losses: NewReno and Tahoe have similar congestion windows.",
        f"time-averaged window differs by {100 * rel2:.1f} %",
        rel2 <= 0.2,
        exact=True,
    )
    report.claim(
        "Two packet losses: Reno has the worst performance (and, in the conclusions, 'significant performance "
        "degradation in case of multiple packet losses').",
        f"Reno: {rt2['reno']:.2f} s, {r.value('two', 'reno', 'timeouts'):.0f} timeout(s); the best is "
        f"{rt2[min(rt2, key=rt2.get)]:.2f} s (+{100 * (rt2['reno'] / min(rt2.values()) - 1):.2f} %)",
        all(higher_than(rt2["reno"], rt2[v]) for v in VARIANTS if v != "reno"),
        exact=True,
    )


def random_loss(report: Report, r: Results, paper: dict[str, Any], reps: int) -> None:
    """0.05 % loss: Tahoe slowest, Reno slower than SACK and NewReno, which are equal; SACK
    has the highest throughput and goodput."""
    rt3 = r.by_variant("random", "response_s")
    ci3 = r.by_variant("random", "response_s_ci95")
    paper_d = paper_response(paper, "wired")
    report.claim(
        "0.05 % loss: Tahoe has the longest download response time "
        f"(table: {', '.join(f'{LABELS[v]} {paper_d[v]:g} s' for v in VARIANTS)}).",
        f"mean of {reps}: {', '.join(f'{LABELS[v]} {rt3[v]:.2f} ± {ci3[v]:.2f} s' for v in VARIANTS)}; Tahoe is "
        f"significantly slower than {names([v for v in VARIANTS if v != 'tahoe' and r.higher('random', 'response_s', 'tahoe', v)])} "
        f"and not than {names([v for v in VARIANTS if v != 'tahoe' and not r.higher('random', 'response_s', 'tahoe', v)])} "
        "(95 % CI of the per-seed difference)",
        all_of(r.exceeds("random", "response_s", "tahoe", v) for v in VARIANTS if v != "tahoe"),
        interval=True,
    )
    report.claim(
        "0.05 % loss: Reno has a larger download response time than Reno with SACK and NewReno.",
        f"Reno {rt3['reno']:.2f} ± {ci3['reno']:.2f} s vs SACK {rt3['sack']:.2f} ± {ci3['sack']:.2f} s, NewReno "
        f"{rt3['newreno']:.2f} ± {ci3['newreno']:.2f} s (longer only if the 95 % CI of the per-seed difference excludes 0)",
        all_of([r.exceeds("random", "response_s", "reno", "sack"), r.exceeds("random", "response_s", "reno", "newreno")]),
        interval=True,
    )
    gap = abs(rt3["sack"] - rt3["newreno"]) / min(rt3["sack"], rt3["newreno"])
    report.claim(
        "0.05 % loss: Reno with SACK and NewReno have approximately the same response time.",
        f"they differ by {100 * gap:.2f} %",
        gap < 0.01,
    )
    gp3 = r.by_variant("random", "goodput_bps")
    th3 = r.by_variant("random", "throughput_bps")
    report.claim(
        "Wired: Reno with SACK shows higher throughput and goodput than the other three.",
        f"goodput {', '.join(f'{LABELS[v]} {gp3[v] / 1e6:.4f}' for v in VARIANTS)} Mb/s; throughput "
        f"{', '.join(f'{LABELS[v]} {th3[v] / 1e6:.4f}' for v in VARIANTS)} Mb/s",
        all_of(r.exceeds("random", m, "sack", v) for m in ("goodput_bps", "throughput_bps") for v in VARIANTS if v != "sack"),
        interval=True,
    )
