"""Time series from the ``seq`` trace: sent and delivered rates, lee2001's T_N(t) and buffer
gain, Jain's index over time."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from renolab.metrics._common import (
    ACKED,
    RECEIVED,
    RETX,
    SENT,
    PerFlow,
    bin_count,
    bin_index,
    event_codes,
    flows_of,
    per_flow,
    rows_by_flow,
)

__all__ = ["buffer_gain", "jain_series", "normalised_throughput", "throughput_series", "tn_slope"]


def throughput_series(
    seq: pd.DataFrame,
    bin_s: float,
    segment_bytes: PerFlow,
    *,
    start_s: float = 0.0,
    end_s: float | None = None,
) -> pd.DataFrame:
    """Per-flow throughput in time bins of *bin_s* seconds from a ``seq`` trace.

    Columns ``time_s`` (start of the bin), ``flow``, ``sent_bps`` (payload bits of every data
    segment the sender transmitted in the bin, retransmissions included), ``goodput_bps``
    (payload bits newly acknowledged in the bin: each byte counted once, when the cumulative
    ACK for it reaches the sender) and ``delivered_bps`` (payload bits of the segments that
    reached the receiver for the first time in the bin, in order or not).  *segment_bytes*
    is the payload per segment (the flow's mss), one number or one per flow.  Bins cover
    [*start_s*, *end_s*] (default: the last event).

    ``goodput_bps`` credits a whole window at once when a cumulative ACK ends a loss
    recovery, so a bin can show more than the bottleneck carries; ``delivered_bps`` counts
    segments as they cross the bottleneck, so it cannot exceed the bottleneck's payload rate
    by more than one segment per bin.  It is NaN for a trace without ``received`` events
    (recorded before they existed).
    """
    end = float(seq["time_s"].max()) if end_s is None and len(seq) else (end_s if end_s is not None else start_s)
    n = bin_count(start_s, max(end, start_s), bin_s)
    times = start_s + bin_s * np.arange(n)
    codes = event_codes(seq["event"])
    t_all = seq["time_s"].to_numpy(dtype=np.float64)
    s_all = seq["seq"].to_numpy(dtype=np.int64)
    rows = rows_by_flow(seq)
    has_received = bool(np.any(codes == RECEIVED))
    frames = []
    for flow in flows_of(seq):
        mask = rows[flow]
        size_bits = 8.0 * per_flow(segment_bytes, flow, "segment_bytes")
        t, c, s = t_all[mask], codes[mask], s_all[mask]
        tx = (c == SENT) | (c == RETX)
        idx, inside = bin_index(t[tx], start_s, bin_s, n)
        sent = np.bincount(idx[inside], minlength=n)[:n] * size_bits / bin_s
        ack = c == ACKED
        cum = np.maximum.accumulate(np.concatenate([[0], s[ack]]))
        newly = np.diff(cum)
        idx, inside = bin_index(t[ack], start_s, bin_s, n)
        good = np.bincount(idx[inside], weights=newly[inside], minlength=n)[:n] * size_bits / bin_s
        delivered = np.full(n, np.nan) if not has_received else _first_arrivals(t, c, s, start_s, bin_s, n) * size_bits / bin_s
        frames.append(
            pd.DataFrame({"time_s": times, "flow": flow, "sent_bps": sent, "goodput_bps": good, "delivered_bps": delivered})
        )
    if not frames:
        return pd.DataFrame({"time_s": [], "flow": [], "sent_bps": [], "goodput_bps": [], "delivered_bps": []})
    return pd.concat(frames, ignore_index=True)


def _first_arrivals(t: np.ndarray, c: np.ndarray, s: np.ndarray, start_s: float, bin_s: float, n: int) -> np.ndarray:
    """Per bin, the segments that reached the receiver for the first time (``received``
    events, a duplicate counted once, at its first arrival)."""
    rx = np.flatnonzero(c == RECEIVED)
    if not len(rx):
        return np.zeros(n)
    order = rx[np.argsort(t[rx], kind="stable")]
    _, first = np.unique(s[order], return_index=True)
    idx, inside = bin_index(t[order[first]], start_s, bin_s, n)
    return np.bincount(idx[inside], minlength=n)[:n].astype(np.float64)


def normalised_throughput(
    seq: pd.DataFrame,
    bin_s: float,
    capacity_bps: PerFlow,
    segment_bytes: PerFlow,
    *,
    start_s: float = 0.0,
    end_s: float | None = None,
) -> pd.DataFrame:
    """lee2001's normalised throughput T_N(t) = T(t) / C in time bins (Figs. 3-5).

    T(t) is the goodput of :func:`throughput_series` (each byte once, when acknowledged);
    *capacity_bps* is C, the flow's bottleneck capacity (one number or one per flow).
    Columns ``time_s, flow, goodput_bps, t_n``.
    """
    series = throughput_series(seq, bin_s, segment_bytes, start_s=start_s, end_s=end_s)
    capacity = np.array([per_flow(capacity_bps, f, "capacity_bps") for f in series["flow"]], dtype=np.float64)
    out = series[["time_s", "flow", "goodput_bps"]].copy()
    out["t_n"] = out["goodput_bps"].to_numpy(dtype=np.float64) / capacity if len(out) else []
    return out


def tn_slope(tn: pd.DataFrame, start_s: float, end_s: float, *, flow: str | None = None, value: str = "t_n") -> float:
    """Least-squares slope (per second) of *value* over the bins with start_s <= time_s <= end_s
    (lee2001 Table 2: dT_N/dt while T_N climbs to one in congestion avoidance, about
    1 / (W* RTT)).  *flow* picks one flow of a multi-flow table."""
    frame = tn if flow is None else tn[tn["flow"].astype(str) == flow]
    window = frame[(frame["time_s"] >= start_s) & (frame["time_s"] <= end_s)]
    if len(window) < 2:
        return float("nan")
    slope, _ = np.polyfit(window["time_s"].to_numpy(dtype=np.float64), window[value].to_numpy(dtype=np.float64), 1)
    return float(slope)


def jain_series(series: pd.DataFrame, *, value: str = "goodput_bps", flows: Sequence[str] | None = None) -> pd.DataFrame:
    """Jain's index over flows in every time bin of a :func:`throughput_series` table.

    *flows* restricts it to the flows sharing a bottleneck (default: every flow in the
    table); a flow with no row in a bin counts as zero.  Columns ``time_s, jain, flows``.
    """
    frame = series if flows is None else series[series["flow"].astype(str).isin(list(flows))]
    wide = frame.pivot_table(index="time_s", columns="flow", values=value, aggfunc="sum", observed=True).fillna(0.0)
    if flows is not None:
        wide = wide.reindex(columns=list(flows), fill_value=0.0)
    x = wide.to_numpy(dtype=np.float64)
    n = x.shape[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        squares = np.sum(x * x, axis=1)
        jain = np.where(squares > 0, np.sum(x, axis=1) ** 2 / (n * np.where(squares > 0, squares, 1.0)), np.nan)
    return pd.DataFrame({"time_s": wide.index.to_numpy(dtype=np.float64), "jain": jain, "flows": n})


def buffer_gain(
    runs: pd.DataFrame,
    *,
    value: str = "mu",
    buffer: str = "alpha",
    by: Sequence[str] = ("variant", "w_star"),
    reference: float | None = None,
) -> pd.DataFrame:
    """lee2001's buffer gain BG_k(alpha) = mu_k(B = alpha W*) / mu_k(B = W*/4) (Fig. 7).

    *runs* has one row per run with the columns *by* (what stays fixed: variant and W*),
    *buffer* (the buffer as a fraction alpha of W*) and *value* (mu).  Several runs of the
    same point (seeds) are averaged first.  *reference* is the alpha to divide by (default:
    the smallest in each group, i.e. 1/4 on the paper's grid).  Returns one row per group and
    alpha: the *by* columns, *buffer*, *value* and ``buffer_gain``.
    """
    keys = list(by)
    missing = [c for c in [*keys, buffer, value] if c not in runs.columns]
    if missing:
        raise KeyError(f"buffer_gain: runs has no column(s) {', '.join(map(repr, missing))}")
    table = runs.groupby([*keys, buffer], observed=True, sort=True)[value].mean().reset_index()

    def gain(group: pd.DataFrame) -> pd.Series:
        ref_alpha = group[buffer].min() if reference is None else reference
        ref = group.loc[np.isclose(group[buffer].astype(float), float(ref_alpha)), value]
        base = float(ref.iloc[0]) if len(ref) else float("nan")
        return group[value] / base if base else group[value] * np.nan

    if keys:
        table["buffer_gain"] = np.nan
        for _, index in table.groupby(keys, observed=True, sort=False).groups.items():
            table.loc[index, "buffer_gain"] = gain(table.loc[index]).to_numpy()
    else:
        table["buffer_gain"] = gain(table).to_numpy()
    return table
