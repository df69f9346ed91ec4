"""lee2001's claims, each checked against the grid's results: one function per statement
of the paper (most checked in both sender settings), called by the report in its order.

Every run is deterministic, so a claim about one grid point that the quick grid contains
(W* = 640, B = W*/4) is decided exactly there (``exact=True``); a claim about the whole
grid is not, on the quick grid's subset of it."""

from __future__ import annotations

import math
from typing import Any, Callable

from renolab.experiments.lee2001.runs import TN_BIN_S, GridResults
from renolab.experiments.lee2001.scenarios import ALPHA_NAMES, SETTING_LABELS, SETTINGS, VARIANT_LABELS, VARIANTS
from renolab.experiments.report import Report

#: The buffer gain of a point: ``gain(setting, variant, w_star, alpha)``.
Gain = Callable[[str, str, int, float], float]


def paper_completion_times(paper: dict[str, Any]) -> dict[tuple[str, int, float], float]:
    """The completion times the paper's text gives, by (variant, W*, alpha)."""
    p_fig2 = paper["fig2"]
    return {
        ("reno", 640, 0.25): p_fig2["tc_reno_w640_b160"]["value"],
        ("newreno", 640, 0.25): p_fig2["tc_newreno_w640_b160"]["value"],
    }


def conclusion_1(report: Report, results: GridResults) -> None:
    """mu falls as the BDP grows, for every variant and buffer."""
    import numpy as np

    fractions, wstars = results.fractions, results.wstars
    w_lo, w_hi = wstars[0], wstars[-1]
    for setting in SETTINGS:
        tag = f"[{SETTING_LABELS[setting]}]"
        falls, strict, worst = 0, 0, (0.0, "")
        total = 0
        for variant in VARIANTS:
            for a in fractions:
                ys = [results.mu(setting, variant, w, a) for w in wstars]
                total += 1
                rises = np.diff(ys)
                if ys[-1] == min(ys) and ys[-1] < ys[0] and rises.max(initial=-1) <= 0.02:
                    falls += 1
                if (rises < 0).all():
                    strict += 1
                i = int(np.argmax(rises))
                if rises[i] > worst[0]:
                    worst = (float(rises[i]), f"{VARIANT_LABELS[variant]}, {ALPHA_NAMES.get(a)}, W* {wstars[i]}→{wstars[i + 1]}")
        lo = min(results.mu(setting, v, w_hi, a) for v in VARIANTS for a in fractions)
        hi = max(results.mu(setting, v, w_lo, a) for v in VARIANTS for a in fractions)
        report.claim(
            f"{tag} Conclusion 1 (§5, Fig. 2): as BDP increases, mu decreases regardless of TCP version and buffer size "
            f"(highest at W* = 20, lowest at W* = 640; 'almost identical' exceptions at small W*).",
            f"{falls}/{total} curves (variant × buffer) are lowest at W* = {w_hi} and never rise by more than 0.02 "
            f"between neighbouring W*; {strict}/{total} fall at every step; largest rise {worst[0]:.3f} ({worst[1] or 'none'}). "
            f"mu at W* = {w_lo}: up to {hi:.3f}; at W* = {w_hi}: down to {lo:.3f}.",
            falls == total,
        )


def conclusion_2(report: Report, results: GridResults) -> None:
    """NewReno outperforms Reno and SACK wherever it loses nothing in slow start."""
    grid, mu = results.table, results.mu
    for setting in SETTINGS:
        tag = f"[{SETTING_LABELS[setting]}]"
        clean = grid[(grid.setting == setting) & (grid.variant == "newreno") & (~grid.slow_start_loss.astype(bool))]
        wins, losses = 0, []
        for _, r in clean.iterrows():
            best_other = max(mu(setting, "reno", r.w_star, r.alpha), mu(setting, "sack", r.w_star, r.alpha))
            if r.mu >= best_other - 0.005:
                wins += 1
            else:
                losses.append(f"W* {r.w_star}, {ALPHA_NAMES.get(r.alpha)} ({r.mu:.3f} vs {best_other:.3f})")
        dirty = grid[(grid.setting == setting) & (grid.variant == "newreno") & (grid.slow_start_loss.astype(bool))]
        report.claim(
            f"{tag} Conclusion 2 (§5): NewReno always outperforms Reno and SACK if no packet is lost during slow start.",
            f"NewReno lost no packet in slow start at {len(clean)} of {len(clean) + len(dirty)} grid points; at "
            f"{wins} of them its mu is the highest (within 0.005)"
            + (f"; not at {', '.join(losses)}" if losses else "")
            + f". With slow-start losses ({len(dirty)} points) NewReno is highest at "
            f"{sum(1 for _, r in dirty.iterrows() if r.mu >= max(mu(setting, 'reno', r.w_star, r.alpha), mu(setting, 'sack', r.w_star, r.alpha)) - 0.005)}.",
            wins == len(clean) and len(clean) > 0,
        )


def sack_highest_with_small_buffer(report: Report, results: GridResults) -> None:
    """§4, Fig. 2 (a): with B = W*/4 SACK, not NewReno, has the highest mu."""
    mu, w_lo = results.mu, results.wstars[0]
    for setting in SETTINGS:
        tag = f"[{SETTING_LABELS[setting]}]"
        big = [w for w in results.wstars if w >= 80]
        sack_best = [w for w in big if mu(setting, "sack", w, 0.25) >= max(mu(setting, "reno", w, 0.25), mu(setting, "newreno", w, 0.25)) - 0.005]
        report.claim(
            f"{tag} §4, Fig. 2 (a): with B = W*/4, not NewReno but SACK has the highest mu.",
            f"SACK highest (within 0.005) at {len(sack_best)} of {len(big)} points with W* ≥ 80 "
            f"(W* = {', '.join(str(w) for w in sack_best) or 'none'}); at W* = {w_lo}: "
            + ", ".join(f"{VARIANT_LABELS[v]} {mu(setting, v, w_lo, 0.25):.3f}" for v in VARIANTS) + ".",
            len(sack_best) == len(big) and len(big) > 0,
        )


def reno_above_newreno_at_w640(report: Report, results: GridResults, paper: dict[str, Any]) -> None:
    """§4, Fig. 2 (a): at W* = 640, B = W*/4, Reno's mu is above NewReno's."""
    p_fig2, paper_tc = paper["fig2"], paper_completion_times(paper)
    for setting in SETTINGS:
        tag = f"[{SETTING_LABELS[setting]}]"
        if 640 not in results.wstars:
            continue
        r_reno, r_nr = results.row(setting, "reno", 640, 0.25), results.row(setting, "newreno", 640, 0.25)
        diff = r_reno["mu"] - r_nr["mu"]
        report.claim(
            f"{tag} §4, Fig. 2 (a): at W* = 640, B = W*/4, mu_Reno > mu_NewReno by {p_fig2['mu_reno_minus_newreno_w640_b160']['value']} "
            f"(t_c {paper_tc[('reno', 640, 0.25)]} s vs {paper_tc[('newreno', 640, 0.25)]} s).",
            f"mu_Reno − mu_NewReno = {diff:.3f} (t_c Reno {r_reno['t_c_s']:.3f} s, NewReno {r_nr['t_c_s']:.3f} s); "
            "the ordering is the claim, the size depends on the ns version (see Fig. 6).",
            diff > 0,
            exact=True,
        )


def newreno_highest_with_larger_buffers(report: Report, results: GridResults, paper: dict[str, Any]) -> None:
    """§4, Fig. 2 (b)-(d): with B ≥ W*/2 NewReno is highest and Reno lowest."""
    p_fig2 = paper["fig2"]
    for setting in SETTINGS:
        tag = f"[{SETTING_LABELS[setting]}]"
        upper = [a for a in results.fractions if a >= 0.5]
        nr_best, reno_worst, total, exceptions = 0, 0, 0, []
        for a in upper:
            for w in results.wstars:
                m = {v: results.mu(setting, v, w, a) for v in VARIANTS}
                total += 1
                nr_best += m["newreno"] >= max(m["reno"], m["sack"]) - 0.005
                if m["reno"] <= min(m["newreno"], m["sack"]) + 0.005:
                    reno_worst += 1
                else:
                    exceptions.append(f"W* {w} {ALPHA_NAMES.get(a)} (Reno {m['reno']:.3f}, SACK {m['sack']:.3f})")
        report.claim(
            f"{tag} §4, Fig. 2 (b)-(d): with B ≥ W*/2, mu_NewReno is always the highest and mu_Reno always the lowest "
            f"(except B = W* at W* = 640, where SACK and Reno differ by {p_fig2['mu_sack_minus_reno_w640_b640']['value']} and are treated as identical).",
            f"NewReno highest at {nr_best}/{total} points; Reno lowest (within 0.005) at {reno_worst}/{total}"
            + (f"; exceptions: {'; '.join(exceptions)}" if exceptions else "") + ".",
            nr_best == total and reno_worst >= total - 1,
        )


def paper_slopes(paper: dict[str, Any]) -> dict[int, tuple[float, float]]:
    """Table 2's slopes (Reno, SACK) by W*."""
    t2 = paper["table2"]
    return {w: (r, s) for w, r, s in zip(t2["w_star"], t2["reno"], t2["sack"])}


def slope_inverse_to_wstar(report: Report, results: GridResults, paper: dict[str, Any]) -> None:
    """Table 2: the slope of T_N is roughly inversely proportional to W* (Reno, SACK)."""
    import numpy as np

    t2, paper_slope = paper["table2"], paper_slopes(paper)
    for variant in ("reno", "sack"):
        xs = [w for w in results.wstars if math.isfinite(results.row("ns235", variant, w, 0.5)["slope"])]
        ys = [results.row("ns235", variant, w, 0.5)["slope"] for w in xs]
        if len(xs) >= 3:
            k = float(np.polyfit(np.log(xs), np.log(ys), 1)[0])
            ratios = [y / paper_slope[w][0 if variant == "reno" else 1] for w, y in zip(xs, ys) if w in paper_slope]
            report.claim(
                f"[ns-2.35 defaults] Table 2 / §4.1: the slope of T_N of {VARIANT_LABELS[variant]} is roughly inversely proportional to W* "
                f"(paper: {', '.join(f'{s:g}' for s in t2[variant])} for W* = 20…640).",
                f"renolab: {', '.join(f'{y:.3g}' for y in ys)} for W* = {', '.join(map(str, xs))}; log-log exponent {k:.2f} "
                f"(−1 is inverse proportion); renolab/paper ratio {min(ratios):.2f}–{max(ratios):.2f}.",
                -1.25 <= k <= -0.75,
            )
        else:
            report.claim(
                f"Table 2: the slope of T_N of {VARIANT_LABELS[variant]} is inversely proportional to W*.",
                f"only {len(xs)} slopes measurable on this grid (quick mode)", None,
            )


def newreno_reaches_one(report: Report, results: GridResults, paper: dict[str, Any]) -> None:
    """Fig. 5: NewReno reaches T_N = 1 by ~1 s with no slow-start loss."""
    reach, lossy = [], []
    for w in results.wstars:
        tn = results.detail("ns235", "newreno", w, 0.5)["tn"]
        hit = tn[tn["t_n"] >= 0.9]
        reach.append(float(hit["time_s"].iloc[0]) + TN_BIN_S if len(hit) else math.inf)
        if results.row("ns235", "newreno", w, 0.5)["slow_start_loss"]:
            lossy.append(w)
    limit = paper["fig5"]["newreno_reaches_one_by_s"]["value"]
    report.claim(
        f"[ns-2.35 defaults] §4.1, Fig. 5: with B = W*/2, NewReno's T_N grows exponentially and reaches one by about {limit:g} s in all cases; "
        "no packet is lost in slow start (Hoe's estimate).",
        "T_N first ≥ 0.9 at " + ", ".join(f"{t:.1f} s (W* {w})" for w, t in zip(results.wstars, reach))
        + f"; slow-start losses at W* = {', '.join(map(str, lossy)) if lossy else 'none'}.",
        not lossy and max(reach) <= limit + 0.3,
    )


def recovery_time(results: GridResults, setting: str, variant: str) -> float:
    """From the first drop at W* = 640, B = W*/4 until every packet of its window is ACKed."""
    d = results.detail(setting, variant, 640, 0.25)
    return d["recovered_s"] - d["burst_start_s"]


def hoe_estimate_and_drop_burst(report: Report, results: GridResults, paper: dict[str, Any]) -> None:
    """§4.2: NewReno's Hoe estimate at W* = 640, and the burst of drops when the buffer
    overflows."""
    p6 = paper["fig6"]
    hoe = results.detail("ns235", "newreno", 640, 0.25)["hoe_estimate"]
    report.claim(
        f"§4.2: NewReno estimates the BDP as {p6['hoe_estimate_packets']['value']} packets when W* = 640.",
        f"Hoe's estimate in renolab: {hoe:g} packets (both settings: {results.detail('era2001', 'newreno', 640, 0.25)['hoe_estimate']:g}).",
        hoe == p6["hoe_estimate_packets"]["value"],
        exact=True,
    )
    d = results.detail("ns235", "newreno", 640, 0.25)
    p_lo, p_hi = p6["drop_period_s"]["value"]
    report.claim(
        f"§4.2: when cwnd grows from 256 to 512 the buffer overflows: {p6['drops_in_window']['value']} packets are dropped "
        f"from {p_lo} to {p_hi} s, in one window.",
        f"{d['burst_drops']} drops from {d['burst_start_s']:.5f} to {d['burst_end_s']:.5f} s (holds within ±5 drops and ±10 ms).",
        abs(d["burst_drops"] - p6["drops_in_window"]["value"]) <= 5 and abs(d["burst_start_s"] - p_lo) <= 0.01 and abs(d["burst_end_s"] - p_hi) <= 0.01,
        exact=True,
    )


def newreno_recovers_slowly(report: Report, results: GridResults, paper: dict[str, Any]) -> None:
    """§4.2, Fig. 6: NewReno's one-retransmission-per-RTT recovery is slower than Reno's
    timeout."""
    p6 = paper["fig6"]
    for setting in SETTINGS:
        tag = f"[{SETTING_LABELS[setting]}]"
        r_rec, n_rec = recovery_time(results, setting, "reno"), recovery_time(results, setting, "newreno")
        report.claim(
            f"{tag} §4.2, Fig. 6: NewReno needs about {p6['newreno_recovery_s']['value']:g} s to recover the window (one retransmission per RTT) "
            f"while Reno, despite a timeout, needs only about {p6['reno_recovery_s']['value']:g} s.",
            f"from the first drop until every packet of the window is ACKed: NewReno {n_rec:.2f} s, Reno {r_rec:.2f} s; "
            f"NewReno timeouts {int(results.row(setting, 'newreno', 640, 0.25)['timeouts'])}, Reno timeouts {int(results.row(setting, 'reno', 640, 0.25)['timeouts'])}. "
            "(Holds if NewReno takes ≥ 3× as long as Reno and ≥ 5 s.)",
            n_rec >= 3 * r_rec and n_rec >= 5,
            exact=True,
        )


def completion_times_at_w640(report: Report, results: GridResults, paper: dict[str, Any]) -> None:
    """§4, Fig. 6: the completion times of NewReno and Reno at W* = 640, B = 160."""
    paper_tc = paper_completion_times(paper)
    for variant in ("newreno", "reno"):
        target = paper_tc[(variant, 640, 0.25)]
        got = {s: results.row(s, variant, 640, 0.25)["t_c_s"] for s in SETTINGS}
        closer = min(SETTINGS, key=lambda s: abs(got[s] - target))
        report.claim(
            f"§4, Fig. 6: t_c of {VARIANT_LABELS[variant]} at W* = 640, B = 160 is {target} s.",
            f"{SETTING_LABELS['ns235']}: {got['ns235']:.3f} s; {SETTING_LABELS['era2001']}: {got['era2001']:.3f} s; "
            f"closer: {SETTING_LABELS[closer]} ({100 * (got[closer] / target - 1):+.1f} %). Holds if within 5 %.",
            abs(got[closer] / target - 1) <= 0.05,
            exact=True,
        )


def paper_buffer_gains(paper: dict[str, Any]) -> dict[tuple[str, int, float], float]:
    """The buffer gains the paper's text gives, by (variant, W*, alpha)."""
    p7 = paper["fig7"]
    return {("newreno", 320, 0.5): p7["bg_newreno_half_w320"]["value"], ("newreno", 640, 0.5): p7["bg_newreno_half_w640"]["value"]}


def conclusion_3(report: Report, results: GridResults, gain: Gain) -> None:
    """A larger buffer improves mu, the more so the larger the BDP."""
    import numpy as np

    fractions, wstars = results.fractions, results.wstars
    w_lo, w_hi = wstars[0], wstars[-1]
    for setting in SETTINGS:
        tag = f"[{SETTING_LABELS[setting]}]"
        a_top = fractions[-1]
        helps = [(v, w) for v in VARIANTS for w in wstars if gain(setting, v, w, a_top) > 1.0]
        grows = [v for v in VARIANTS if gain(setting, v, w_hi, a_top) > gain(setting, v, w_lo, a_top)]
        nr_flat = all(abs(gain(setting, "newreno", w, a_top) / gain(setting, "newreno", w, 0.5) - 1) <= 0.05 for w in wstars) if 0.5 in fractions else False
        nr_jump = gain(setting, "newreno", w_hi, 0.5) if 0.5 in fractions else math.nan
        beyond = [v for v in ("reno", "sack") if 0.5 in fractions
                  and max(gain(setting, v, w_hi, a) for a in fractions if a > 0.5) > gain(setting, v, w_hi, 0.5) * 1.05]
        ok = len(helps) == len(VARIANTS) * len(wstars) and len(grows) == 3 and nr_flat and nr_jump > 1.5 and len(beyond) == 2
        report.claim(
            f"{tag} Conclusion 3 (§5, Fig. 7): a larger buffer improves mu, the more so the larger the BDP, especially beyond "
            "3/4 BDP for Reno and SACK and beyond 1/2 BDP for NewReno (NewReno gains nothing past 1/2).",
            f"BG({a_top:g}) > 1 at {len(helps)}/{len(VARIANTS) * len(wstars)} (variant, W*); larger at W* = {w_hi} than at W* = {w_lo} for "
            f"{', '.join(VARIANT_LABELS[v] for v in grows) or 'none'}; NewReno: BG(1/2) = {nr_jump:.2f} at W* = {w_hi} and "
            f"{'flat' if nr_flat else 'not flat'} beyond 1/2 (±5 %); Reno/SACK still gain > 5 % beyond 1/2 at W* = {w_hi}: "
            f"{', '.join(VARIANT_LABELS[v] for v in beyond) or 'neither'}. "
            + "Non-monotone: " + (", ".join(f"{VARIANT_LABELS[v]} W* {w}" for v in VARIANTS for w in wstars
                                          if any(np.diff([gain(setting, v, w, a) for a in fractions]) < -0.01)) or "none") + ".",
            ok,
        )


def newreno_buffer_gain_values(report: Report, results: GridResults, gain: Gain, paper: dict[str, Any]) -> None:
    """§4.3, Fig. 7 (c): NewReno's buffer gain at B = W*/2 as the paper gives it."""
    for (variant, w, a), value in paper_buffer_gains(paper).items():
        if w not in results.wstars or a not in results.fractions:
            report.claim(f"§4.3: BG_NewReno(1/2) = {value} at W* = {w}.", f"W* = {w} is not in the quick grid.", None)
            continue
        got = {s: gain(s, variant, w, a) for s in SETTINGS}
        closer = min(SETTINGS, key=lambda s: abs(got[s] - value))
        report.claim(
            f"§4.3, Fig. 7 (c): BG_NewReno(1/2) is {value} at W* = {w}.",
            f"{SETTING_LABELS['ns235']}: {got['ns235']:.2f}; {SETTING_LABELS['era2001']}: {got['era2001']:.2f}; closer: "
            f"{SETTING_LABELS[closer]} ({100 * (got[closer] / value - 1):+.0f} %). Holds if within 15 %.",
            abs(got[closer] / value - 1) <= 0.15,
            exact=True,
        )


def reno_buffer_gain_above(report: Report, results: GridResults, gain: Gain, paper: dict[str, Any]) -> None:
    """§4.3, Fig. 7 (a): Reno's buffer gain is high for large buffers at large W*."""
    p7 = paper["fig7"]
    big = [w for w in results.wstars if w >= 320]
    upper = [a for a in results.fractions if a >= 0.75]
    if big and upper:
        vals = {s: [gain(s, "reno", w, a) for w in big for a in upper] for s in SETTINGS}
        report.claim(
            f"§4.3, Fig. 7 (a): BG_Reno is higher than {p7['bg_reno_above']['value']:g} when B ≥ 3/4 W* and W* ≥ 320.",
            "; ".join(f"{SETTING_LABELS[s]}: BG_Reno {min(v):.2f}–{max(v):.2f}" for s, v in vals.items())
            + f" over W* ∈ {big}, B/W* ∈ {upper}.",
            any(min(v) > p7["bg_reno_above"]["value"] for v in vals.values()),
        )
    else:
        report.claim(f"§4.3, Fig. 7 (a): BG_Reno > {p7['bg_reno_above']['value']:g} for B ≥ 3/4 W*, W* ≥ 320.",
                     "needs W* ≥ 320 and B ≥ 3/4 W*, not in the quick grid.", None)
