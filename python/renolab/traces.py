"""Trace tables: names, record layouts, code tables, decoding, and the file writers.

The core hands every recorded trace over as packed little-endian records, either in memory
(``{"fields": [[name, dtype], ...], "data": bytes}``) or in a file it streamed them to
(``{"fields": ..., "path": "<file>"}``).  This module turns chunks of those records into
tidy :class:`pandas.DataFrame` s (seconds instead of nanoseconds, flow and link names
instead of indices, categorical event / kind / cause columns) and writes them chunk by chunk
to Parquet, CSV or ns-2 trace lines, so a trace never has to fit in memory.

Decoded columns, per trace (see ``docs/outputs.md`` for units):

=========  ====================================================================
``cwnd``   time_s, flow, cwnd, ssthresh
``seq``    time_s, flow, event, seq
``rtt``    time_s, flow, rtt_s, srtt_s, rto_s
``queue``  time_s, link, packets, bytes
``drops``  time_s, link, flow, kind, seq, cause
``hops``   time_s, link, event, kind, size, flow, seq, uid
=========  ====================================================================
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

#: Every trace the core can record, in documentation order.
TRACE_NAMES = ("cwnd", "seq", "rtt", "queue", "drops", "hops")

#: Names of the ``seq`` trace's event codes, in code order.
SEQ_EVENTS = ("sent", "retransmitted", "acked", "dropped", "ack_dropped")
#: Names of the ``hops`` trace's event codes, in code order (``retry``: a station of a
#: medium sends a frame again) ...
HOP_EVENTS = ("enqueue", "dequeue", "receive", "drop", "retry")
#: ... and the ns-2 trace letters for them.
NS2_EVENTS = ("+", "-", "r", "d", "-")
#: Packet kinds (``kind`` column of ``drops`` and ``hops``), in code order.
PACKET_KINDS = ("data", "ack", "syn", "synack", "datagram")
#: Drop causes (``cause`` column of ``drops``), in code order.
DROP_CAUSES = ("overflow", "early", "aqm", "bit_error", "random", "burst", "scripted", "retry_limit")

#: Record layout of each trace (numpy dtype strings, packed, little-endian).  The core
#: reports the layout with every trace; this copy decodes the older per-column format and
#: documents the contract.
TRACE_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "cwnd": (("time_ns", "<u8"), ("flow", "<u4"), ("cwnd", "<f8"), ("ssthresh", "<f8")),
    "seq": (("time_ns", "<u8"), ("flow", "<u4"), ("event", "u1"), ("seq", "<u4")),
    "rtt": (("time_ns", "<u8"), ("flow", "<u4"), ("rtt_ns", "<u8"), ("srtt_ns", "<u8"), ("rto_ns", "<u8")),
    "queue": (("time_ns", "<u8"), ("link", "<u4"), ("packets", "<u4"), ("bytes", "<u8")),
    "drops": (
        ("time_ns", "<u8"),
        ("link", "<u4"),
        ("flow", "<u4"),
        ("kind", "u1"),
        ("seq", "<u4"),
        ("cause", "u1"),
    ),
    "hops": (
        ("time_ns", "<u8"),
        ("link", "<u4"),
        ("event", "u1"),
        ("kind", "u1"),
        ("size", "<u4"),
        ("flow", "<u4"),
        ("seq", "<u4"),
        ("uid", "<u8"),
    ),
}

#: Rows decoded and written at a time when streaming a trace.
CHUNK_ROWS = 1 << 20

#: Trace file formats :func:`write_trace` knows.
FORMATS = ("parquet", "csv")


def code_names(trace: str, field: str) -> tuple[str, ...] | None:
    """The category names of a coded column (``event``, ``kind``, ``cause``), else None."""
    if field == "event":
        return HOP_EVENTS if trace == "hops" else SEQ_EVENTS
    if field == "kind":
        return PACKET_KINDS
    if field == "cause":
        return DROP_CAUSES
    return None


class RawTrace:
    """One trace as the core returned it: packed records in memory or in a file."""

    def __init__(self, name: str, entry: Mapping[str, Any]) -> None:
        self.name = name
        self.path: Path | None = None
        self._array: np.ndarray | None = None
        if "fields" in entry:
            self.dtype = np.dtype([(str(n), str(t)) for n, t in entry["fields"]], align=False)
            if entry.get("path") is not None:
                self.path = Path(entry["path"])
            else:
                self._array = np.frombuffer(entry.get("data") or b"", dtype=self.dtype)
        else:
            # The first core format: one little-endian byte buffer per column.
            known = dict(TRACE_FIELDS.get(name, ()))
            fields = [(key, known.get(key, "<f8")) for key in entry]
            self.dtype = np.dtype(fields, align=False)
            columns = {key: np.frombuffer(value, dtype=np.dtype(known.get(key, "<f8"))) for key, value in entry.items()}
            rows = min((len(c) for c in columns.values()), default=0)
            array = np.empty(rows, dtype=self.dtype)
            for key, column in columns.items():
                array[key] = column[:rows]
            self._array = array

    def __len__(self) -> int:
        if self._array is not None:
            return len(self._array)
        assert self.path is not None
        return self.path.stat().st_size // self.dtype.itemsize

    def chunks(self, rows: int = CHUNK_ROWS) -> Iterator[np.ndarray]:
        """Yield the records in chunks of at most *rows* (nothing for an empty trace)."""
        if self._array is not None:
            for start in range(0, len(self._array), rows):
                yield self._array[start : start + rows]
            return
        assert self.path is not None
        with open(self.path, "rb") as f:
            while True:
                chunk = np.fromfile(f, dtype=self.dtype, count=rows)
                if chunk.size == 0:
                    return
                yield chunk

    def read(self) -> np.ndarray:
        """All records at once."""
        if self._array is not None:
            return self._array
        assert self.path is not None
        return np.fromfile(self.path, dtype=self.dtype)

    def empty(self) -> np.ndarray:
        return np.empty(0, dtype=self.dtype)


def _native(column: np.ndarray) -> np.ndarray:
    return column.astype(column.dtype.newbyteorder("="), copy=True)


def _categorical(codes: np.ndarray, names: Sequence[str]) -> pd.Categorical:
    codes = np.asarray(codes).astype(np.int64)
    codes = np.where((codes >= 0) & (codes < len(names)), codes, -1)
    return pd.Categorical.from_codes(codes, categories=list(names))


def decode_records(
    trace: str, records: np.ndarray, flow_names: Sequence[str], link_names: Sequence[str]
) -> pd.DataFrame:
    """Decode packed records of *trace* into a tidy DataFrame.

    ``*_ns`` fields become ``*_s`` (float seconds), ``flow`` and ``link`` indices become
    categorical names (an index out of range becomes missing), coded fields become
    categoricals of :data:`SEQ_EVENTS`, :data:`HOP_EVENTS`, :data:`PACKET_KINDS` or
    :data:`DROP_CAUSES`; every other field keeps its integer or float type.
    """
    data: dict[str, Any] = {}
    for field in records.dtype.names or ():
        column = records[field]
        if field.endswith("_ns"):
            data[field[:-3] + "_s"] = column.astype(np.float64) / 1e9
        elif field == "flow":
            data["flow"] = _categorical(column, flow_names)
        elif field == "link":
            data["link"] = _categorical(column, link_names)
        elif (names := code_names(trace, field)) is not None:
            data[field] = _categorical(column, names)
        else:
            data[field] = _native(column)
    return pd.DataFrame(data)


def restore_types(
    trace: str, frame: pd.DataFrame, flow_names: Sequence[str] = (), link_names: Sequence[str] = ()
) -> pd.DataFrame:
    """Give a trace table read back from a file the column types :func:`decode_records`
    gives: categoricals with every category (CSV keeps only names; an empty Parquet file
    loses the categories), numbers for the columns of an empty CSV file."""
    for column in frame.columns:
        names = code_names(trace, column)
        if column == "flow" and flow_names:
            names = tuple(flow_names)
        elif column == "link" and link_names:
            names = tuple(link_names)
        elif column in ("flow", "link"):
            names = tuple(str(x) for x in pd.unique(frame[column].dropna().astype(str)))
        if names is not None:
            values = frame[column]
            if not isinstance(values.dtype, pd.CategoricalDtype):
                frame[column] = pd.Categorical(values.astype(object), categories=list(names))
            elif [str(c) for c in values.cat.categories] != list(names):
                frame[column] = pd.Categorical(values.astype(object), categories=list(names))
        elif len(frame) == 0 and frame[column].dtype == object:
            frame[column] = frame[column].astype(np.float64 if column.endswith("_s") else np.int64)
    return frame


# ----- writers -------------------------------------------------------------------------------


def write_frames(
    frames: Iterable[pd.DataFrame], path: Path, format: str, empty: pd.DataFrame | Callable[[], pd.DataFrame]
) -> Path:
    """Write a stream of DataFrames (same columns) to one Parquet or CSV file.

    Parquet gets one row group per frame; CSV one header line, then the rows, floats in their
    shortest round-tripping form.  *empty* (a zero-row frame with the right columns, or a
    function returning one) is written when *frames* yields nothing.
    """
    if format == "parquet":
        return _write_parquet(frames, path, empty)
    if format == "csv":
        return _write_csv_stream(frames, path, empty)
    raise ValueError(f"unsupported format {format!r}; allowed: {', '.join(FORMATS)}")


def _empty(empty: pd.DataFrame | Callable[[], pd.DataFrame]) -> pd.DataFrame:
    return empty() if callable(empty) else empty


def _write_parquet(frames: Iterable[pd.DataFrame], path: Path, empty: Any) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer = None
    try:
        for frame in frames:
            if writer is None:
                table = pa.Table.from_pandas(frame, preserve_index=False)
                writer = pq.ParquetWriter(path, table.schema)
            else:
                table = pa.Table.from_pandas(frame, preserve_index=False, schema=writer.schema)
            writer.write_table(table)
        if writer is None:
            table = pa.Table.from_pandas(_empty(empty), preserve_index=False)
            writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table)
    finally:
        if writer is not None:
            writer.close()
    return path


def _write_csv_stream(frames: Iterable[pd.DataFrame], path: Path, empty: Any) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as f:
        header = True
        for frame in frames:
            write_csv(frame, f, header=header)
            header = False
        if header:
            write_csv(_empty(empty), f, header=True)
    return path


def write_csv(frame: pd.DataFrame, target: Any, header: bool = True) -> None:
    """CSV with ``\\n`` line ends and floats in their shortest round-tripping form."""
    frame.to_csv(target, index=False, header=header, lineterminator="\n")


def read_table(path: Path, trace: str | None = None, **names: Sequence[str]) -> pd.DataFrame:
    """Read a table written by :func:`write_frames` (Parquet or CSV, by file suffix)."""
    frame = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
    if trace is not None:
        frame = restore_types(trace, frame, names.get("flow_names", ()), names.get("link_names", ()))
    return frame


def _codes(values: pd.Series, names: Sequence[str]) -> np.ndarray:
    """Integer codes of *values* in *names* (-1 for anything else)."""
    if isinstance(values.dtype, pd.CategoricalDtype) and [str(c) for c in values.cat.categories] == list(names):
        return values.cat.codes.to_numpy(dtype=np.int64)
    if pd.api.types.is_integer_dtype(values.dtype):
        return values.to_numpy(dtype=np.int64)
    lookup = {n: i for i, n in enumerate(names)}
    return values.astype(object).map(lambda v: lookup.get(str(v), -1)).to_numpy(dtype=np.int64)


def hops_columns(frame: pd.DataFrame, link_names: Sequence[str], flow_names: Sequence[str]) -> dict[str, np.ndarray]:
    """The packed-record columns (codes and indices, ``time_ns``) of a decoded ``hops`` table,
    for :func:`ns2_lines` and :class:`PacketIds`."""
    return {
        "time_ns": np.rint(frame["time_s"].to_numpy(dtype=np.float64) * 1e9).astype(np.int64),
        "link": _codes(frame["link"], list(link_names)),
        "event": _codes(frame["event"], HOP_EVENTS),
        "kind": _codes(frame["kind"], PACKET_KINDS),
        "size": frame["size"].to_numpy(dtype=np.int64),
        "flow": _codes(frame["flow"], list(flow_names)),
        "seq": frame["seq"].to_numpy(dtype=np.int64),
        "uid": frame["uid"].to_numpy(dtype=np.int64),
    }


# ----- ns-2 trace lines ----------------------------------------------------------------------

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
    ids = PacketIds(numbering)
    with open(path, "w", encoding="ascii", newline="\n") as f:
        for chunk in chunks:
            f.write(ns2_lines(chunk, numbering, ids.assign(chunk)))
    return path
