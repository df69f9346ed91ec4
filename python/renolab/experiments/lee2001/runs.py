"""lee2001's runs: every grid point run once (the scenarios are deterministic), each run
analysed in its worker (T_N(t), the Table 2 slope, slow-start loss, the first drop burst and
its recovery, Hoe's estimate), and the results as one table with lookups by point."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from renolab.experiments.lee2001.grid import Point, point_scenario
from renolab.experiments.lee2001.scenarios import PACKET_BYTES, RTT_S, TRANSFER_BYTES, buffer_packets, pipe_packets

#: T_N bin width (one round-trip time).
TN_BIN_S = 0.1


def analyse_run(result: Any) -> dict[str, Any]:
    """Per-run analysis, done in the worker (module level so it pickles): T_N(t), the
    Table 2 slope, slow-start loss, the first drop burst and recovery, the Hoe estimate."""
    import numpy as np

    from renolab import metrics

    seq = result.trace("seq")
    cwnd = result.trace("cwnd")
    # The window the sender could fill, fast-recovery inflation included: what this study's
    # figures and claims were computed from before the cwnd trace split the two columns.
    cwnd = cwnd.assign(cwnd=cwnd["inflated_cwnd"])
    flow = result.flows.iloc[0]
    capacity = float(flow["bottleneck_bps"])
    t_c = float(flow["completion_time_s"])
    end = t_c + float(flow["first_send_s"]) if np.isfinite(t_c) else float(seq["time_s"].max())
    tn = metrics.normalised_throughput(seq, TN_BIN_S, capacity, PACKET_BYTES, end_s=end)
    episodes = metrics.recovery_episodes(seq, cwnd)
    out: dict[str, Any] = {"tn": tn[["time_s", "t_n"]].reset_index(drop=True)}
    out["slope"], out["slope_window"] = tn_slope(tn, episodes)
    out.update(_slow_start(cwnd, episodes))
    out.update(_first_burst(seq))
    cw = cwnd["cwnd"].to_numpy(dtype=float)
    times = cwnd["time_s"].to_numpy(dtype=float)
    retx = seq[seq["event"].astype(str) == "retransmitted"]["time_s"].to_numpy(dtype=float)
    out["first_retx_s"] = retx[:3].tolist()
    fall = np.flatnonzero((cw[1:] <= 1.0) & (cw[:-1] > 1.0)) + 1
    out["timeout_s"] = times[fall].tolist()
    # The time-sequence graph of Fig. 6 (thinned: every first transmission, retransmission, drop).
    if out["burst_drops"] >= 50:
        keep = seq[seq["event"].astype(str).isin(["sent", "retransmitted", "dropped"])]
        out["seq"] = keep[["time_s", "event", "seq"]].assign(event=keep["event"].astype(str)).reset_index(drop=True)
    return out


def _slow_start(cwnd: Any, episodes: Any) -> dict[str, Any]:
    """Whether the first loss happened in slow start (until cwnd first reaches ssthresh:
    Hoe's estimate, or a loss's halving), the number of recovery episodes, and Hoe's
    estimate: the first ssthresh below the initial (receiver-window) value set before any
    loss was detected."""
    import numpy as np

    ss = cwnd["ssthresh"].to_numpy(dtype=float)
    cw = cwnd["cwnd"].to_numpy(dtype=float)
    times = cwnd["time_s"].to_numpy(dtype=float)
    reached = np.flatnonzero((cw >= ss) & (ss < 1e6))
    ss_exit = float(times[reached[0]]) if len(reached) else math.inf
    first = episodes.iloc[0] if len(episodes) else None
    first_retx = float(first["start_s"]) if first is not None else math.inf
    early = cwnd[(cwnd["ssthresh"] < ss[0]) & (cwnd["time_s"] < first_retx)]
    return {
        "slow_start_loss": bool(first is not None and float(first["first_drop_sent_s"]) < ss_exit),
        "episodes": int(len(episodes)),
        "hoe_estimate": float(early["ssthresh"].iloc[0]) if len(early) else math.nan,
    }


def _first_burst(seq: Any) -> dict[str, Any]:
    """The first burst of drops (drops less than one RTT apart) and its recovery: how many,
    from when to when, and when every packet of it was ACKed."""
    import numpy as np

    drops = seq[seq["event"].astype(str) == "dropped"]
    out: dict[str, Any] = {"drops_total": int(len(drops))}
    if not len(drops):
        out["burst_drops"] = 0
        out["burst_start_s"] = out["burst_end_s"] = out["recovered_s"] = math.nan
        return out
    dt = drops["time_s"].to_numpy(dtype=float)
    gaps = np.flatnonzero(np.diff(dt) > RTT_S)
    last = int(gaps[0]) if len(gaps) else len(dt) - 1
    burst = drops.iloc[: last + 1]
    out["burst_drops"] = int(len(burst))
    out["burst_start_s"], out["burst_end_s"] = float(dt[0]), float(dt[last])
    top = int(burst["seq"].max())
    acks = seq[(seq["event"].astype(str) == "acked") & (seq["seq"] > top)]
    out["recovered_s"] = float(acks["time_s"].iloc[0]) if len(acks) else math.nan
    return out


def tn_slope(tn: Any, episodes: Any) -> tuple[float, tuple[float, float] | None]:
    """Table 2's slope: least-squares dT_N/dt over the first climb in congestion avoidance —
    from the end of a loss recovery (plus one bin) until T_N reaches 0.95, the next recovery
    starts or the transfer ends; the first such climb of at least 3 bins."""
    import numpy as np

    t = tn["time_s"].to_numpy(dtype=float) + TN_BIN_S / 2
    y = tn["t_n"].to_numpy(dtype=float)
    if not len(episodes) or len(t) < 3:
        return math.nan, None
    starts = episodes["start_s"].to_numpy(dtype=float)
    ends = episodes["end_s"].to_numpy(dtype=float)
    for i, end in enumerate(ends):
        if not np.isfinite(end):
            continue
        a = end + TN_BIN_S
        nxt = starts[i + 1] if i + 1 < len(starts) else math.inf
        reach = t[(t > a) & (y >= 0.95)]
        b = min(nxt, float(reach[0]) if len(reach) else math.inf, float(t[-1]) - TN_BIN_S)
        mask = (t - TN_BIN_S / 2 >= a) & (t + TN_BIN_S / 2 <= b)
        if mask.sum() >= 3:
            slope = float(np.polyfit(t[mask], y[mask], 1)[0])
            return slope, (float(a), float(b))
    return math.nan, None


@dataclass
class GridResults:
    """The grid's outcomes: ``table`` has one row per point (t_c, mu, counts, the analysis'
    scalars); ``details`` the whole analysis of each point (T_N series, the thinned
    time-sequence graph, ...), keyed by :data:`~renolab.experiments.lee2001.grid.Point`."""

    table: Any
    details: dict[Point, dict[str, Any]]

    def __post_init__(self) -> None:
        self.fractions = sorted(float(a) for a in self.table["alpha"].unique())
        self.wstars = sorted(int(w) for w in self.table["w_star"].unique())
        self._rows = {
            (r["setting"], r["variant"], int(r["w_star"]), float(r["alpha"])): r for r in self.table.to_dict("records")
        }

    def row(self, setting: str, variant: str, w_star: int, alpha: float) -> dict[str, Any]:
        """The table's row of a point given by its W* (empty if not in the grid)."""
        return self._rows.get((setting, variant, int(w_star), float(alpha)), {})

    def mu(self, setting: str, variant: str, w_star: int, alpha: float) -> float:
        """The utilisation mu of a point given by its W* (NaN if not in the grid)."""
        r = self.row(setting, variant, w_star, alpha)
        return float(r["mu"]) if r else math.nan

    def detail(self, setting: str, variant: str, w_star: int, alpha: float) -> dict[str, Any]:
        """The worker's analysis of a point given by its W* (W* = 20 C)."""
        return self.details[(setting, variant, w_star // 20, alpha)]


def run_grid(points: list[Point], workers: int | None) -> GridResults:
    """Run every point (in *workers* processes) and gather the results."""
    import pandas as pd

    from renolab.experiments.runner import run_many

    outputs = run_many(
        [point_scenario(p) for p in points], workers=workers, desc="lee2001", traces=("seq", "cwnd"),
        reduce=analyse_run, keep_traces=False,
    )
    rows = [_table_row(point, o.flows.iloc[0], o.value) for point, o in zip(points, outputs)]
    return GridResults(pd.DataFrame(rows), {p: o.value for p, o in zip(points, outputs)})


def _table_row(point: Point, flow: Any, analysis: dict[str, Any]) -> dict[str, Any]:
    setting, variant, c, a = point
    t_c = float(flow["completion_time_s"])
    return {
        "setting": setting,
        "variant": variant,
        "capacity_mbps": c,
        "w_star": pipe_packets(c),
        "alpha": a,
        "buffer": buffer_packets(c, a),
        "t_c_s": t_c,
        "mu": 8 * TRANSFER_BYTES / (c * 1e6 * t_c),
        "timeouts": int(flow["timeouts"]),
        "retransmits": int(flow["retransmits"]),
        "drops": int(flow["drops"]),
        "slow_start_loss": analysis["slow_start_loss"],
        "slope": analysis["slope"],
        "hoe_estimate": analysis["hoe_estimate"],
    }
