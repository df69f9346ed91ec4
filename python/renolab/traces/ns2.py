"""ns-2 trace lines (``+ - r d`` events) from the ``hops`` trace."""

from __future__ import annotations

import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from renolab.traces import NS2_EVENTS

__all__ = ["NS2_PACKET_TYPES", "Ns2Numbering", "PacketIds", "ns2_lines", "write_ns2"]


#: ns-2's packet type names for renolab's packet kinds.
NS2_PACKET_TYPES = ("tcp", "ack", "tcp", "ack", "cbr")


class Ns2Numbering:
    """Node numbers and flow addresses for ns-2 trace lines.

    Nodes are numbered in order of first appearance in the links table (``from`` then
    ``to``, row by row).  A flow's data packets go from ``<src node>.<flow index>`` to
    ``<dst node>.<flow index>``; its ACKs the other way; ``fid`` is the flow index.
    """

    def __init__(self, links: pd.DataFrame, flows: pd.DataFrame) -> None:
        nodes: dict[str, int] = {}
        for a, b in zip(links["from"].astype(str), links["to"].astype(str)):
            for node in (a, b):
                nodes.setdefault(node, len(nodes))
        self.nodes = nodes
        self.link_from = np.array([nodes[n] for n in links["from"].astype(str)], dtype=np.int64)
        self.link_to = np.array([nodes[n] for n in links["to"].astype(str)], dtype=np.int64)
        self.flow_src = np.array([nodes.get(n, -1) for n in flows["src"].astype(str)], dtype=np.int64)
        self.flow_dst = np.array([nodes.get(n, -1) for n in flows["dst"].astype(str)], dtype=np.int64)


class PacketIds:
    """Turns the core's packet ``uid`` (a slot, reused once a packet is gone) into ids that
    are unique over the run, as ns-2's are, chunk after chunk.

    A packet's life starts with its ``enqueue`` on a link leaving its origin node (the
    flow's source for data, SYN and datagrams; its destination for ACKs and SYN-ACKs); every
    later event of the same slot belongs to it until the slot starts a new life.  Ids count
    lives in order of appearance from 0.
    """

    def __init__(self, numbering: Ns2Numbering) -> None:
        self.numbering = numbering
        self.next_id = 0
        self.carry: dict[int, int] = {}

    def assign(self, records: Any) -> np.ndarray:
        n = len(records["time_ns"])
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        num = self.numbering
        link = np.asarray(records["link"]).astype(np.int64)
        flow = np.asarray(records["flow"]).astype(np.int64)
        kind = np.asarray(records["kind"]).astype(np.int64)
        event = np.asarray(records["event"]).astype(np.int64)
        uid = np.asarray(records["uid"]).astype(np.int64)
        valid_flow = (flow >= 0) & (flow < len(num.flow_src))
        flow_c = np.where(valid_flow, flow, 0)
        reverse = (kind == 1) | (kind == 3)
        if len(num.flow_src):
            origin_node = np.where(reverse, num.flow_dst[flow_c], num.flow_src[flow_c])
        else:
            origin_node = np.full(n, -2)
        link_ok = (link >= 0) & (link < len(num.link_from))
        link_from = np.where(link_ok, num.link_from[np.where(link_ok, link, 0)], -1)
        origin = (event == 0) & valid_flow & (link_from == origin_node)
        new_ids = self.next_id + np.cumsum(origin) - 1
        order = np.lexsort((np.arange(n), uid))
        u_sorted = uid[order]
        last_origin = np.maximum.accumulate(np.where(origin[order], np.arange(n), -1))
        starts = np.r_[0, np.flatnonzero(np.diff(u_sorted)) + 1]
        group_start = starts[np.searchsorted(starts, np.arange(n), "right") - 1]
        has_origin = last_origin >= group_start
        ids_sorted = np.where(has_origin, new_ids[order][np.maximum(last_origin, 0)], -1)
        self.next_id += int(np.count_nonzero(origin))
        missing = np.flatnonzero(~has_origin)
        if missing.size:
            for slot in np.unique(u_sorted[missing]).tolist():
                if slot not in self.carry:  # a life that started before the trace did
                    self.carry[slot] = self.next_id
                    self.next_id += 1
            ids_sorted[missing] = [self.carry[s] for s in u_sorted[missing].tolist()]
        ids = np.empty(n, dtype=np.int64)
        ids[order] = ids_sorted
        # Carry the current life of every slot seen into the next chunk.
        ends = np.r_[starts[1:], n] - 1
        for slot, last in zip(u_sorted[starts].tolist(), ids_sorted[ends].tolist()):
            self.carry[slot] = int(last)
        return ids


def ns2_lines(records: Any, numbering: Ns2Numbering, uids: np.ndarray | None = None) -> str:
    """Format packed ``hops`` records (a structured array, or a dict of equally long
    arrays with the same field names) as ns-2 trace lines, one per record.

    ``<event> <time> <from node> <to node> <type> <size> ------- <fid> <src>.<port>
    <dst>.<port> <seq> <uid>``; time in seconds rounded to 6 decimals and printed with
    ``%.15g`` as ns-2 does; type ``tcp`` (data, SYN), ``ack`` (ACK, SYN-ACK) or ``cbr``
    (datagrams).  *uids* replaces the records' ``uid`` column (see :class:`PacketIds`).
    """
    if len(records["time_ns"]) == 0:
        return ""
    link = records["link"].astype(np.int64)
    flow = records["flow"].astype(np.int64)
    kind = records["kind"].astype(np.int64)
    event = records["event"].astype(np.int64)
    time = np.floor(records["time_ns"].astype(np.float64) / 1e3 + 0.5) / 1e6
    valid_flow = (flow >= 0) & (flow < len(numbering.flow_src))
    flow_c = np.where(valid_flow, flow, 0)
    src = np.where(valid_flow, numbering.flow_src[flow_c] if len(numbering.flow_src) else -1, -1)
    dst = np.where(valid_flow, numbering.flow_dst[flow_c] if len(numbering.flow_dst) else -1, -1)
    reverse = (kind == 1) | (kind == 3)  # ACKs and SYN-ACKs travel from the receiver
    a_node, b_node = np.where(reverse, dst, src), np.where(reverse, src, dst)
    from_node = numbering.link_from[link]
    to_node = numbering.link_to[link]
    events = np.array(NS2_EVENTS + ("?",) * 8, dtype=object)[np.minimum(event, len(NS2_EVENTS) + 7)]
    types = np.array(NS2_PACKET_TYPES + ("?",) * 8, dtype=object)[np.minimum(kind, len(NS2_PACKET_TYPES) + 7)]
    out = io.StringIO()
    for ev, t, fn, tn, ty, size, fid, an, bn, seq, uid in zip(
        events.tolist(),
        time.tolist(),
        from_node.tolist(),
        to_node.tolist(),
        types.tolist(),
        records["size"].tolist(),
        flow.tolist(),
        a_node.tolist(),
        b_node.tolist(),
        records["seq"].tolist(),
        (records["uid"] if uids is None else uids).tolist(),
    ):
        out.write(f"{ev} {t:.15g} {fn} {tn} {ty} {size} ------- {fid} {an}.{fid} {bn}.{fid} {seq} {uid}\n")
    return out.getvalue()


def write_ns2(chunks: Iterable[np.ndarray], numbering: Ns2Numbering, path: Path) -> Path:
    """Write ns-2 trace lines for a stream of ``hops`` record chunks to *path*."""
    from renolab._files import new_file

    ids = PacketIds(numbering)
    with new_file(path, "w", encoding="ascii", newline="\n") as f:
        for chunk in chunks:
            f.write(ns2_lines(chunk, numbering, ids.assign(chunk)))
    return path
