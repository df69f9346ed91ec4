"""joo2000's report: the figures, tables and claims written from the runs' recovery episodes."""

from __future__ import annotations

import math
from typing import Any

from renolab.experiments.joo2000 import (
    BASE_MBPS,
    BOTTLENECK_DELAY,
    FIG3_FLOWS,
    PATTERNS,
    PATTERN_KEYS,
    PATTERN_LABELS,
    SENSITIVITY_DELAY,
    SENSITIVITY_FLOWS,
    _COLOURS,
    _base_rtt_ms,
    _spearman,
    pwd_total,
    wilson,
)
from renolab.experiments.report import against, all_of
from renolab.stats import mean_ci


def _figure(rows: int, cols: int, width: float, height: float) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.subplots(rows, cols, squeeze=False)


def _pattern_table(runs: Any, by: str) -> Any:
    """Fractions of each first-loss pattern (with Wilson 95 % CIs) per *by* and delayed ACK."""
    import pandas as pd

    rows = []
    for (x, dl), g in runs.groupby([by, "delayed_ack"], sort=True):
        total = int((g["pattern"] != "none").sum())
        entry = {by: x, "delayed_ack": bool(dl), "runs": total}
        for p in PATTERNS:
            k = int((g["pattern"] == p).sum())
            lo, hi = wilson(k, total)
            entry[f"{PATTERN_KEYS[p]}_pct"] = 100 * k / total if total else math.nan
            entry[f"{PATTERN_KEYS[p]}_lo"], entry[f"{PATTERN_KEYS[p]}_hi"] = 100 * lo, 100 * hi
        k = int(g["pattern"].isin(["2", "3", ">3"]).sum())
        lo, hi = wilson(k, total)
        entry["multiple_pct"], entry["multiple_lo"], entry["multiple_hi"] = 100 * k / total if total else math.nan, 100 * lo, 100 * hi
        rows.append(entry)
    return pd.DataFrame(rows)


def _plot_patterns(report: Any, table: Any, by: str, xlabel: str, number: str, caption: str, paper_points: dict) -> None:
    import numpy as np

    fig, axes = _figure(1, 2, 11, 4)
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
            ax.errorbar(xs + offset, y, yerr=err, marker="o", ms=3, capsize=2, color=_COLOURS[p], label=PATTERN_LABELS[p])
            pp = paper_points.get(dl)
            if pp is not None:
                ax.plot([pp[0] + offset], [pp[1][key]], "x", ms=9, mew=2, color=_COLOURS[p])
        ax.set_title(f"({'ab'[j]}) {'with' if dl else 'without'} delayed ACK", fontsize="small")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("% of first loss detections")
        ax.set_ylim(0, 100)
        ax.set_xticks(xs, [f"{x:g}" for x in xs])
        ax.grid(alpha=0.3)
    axes[0, 0].legend(fontsize="x-small")
    report.figure(fig, number, caption)


def _episodes(runs: Any, *, clean_recovery: bool) -> Any:
    """First episodes detected by fast retransmit with no timeout (Fig. 4); with
    *clean_recovery* also no drop during the recovery (Figs. 5-6)."""
    sel = runs[(runs["pattern"].isin(["1", "2", "3", ">3"])) & (runs["timeouts"] == 0) & runs["end_s"].notna()]
    if clean_recovery:
        sel = sel[(sel["drops_in_recovery"] == 0) & sel["burst"].notna()]
    return sel


def write_report(report: Any, runs: Any, paper: dict, quick: bool, sensitivity: Any = None) -> None:
    import numpy as np
    import pandas as pd

    p2 = paper["fig2"]
    red = paper["setup"]["red"]
    base = runs[runs["bandwidth_mbps"] == BASE_MBPS]
    with_pwd = runs[runs["pwd"]]
    flows_n = sorted(int(n) for n in base["n"].unique())
    bands = sorted(float(b) for b in runs[runs["n"] == FIG3_FLOWS]["bandwidth_mbps"].unique())

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

    # ----- Fig. 2 -------------------------------------------------------------------------------
    report.heading("How the new flow detects its first loss (Figs. 2-3)")
    fig2 = _pattern_table(with_pwd[with_pwd["bandwidth_mbps"] == BASE_MBPS], "n")
    paper_n9 = {False: (9, p2["no_delack_n9"]), True: (9, p2["delack_n9"])}
    for dl, (n9, values) in paper_n9.items():
        for key in ("rto", "d1", "d2", "d3", "dmore", "multiple"):
            fig2.loc[(fig2["n"] == n9) & (fig2["delayed_ack"] == dl), f"paper_{key}_pct"] = values[key]
    _plot_patterns(report, fig2, "n", "existing connections n", "Fig. 2",
                   f"Statistics of detected drop patterns with {BASE_MBPS} Mb/s bottleneck (error bars: 95 % CI; x: the paper's n = 9 values)",
                   {dl: v for dl, v in paper_n9.items() if 9 in flows_n})
    report.table(fig2, "Fig. 2 data", "First-loss detection patterns, % of runs, with 95 % Wilson intervals (paper: n = 9, from its text)")

    fig3_runs = with_pwd[with_pwd["n"] == FIG3_FLOWS]
    fig3 = _pattern_table(fig3_runs, "bandwidth_mbps")
    _plot_patterns(report, fig3, "bandwidth_mbps", "bottleneck bandwidth (Mb/s)", "Fig. 3",
                   f"Statistics of detected drop patterns with {FIG3_FLOWS} TCP connections (error bars: 95 % CI)", {})
    report.table(fig3, "Fig. 3 data", f"First-loss detection patterns vs bottleneck bandwidth, n = {FIG3_FLOWS}")

    # Claims on Figs. 2-3
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
        )
    for dl in (False, True):
        t = fig2[fig2["delayed_ack"] == dl].sort_values("n")
        if len(t) >= 2:
            rho = _spearman(t["n"].to_numpy(dtype=float), t["multiple_pct"].to_numpy(dtype=float))
            first, last = t.iloc[0], t.iloc[-1]
            report.claim(
                f"§III, Fig. 2 ({'with' if dl else 'without'} delayed ACK): the share of multiple drops decreases as the number of existing connections grows.",
                f"{first.multiple_pct:.1f} % (CI {first.multiple_lo:.1f}–{first.multiple_hi:.1f}) at n = {int(first.n)} → {last.multiple_pct:.1f} % "
                f"(CI {last.multiple_lo:.1f}–{last.multiple_hi:.1f}) at n = {int(last.n)}; Spearman rank correlation with n: {rho:+.2f}. "
                "Holds if the correlation is negative and the share at the largest n is below the share at the smallest.",
                rho < 0 and last.multiple_pct < first.multiple_pct,
            )
    if 9 in flows_n:
        for dl in (False, True):
            r = fig2[(fig2["n"] == 9) & (fig2["delayed_ack"] == dl)].iloc[0]
            values = paper_n9[dl][1]
            diffs = {k: r[f"{k}_pct"] - values[k] for k in ("rto", "d1", "d2", "d3", "dmore")}
            inside = [k for k in diffs if r[f"{k}_lo"] <= values[k] <= r[f"{k}_hi"]]
            worst = max(diffs, key=lambda k: abs(diffs[k]))
            report.claim(
                f"§III, Fig. 2 ({'b' if dl else 'a'}), n = 9: RTO {values['rto']} %, 1 drop {values['d1']} %, 2 drops {values['d2']} %, 3 drops {values['d3']} %, over 3 drops {values['dmore']} % ({values['source']}).",
                f"renolab: RTO {r.rto_pct:.1f} %, 1 drop {r.d1_pct:.1f} %, 2 drops {r.d2_pct:.1f} %, 3 drops {r.d3_pct:.1f} %, over 3 {r.dmore_pct:.1f} % "
                f"({int(r.runs)} runs); the paper's value lies in our 95 % CI for {len(inside)} of 5 classes; largest difference {diffs[worst]:+.1f} points ({PATTERN_LABELS[{'rto': 'rto', 'd1': '1', 'd2': '2', 'd3': '3', 'dmore': '>3'}[worst]]}). "
                "Holds if every class is within 10 points.",
                all(abs(d) <= 10 for d in diffs.values()),
            )
    else:
        report.claim("§III, Fig. 2, n = 9: the paper's percentages.", "n = 9 is not in the quick grid.", None)
    if len(bands) >= 2:
        for dl in (False, True):
            t = fig3[fig3["delayed_ack"] == dl].sort_values("bandwidth_mbps")
            lo_b, hi_b = t.iloc[0], t.iloc[-1]
            report.claim(
                f"§III, Fig. 3 ({'with' if dl else 'without'} delayed ACK): with a larger bottleneck bandwidth the share of multiple drops increases and that of RTO decreases.",
                f"multiple drops {lo_b.multiple_pct:.1f} % at {lo_b.bandwidth_mbps:g} Mb/s → {hi_b.multiple_pct:.1f} % at {hi_b.bandwidth_mbps:g} Mb/s; "
                f"RTO {lo_b.rto_pct:.1f} % → {hi_b.rto_pct:.1f} %; over 3 drops {lo_b.dmore_pct:.1f} % → {hi_b.dmore_pct:.1f} %.",
                hi_b.multiple_pct > lo_b.multiple_pct and hi_b.rto_pct <= lo_b.rto_pct,
            )
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

    if sensitivity is not None and len(sensitivity):
        base_rtt = with_pwd[(with_pwd["bandwidth_mbps"] == BASE_MBPS) & (~with_pwd["delayed_ack"]) & with_pwd["n"].isin(SENSITIVITY_FLOWS)]
        both = pd.concat([
            base_rtt[["n", "pattern", "cwnd_at_first_drop"]].assign(bottleneck_delay=BOTTLENECK_DELAY),
            sensitivity[["n", "pattern", "cwnd_at_first_drop"]].assign(bottleneck_delay=SENSITIVITY_DELAY),
        ], ignore_index=True)
        both["key"] = both["bottleneck_delay"] + " n=" + both["n"].astype(str)
        sens = _pattern_table(both.assign(delayed_ack=False), "key")
        sens.insert(0, "bottleneck_delay", [k.split(" ")[0] for k in sens["key"]])
        sens.insert(1, "n", [int(k.split("=")[1]) for k in sens["key"]])
        sens["mean_cwnd_at_first_drop"] = [float(both[both["key"] == k]["cwnd_at_first_drop"].mean()) for k in sens["key"]]
        sens = sens.drop(columns=["key"]).sort_values(["n", "bottleneck_delay"]).reset_index(drop=True)
        report.table(sens, "Sensitivity data", "First-loss patterns (no delayed ACK, 1.6 Mb/s) with the default bottleneck delay and a longer one (round trip about 100 ms vs 200 ms): the paper does not give its delays")

        def share(delay: str, n: int, key: str) -> float:
            column = key if key.startswith("mean_") else f"{key}_pct"
            return float(sens[(sens["bottleneck_delay"] == delay) & (sens["n"] == n)][column].iloc[0])

        report.note(
            f"**Round trip matters.** With a {SENSITIVITY_DELAY} bottleneck instead of {BOTTLENECK_DELAY} (base round trip "
            f"{_base_rtt_ms(SENSITIVITY_DELAY):.0f} ms instead of {_base_rtt_ms(BOTTLENECK_DELAY):.0f} ms; no delayed ACK) the share of multiple drops at n = "
            + " and n = ".join(f"{n} goes from {share(BOTTLENECK_DELAY, n, 'multiple'):.0f} % to {share(SENSITIVITY_DELAY, n, 'multiple'):.0f} %"
                               for n in SENSITIVITY_FLOWS)
            + f" and RTO at n = {SENSITIVITY_FLOWS[-1]} from {share(BOTTLENECK_DELAY, SENSITIVITY_FLOWS[-1], 'rto'):.0f} % to "
            f"{share(SENSITIVITY_DELAY, SENSITIVITY_FLOWS[-1], 'rto'):.0f} % (paper at n = 9: {p2['no_delack_n9']['multiple']} % and "
            f"{p2['no_delack_n9']['rto']} %); the new flow's mean window when its first dropped packet is sent goes from "
            + " and ".join(f"{share(BOTTLENECK_DELAY, n, 'mean_cwnd_at_first_drop'):.1f} to {share(SENSITIVITY_DELAY, n, 'mean_cwnd_at_first_drop'):.1f} packets (n = {n})"
                           for n in SENSITIVITY_FLOWS)
            + ". The absolute shares of Figs. 2-3 depend on this parameter, which the paper does not state."
        )

    # ----- Figs. 4-6 and Table 1 ----------------------------------------------------------------
    report.heading("Fast recovery with and without PWD (Table 1, Figs. 4-6)")
    fr = _episodes(runs, clean_recovery=False)
    clean = _episodes(runs, clean_recovery=True)

    def mean_by(frame: Any, value: str, keys: list[str]) -> Any:
        rows = []
        for key, g in frame.groupby(keys, sort=True):
            m, h, k = mean_ci(g[value].tolist())
            rows.append({**dict(zip(keys, key)), f"mean_{value}": m, "ci95": h, "episodes": k})
        return pd.DataFrame(rows)

    fig4_n = mean_by(fr[fr["bandwidth_mbps"] == BASE_MBPS], "new_segments", ["delayed_ack", "pwd", "n"])
    fig4_b = mean_by(fr[fr["n"] == FIG3_FLOWS], "new_segments", ["delayed_ack", "pwd", "bandwidth_mbps"])
    fig5_n = mean_by(clean[clean["bandwidth_mbps"] == BASE_MBPS], "burst", ["delayed_ack", "pwd", "n"])
    fig5_b = mean_by(clean[clean["n"] == FIG3_FLOWS], "burst", ["delayed_ack", "pwd", "bandwidth_mbps"])

    def plot_means(number: str, caption: str, tables: tuple[Any, Any], value: str, ylabel: str) -> None:
        fig, axes = _figure(2, 2, 11, 7)
        for i, dl in enumerate((False, True)):
            for j, (table, x, xlabel) in enumerate(((tables[0], "n", "existing connections n"), (tables[1], "bandwidth_mbps", f"bottleneck bandwidth (Mb/s), n = {FIG3_FLOWS}"))):
                ax = axes[i, j]
                values = np.unique(table[x].to_numpy(dtype=float))
                step = 0.08 * float(np.diff(values).min()) if len(values) > 1 else 0.08
                for pwd, offset, style in ((True, -step, dict(color="tab:blue", marker="o")), (False, step, dict(color="tab:red", marker="x"))):
                    t = table[(table["delayed_ack"] == dl) & (table["pwd"] == pwd)]
                    if len(t):
                        ax.errorbar(t[x].to_numpy(dtype=float) + offset, t[f"mean_{value}"], yerr=t["ci95"].fillna(0), capsize=3,
                                    label=f"NewReno {'with' if pwd else 'without'} PWD", **style)
                ax.set_xticks(values, [f"{v:g}" for v in values])
                ax.set_title(f"({'ab'[i]}) {'with' if dl else 'without'} delayed ACK" + ("" if j == 0 else ", vs bandwidth"), fontsize="small")
                ax.set_xlabel(xlabel if j else f"{xlabel} ({BASE_MBPS} Mb/s)")
                ax.set_ylabel(ylabel)
                ax.grid(alpha=0.3)
                ax.set_ylim(bottom=0)
        axes[0, 0].legend(fontsize="x-small")
        report.figure(fig, number, caption)

    plot_means("Fig. 4", "Average total number of new packets sent during recovery (runs with a timeout before or during recovery excluded; error bars: 95 % CI)",
               (fig4_n, fig4_b), "new_segments", "new packets during recovery")
    report.table(pd.concat([fig4_n.assign(bandwidth_mbps=BASE_MBPS), fig4_b.assign(n=FIG3_FLOWS)], ignore_index=True),
                 "Fig. 4 data", "Mean new packets sent during the first fast recovery, with 95 % CI half-width")
    plot_means("Fig. 5", "Average size of the packet burst after recovery (runs with drops during recovery excluded; error bars: 95 % CI)",
               (fig5_n, fig5_b), "burst", "burst size (packets)")
    report.table(pd.concat([fig5_n.assign(bandwidth_mbps=BASE_MBPS), fig5_b.assign(n=FIG3_FLOWS)], ignore_index=True),
                 "Fig. 5 data", "Mean burst after the first fast recovery, with 95 % CI half-width")

    fig, axes = _figure(1, 2, 11, 4.2)
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
    axes[0, 0].legend(fontsize="x-small")
    report.figure(fig, "Fig. 6", "Packet burst size after recovery versus window size W")

    # Table 1 check
    t1_rows = []
    for dl in (False, True):
        for pwd in (True, False):
            e = fr[(fr["delayed_ack"] == dl) & (fr["pwd"] == pwd)]
            c = clean[(clean["delayed_ack"] == dl) & (clean["pwd"] == pwd)]
            entry = {"delayed_ack": dl, "pwd": pwd, "episodes": len(e)}
            e_all, e = e, c  # the formulas assume no drop during the recovery
            w, d = e["w"].to_numpy(dtype=float), e["drops"].to_numpy(dtype=int)
            new = e["new_segments"].to_numpy(dtype=float)
            first = np.array([(x[0] if isinstance(x, list) and x else math.nan) for x in e["new_per_rtt"]], dtype=float)
            n1 = np.maximum(0, w - d)
            entry.update({"clean_episodes": len(e), "mean_W": float(np.mean(w)) if len(e) else math.nan,
                          "mean_d": float(np.mean(d)) if len(e) else math.nan, "mean_new": float(np.mean(new)) if len(e) else math.nan})
            if pwd:
                pred = np.array([pwd_total(a, b) for a, b in zip(w, d)])
                nk_ok = [all(nk == max(0, int(a) - int(b) + k) for k, nk in enumerate(per)) for a, b, per in zip(w, d, e["new_per_rtt"]) if isinstance(per, list)]
                entry.update({"formula_total": "W(W-1)/2 - max(0,(W-d)(W-d-1)/2)", "mean_formula": float(np.mean(pred)) if len(e) else math.nan,
                              "pct_total_exact": 100 * float(np.mean(np.abs(new - pred) < 0.5)) if len(e) else math.nan,
                              "pct_N_k_exact": 100 * float(np.mean(nk_ok)) if nk_ok else math.nan,
                              "burst_rule": "= 1", "pct_burst_rule": 100 * float(np.mean(c["burst"] == 1)) if len(c) else math.nan,
                              "pct_burst_le_2": 100 * float(np.mean(c["burst"] <= 2)) if len(c) else math.nan})
            else:
                entry.update({"formula_total": "< 2W", "mean_formula": float(np.mean(2 * w)) if len(e) else math.nan,
                              "pct_total_exact": 100 * float(np.mean(new < 2 * w)) if len(e) else math.nan,
                              "pct_N_k_exact": 100 * float(np.mean(first == n1)) if len(e) else math.nan,
                              "burst_rule": "<= W", "pct_burst_rule": 100 * float(np.mean(c["burst"] <= c["w"])) if len(c) else math.nan,
                              "pct_burst_le_2": 100 * float(np.mean(c["burst"] <= 2)) if len(c) else math.nan})
            entry["drop_in_recovery_pct"] = 100 * float(np.mean(e_all["drops_in_recovery"] > 0)) if len(e_all) else math.nan
            t1_rows.append(entry)
    t1 = pd.DataFrame(t1_rows)
    p1 = paper["table1"]
    t1["paper_formula"] = [p1["pwd_total_new"] if p else p1["nopwd_total_new"] for p in t1["pwd"]]
    t1["paper_N_k"] = [p1["pwd_new_in_kth_rtt"] if p else p1["nopwd_new_in_kth_rtt"] for p in t1["pwd"]]
    t1["paper_burst"] = [p1["pwd_burst"] if p else p1["nopwd_burst"] for p in t1["pwd"]]
    report.table(t1, "Table 1", "Table 1's formulas checked on the first fast recoveries without timeout (episodes) and, of those, without any drop during the recovery (clean_episodes, which the formulas assume): pct_total_exact = % of episodes where the total new packets equals the PWD formula (with PWD) or is below 2W (without); pct_N_k_exact = % where every N_k = max(0, W-d+k-1) (with PWD) or N_1 = max(0, W-d) (without); pct_burst_rule = % of clean recoveries whose burst is 1 (with PWD) or at most W (without)")
    report.note(
        "Table 1's W is the window when the first dropped packet was sent; as in renolab's own test of these formulas "
        "(crates/renolab-core/tests/variants.rs, `newreno_episode`), we take W as the ssthresh set at the fast retransmit "
        "(the flight size halved), which is the window NewReno recovers with. d is the number of packets dropped "
        "from the window before the fast retransmit. N_k counts new packets between the k-th and (k+1)-th retransmission."
    )

    def row1(dl: bool, pwd: bool) -> Any:
        return t1[(t1["delayed_ack"] == dl) & (t1["pwd"] == pwd)].iloc[0]

    r = row1(False, True)
    report.claim(
        "Table 1, §IV (without delayed ACK): NewReno with PWD sends N_k = max(0, W-d+k-1) new packets in the k-th RTT of recovery, "
        "W(W-1)/2 - max(0, (W-d)(W-d-1)/2) in total.",
        f"{r.pct_total_exact:.0f} % of {int(r.clean_episodes)} first recoveries without drops during recovery match the total exactly, {r.pct_N_k_exact:.0f} % match every N_k "
        f"(mean measured {r.mean_new:.1f} vs formula {r.mean_formula:.1f}). Holds if ≥ 90 % match.",
        r.clean_episodes > 0 and r.pct_total_exact >= 90,
    )
    r = row1(False, False)
    report.claim(
        "Table 1 (without delayed ACK): NewReno without PWD sends N_1 = max(0, W-d) new packets in the first RTT of recovery and fewer than 2W in total.",
        f"{r.pct_N_k_exact:.0f} % of {int(r.clean_episodes)} first recoveries without drops during recovery have N_1 = max(0, W-d); {r.pct_total_exact:.0f} % send fewer than 2W "
        f"(mean {r.mean_new:.1f} vs mean 2W {r.mean_formula:.1f}). Holds if ≥ 90 % for both.",
        r.clean_episodes > 0 and r.pct_N_k_exact >= 90 and r.pct_total_exact >= 90,
    )
    for dl in (False, True):
        r = row1(dl, True)
        want = "1" if not dl else "1 or 2"
        share = r.pct_burst_rule if not dl else r.pct_burst_le_2
        report.claim(
            f"§IV, Fig. 6 ({'b' if dl else 'a'}): with PWD the burst after recovery is {want} packet{'s' if dl else ''}"
            + (" (delayed ACK can hide a duplicate ACK)" if dl else "") + ".",
            f"{share:.0f} % of clean first recoveries with PWD end with a burst of {want} (mean burst "
            f"{clean[(clean['delayed_ack'] == dl) & clean['pwd']]['burst'].mean():.2f}). Holds if ≥ 90 %.",
            share >= 90,
        )
        r = row1(dl, False)
        report.claim(
            f"§IV, Fig. 6 ({'b' if dl else 'a'}): without PWD the burst after recovery is at most W.",
            f"{r.pct_burst_rule:.0f} % of clean first recoveries without PWD have burst ≤ W (mean burst "
            f"{clean[(clean['delayed_ack'] == dl) & ~clean['pwd']]['burst'].mean():.2f}, mean W {clean[(clean['delayed_ack'] == dl) & ~clean['pwd']]['w'].mean():.2f}). Holds if ≥ 95 %.",
            r.pct_burst_rule >= 95,
        )
    # PWD sends more new packets, gap grows with bandwidth
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
    for pwd in (True, False):
        t = fig4_n[(~fig4_n["delayed_ack"]) & (fig4_n["pwd"] == pwd)].sort_values("n")
        if len(t) >= 2:
            report.claim(
                f"§IV, Fig. 4 (a): as the number of existing connections grows, NewReno {'with' if pwd else 'without'} PWD sends fewer new packets during recovery.",
                f"mean new packets {t['mean_new_segments'].iloc[0]:.1f} at n = {int(t['n'].iloc[0])} → {t['mean_new_segments'].iloc[-1]:.1f} at n = {int(t['n'].iloc[-1])}.",
                t["mean_new_segments"].iloc[-1] < t["mean_new_segments"].iloc[0],
            )
    # Burst without PWD vs the fair share (bandwidth / (n + 1)), no delayed ACK.
    nopwd = fig5_n[(~fig5_n["delayed_ack"]) & (~fig5_n["pwd"])].sort_values("n")
    nopwd_b = fig5_b[(~fig5_b["delayed_ack"]) & (~fig5_b["pwd"])].sort_values("bandwidth_mbps")
    if len(nopwd) >= 2:
        rho_n = _spearman(nopwd["n"].to_numpy(dtype=float), nopwd["mean_burst"].to_numpy(dtype=float))
        report.claim(
            "§IV, Fig. 5 (a): without PWD the burst after recovery is larger with fewer existing connections (a larger fair share).",
            f"mean burst {', '.join(f'{b:.1f}' for b in nopwd['mean_burst'])} for n = {', '.join(str(int(n)) for n in nopwd['n'])} "
            f"(95 % CI half-widths {min(nopwd['ci95']):.1f}–{max(nopwd['ci95']):.1f}); Spearman correlation with n {rho_n:+.2f}. Holds if negative.",
            rho_n < 0,
        )
    if len(nopwd_b) >= 2:
        rho_b = _spearman(nopwd_b["bandwidth_mbps"].to_numpy(dtype=float), nopwd_b["mean_burst"].to_numpy(dtype=float))
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
    # Drops during recovery
    pr = {(dl, p): row1(dl, p).drop_in_recovery_pct for dl in (False, True) for p in (True, False)}
    red_pct = paper["recovery_drops"]["delack_reduction"]["value"]
    reduction = [100 * (1 - pr[(True, p)] / pr[(False, p)]) if pr[(False, p)] else math.nan for p in (True, False)]
    report.claim(
        f"§IV: NewReno without PWD has slightly lower probability of drops during recovery than with PWD; delayed ACK lowers it by about {red_pct} %.",
        f"first recoveries with a drop during recovery: with PWD {pr[(False, True)]:.1f} % / without {pr[(False, False)]:.1f} % (no delayed ACK), "
        f"{pr[(True, True)]:.1f} % / {pr[(True, False)]:.1f} % (delayed ACK); delayed ACK changes it by {-reduction[0]:+.0f} % (PWD) and {-reduction[1]:+.0f} % (no PWD). "
        "Holds if without PWD ≤ with PWD in both cases and delayed ACK lowers it for both.",
        pr[(False, False)] <= pr[(False, True)] and pr[(True, False)] <= pr[(True, True)] and all(x > 0 for x in reduction),
    )
