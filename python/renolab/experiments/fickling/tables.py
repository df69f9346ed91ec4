"""fickling's tables: experiment 1's means per variant and CBR rate (Table R1), experiment
2's per pair (Table R2) and experiment 3's per variant, queue and window (Table R3)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from renolab.experiments.fickling.runs import Results


def experiment1_table(results: Results) -> pd.DataFrame:
    """Table R1: throughput, latency and drop rate, a column per (variant, metric)."""
    wide = results.e1.pivot(index="cbr_mbps", columns="variant", values=["throughput_mbps", "latency_ms", "drop_rate_pct"])
    wide.columns = [f"renolab_{v}_{m}" for m, v in wide.columns]
    return wide.reset_index()


def experiment2_table(results: Results) -> pd.DataFrame:
    """Table R2: the pairs' means, every measured column prefixed ``renolab_``."""
    t2 = results.e2.copy()
    t2.columns = [c if c in ("pair", "cbr_mbps") else f"renolab_{c}" for c in t2.columns]
    return t2


def experiment3_table(results: Results, paper: dict[str, Any]) -> pd.DataFrame:
    """Table R3: the means of both windows, with the paper's SACK drops after the CBR start."""
    e3_all = results.e3_all
    pap = paper["exp3"]["sack_tcp_drops_after_cbr"]
    t3 = e3_all.rename(columns={c: f"renolab_{c}" for c in e3_all.columns if c not in ("variant", "queue", "window")})
    t3["paper_tcp_drops_after_cbr"] = [
        float(pap[q]) if v == "sack" else math.nan for v, q in zip(t3["variant"], t3["queue"])
    ]
    return t3
