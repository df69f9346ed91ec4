"""Writing trace tables to Parquet and CSV, chunk by chunk, and reading them back."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from renolab.traces import FORMATS, UNBOUNDED_COLUMNS
from renolab.traces.decode import restore_types

__all__ = ["for_file", "read_table", "write_csv", "write_frames"]


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
