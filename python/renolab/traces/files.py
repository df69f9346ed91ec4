"""Writing trace tables to Parquet and CSV, chunk by chunk, and reading them back."""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from renolab._files import publish, temporary_beside
from renolab.traces import FORMATS, UNBOUNDED_COLUMNS
from renolab.traces.decode import restore_types

__all__ = ["RUN_ID_KEY", "Written", "WriteStopped", "csv_text", "for_file", "parquet_run_id", "read_table", "write_csv", "write_frames", "write_trace"]

#: Key of the run id in a Parquet trace's metadata.
RUN_ID_KEY = b"renolab_run_id"


@dataclass
class Written:
    """What a trace writer put in its file: rows, the time of the last row, bytes, the
    SHA-256 of the bytes (CSV; None for Parquet, which carries the run id instead)."""

    path: Path
    rows: int = 0
    last_time_s: float | None = None
    bytes: int = 0
    sha256: str | None = None


class WriteStopped(Exception):
    """A trace file stopped before its end (*cause*: a write that failed, or Ctrl-C): what
    it holds is in :attr:`written` (its whole chunks; None if nothing was kept)."""

    def __init__(self, written: Written | None, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.written = written
        self.cause = cause


def write_frames(
    frames: Iterable[pd.DataFrame],
    path: Path,
    format: str,
    empty: pd.DataFrame | Callable[[], pd.DataFrame],
    *,
    run_id: str | None = None,
) -> Path:
    """:func:`write_trace`, returning the path written."""
    return write_trace(frames, Path(path), format, empty, run_id=run_id).path


def write_trace(
    frames: Iterable[pd.DataFrame],
    path: Path,
    format: str,
    empty: pd.DataFrame | Callable[[], pd.DataFrame],
    *,
    run_id: str | None = None,
) -> Written:
    """Write a stream of DataFrames (same columns) to one Parquet or CSV file.

    Parquet gets one row group per frame (and *run_id* in its metadata, key
    ``renolab_run_id``); CSV one header line, then the rows, floats in their shortest
    round-tripping form.  *empty* (a zero-row frame with the right columns, or a function
    returning one) is written when *frames* yields nothing. The file is written under a
    temporary name and renamed at the end (:mod:`renolab._files`); if writing stops early
    (a full disk, Ctrl-C) what was written whole is kept under the final name and
    :class:`WriteStopped` raised.
    """
    if format == "parquet":
        return _write_parquet(frames, path, empty, run_id)
    if format == "csv":
        return _write_csv_stream(frames, path, empty)
    raise ValueError(f"unsupported format {format!r}; allowed: {', '.join(FORMATS)}")


def _last_time(frame: pd.DataFrame, last: float | None) -> float | None:
    if len(frame) and "time_s" in frame.columns:
        return float(frame["time_s"].iloc[-1])
    return last


def for_file(trace: str, frame: pd.DataFrame) -> pd.DataFrame:
    """*frame* as trace files hold it: an infinite (unset) ssthresh becomes missing, which
    CSV writes as an empty cell and Parquet as null (:func:`read_table` turns it back)."""
    columns = [c for c in UNBOUNDED_COLUMNS.get(trace, ()) if c in frame.columns]
    if not columns:
        return frame
    frame = frame.copy()
    for column in columns:
        values = frame[column].to_numpy(dtype=np.float64)
        frame[column] = np.where(np.isinf(values), np.nan, values)
    return frame


def _empty(empty: pd.DataFrame | Callable[[], pd.DataFrame]) -> pd.DataFrame:
    return empty() if callable(empty) else empty


def _write_parquet(frames: Iterable[pd.DataFrame], path: Path, empty: Any, run_id: str | None) -> Written:
    import pyarrow as pa
    import pyarrow.parquet as pq

    tmp = temporary_beside(path)
    written = Written(path)
    writer = None

    def open_writer(table: pa.Table) -> pq.ParquetWriter:
        schema = table.schema
        if run_id is not None:
            schema = schema.with_metadata({**(schema.metadata or {}), RUN_ID_KEY: run_id.encode()})
        return pq.ParquetWriter(tmp, schema)

    try:
        for frame in frames:
            if writer is None:
                table = pa.Table.from_pandas(frame, preserve_index=False)
                writer = open_writer(table)
            else:
                table = pa.Table.from_pandas(frame, preserve_index=False, schema=writer.schema)
            writer.write_table(table)
            written.rows += len(frame)
            written.last_time_s = _last_time(frame, written.last_time_s)
        if writer is None:
            table = pa.Table.from_pandas(_empty(empty), preserve_index=False)
            writer = open_writer(table)
            writer.write_table(table)
        writer.close()
        writer = None
        written.bytes = tmp.stat().st_size
        publish(tmp, path)
        return written
    except BaseException as exc:
        # The row groups written whole stay readable once the footer is written.
        kept = None
        if writer is not None and written.rows:
            try:
                writer.close()
                written.bytes = tmp.stat().st_size
                publish(tmp, path)
                kept = written
            except BaseException:  # noqa: BLE001 - the file is lost, not the run
                pass
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise WriteStopped(kept, exc) from exc


def _write_csv_stream(frames: Iterable[pd.DataFrame], path: Path, empty: Any) -> Written:
    tmp = temporary_beside(path)
    written = Written(path)
    digest = hashlib.sha256()
    good = digest.copy()  # of the bytes written whole
    try:
        with open(tmp, "wb") as f:
            header = True
            for frame in frames:
                data = csv_text(frame, header=header).encode("utf-8")
                header = False
                f.write(data)
                digest.update(data)
                good = digest.copy()
                written.bytes += len(data)
                written.rows += len(frame)
                written.last_time_s = _last_time(frame, written.last_time_s)
            if header:
                data = csv_text(_empty(empty), header=True).encode("utf-8")
                f.write(data)
                digest.update(data)
                good = digest.copy()
                written.bytes += len(data)
        written.sha256 = good.hexdigest()
        publish(tmp, path)
        return written
    except BaseException as exc:
        kept = None
        try:
            if written.bytes:
                # Whole chunks only (truncating frees the rest on a full disk).
                os.truncate(tmp, written.bytes)
                written.sha256 = good.hexdigest()
                publish(tmp, path)
                kept = written
        except BaseException:  # noqa: BLE001
            pass
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise WriteStopped(kept, exc) from exc


def csv_text(frame: pd.DataFrame, header: bool = True) -> str:
    """*frame* as CSV text: ``\\n`` line ends, floats in their shortest round-tripping form."""
    return frame.to_csv(None, index=False, header=header, lineterminator="\n")


def write_csv(frame: pd.DataFrame, target: Any, header: bool = True) -> None:
    """CSV with ``\\n`` line ends and floats in their shortest round-tripping form."""
    frame.to_csv(target, index=False, header=header, lineterminator="\n")


def read_table(path: Path, trace: str | None = None, **names: Sequence[str]) -> pd.DataFrame:
    """Read a table written by :func:`write_frames` (Parquet or CSV, by file suffix)."""
    frame = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
    if trace is not None:
        frame = restore_types(trace, frame, names.get("flow_names", ()), names.get("link_names", ()))
    return frame


def parquet_run_id(path: Path) -> str | None:
    """The run id a Parquet trace carries (its footer only is read), or None."""
    import pyarrow.parquet as pq

    metadata = pq.read_schema(path).metadata or {}
    value = metadata.get(RUN_ID_KEY)
    return value.decode("utf-8", "replace") if value is not None else None
