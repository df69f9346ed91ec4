"""What the metric modules share: per-flow arguments, seq event codes, flow grouping, time bins."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Union

import numpy as np
import pandas as pd

from renolab.traces import SEQ_EVENTS

Number = Union[int, float]
PerFlow = Union[Number, Mapping[str, Number], pd.Series]

#: Codes of the ``seq`` trace's events (:data:`renolab.traces.SEQ_EVENTS` order).
SENT, RETX, ACKED, DROPPED, ACK_DROPPED, RECEIVED = (
    SEQ_EVENTS.index(name) for name in ("sent", "retransmitted", "acked", "dropped", "ack_dropped", "received")
)


def per_flow(value: PerFlow | None, flow: str, what: str) -> float:
    if value is None:
        raise ValueError(f"{what} is required")
    if isinstance(value, (Mapping, pd.Series)):
        if flow not in value:
            raise KeyError(f"{what}: no value for flow {flow!r}")
        return float(value[flow])
    return float(value)


def event_codes(events: pd.Series) -> np.ndarray:
    """Integer codes (SEQ_EVENTS order) of a seq trace's ``event`` column."""
    if isinstance(events.dtype, pd.CategoricalDtype) and list(events.cat.categories) == list(SEQ_EVENTS):
        return events.cat.codes.to_numpy(dtype=np.int64)
    if pd.api.types.is_integer_dtype(events.dtype):
        return events.to_numpy(dtype=np.int64)
    lookup = {name: code for code, name in enumerate(SEQ_EVENTS)}
    return events.astype(str).map(lookup).fillna(-1).to_numpy(dtype=np.int64)


def flows_of(frame: pd.DataFrame) -> list[str]:
    column = frame["flow"]
    if isinstance(column.dtype, pd.CategoricalDtype):
        present = set(column.dropna().unique())
        return [str(c) for c in column.cat.categories if c in present]
    return [str(f) for f in pd.unique(column.dropna())]


def rows_by_flow(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """Row positions of each flow's rows, in order."""
    groups = frame.groupby(frame["flow"].astype(str) if not isinstance(frame["flow"].dtype, pd.CategoricalDtype)
                           else frame["flow"], observed=True, sort=False).indices
    return {str(k): np.asarray(v) for k, v in groups.items()}


def bin_count(start_s: float, end_s: float, bin_s: float) -> int:
    if not bin_s > 0:
        raise ValueError(f"bin_s must be positive, got {bin_s!r}")
    return max(1, int(np.ceil((end_s - start_s) / bin_s - 1e-9)))


def bin_index(times: np.ndarray, start_s: float, bin_s: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Bin of each time (time == end goes to the last bin); mask of times inside [start, end]."""
    idx = np.floor((times - start_s) / bin_s + 1e-9).astype(np.int64)
    inside = (times >= start_s) & (idx <= n)
    idx = np.minimum(idx, n - 1)
    inside &= times <= start_s + n * bin_s + 1e-12
    return idx, inside
