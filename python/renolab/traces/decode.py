"""Decoding packed trace records into DataFrames, and back into record columns."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from renolab.traces import CHUNK_ROWS, HOP_EVENTS, PACKET_KINDS, TRACE_FIELDS, UNBOUNDED_COLUMNS, code_names

__all__ = ["RawTrace", "decode_records", "hops_columns", "restore_types"]


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
    for column in UNBOUNDED_COLUMNS.get(trace, ()):
        if column in frame.columns:  # missing in a file: unset, i.e. infinite
            frame[column] = frame[column].astype(np.float64).fillna(np.inf)
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
