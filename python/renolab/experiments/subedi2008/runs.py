"""subedi2008's runs: every run reduced in its worker (time-averaged windows, the cwnd after
the first loss, the base station's MAC counters), the results per case and variant with
their 95 % intervals, and the comparisons the claims make between variants."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

from renolab.experiments.report import Verdict, against
from renolab.experiments.runner import RunOutput, run_many
from renolab.experiments.subedi2008.grid import Run, run_scenario, traced_plan
from renolab.experiments.subedi2008.scenarios import FLOW, LABELS, RWND_SEGMENTS, STUDY, VARIANTS
from renolab.stats import mean_ci

#: The metrics averaged over seeds, each with its 95 % CI half-width.
SUMMARY_METRICS = (
    "response_s", "goodput_bps", "throughput_bps", "avg_cwnd", "avg_window", "timeouts", "retransmits",
    "mac_retries", "mac_drops", "buffer_drops",
)


def cwnd_stats(result: Any) -> dict[str, float]:
    """Time-averaged cwnd over the transfer, the same for the window that governs sending
    (min(cwnd, receive window)), and the smallest cwnd within 2 s after its first reduction
    (1 for a Tahoe-style restart, about half the window after fast recovery)."""
    cwnd = result.trace("cwnd")
    flows = result.flows
    finish = float(flows["finish_s"].iloc[0]) if not math.isnan(flows["finish_s"].iloc[0]) else float(result.summary["sim_time_s"])
    t = cwnd["time_s"].to_numpy(dtype=np.float64)
    # The window the sender could fill, fast-recovery inflation included: what this study's
    # figures and claims were computed from before the cwnd trace split the two columns.
    w = cwnd["inflated_cwnd"].to_numpy(dtype=np.float64)
    if len(t) == 0:
        return {"avg_cwnd": math.nan, "avg_window": math.nan, "min_cwnd_after_loss": math.nan, "first_cut_s": math.nan}
    edges = np.append(t, max(finish, t[-1]))
    span = edges[-1] - edges[0]
    avg = float(np.sum(w * np.diff(edges)) / span) if span > 0 else float(w.mean())
    eff = np.minimum(w, RWND_SEGMENTS)
    avg_eff = float(np.sum(eff * np.diff(edges)) / span) if span > 0 else float(eff.mean())
    cuts = np.nonzero(np.diff(w) < 0)[0]
    if len(cuts):
        first = cuts[0] + 1
        window = (t >= t[first]) & (t <= t[first] + 2.0)
        low = float(w[window].min())
        cut_time = float(t[first])
    else:
        low, cut_time = math.nan, math.nan
    return {"avg_cwnd": avg, "avg_window": avg_eff, "min_cwnd_after_loss": low, "first_cut_s": cut_time, **_mac_stats(result)}


def _mac_stats(result: Any) -> dict[str, float]:
    """The base station's MAC (wireless runs): retries, frames given up after 7 attempts,
    packets its full buffer refused; NaN for the wired runs."""
    stations = result.stations
    if stations.empty:
        return {"mac_retries": math.nan, "mac_drops": math.nan, "buffer_drops": math.nan}
    bs = stations.set_index("node").loc["basestation"]
    return {"mac_retries": float(bs.retries), "mac_drops": float(bs.retry_drops), "buffer_drops": float(bs.queue_drops)}


def _row(o: RunOutput) -> dict[str, Any]:
    """A run's row: the flow's outcomes and what :func:`cwnd_stats` found."""
    f = o.flow(FLOW)
    return {
        "response_s": f["completion_time_s"],
        "goodput_bps": f["goodput_bps"],
        "throughput_bps": f["sent_bps"],
        "retransmits": f["retransmits"],
        "timeouts": f["timeouts"],
        "losses": f["drops"],
        **(o.value or {}),
    }


def summarise(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Mean and 95 % CI half-width (``<metric>_ci95``) of every summary metric per *by*, the
    number of runs and the smallest cwnd after a loss."""
    rows = []
    for key, group in frame.groupby(by, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(by, key))
        for metric in SUMMARY_METRICS:
            mean, half, n = mean_ci(group[metric])
            row[metric] = mean
            row[f"{metric}_ci95"] = half
        row["n"] = len(group)
        row["min_cwnd_after_loss"] = float(group["min_cwnd_after_loss"].min())
        rows.append(row)
    return pd.DataFrame(rows)


def names(variants: list[str]) -> str:
    """The variants' labels, comma-separated ("none" for none)."""
    return ", ".join(LABELS[v] for v in variants) or "none"


def higher_than(a: float, b: float, tie: float = 1e-3) -> bool:
    """*a* is higher than *b* by more than *tie* (relative): smaller gaps count as a tie."""
    return a > b * (1.0 + tie)


def ranking(values: dict[str, float], differs: Callable[[str, str], bool] | None = None, tie: float = 1e-3) -> str:
    """'Reno < Reno with SACK = NewReno < ...' by ascending value. Neighbours are written as
    equal unless ``differs(lower, higher)`` says the higher one is significantly higher (without
    *differs*: unless they differ by more than *tie*, relative)."""
    ordered = sorted(values.items(), key=lambda kv: kv[1])
    text = LABELS[ordered[0][0]]
    for (u, prev), (v, x) in zip(ordered, ordered[1:]):
        different = differs(u, v) if differs is not None else higher_than(x, prev, tie)
        text += (" < " if different else " = ") + LABELS[v]
    return text


@dataclass
class Results:
    """Every run (``runs``: one row each), their summary per case and variant (``summary``)
    and the seed-1 runs with their traces (``traces``, by (case, variant))."""

    runs: pd.DataFrame
    summary: pd.DataFrame
    traces: dict[tuple[str, str], RunOutput]

    def value(self, case: str, variant: str, metric: str) -> float:
        """The summary's *metric* (a mean over seeds) of *variant* in *case*."""
        row = self.summary[(self.summary["case"] == case) & (self.summary["variant"] == variant)]
        return float(row[metric].iloc[0])

    def by_variant(self, case: str, metric: str) -> dict[str, float]:
        """The summary's *metric* in *case*, by variant."""
        return {v: self.value(case, v, metric) for v in VARIANTS}

    def _paired(self, case: str, metric: str, a: str, b: str) -> tuple[pd.Series, pd.Series]:
        part = self.runs[self.runs["case"] == case]
        xa = part[part["variant"] == a].set_index("seed")[metric]
        xb = part[part["variant"] == b].set_index("seed")[metric]
        return xa, xb

    def higher(self, case: str, metric: str, a: str, b: str) -> bool:
        """Variant *a*'s *metric* exceeds *b*'s: the 95 % CI of the per-seed difference (the
        variants see the same seeds) lies above zero; with one run per case, by more than 0.1 %."""
        xa, xb = self._paired(case, metric, a, b)
        if len(xa) < 2:
            return higher_than(float(xa.mean()), float(xb.mean()))
        mean, half, _ = mean_ci((xa - xb).dropna())
        return mean - half > 0

    def exceeds(self, case: str, metric: str, a: str, b: str) -> Verdict:
        """The verdict on "*a*'s *metric* exceeds *b*'s": the 95 % CI of the per-seed
        difference above zero (True), below it (False), or containing it (inconclusive);
        with one run per case, :func:`higher_than` decides."""
        xa, xb = self._paired(case, metric, a, b)
        if len(xa) < 2:
            return higher_than(float(xa.mean()), float(xb.mean()))
        mean, half, _ = mean_ci((xa - xb).dropna())
        return against(mean - half, mean + half, 0.0)

    def rank(self, case: str, metric: str) -> str:
        """The variants ordered by *metric* in *case*, '=' where not significantly different."""
        return ranking(self.by_variant(case, metric), lambda u, v: self.higher(case, metric, v, u))


def run_all(plan: list[Run], workers: int | None) -> Results:
    """Run *plan* (cwnd trace reduced in the worker), summarise it, and rerun the seed-1 runs
    with their traces for the figures."""
    outputs = run_many(
        (run_scenario(p) for p in plan), workers=workers, desc=f"{STUDY} runs", traces=("cwnd",), reduce=cwnd_stats, keep_traces=False
    )
    runs = pd.DataFrame([{"case": k, "variant": v, "seed": s, **_row(o)} for (k, v, s), o in zip(plan, outputs)])
    shown = traced_plan()
    traced = run_many((run_scenario(p) for p in shown), workers=workers, desc=f"{STUDY} traces", traces=("cwnd", "seq"))
    return Results(runs, summarise(runs, ["case", "variant"]), {(k, v): o for (k, v, _), o in zip(shown, traced)})
