"""Trace tables: names, record layouts and code tables; decoding and writing them.

The core hands every recorded trace over as packed little-endian records, either in memory
(``{"fields": [[name, dtype], ...], "data": bytes}``) or in a file it streamed them to
(``{"fields": ..., "path": "<file>"}``).  :mod:`renolab.traces.decode` turns chunks of those
records into tidy :class:`pandas.DataFrame` s (seconds instead of nanoseconds, flow and link
names instead of indices, categorical event / kind / cause columns),
:mod:`renolab.traces.files` writes them chunk by chunk to Parquet or CSV and
:mod:`renolab.traces.ns2` to ns-2 trace lines, so a trace never has to fit in memory.

This module holds what the traces are, without numpy or pandas: the record layouts and the
names of the codes come from the core (``renolab._core.TRACE_FIELDS`` and
``TRACE_CODES``, from ``crates/renolab-core/src/trace/mod.rs``), the one table of them.
The decoder and writers are importable from here too (loaded when first used).

Decoded columns, per trace (see ``docs/outputs.md`` for units):

=========  ====================================================================
``cwnd``   time_s, flow, cwnd, ssthresh, inflated_cwnd
``seq``    time_s, flow, event, seq
``rtt``    time_s, flow, rtt_s, srtt_s, rto_s
``queue``  time_s, link, packets, bytes, marked (1: a row for an ECN mark, not a change), avg_packets,
           queue (all, or DualPI2's l and c), prob
``drops``  time_s, link, flow, kind, seq, cause
``hops``   time_s, link, event, kind, size, flow, seq, uid, ecn
``cc``     time_s, flow, mode, btl_bw_bps, min_rtt_s, pacing_gain, cwnd_gain,
           pacing_rate_bps, delivery_rate_bps, w_max, k_s, epoch_start_s, then one
           column per value the Python controllers trace
=========  ====================================================================
"""

from __future__ import annotations

import importlib
from typing import Any

from renolab import _core

#: Record layout of each trace (numpy dtype strings, packed, little-endian), from the core.
#: The core also sends the layout with every trace; this decodes its older per-column format.
TRACE_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    name: tuple((str(field), str(dtype)) for field, dtype in layout) for name, layout in _core.TRACE_FIELDS.items()
}

#: Every trace the core can record, in documentation order.
TRACE_NAMES = tuple(TRACE_FIELDS)

#: Names of the ``seq`` trace's event codes, in code order.
SEQ_EVENTS = tuple(_core.TRACE_CODES["seq"]["event"])
#: Names of the ``hops`` trace's event codes, in code order (``retry``: a station of a
#: medium sends a frame again) ...
HOP_EVENTS = tuple(_core.TRACE_CODES["hops"]["event"])
#: ... and the ns-2 trace letters for them (a retry is another ``-``).
NS2_EVENTS = ("+", "-", "r", "d", "-")
#: Packet kinds (``kind`` column of ``drops`` and ``hops``), in code order.
PACKET_KINDS = tuple(_core.TRACE_CODES["drops"]["kind"])
#: Drop causes (``cause`` column of ``drops``), in code order.
DROP_CAUSES = tuple(_core.TRACE_CODES["drops"]["cause"])
#: Controller modes (``mode`` column of ``cc``), in code order (the core's ``CC_MODES``).
CC_MODES = tuple(_core.TRACE_CODES["cc"]["mode"])

#: Columns that are infinite while unset (an unset ssthresh): infinite in DataFrames,
#: missing (empty in CSV, null in Parquet) in files.
UNBOUNDED_COLUMNS = {"cwnd": ("ssthresh",)}

#: Rows decoded and written at a time when streaming a trace.
CHUNK_ROWS = 1 << 20

#: Trace file formats :func:`renolab.traces.files.write_frames` knows.
FORMATS = ("parquet", "csv")


def code_names(trace: str, field: str) -> tuple[str, ...] | None:
    """The category names of a coded column (``event``, ``kind``, ``cause``), else None."""
    names = _core.TRACE_CODES.get(trace, {}).get(field)
    if names is not None:
        return tuple(names)
    # A trace without this column: the codes any coded column of that name would have.
    return {"event": SEQ_EVENTS, "kind": PACKET_KINDS, "cause": DROP_CAUSES}.get(field)


#: Names importable from here, loaded from their module when first used.
_LAZY = {
    "RawTrace": "decode",
    "decode_records": "decode",
    "restore_types": "decode",
    "hops_columns": "decode",
    "write_frames": "files",
    "for_file": "files",
    "write_csv": "files",
    "read_table": "files",
    "NS2_PACKET_TYPES": "ns2",
    "Ns2Numbering": "ns2",
    "PacketIds": "ns2",
    "ns2_lines": "ns2",
    "write_ns2": "ns2",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
