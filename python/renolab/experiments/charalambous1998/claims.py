"""charalambous1998's claims, each checked against the cells' means: how throughput falls
with RTT and BER, the order of the three variants, the satellite path, the clean channel,
and two model checks (Mathis et al., the optimum of the OC-3c path)."""

from __future__ import annotations

from typing import Any

import numpy as np

from renolab.experiments.charalambous1998.runs import Results
from renolab.experiments.charalambous1998.scenarios import LOSS_DOMINATED_EVENTS, OPTIMUM_BPS, VARIANTS
from renolab.experiments.report import INCONCLUSIVE, Report
from renolab.experiments.style import VARIANT_LABELS


def falls_with_rtt_and_ber(report: Report, r: Results) -> None:
    """§4: longer RTT and higher BER mean lower throughput."""
    rtts, bers, name, sim = r.grid.rtts, r.grid.bers, r.grid.ber_name, r.sim
    noisy_bers = bers[:3]
    mono_rtt = []
    for v in VARIANTS:
        for ber in noisy_bers:
            series = [sim(v, rtt, ber) for rtt in rtts]
            mono_rtt.append(all(a >= b for a, b in zip(series, series[1:])))
    drop_ratio = [sim(v, rtts[-1], bers[0]) / sim(v, rtts[0], bers[0]) for v in VARIANTS]
    report.claim(
        "On noisy channels throughput degradation is severe on high-BDP connections and less critical on low-delay "
        "ones: at equal BER, longer RTT means lower throughput (§4).",
        f"throughput falls monotonically with RTT in {sum(mono_rtt)}/{len(mono_rtt)} (variant, BER) series with "
        f"errors; at BER {name(bers[0])} the 534 ms path gets {100 * min(drop_ratio):.1f}-{100 * max(drop_ratio):.1f} % "
        "of the 1 ms path's throughput",
        all(mono_rtt),
    )
    mono_ber = []
    for v in VARIANTS:
        for rtt in rtts:
            series = [sim(v, rtt, ber) for ber in reversed(bers)]  # from cleanest to noisiest
            tol = [sim(v, rtt, ber, "ci95") for ber in reversed(bers)]
            mono_ber.append(all(a + 0.0 >= b - np.nan_to_num(tb) for a, b, tb in zip(series, series[1:], tol[1:])))
    sat = [sim(v, 534.0, bers[0]) / sim(v, 534.0, bers[2]) for v in VARIANTS]
    report.claim(
        "As the BER increases on a high-delay channel throughput drops dramatically; it also degrades on low-delay "
        "channels, but not as much (§4).",
        f"throughput does not rise with BER in {sum(mono_ber)}/{len(mono_ber)} (variant, RTT) series (within the "
        f"95 % CI); at 534 ms, going from BER {name(bers[2])} to {name(bers[0])} leaves {100 * min(sat):.1f}-"
        f"{100 * max(sat):.1f} % of the throughput",
        all(mono_ber),
    )


def sack_newreno_reno_order(report: Report, r: Results) -> None:
    """§4, §5: SACK beats NewReno beats Reno in every cell with errors."""
    rtts, bers, sim = r.grid.rtts, r.grid.bers, r.sim
    noisy_bers = bers[:3]
    better_sack, equal_sack, worse_sack = 0, 0, 0
    better_nr, worse_nr = 0, 0
    for rtt in rtts:
        for ber in noisy_bers:
            reno, newreno, sack = (sim(v, rtt, ber) for v in VARIANTS)
            rc, nc, sc = (np.nan_to_num(sim(v, rtt, ber, "ci95")) for v in VARIANTS)
            if sack - sc > reno + rc:
                better_sack += 1
            elif sack + sc < reno - rc:
                worse_sack += 1
            else:
                equal_sack += 1
            better_nr += newreno - nc > reno + rc
            worse_nr += newreno + nc < reno - rc
    n_cells = len(rtts) * len(noisy_bers)
    paper_sack = sum(
        r.paper_mbps("sack", rtt, ber) >= r.paper_mbps("newreno", rtt, ber) >= r.paper_mbps("reno", rtt, ber)
        for rtt in rtts
        for ber in bers
    )
    report.claim(
        "TCP SACK obtains better throughput than New Reno and Reno in all tested BERs and BDPs, and New Reno better "
        "than Reno (§4, §5).",
        f"in the {n_cells} cells with errors SACK beats Reno beyond the 95 % CIs in {better_sack}, ties in "
        f"{equal_sack}, loses in {worse_sack}; NewReno beats Reno in {better_nr}, loses in {worse_nr}. (The paper's "
        f"own Table 1 has SACK >= NewReno >= Reno in only {paper_sack}/16 cells.) Random bit errors rarely hit "
        "twice in one window, so the recovery algorithms seldom differ",
        # Inconclusive while a cell's intervals overlap (a tie) and none says the opposite.
        False if worse_sack or worse_nr else True if better_sack == n_cells else INCONCLUSIVE,
        interval=True,
    )


def satellite_and_clean_channel(report: Report, r: Results, paper: dict[str, Any]) -> None:
    """Table 2-3, footnote 1: the satellite path's improvements and its ~1 % of the optimum;
    near-optimal throughput without errors."""
    rtts, bers, name, sim = r.grid.rtts, r.grid.bers, r.grid.ber_name, r.sim
    noisy_bers = bers[:3]
    optimum_mbps = OPTIMUM_BPS / 1e6
    imp_nr = [100 * (sim("newreno", 534.0, b) / sim("reno", 534.0, b) - 1) for b in noisy_bers]
    imp_sack = [100 * (sim("sack", 534.0, b) / sim("reno", 534.0, b) - 1) for b in noisy_bers]
    grows = all(a < b for a, b in zip(imp_nr, imp_nr[1:])) and all(a < b for a, b in zip(imp_sack, imp_sack[1:]))
    report.claim(
        "Over the satellite (534 ms) the improvement of New Reno and SACK over Reno increases as the BER drops "
        "(Table 2: 9-41 % and 38-63 %).",
        "NewReno over Reno: " + ", ".join(f"{x:+.1f} %" for x in imp_nr)
        + "; SACK over Reno: " + ", ".join(f"{x:+.1f} %" for x in imp_sack)
        + f" at BER {', '.join(name(b) for b in noisy_bers)}",
        grows,
    )
    sat_pct = [100 * sim(v, 534.0, bers[0]) / optimum_mbps for v in VARIANTS]
    report.claim(
        f"Over the satellite at BER {name(bers[0])} all three reach only about 1 % of the optimal "
        f"{paper['setup']['optimum_mbps']['value']} Mb/s; none of the extensions can recover (§5, Table 3).",
        "renolab: " + ", ".join(f"{VARIANT_LABELS[v]} {p:.2f} %" for v, p in zip(VARIANTS, sat_pct))
        + f" of {optimum_mbps:.3f} Mb/s",
        all(0.5 <= p <= 2.0 for p in sat_pct),
    )
    clean = {rtt: min(sim(v, rtt, bers[3]) for v in VARIANTS) / optimum_mbps for rtt in rtts}
    report.claim(
        f"At BER {name(bers[3])} (an error every two hours) all extensions deliver near-optimal throughput (footnote 1).",
        "slowest variant reaches " + ", ".join(f"{100 * clean[rtt]:.1f} %" for rtt in rtts)
        + f" of the optimum at RTT {', '.join(f'{rtt:g}' for rtt in rtts)} ms (the 534 ms path is capped by the 8 MiB "
        "window and spends its first ~10 s in slow start)",
        all(c >= 0.85 for c in clean.values()),
    )


def model_checks(report: Report, r: Results, paper: dict[str, Any]) -> None:
    """Not the paper's: the Mathis model where losses dominate, and the path's optimum."""
    cells = r.cells
    optimum_mbps = OPTIMUM_BPS / 1e6
    dominated = cells[cells["losses"] >= LOSS_DOMINATED_EVENTS]
    ratios = dominated["renolab_over_mathis"]
    report.claim(
        "(Model check, not the paper's) Where random losses dominate, throughput follows Mathis et al.'s "
        "MSS/RTT x C/sqrt(p) (C = sqrt(3/4) with delayed ACKs) within a factor of 2.",
        f"{int(((ratios >= 0.5) & (ratios <= 2.0)).sum())}/{len(ratios)} loss-dominated cells (>= "
        f"{LOSS_DOMINATED_EVENTS} losses per test) are within a factor of 2; renolab/model ratio "
        f"{ratios.min():.2f}-{ratios.max():.2f}",
        bool(len(ratios)) and bool(((ratios >= 0.5) & (ratios <= 2.0)).all()),
    )
    paper_opt = float(paper["setup"]["optimum_mbps"]["value"])
    report.claim(
        f"The optimal throughput of the OC-3c architecture is {paper_opt} Mb/s (Table 3 caption, from ref. [12]).",
        f"149.76 Mb/s SONET payload x 9180/10176 (AAL5 cells of a 9180-byte MTU) x 9140/9180 (TCP/IP headers) "
        f"= {optimum_mbps:.3f} Mb/s",
        abs(optimum_mbps - paper_opt) / paper_opt < 1e-4,
        exact=True,
    )
