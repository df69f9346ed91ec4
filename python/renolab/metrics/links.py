"""Link and packet figures: RTT statistics, one-way latency, drops by cause, queue
statistics, link utilisation over time."""

from __future__ import annotations

import numpy as np
import pandas as pd

from renolab.metrics._common import PerFlow, bin_count, bin_index, per_flow

__all__ = ["drops_by_cause", "link_utilisation_series", "packet_latency", "queue_stats", "rtt_stats"]


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


def queue_stats(queue: pd.DataFrame, *, end_s: float | None = None, start_s: float = 0.0) -> pd.DataFrame:
    """Per link direction from a ``queue`` trace (one row per change): ``link,
    mean_packets, max_packets, mean_bytes, max_bytes``.

    The means are time-weighted over the run, from *start_s* (default 0; a queue is empty
    until its first change) to *end_s*, the end of the run: pass it
    (``result.summary["sim_time_s"]``, as :meth:`renolab.Result.queue_stats` does).
    Without it the run is taken to end at the trace's last change of any link, which
    leaves out any idle time after it.  A queue that held 5 packets for 0.1 ms of a 30 s
    run averages 1.7e-5 packets, not 5.  ``links.csv``'s ``mean_queue_packets`` is the
    same mean from 0 to the end, counted by the core.
    """
    times = queue["time_s"].to_numpy(dtype=np.float64)
    end = float(end_s) if end_s is not None else (float(times.max()) if len(times) else start_s)
    span = end - start_s
    rows = []
    for link, g in queue.groupby("link", observed=True, sort=False):
        t = g["time_s"].to_numpy(dtype=np.float64)
        # Each row's value holds from its time to the next row's (the last to the end),
        # counted only inside [start_s, end].
        held = np.clip(np.append(t[1:], max(end, t[-1])), start_s, end) - np.clip(t, start_s, end)
        p = g["packets"].to_numpy(dtype=np.float64)
        b = g["bytes"].to_numpy(dtype=np.float64)
        rows.append(
            (
                str(link),
                float((p * held).sum() / span) if span > 0 else float(p[-1]),
                int(p.max()),
                float((b * held).sum() / span) if span > 0 else float(b[-1]),
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
    n = bin_count(start_s, max(end, start_s), bin_s)
    times = start_s + bin_s * np.arange(n)
    out = []
    for link, g in frame.groupby("link", observed=True, sort=False):
        idx, inside = bin_index(g["time_s"].to_numpy(dtype=np.float64), start_s, bin_s, n)
        bits = np.bincount(idx[inside], weights=g["size"].to_numpy(dtype=np.float64)[inside] * 8.0, minlength=n)[:n]
        rate = per_flow(rate_bps, str(link), "rate_bps")
        out.append(pd.DataFrame({"time_s": times, "link": str(link), "utilisation": bits / (rate * bin_s)}))
    if not out:
        return pd.DataFrame({"time_s": [], "link": [], "utilisation": []})
    return pd.concat(out, ignore_index=True)
