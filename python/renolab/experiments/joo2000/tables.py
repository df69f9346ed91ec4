"""joo2000's tables, computed from the runs: the first-loss patterns with Wilson intervals
(Figs. 2-3), the mean new packets and bursts of the first fast recoveries (Figs. 4-5),
Table 1's formulas checked episode by episode, and the round-trip sensitivity."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from renolab.experiments.joo2000.scenarios import BASE_MBPS, BOTTLENECK_DELAY, FIG3_FLOWS, SENSITIVITY_DELAY, SENSITIVITY_FLOWS
from renolab.stats import mean_ci, wilson_interval

PATTERNS = ("rto", "1", "2", "3", ">3")
PATTERN_LABELS = {"rto": "RTO", "1": "1 drop", "2": "2 drops", "3": "3 drops", ">3": "over 3 drops"}
PATTERN_KEYS = {"rto": "rto", "1": "d1", "2": "d2", "3": "d3", ">3": "dmore"}


def pattern_table(runs: pd.DataFrame, by: str) -> pd.DataFrame:
    """Fractions of each first-loss pattern (with Wilson 95 % CIs) per *by* and delayed ACK."""
    rows = []
    for (x, dl), g in runs.groupby([by, "delayed_ack"], sort=True):
        total = int((g["pattern"] != "none").sum())
        entry = {by: x, "delayed_ack": bool(dl), "runs": total}
        for p in PATTERNS:
            k = int((g["pattern"] == p).sum())
            lo, hi = wilson_interval(k, total)
            entry[f"{PATTERN_KEYS[p]}_pct"] = 100 * k / total if total else math.nan
            entry[f"{PATTERN_KEYS[p]}_lo"], entry[f"{PATTERN_KEYS[p]}_hi"] = 100 * lo, 100 * hi
        k = int(g["pattern"].isin(["2", "3", ">3"]).sum())
        lo, hi = wilson_interval(k, total)
        entry["multiple_pct"], entry["multiple_lo"], entry["multiple_hi"] = 100 * k / total if total else math.nan, 100 * lo, 100 * hi
        rows.append(entry)
    return pd.DataFrame(rows)


def paper_n9(paper: dict[str, Any]) -> dict[bool, tuple[int, dict[str, Any]]]:
    """The paper's pattern shares at n = 9, by delayed ACK."""
    p2 = paper["fig2"]
    return {False: (9, p2["no_delack_n9"]), True: (9, p2["delack_n9"])}


def fig2_table(with_pwd: pd.DataFrame, paper: dict[str, Any]) -> pd.DataFrame:
    """Fig. 2 data: the patterns against n at the base bandwidth, the paper's n = 9 beside."""
    fig2 = pattern_table(with_pwd[with_pwd["bandwidth_mbps"] == BASE_MBPS], "n")
    for dl, (n9, values) in paper_n9(paper).items():
        for key in ("rto", "d1", "d2", "d3", "dmore", "multiple"):
            fig2.loc[(fig2["n"] == n9) & (fig2["delayed_ack"] == dl), f"paper_{key}_pct"] = values[key]
    return fig2


def sensitivity_table(with_pwd: pd.DataFrame, sensitivity: pd.DataFrame) -> pd.DataFrame:
    """The patterns (no delayed ACK, base bandwidth) with the default and the longer
    bottleneck delay, with the mean window when the first dropped packet was sent."""
    base_rtt = with_pwd[(with_pwd["bandwidth_mbps"] == BASE_MBPS) & (~with_pwd["delayed_ack"]) & with_pwd["n"].isin(SENSITIVITY_FLOWS)]
    both = pd.concat([
        base_rtt[["n", "pattern", "cwnd_at_first_drop"]].assign(bottleneck_delay=BOTTLENECK_DELAY),
        sensitivity[["n", "pattern", "cwnd_at_first_drop"]].assign(bottleneck_delay=SENSITIVITY_DELAY),
    ], ignore_index=True)
    both["key"] = both["bottleneck_delay"] + " n=" + both["n"].astype(str)
    sens = pattern_table(both.assign(delayed_ack=False), "key")
    sens.insert(0, "bottleneck_delay", [k.split(" ")[0] for k in sens["key"]])
    sens.insert(1, "n", [int(k.split("=")[1]) for k in sens["key"]])
    sens["mean_cwnd_at_first_drop"] = [float(both[both["key"] == k]["cwnd_at_first_drop"].mean()) for k in sens["key"]]
    return sens.drop(columns=["key"]).sort_values(["n", "bottleneck_delay"]).reset_index(drop=True)


def episodes(runs: pd.DataFrame, *, clean_recovery: bool) -> pd.DataFrame:
    """First episodes detected by fast retransmit with no timeout (Fig. 4); with
    *clean_recovery* also no drop during the recovery (Figs. 5-6)."""
    sel = runs[(runs["pattern"].isin(["1", "2", "3", ">3"])) & (runs["timeouts"] == 0) & runs["end_s"].notna()]
    if clean_recovery:
        sel = sel[(sel["drops_in_recovery"] == 0) & sel["burst"].notna()]
    return sel


def mean_by(frame: pd.DataFrame, value: str, keys: list[str]) -> pd.DataFrame:
    """Mean of *value* with its 95 % CI half-width (``ci95``) and count (``episodes``) per *keys*."""
    rows = []
    for key, g in frame.groupby(keys, sort=True):
        m, h, k = mean_ci(g[value].tolist())
        rows.append({**dict(zip(keys, key)), f"mean_{value}": m, "ci95": h, "episodes": k})
    return pd.DataFrame(rows)


def recovery_means(fr: pd.DataFrame, clean: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Figs. 4-5's means: new packets (all fast recoveries) and bursts (clean ones), against n
    at the base bandwidth and against the bandwidth at n = 5."""
    return {
        "fig4_n": mean_by(fr[fr["bandwidth_mbps"] == BASE_MBPS], "new_segments", ["delayed_ack", "pwd", "n"]),
        "fig4_b": mean_by(fr[fr["n"] == FIG3_FLOWS], "new_segments", ["delayed_ack", "pwd", "bandwidth_mbps"]),
        "fig5_n": mean_by(clean[clean["bandwidth_mbps"] == BASE_MBPS], "burst", ["delayed_ack", "pwd", "n"]),
        "fig5_b": mean_by(clean[clean["n"] == FIG3_FLOWS], "burst", ["delayed_ack", "pwd", "bandwidth_mbps"]),
    }


def means_data(by_n: pd.DataFrame, by_bandwidth: pd.DataFrame) -> pd.DataFrame:
    """Fig. 4 / Fig. 5 data: the means against n and against the bandwidth in one table."""
    return pd.concat([by_n.assign(bandwidth_mbps=BASE_MBPS), by_bandwidth.assign(n=FIG3_FLOWS)], ignore_index=True)


def pwd_total(w: float, d: int) -> float:
    """Table 1, NewReno with PWD: W(W-1)/2 - max(0, (W-d)(W-d-1)/2) new packets in recovery."""
    return w * (w - 1) / 2 - max(0.0, (w - d) * (w - d - 1) / 2)


def _mean(values: Any, present: bool) -> float:
    return float(np.mean(values)) if present else math.nan


def _formula_check(e: pd.DataFrame, c: pd.DataFrame, pwd: bool) -> dict[str, Any]:
    """Table 1's columns for one (delayed ACK, PWD) cell: how often the episodes *e* (clean
    ones) follow the paper's formula for the total, N_k and the burst (*c*: clean episodes)."""
    w, d = e["w"].to_numpy(dtype=float), e["drops"].to_numpy(dtype=int)
    new = e["new_segments"].to_numpy(dtype=float)
    some, some_c = bool(len(e)), bool(len(c))
    if pwd:
        pred = np.array([pwd_total(a, b) for a, b in zip(w, d)])
        nk_ok = [all(nk == max(0, int(a) - int(b) + k) for k, nk in enumerate(per)) for a, b, per in zip(w, d, e["new_per_rtt"]) if isinstance(per, list)]
        return {"formula_total": "W(W-1)/2 - max(0,(W-d)(W-d-1)/2)", "mean_formula": _mean(pred, some),
                "pct_total_exact": 100 * float(np.mean(np.abs(new - pred) < 0.5)) if some else math.nan,
                "pct_N_k_exact": 100 * float(np.mean(nk_ok)) if nk_ok else math.nan,
                "burst_rule": "= 1", "pct_burst_rule": 100 * float(np.mean(c["burst"] == 1)) if some_c else math.nan,
                "pct_burst_le_2": 100 * float(np.mean(c["burst"] <= 2)) if some_c else math.nan}
    first = np.array([(x[0] if isinstance(x, list) and x else math.nan) for x in e["new_per_rtt"]], dtype=float)
    n1 = np.maximum(0, w - d)
    return {"formula_total": "< 2W", "mean_formula": _mean(2 * w, some),
            "pct_total_exact": 100 * float(np.mean(new < 2 * w)) if some else math.nan,
            "pct_N_k_exact": 100 * float(np.mean(first == n1)) if some else math.nan,
            "burst_rule": "<= W", "pct_burst_rule": 100 * float(np.mean(c["burst"] <= c["w"])) if some_c else math.nan,
            "pct_burst_le_2": 100 * float(np.mean(c["burst"] <= 2)) if some_c else math.nan}


def table1(fr: pd.DataFrame, clean: pd.DataFrame, paper: dict[str, Any]) -> pd.DataFrame:
    """Table 1 checked: per delayed ACK and PWD, the episodes, their means and how often the
    paper's formulas hold, with the paper's formulas beside."""
    rows = []
    for dl in (False, True):
        for pwd in (True, False):
            e_all = fr[(fr["delayed_ack"] == dl) & (fr["pwd"] == pwd)]
            e = clean[(clean["delayed_ack"] == dl) & (clean["pwd"] == pwd)]  # the formulas assume no drop during the recovery
            some = bool(len(e))
            entry: dict[str, Any] = {"delayed_ack": dl, "pwd": pwd, "episodes": len(e_all)}
            entry.update({"clean_episodes": len(e), "mean_W": _mean(e["w"].to_numpy(dtype=float), some),
                          "mean_d": _mean(e["drops"].to_numpy(dtype=int), some), "mean_new": _mean(e["new_segments"].to_numpy(dtype=float), some)})
            entry.update(_formula_check(e, e, pwd))
            entry["drop_in_recovery_pct"] = 100 * float(np.mean(e_all["drops_in_recovery"] > 0)) if len(e_all) else math.nan
            rows.append(entry)
    t1 = pd.DataFrame(rows)
    p1 = paper["table1"]
    t1["paper_formula"] = [p1["pwd_total_new"] if p else p1["nopwd_total_new"] for p in t1["pwd"]]
    t1["paper_N_k"] = [p1["pwd_new_in_kth_rtt"] if p else p1["nopwd_new_in_kth_rtt"] for p in t1["pwd"]]
    t1["paper_burst"] = [p1["pwd_burst"] if p else p1["nopwd_burst"] for p in t1["pwd"]]
    return t1
