"""fickling's runs: the three experiments run, reduced in their workers (mean RTTs,
experiment 3's throughput series), and averaged over seeds into one table per experiment."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from renolab import metrics
from renolab.experiments.fickling.grid import Mode, experiment1_plan, experiment2_plan, experiment3_plan
from renolab.experiments.fickling.scenarios import (
    CBR_PACKET,
    EXP3_CBR_START_S,
    MSS,
    STUDY,
    WINDOW,
    experiment1,
    experiment2,
    experiment3,
)
from renolab.experiments.runner import run_many
from renolab.stats import mean_ci


def mean_rtt(result: Any) -> dict[str, float]:
    """Mean RTT sample of every TCP flow (from the ``rtt`` trace)."""
    rtt = result.trace("rtt")
    if not len(rtt):
        return {}
    return {str(k): float(v) for k, v in rtt.groupby("flow", observed=True)["rtt_s"].mean().items()}


def exp3_reduce(result: Any) -> dict[str, Any]:
    """Throughput series of the TCP and CBR flows (0.5 s bins), TCP drops after the CBR start,
    mean RTT before and after it."""
    seq = result.trace("seq")
    bin_s = 0.5
    end = float(result.summary["sim_time_s"])
    tcp = metrics.throughput_series(seq[seq["flow"] == "tcp"], bin_s, MSS, end_s=end)
    tcp = tcp[tcp["flow"] == "tcp"]
    cbr = seq[seq["flow"] == "cbr"]
    dropped = set(cbr.loc[cbr["event"] == "dropped", "seq"].tolist())
    delivered = cbr[(cbr["event"] == "sent") & ~cbr["seq"].isin(dropped)]
    n = int(math.ceil(end / bin_s))
    counts = np.bincount(np.minimum((delivered["time_s"].to_numpy() / bin_s).astype(int), n - 1), minlength=n)
    tcp_drops = seq[(seq["flow"] == "tcp") & (seq["event"] == "dropped")]
    rtt = result.trace("rtt")
    rtt = rtt[rtt["flow"] == "tcp"]
    return {
        "time_s": tcp["time_s"].to_numpy()[:n],
        "tcp_bps": tcp["goodput_bps"].to_numpy()[:n],
        "cbr_bps": counts[:n] * CBR_PACKET * 8.0 / bin_s,
        "tcp_drops_after": int((tcp_drops["time_s"] >= EXP3_CBR_START_S).sum()),
        "tcp_drops_before": int((tcp_drops["time_s"] < EXP3_CBR_START_S).sum()),
        "rtt_after_s": float(rtt.loc[rtt["time_s"] >= EXP3_CBR_START_S, "rtt_s"].mean()),
        "rtt_before_s": float(rtt.loc[rtt["time_s"] < EXP3_CBR_START_S, "rtt_s"].mean()),
    }


def mean_table(frame: pd.DataFrame, keys: list[str], columns: list[str]) -> pd.DataFrame:
    """The mean over seeds of each of *columns*, one row per value of *keys* (first-seen order)."""
    rows = []
    for key, group in frame.groupby(keys, sort=False):
        row = dict(zip(keys, key))
        for m in columns:
            row[m] = mean_ci(group[m])[0]
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass
class Results:
    """The three experiments' outcomes: per-run tables and means over seeds.

    ``e1``: experiment 1 means per (variant, CBR rate); ``runs2`` / ``e2``: experiment 2 per
    run and means per (pair, CBR rate); ``runs3`` / ``e3_all``: experiment 3 per run and means
    per (variant, queue, window), ``e3`` the means with our window; ``series3``: seed 1's
    throughput series per (variant, queue), our window."""

    e1: pd.DataFrame
    runs2: pd.DataFrame
    e2: pd.DataFrame
    runs3: pd.DataFrame
    e3_all: pd.DataFrame
    series3: dict[tuple[str, str], dict[str, Any]]
    runs: int

    @property
    def cbr_start_s(self) -> float:
        """When experiment 3's CBR flow sent its first datagram, as the runs measured it (the
        same in every run)."""
        starts = self.runs3["cbr_start_s"].unique()
        if len(starts) != 1:
            raise ValueError(f"experiment 3's CBR flow started at different times: {sorted(starts)}")
        return float(starts[0])

    @property
    def e3(self) -> pd.DataFrame:
        return self.e3_all[self.e3_all["window"] == WINDOW]

    def exp1(self, variant: str, cbr_mbps: float, metric: str) -> float:
        """Experiment 1's mean *metric* of *variant* at *cbr_mbps*."""
        return float(self.e1[(self.e1["variant"] == variant) & (self.e1["cbr_mbps"] == cbr_mbps)][metric].iloc[0])

    def exp2(self, pair: str, cbr_mbps: float, metric: str) -> float:
        """Experiment 2's mean *metric* of *pair* (``"reno-newreno"``) at *cbr_mbps*."""
        return float(self.e2[(self.e2["pair"] == pair) & (self.e2["cbr_mbps"] == cbr_mbps)][metric].iloc[0])

    def exp3(self, variant: str, queue: str, metric: str) -> float:
        """Experiment 3's mean *metric* of *variant* with *queue* (our window)."""
        e3 = self.e3
        return float(e3[(e3["variant"] == variant) & (e3["queue"] == queue)][metric].iloc[0])


def run_experiment1(m: Mode, workers: int | None) -> pd.DataFrame:
    """One TCP flow of each variant against each CBR rate: means over seeds."""
    plan = experiment1_plan(m)
    outputs = run_many(
        (experiment1(v, r, seed=s + 1, duration_s=m.duration_s) for v, r, s in plan),
        workers=workers, desc=f"{STUDY} experiment 1", traces=("rtt",), reduce=mean_rtt, keep_traces=False,
    )
    rows = []
    for (v, r, s), o in zip(plan, outputs):
        f = o.flow("tcp")
        rows.append(
            {
                "variant": v, "cbr_mbps": r, "seed": s + 1,
                "throughput_mbps": f["goodput_bps"] / 1e6,
                "latency_ms": f["mean_latency_s"] * 1e3,
                "rtt_ms": (o.value or {}).get("tcp", math.nan) * 1e3,
                "drop_rate_pct": f["drop_rate"] * 100.0,
                "drops": f["data_drops"],
                "timeouts": f["timeouts"],
            }
        )
    return mean_table(pd.DataFrame(rows), ["variant", "cbr_mbps"], ["throughput_mbps", "latency_ms", "rtt_ms", "drop_rate_pct", "drops", "timeouts"])


def run_experiment2(m: Mode, workers: int | None) -> pd.DataFrame:
    """Two TCP flows of each pair against each CBR rate: one row per run."""
    plan = experiment2_plan(m)
    outputs = run_many(
        (experiment2(p, r, seed=s + 1, duration_s=m.duration_s) for p, r, s in plan),
        workers=workers, desc=f"{STUDY} experiment 2", traces=("rtt",), reduce=mean_rtt, keep_traces=False,
    )
    rows = []
    for (p, r, s), o in zip(plan, outputs):
        a, b = o.flow("a"), o.flow("b")
        ga, gb = a["goodput_bps"] / 1e6, b["goodput_bps"] / 1e6
        rows.append(
            {
                "pair": f"{p[0]}-{p[1]}", "cbr_mbps": r, "seed": s + 1,
                "a_mbps": ga, "b_mbps": gb,
                "a_latency_ms": a["mean_latency_s"] * 1e3, "b_latency_ms": b["mean_latency_s"] * 1e3,
                "a_drop_pct": a["drop_rate"] * 100.0, "b_drop_pct": b["drop_rate"] * 100.0,
                "jain": metrics.jain_index([ga, gb]),
                "ratio": max(ga, gb) / min(ga, gb) if min(ga, gb) > 0 else math.inf,
            }
        )
    return pd.DataFrame(rows)


def run_experiment3(m: Mode, workers: int | None) -> tuple[pd.DataFrame, dict[tuple[str, str], dict[str, Any]]]:
    """Reno and SACK against the CBR flow joining later, Drop Tail and RED: one row per run,
    and seed 1's throughput series with our window."""
    plan = experiment3_plan(m)
    outputs = run_many(
        (experiment3(v, q, seed=s + 1, window=w) for v, q, w, s in plan),
        workers=workers, desc=f"{STUDY} experiment 3", traces=("seq", "rtt"), reduce=exp3_reduce, keep_traces=False,
    )
    rows = []
    for (v, q, w, s), o in zip(plan, outputs):
        f, c = o.flow("tcp"), o.flow("cbr")
        val = o.value
        rows.append(
            {
                "variant": v, "queue": q, "window": w, "seed": s + 1,
                "tcp_mbps": f["goodput_bps"] / 1e6, "cbr_mbps": c["goodput_bps"] / 1e6,
                "tcp_drops_after_cbr": val["tcp_drops_after"], "tcp_drops_before_cbr": val["tcp_drops_before"],
                "cbr_drops": c["drops"],
                "rtt_after_cbr_ms": val["rtt_after_s"] * 1e3,
                "tcp_latency_ms": f["mean_latency_s"] * 1e3,
                "cbr_start_s": c["first_send_s"],
            }
        )
    series = {(v, q): o.value for (v, q, w, s), o in zip(plan, outputs) if s == 0 and w == WINDOW}
    return pd.DataFrame(rows), series


def run_experiments(m: Mode, workers: int | None) -> Results:
    """Run the three experiments in order and average them over seeds."""
    e1 = run_experiment1(m, workers)
    runs2 = run_experiment2(m, workers)
    e2 = mean_table(runs2, ["pair", "cbr_mbps"], ["a_mbps", "b_mbps", "a_latency_ms", "b_latency_ms", "a_drop_pct", "b_drop_pct", "jain"])
    runs3, series3 = run_experiment3(m, workers)
    e3_all = mean_table(runs3, ["variant", "queue", "window"], ["tcp_mbps", "cbr_mbps", "tcp_drops_after_cbr", "cbr_drops", "rtt_after_cbr_ms", "tcp_latency_ms"])
    runs = len(experiment1_plan(m)) + len(experiment2_plan(m)) + len(experiment3_plan(m))
    return Results(e1, runs2, e2, runs3, e3_all, series3, runs)
