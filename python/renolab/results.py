"""Simulation results: per-flow statistics, run summary and recorded traces."""

from __future__ import annotations

import html
import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Union

import numpy as np
import pandas as pd

from renolab import _core

PathLike = Union[str, "os.PathLike[str]"]

# Names of the code columns of the core's trace records, in code order
# (renolab_core::trace::{SeqEvent, DropCause, HopEvent, kind_code}).
SEQ_EVENTS = ("sent", "retransmitted", "acked", "dropped", "ack_dropped")
PACKET_KINDS = ("data", "ack", "syn", "synack", "datagram")
DROP_CAUSES = ("overflow", "early", "aqm", "bit_error", "random", "burst", "scripted")
HOP_EVENTS = ("+", "-", "r", "d")
_CATEGORIES = {"kind": PACKET_KINDS, "cause": DROP_CAUSES}


class TraceNotRecordedError(KeyError, ValueError):
    """Raised by :meth:`Result.trace` for a trace that was not recorded in this run."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class Result:
    """The outcome of :meth:`renolab.Scenario.run`.

    Attributes:
        flows: one row per flow, in scenario order (``completion_time_s`` is NaN
            for flows that did not finish).
        links: one row per link direction with its counters (packets and
            bytes sent, drops, utilisation, ...), as reported by the core.
        summary: run-level facts from the core (seed, events, sim_time_s,
            stop_reason, ...) plus ``renolab_version``, ``wall_time_s`` (measured
            around the core call) and ``scenario`` (the input scenario dict).
    """

    def __init__(self, raw: Mapping[str, Any], *, scenario: Mapping[str, Any], wall_time_s: float) -> None:
        """Wrap the dict returned by ``renolab._core.run``."""
        self.flows: pd.DataFrame = _table_frame(raw["flows"])
        self.links: pd.DataFrame = _table_frame(raw.get("links") or {})
        self.summary: dict[str, Any] = dict(raw["summary"])
        self.summary["renolab_version"] = _core.__version__
        self.summary["wall_time_s"] = wall_time_s
        self.summary["scenario"] = dict(scenario)
        self._raw_traces: dict[str, Mapping[str, Any]] = dict(raw.get("traces") or {})
        self._trace_cache: dict[str, pd.DataFrame] = {}

    @property
    def trace_names(self) -> list[str]:
        """Names of the traces recorded in this run."""
        return list(self._raw_traces)

    def trace(self, name: str) -> pd.DataFrame:
        """Return a recorded trace as a DataFrame.

        Columns: ``time_s`` (float seconds), ``flow`` (flow name) when the trace
        is per flow, then the trace's own columns (for ``cwnd``: ``cwnd`` and
        ``ssthresh``, in segments).  Raises :class:`TraceNotRecordedError` if
        *name* was not requested when running.
        """
        if name not in self._raw_traces:
            recorded = ", ".join(self._raw_traces) or "none"
            raise TraceNotRecordedError(
                f"trace {name!r} was not recorded (recorded: {recorded}); pass trace=[{name!r}] to Scenario.run"
            )
        if name not in self._trace_cache:
            self._trace_cache[name] = self._decode_trace(name, self._raw_traces[name])
        return self._trace_cache[name].copy()

    def save(self, out_dir: PathLike, format: str = "csv") -> list[Path]:
        """Write ``flows.csv``, ``links.csv``, ``summary.json`` and ``<trace>.csv`` per trace into *out_dir*.

        The directory is created if needed.  CSV files are byte-identical for
        the same scenario and seed (floats use the shortest round-tripping
        representation); ``summary.json`` also holds the wall time and so
        differs between runs.  Returns the paths written.
        """
        if format != "csv":
            raise ValueError(f"unsupported format {format!r}; allowed: 'csv'")
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = [out / "flows.csv", out / "links.csv", out / "summary.json"]
        _write_csv(self.flows, written[0])
        _write_csv(self.links, written[1])
        written[2].write_text(json.dumps(self.summary, sort_keys=True, indent=2) + "\n", encoding="utf-8")
        for name in self._raw_traces:
            path = out / f"{name}.csv"
            _write_csv(self.trace(name), path)
            written.append(path)
        return written

    def _decode_trace(self, name: str, raw: Mapping[str, Any]) -> pd.DataFrame:
        arrays = _records(raw)
        data: dict[str, Any] = {}
        if "time_ns" in arrays:
            data["time_s"] = arrays.pop("time_ns") / 1e9
        if "flow" in arrays:
            names = np.asarray(self.flows["flow"].tolist(), dtype=object)
            data["flow"] = names[arrays.pop("flow").astype(np.intp)]
        if "link" in arrays:
            links = np.asarray(self.links["link"].tolist(), dtype=object)
            data["link"] = links[arrays.pop("link").astype(np.intp)]
        if "event" in arrays:
            events = HOP_EVENTS if name == "hops" else SEQ_EVENTS
            data["event"] = pd.Categorical.from_codes(arrays.pop("event").astype(np.int8), categories=list(events))
        for column, categories in _CATEGORIES.items():
            if column in arrays:
                data[column] = pd.Categorical.from_codes(arrays.pop(column).astype(np.int8), categories=list(categories))
        data.update(arrays)
        return pd.DataFrame(data)

    def _headline(self) -> str:
        s = self.summary
        n = len(self.flows)
        sim = s.get("sim_time_s")
        sim_text = f"{sim:.6g} s simulated" if isinstance(sim, (int, float)) else "?"
        traces = ", ".join(self.trace_names) or "none"
        return (
            f"{n} flow{'s' * (n != 1)}, {sim_text}, {s.get('events', '?')} events, "
            f"stop: {s.get('stop_reason', '?')}, wall {s['wall_time_s']:.3g} s, traces: {traces}"
        )

    def __repr__(self) -> str:
        return f"<renolab.Result: {self._headline()}>"

    def _repr_html_(self) -> str:
        table = self.flows.to_html(index=False, max_rows=20, na_rep="–")
        return f"<p><b>renolab.Result</b>: {html.escape(self._headline())}</p>{table}"


def _table_frame(columns: Mapping[str, list[Any]]) -> pd.DataFrame:
    """Build a DataFrame from a dict of columns; numeric columns with missing values become float with NaN."""
    data: dict[str, Any] = {}
    for name, values in columns.items():
        if any(v is None for v in values) and all(_is_number_or_none(v) for v in values):
            data[name] = np.array([math.nan if v is None else v for v in values], dtype=np.float64)
        else:
            data[name] = values
    return pd.DataFrame(data)


def _is_number_or_none(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _records(raw: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Columns of a trace from the core: packed little-endian records, in memory or in a file."""
    dtype = np.dtype([(str(n), str(t)) for n, t in raw["fields"]], align=False)
    records = np.frombuffer(raw["data"], dtype=dtype) if "data" in raw else np.fromfile(raw["path"], dtype=dtype)
    return {n: records[n].astype(records.dtype[n].newbyteorder("=")) for n in records.dtype.names}


def _write_csv(frame: pd.DataFrame, path: Path) -> None:
    # float_format=None writes the shortest representation that round-trips.
    frame.to_csv(path, index=False, lineterminator="\n")
