"""The metrics of the studies renolab reproduces, as pure functions on tables.

Every function takes plain numbers or the DataFrames that :class:`renolab.Result` gives
(``result.flows``, ``result.links``, ``result.trace(name)``, or the same tables read back
from a run directory) and returns numbers or new DataFrames; nothing here runs a simulation.

=======================  ==================================================================
lee2001                  :func:`utilisation` (mu), :func:`normalised_throughput` (T_N(t)),
                         :func:`tn_slope` (Table 2), :func:`buffer_gain` (BG, Fig. 7)
subedi2008               :func:`goodput`, :func:`throughput_series` (sent vs goodput)
joo2000                  :func:`recovery_episodes` (Table 1, Figs. 2-6), :func:`loss_patterns`
fickling                 :func:`drop_rate`, :func:`packet_latency`, :func:`jain_index`,
                         :func:`jain_series`
links                    :func:`drops_by_cause`, :func:`queue_stats`,
                         :func:`link_utilisation_series`, :func:`flow_path`,
                         :func:`bottlenecks`
=======================  ==================================================================

Sequence numbers count segments (as in ns-2's one-way agents): segment ``k`` carries payload
bytes ``k * mss .. (k + 1) * mss``, and an ACK's ``seq`` is the next segment expected.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Union

import numpy as np
import pandas as pd

from renolab.traces import SEQ_EVENTS

Number = Union[int, float]
PerFlow = Union[Number, Mapping[str, Number], pd.Series]

_SENT, _RETX, _ACKED, _DROPPED, _ACK_DROPPED = range(5)

#: Columns of :func:`recovery_episodes`, in order.
EPISODE_COLUMNS = (
    "flow",
    "episode",
    "detection",
    "start_s",
    "end_s",
    "duration_s",
    "una",
    "recover",
    "drops",
    "drop_class",
    "first_drop_seq",
    "first_drop_sent_s",
    "cwnd_at_first_drop",
    "w",
    "new_segments",
    "new_per_rtt",
    "burst",
    "retransmits",
    "timeouts",
    "drops_in_recovery",
)

#: Classes of :func:`recovery_episodes`' ``drop_class`` (joo2000 Figs. 2-3).
DROP_CLASSES = ("0", "1", "2", "3", ">3")
#: Detection methods of :func:`recovery_episodes`' ``detection``.
DETECTIONS = ("fast_retransmit", "rto")


# ----- scalars ---------------------------------------------------------------------------------


def jain_index(values: Iterable[Number]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2) of the allocations *values*.

    1 when all are equal, 1/n when one gets everything; NaN for no values or all zeros.
    Missing values (NaN) are left out.
    """
    x = np.asarray(list(values) if not isinstance(values, (np.ndarray, pd.Series)) else values, dtype=np.float64)
    x = x[~np.isnan(x)]
    if x.size == 0:
        return float("nan")
    squares = float(np.sum(x * x))
    if squares == 0.0:
        return float("nan")
    return float(np.sum(x)) ** 2 / (x.size * squares)


def utilisation(bits: Any, capacity_bps: Any, completion_time_s: Any) -> Any:
    """lee2001's average link utilisation mu(x) = x / (C t_c(x)).

    *bits* is the payload transferred (x), *capacity_bps* the bottleneck capacity C and
    *completion_time_s* the transfer completion time t_c.  Works element-wise on arrays and
    Series; NaN where t_c is missing or zero.
    """
    bits = np.asarray(bits, dtype=np.float64)
    denominator = np.asarray(capacity_bps, dtype=np.float64) * np.asarray(completion_time_s, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.where(denominator > 0, bits / np.where(denominator > 0, denominator, 1.0), np.nan)
    return float(mu) if mu.ndim == 0 else mu


def goodput(bytes_delivered: Any, duration_s: Any) -> Any:
    """Goodput in bit/s: payload bytes delivered to the application, each byte once, over
    *duration_s*.  NaN where the duration is missing or zero."""
    b = np.asarray(bytes_delivered, dtype=np.float64)
    d = np.asarray(duration_s, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(d > 0, b * 8.0 / np.where(d > 0, d, 1.0), np.nan)
    return float(g) if g.ndim == 0 else g


def drop_rate(drops: Any, sent: Any) -> Any:
    """Fraction of the packets sent that were dropped (fickling's drop rate); NaN if none sent."""
    n = np.asarray(drops, dtype=np.float64)
    s = np.asarray(sent, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(s > 0, n / np.where(s > 0, s, 1.0), np.nan)
    return float(r) if r.ndim == 0 else r


# ----- paths and bottlenecks --------------------------------------------------------------------


def flow_path(links: Any, src: str, dst: str) -> list[int]:
    """Row numbers of *links* (one row per link direction, columns ``from`` and ``to``; a
    DataFrame or a dict of lists) on the route from *src* to *dst*: fewest hops, ties broken
    by link order, exactly as the core routes.  Empty if *src* == *dst* or there is no route."""
    pairs = list(zip([str(x) for x in links["from"]], [str(x) for x in links["to"]]))
    incoming: dict[str, list[int]] = {}
    for i, (_, to) in enumerate(pairs):
        incoming.setdefault(to, []).append(i)
    # Breadth-first search from the destination over the reversed graph (the core's order).
    next_hop: dict[str, int] = {}
    seen = {dst}
    frontier = deque([dst])
    while frontier:
        v = frontier.popleft()
        for d in incoming.get(v, ()):
            u = pairs[d][0]
            if u not in seen:
                seen.add(u)
                next_hop[u] = d
                frontier.append(u)
    path: list[int] = []
    node = src
    while node != dst and node in next_hop:
        d = next_hop[node]
        path.append(d)
        node = pairs[d][1]
        if len(path) > len(pairs):
            break
    return path if node == dst else []


def _bottleneck_rows(flows: Any, links: Any) -> list[tuple[str, Any, float, list[str]]]:
    names = [str(x) for x in links["link"]]
    rates = [float(x) for x in links["rate_bps"]] if "rate_bps" in links else [float("nan")] * len(names)
    rows = []
    for flow, src, dst in zip(flows["flow"], flows["src"], flows["dst"]):
        path = flow_path(links, str(src), str(dst))
        known = [i for i in path if not math.isnan(rates[i])]
        if known:
            slowest = min(known, key=lambda i: rates[i])  # the first of equals
            rows.append((str(flow), names[slowest], rates[slowest], [names[i] for i in path]))
        else:
            rows.append((str(flow), None, float("nan"), [names[i] for i in path]))
    return rows


def bottlenecks(flows: pd.DataFrame, links: pd.DataFrame) -> pd.DataFrame:
    """Each flow's bottleneck: the slowest link direction on its data path (the first of
    equals).  *links* needs ``rate_bps``.  Columns ``flow, bottleneck, bottleneck_bps, path``
    (path: the link direction names from source to destination)."""
    return pd.DataFrame(_bottleneck_rows(flows, links), columns=["flow", "bottleneck", "bottleneck_bps", "path"])


# ----- time series ------------------------------------------------------------------------------


def _per_flow(value: PerFlow | None, flow: str, what: str) -> float:
    if value is None:
        raise ValueError(f"{what} is required")
    if isinstance(value, (Mapping, pd.Series)):
        if flow not in value:
            raise KeyError(f"{what}: no value for flow {flow!r}")
        return float(value[flow])
    return float(value)


def _event_codes(events: pd.Series) -> np.ndarray:
    """Integer codes (SEQ_EVENTS order) of a seq trace's ``event`` column."""
    if isinstance(events.dtype, pd.CategoricalDtype) and list(events.cat.categories) == list(SEQ_EVENTS):
        return events.cat.codes.to_numpy(dtype=np.int64)
    if pd.api.types.is_integer_dtype(events.dtype):
        return events.to_numpy(dtype=np.int64)
    lookup = {name: code for code, name in enumerate(SEQ_EVENTS)}
    return events.astype(str).map(lookup).fillna(-1).to_numpy(dtype=np.int64)


def _flows_of(frame: pd.DataFrame) -> list[str]:
    column = frame["flow"]
    if isinstance(column.dtype, pd.CategoricalDtype):
        present = set(column.dropna().unique())
        return [str(c) for c in column.cat.categories if c in present]
    return [str(f) for f in pd.unique(column.dropna())]


def _rows_by_flow(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """Row positions of each flow's rows, in order."""
    groups = frame.groupby(frame["flow"].astype(str) if not isinstance(frame["flow"].dtype, pd.CategoricalDtype)
                           else frame["flow"], observed=True, sort=False).indices
    return {str(k): np.asarray(v) for k, v in groups.items()}


def _bins(start_s: float, end_s: float, bin_s: float) -> int:
    if not bin_s > 0:
        raise ValueError(f"bin_s must be positive, got {bin_s!r}")
    return max(1, int(np.ceil((end_s - start_s) / bin_s - 1e-9)))


def _bin_index(times: np.ndarray, start_s: float, bin_s: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Bin of each time (time == end goes to the last bin); mask of times inside [start, end]."""
    idx = np.floor((times - start_s) / bin_s + 1e-9).astype(np.int64)
    inside = (times >= start_s) & (idx <= n)
    idx = np.minimum(idx, n - 1)
    inside &= times <= start_s + n * bin_s + 1e-12
    return idx, inside


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
    segment the sender transmitted in the bin, retransmissions included) and ``goodput_bps``
    (payload bits newly acknowledged in the bin: each byte counted once, when the cumulative
    ACK for it reaches the sender).  *segment_bytes* is the payload per segment (the flow's
    mss), one number or one per flow.  Bins cover [*start_s*, *end_s*] (default: the last
    event).
    """
    end = float(seq["time_s"].max()) if end_s is None and len(seq) else (end_s if end_s is not None else start_s)
    n = _bins(start_s, max(end, start_s), bin_s)
    times = start_s + bin_s * np.arange(n)
    codes = _event_codes(seq["event"])
    t_all = seq["time_s"].to_numpy(dtype=np.float64)
    s_all = seq["seq"].to_numpy(dtype=np.int64)
    rows = _rows_by_flow(seq)
    frames = []
    for flow in _flows_of(seq):
        mask = rows[flow]
        size_bits = 8.0 * _per_flow(segment_bytes, flow, "segment_bytes")
        t, c, s = t_all[mask], codes[mask], s_all[mask]
        tx = (c == _SENT) | (c == _RETX)
        idx, inside = _bin_index(t[tx], start_s, bin_s, n)
        sent = np.bincount(idx[inside], minlength=n)[:n] * size_bits / bin_s
        ack = c == _ACKED
        cum = np.maximum.accumulate(np.concatenate([[0], s[ack]]))
        newly = np.diff(cum)
        idx, inside = _bin_index(t[ack], start_s, bin_s, n)
        good = np.bincount(idx[inside], weights=newly[inside], minlength=n)[:n] * size_bits / bin_s
        frames.append(pd.DataFrame({"time_s": times, "flow": flow, "sent_bps": sent, "goodput_bps": good}))
    if not frames:
        return pd.DataFrame({"time_s": [], "flow": [], "sent_bps": [], "goodput_bps": []})
    return pd.concat(frames, ignore_index=True)


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
    capacity = np.array([_per_flow(capacity_bps, f, "capacity_bps") for f in series["flow"]], dtype=np.float64)
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


# ----- latency, RTT, links ---------------------------------------------------------------------


def rtt_stats(rtt: pd.DataFrame) -> pd.DataFrame:
    """Per-flow RTT statistics from an ``rtt`` trace: ``flow, samples, min_rtt_s,
    mean_rtt_s, max_rtt_s, last_srtt_s, last_rto_s``."""
    g = rtt.groupby("flow", observed=True, sort=False)
    out = pd.DataFrame(
        {
            "samples": g["rtt_s"].size(),
            "min_rtt_s": g["rtt_s"].min(),
            "mean_rtt_s": g["rtt_s"].mean(),
            "max_rtt_s": g["rtt_s"].max(),
            "last_srtt_s": g["srtt_s"].last(),
            "last_rto_s": g["rto_s"].last(),
        }
    )
    out.index = out.index.astype(str)
    return out.rename_axis("flow").reset_index()


def packet_latency(hops: pd.DataFrame, flows: pd.DataFrame, links: pd.DataFrame, *, kind: str = "data") -> pd.DataFrame:
    """One-way latency of every packet of *kind* that arrived, from a ``hops`` trace.

    A packet's latency runs from its first event (offered to the queue of the first link)
    to its receipt at the flow's destination (``data``, ``datagram``, ``syn``) or source
    (``ack``, ``synack``).  Columns ``packet`` (unique id, see
    :class:`renolab.traces.PacketIds`), ``flow, seq, sent_s, arrived_s, latency_s``, in
    order of sending.
    """
    from renolab.traces import PACKET_KINDS, Ns2Numbering, PacketIds, hops_columns

    link_names = links["link"].astype(str).tolist()
    flow_names = flows["flow"].astype(str).tolist()
    numbering = Ns2Numbering(links, flows)
    columns = hops_columns(hops, link_names, flow_names)
    packet = PacketIds(numbering).assign(columns)
    wanted = columns["kind"] == PACKET_KINDS.index(kind)
    flow = columns["flow"]
    valid = wanted & (flow >= 0) & (flow < len(flow_names))
    reverse = kind in ("ack", "synack")
    endpoint = numbering.flow_src if reverse else numbering.flow_dst
    arrived_here = np.zeros(len(flow), dtype=bool)
    if valid.any():
        link = columns["link"]
        arrived_here[valid] = (columns["event"][valid] == 2) & (numbering.link_to[link[valid]] == endpoint[flow[valid]])
    time = hops["time_s"].to_numpy(dtype=np.float64)
    first = pd.DataFrame({"packet": packet[valid], "sent_s": time[valid]}).groupby("packet", sort=False)["sent_s"].min()
    done = pd.DataFrame(
        {
            "packet": packet[arrived_here],
            "flow": np.asarray(flow_names, dtype=object)[flow[arrived_here]] if arrived_here.any() else [],
            "seq": columns["seq"][arrived_here],
            "arrived_s": time[arrived_here],
        }
    ).drop_duplicates("packet", keep="first")
    out = done.join(first, on="packet", how="inner")
    out["latency_s"] = out["arrived_s"] - out["sent_s"]
    out = out[["packet", "flow", "seq", "sent_s", "arrived_s", "latency_s"]]
    return out.sort_values(["sent_s", "packet"], kind="stable").reset_index(drop=True)


def drops_by_cause(drops: pd.DataFrame, *, by: str = "link") -> pd.DataFrame:
    """Drop counts from a ``drops`` trace, one row per *by* value (``link`` or ``flow``),
    one column per cause (overflow, early, aqm, bit_error, random, burst, scripted) plus
    ``total``."""
    from renolab.traces import DROP_CAUSES

    table = pd.crosstab(drops[by].astype(str), drops["cause"].astype(str))
    table = table.reindex(columns=list(DROP_CAUSES), fill_value=0)
    table["total"] = table.sum(axis=1)
    table.columns.name = None
    return table.rename_axis(by).reset_index()


def queue_stats(queue: pd.DataFrame, *, end_s: float | None = None) -> pd.DataFrame:
    """Per link direction from a ``queue`` trace (one row per change): ``link,
    mean_packets`` (time-weighted from the first change to *end_s*, default the last
    change), ``max_packets``, ``mean_bytes``, ``max_bytes``."""
    rows = []
    for link, g in queue.groupby("link", observed=True, sort=False):
        t = g["time_s"].to_numpy(dtype=np.float64)
        end = float(end_s) if end_s is not None else float(t[-1])
        dt = np.diff(np.concatenate([t, [max(end, t[-1])]]))
        span = dt.sum()
        p = g["packets"].to_numpy(dtype=np.float64)
        b = g["bytes"].to_numpy(dtype=np.float64)
        rows.append(
            (
                str(link),
                float((p * dt).sum() / span) if span > 0 else float(p[-1]),
                int(p.max()),
                float((b * dt).sum() / span) if span > 0 else float(b[-1]),
                int(b.max()),
            )
        )
    return pd.DataFrame(rows, columns=["link", "mean_packets", "max_packets", "mean_bytes", "max_bytes"])


def link_utilisation_series(
    hops: pd.DataFrame, bin_s: float, rate_bps: PerFlow, *, start_s: float = 0.0, end_s: float | None = None
) -> pd.DataFrame:
    """Fraction of each bin a link direction spent transmitting, from a ``hops`` trace's
    dequeue events (bits sent in the bin / (rate x bin)).  *rate_bps*: one rate or one per
    link name.  Columns ``time_s, link, utilisation``."""
    frame = hops[hops["event"].astype(str) == "dequeue"]
    end = float(hops["time_s"].max()) if end_s is None and len(hops) else (end_s or start_s)
    n = _bins(start_s, max(end, start_s), bin_s)
    times = start_s + bin_s * np.arange(n)
    out = []
    for link, g in frame.groupby("link", observed=True, sort=False):
        idx, inside = _bin_index(g["time_s"].to_numpy(dtype=np.float64), start_s, bin_s, n)
        bits = np.bincount(idx[inside], weights=g["size"].to_numpy(dtype=np.float64)[inside] * 8.0, minlength=n)[:n]
        rate = _per_flow(rate_bps, str(link), "rate_bps")
        out.append(pd.DataFrame({"time_s": times, "link": str(link), "utilisation": bits / (rate * bin_s)}))
    if not out:
        return pd.DataFrame({"time_s": [], "link": [], "utilisation": []})
    return pd.concat(out, ignore_index=True)


# ----- recovery episodes (joo2000) -------------------------------------------------------------


def _drop_class(n: int) -> str:
    return ">3" if n > 3 else str(n)


def recovery_episodes(seq: pd.DataFrame, cwnd: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every loss-recovery episode of every flow, as joo2000 analyses them.

    An episode starts at a retransmission while no episode is open (the loss *detection*)
    and ends when a cumulative ACK covers ``recover``, the highest segment sent before the
    detection plus one.  Columns (see :data:`EPISODE_COLUMNS`):

    ``detection``
        ``fast_retransmit`` if the retransmission went out as a duplicate ACK for that
        segment arrived, else ``rto``.
    ``start_s``, ``end_s``, ``duration_s``
        detection time; arrival of the ACK that ended it (NaN if it never ended).
    ``una``, ``recover``
        first unacknowledged segment and highest sent + 1 at the detection.
    ``drops``, ``drop_class``
        segments sent before the detection (in ``[una, recover)``) that were dropped, and
        joo2000's class of that number: ``"1"``, ``"2"``, ``"3"``, ``">3"`` (``"0"`` for a
        spurious retransmission).
    ``first_drop_seq``, ``first_drop_sent_s``, ``cwnd_at_first_drop``
        the first of those dropped segments to be sent, when it was sent, and cwnd then.
    ``w``
        joo2000's W (Table 1): the ssthresh set at the detection (the window at the
        detection halved) -- needs *cwnd*; NaN without it.
    ``new_segments``, ``new_per_rtt``
        new segments (first transmissions) sent during the recovery, in total and between
        consecutive retransmissions (N_1, N_2, ...; one RTT-period each for NewReno).
    ``burst``
        new segments sent at the instant the recovery ended, after the ACK that ended it.
    ``retransmits``, ``timeouts``, ``drops_in_recovery``
        retransmissions during the episode (the detecting one included), how many of them
        went out without an ACK arriving at that instant (timer expiries), and packets sent
        during the episode that were dropped.

    *seq* is a ``seq`` trace (rows in event order); *cwnd* the ``cwnd`` trace of the same run.
    """
    results: list[dict[str, Any]] = []
    seq_rows = _rows_by_flow(seq)
    cwnd_rows = _rows_by_flow(cwnd) if cwnd is not None and len(cwnd) else {}
    for flow in _flows_of(seq):
        part = seq.iloc[seq_rows[flow]]
        cw = cwnd.iloc[cwnd_rows[flow]] if cwnd is not None and flow in cwnd_rows else None
        results.extend(_flow_episodes(flow, part, cw))
    frame = pd.DataFrame(results, columns=list(EPISODE_COLUMNS))
    frame["detection"] = pd.Categorical(frame["detection"], categories=list(DETECTIONS))
    frame["drop_class"] = pd.Categorical(frame["drop_class"], categories=list(DROP_CLASSES))
    for column in ("episode", "una", "recover", "drops", "new_segments", "retransmits", "timeouts", "drops_in_recovery"):
        frame[column] = frame[column].astype(np.int64)
    for column in ("first_drop_seq", "burst"):
        frame[column] = frame[column].astype("Int64")
    for column in ("start_s", "end_s", "duration_s", "first_drop_sent_s", "cwnd_at_first_drop", "w"):
        frame[column] = frame[column].astype(np.float64)
    return frame


def _flow_episodes(flow: str, part: pd.DataFrame, cwnd: pd.DataFrame | None) -> list[dict[str, Any]]:
    order = np.argsort(part["time_s"].to_numpy(dtype=np.float64), kind="stable")
    t = part["time_s"].to_numpy(dtype=np.float64)[order]
    c = _event_codes(part["event"])[order]
    s = part["seq"].to_numpy(dtype=np.int64)[order]
    pos = np.arange(len(t))

    sent_pos = pos[c == _SENT]
    sent_max = np.maximum.accumulate(s[sent_pos]) if len(sent_pos) else np.array([], dtype=np.int64)
    ack_pos = pos[c == _ACKED]
    ack_t, ack_s = t[ack_pos], s[ack_pos]
    ack_cum = np.maximum.accumulate(ack_s) if len(ack_pos) else np.array([], dtype=np.int64)
    retx_pos = pos[c == _RETX]

    def ack_at_same_instant(p: int, same_seq: bool) -> bool:
        """Whether an ACK (for segment s[p], if *same_seq*) arrived at t[p] just before row p."""
        lo, hi = np.searchsorted(ack_t, t[p], "left"), np.searchsorted(ack_t, t[p], "right")
        before = ack_pos[lo:hi] < p
        if same_seq:
            before &= ack_s[lo:hi] == s[p]
        return bool(np.any(before))

    def cum_ack_before(p: int) -> int:
        i = np.searchsorted(ack_pos, p) - 1
        return int(ack_cum[i]) if i >= 0 else 0

    # Episodes from the retransmissions.
    episodes: list[dict[str, Any]] = []
    for p in retx_pos.tolist():
        current = episodes[-1] if episodes else None
        if current is not None and (current["end_pos"] is None or p < current["end_pos"]):
            current["retx"].append(p)
            continue
        i = np.searchsorted(sent_pos, p) - 1
        recover = int(sent_max[i]) + 1 if i >= 0 else int(s[p]) + 1
        recover = max(recover, int(s[p]) + 1)
        una = cum_ack_before(p)
        j = int(np.searchsorted(ack_cum, recover, "left"))
        while j < len(ack_pos) and ack_pos[j] < p:
            j += 1
        end_pos = int(ack_pos[j]) if j < len(ack_pos) else None
        episodes.append({"det": p, "una": una, "recover": recover, "end_pos": end_pos, "retx": [p]})
    if not episodes:
        return []

    # Dropped copies: which transmission each drop belongs to.
    drop_pos = pos[c == _DROPPED]
    tx_pos = pos[(c == _SENT) | (c == _RETX)]
    drop_tx = np.full(len(drop_pos), -1, dtype=np.int64)
    if len(drop_pos) and len(tx_pos):
        left = pd.DataFrame({"pos": drop_pos, "seq": s[drop_pos]})
        right = pd.DataFrame({"tx": tx_pos, "seq": s[tx_pos]})
        merged = pd.merge_asof(left, right, left_on="pos", right_on="tx", by="seq", direction="backward", allow_exact_matches=False)
        drop_tx = merged["tx"].fillna(-1).to_numpy(dtype=np.int64)
    det = np.array([e["det"] for e in episodes], dtype=np.int64)
    for e in episodes:
        e["drops"] = []
        e["drops_in"] = 0
    for d_seq, tx in zip(s[drop_pos].tolist(), drop_tx.tolist()):
        if tx < 0:
            continue
        k = int(np.searchsorted(det, tx, "right"))
        if k < len(episodes) and episodes[k]["una"] <= d_seq < episodes[k]["recover"]:
            episodes[k]["drops"].append((tx, d_seq))
        elif k > 0:
            e = episodes[k - 1]
            if e["end_pos"] is None or tx < e["end_pos"]:
                e["drops_in"] += 1

    cw_t = cw_c = cw_ss = None
    if cwnd is not None and len(cwnd):
        cw_order = np.argsort(cwnd["time_s"].to_numpy(dtype=np.float64), kind="stable")
        cw_t = cwnd["time_s"].to_numpy(dtype=np.float64)[cw_order]
        cw_c = cwnd["cwnd"].to_numpy(dtype=np.float64)[cw_order]
        cw_ss = cwnd["ssthresh"].to_numpy(dtype=np.float64)[cw_order]

    rows = []
    for number, e in enumerate(episodes):
        p, end_pos = e["det"], e["end_pos"]
        limit = end_pos if end_pos is not None else len(t)
        # Sends strictly between two rows a < b: sent_pos is sorted, so two binary searches.
        bounds = np.array([*e["retx"], limit], dtype=np.int64)
        counts = np.searchsorted(sent_pos, bounds[1:], "left") - np.searchsorted(sent_pos, bounds[:-1], "right")
        per_rtt = [int(n) for n in counts]
        new_segments = int(np.searchsorted(sent_pos, limit, "left") - np.searchsorted(sent_pos, p, "right"))
        burst = None
        if end_pos is not None:
            after = int(np.searchsorted(sent_pos, end_pos, "right"))
            same = int(np.searchsorted(t[sent_pos], t[end_pos], "right"))
            burst = max(0, same - after)
        drops = sorted(e["drops"])
        first_seq = first_sent = cwnd_first = None
        if drops:
            first_tx, first_seq = drops[0]
            first_sent = float(t[first_tx])
        w = None
        if cw_t is not None:
            k = int(np.searchsorted(cw_t, t[p], "left"))
            if k < len(cw_t):
                w = float(cw_ss[k])
            if first_sent is not None:
                k = int(np.searchsorted(cw_t, first_sent, "right")) - 1
                if k >= 0:
                    cwnd_first = float(cw_c[k])
        end_s = float(t[end_pos]) if end_pos is not None else np.nan
        fast = ack_at_same_instant(p, True)
        rows.append(
            {
                "flow": flow,
                "episode": number,
                "detection": "fast_retransmit" if fast else "rto",
                "start_s": float(t[p]),
                "end_s": end_s,
                "duration_s": end_s - float(t[p]),
                "una": e["una"],
                "recover": e["recover"],
                "drops": len(drops),
                "drop_class": _drop_class(len(drops)),
                "first_drop_seq": first_seq,
                "first_drop_sent_s": first_sent if first_sent is not None else np.nan,
                "cwnd_at_first_drop": cwnd_first if cwnd_first is not None else np.nan,
                "w": w if w is not None else np.nan,
                "new_segments": new_segments,
                "new_per_rtt": per_rtt,
                "burst": burst,
                "retransmits": len(e["retx"]),
                "timeouts": int(not fast) + sum(1 for q in e["retx"][1:] if not ack_at_same_instant(q, False)),
                "drops_in_recovery": e["drops_in"],
            }
        )
    return rows


def loss_patterns(episodes: pd.DataFrame, *, first_only: bool = True) -> pd.DataFrame:
    """joo2000 Figs. 2-3: how losses were detected -- ``rto``, or by fast retransmit with
    ``1``, ``2``, ``3`` or ``>3`` drops.  *first_only* keeps each flow's first episode (the
    start-up transition the paper studies).  Columns ``pattern, count, fraction``."""
    frame = episodes
    if first_only and len(frame):
        frame = frame.sort_values(["flow", "episode"]).groupby("flow", observed=True, sort=False).head(1)
    detection = frame["detection"].astype(str).to_numpy()
    drop_class = frame["drop_class"].astype(str).to_numpy()
    pattern = np.where(detection == "rto", "rto", drop_class)
    names = ["rto", "1", "2", "3", ">3"]
    counts = [int(np.count_nonzero(pattern == name)) for name in names]
    total = sum(counts)
    return pd.DataFrame(
        {"pattern": names, "count": counts, "fraction": [n / total if total else np.nan for n in counts]}
    )
