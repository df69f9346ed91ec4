"""Flow completion times: the table FCT studies print (pFabric, HPCC, DCTCP's and L4S's
evaluations), slowdown by flow size.

A flow's completion time ``fct_s`` runs from its start to its last byte delivered; its
``slowdown`` is ``fct_s / ideal_fct_s``, the ideal being its completion time alone on its
path (docs/workloads.md gives the formula).  Both are columns of ``flows.csv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["DEFAULT_BUCKETS", "FCT_SUMMARY_COLUMNS", "fct_summary", "size_buckets"]

#: pFabric's size classes (Alizadeh et al., SIGCOMM 2013, §5): small flows up to 100 KB,
#: medium to 10 MB, large above; the bucket edges, bytes.
DEFAULT_BUCKETS: tuple[float, ...] = (0, 100e3, 10e6, float("inf"))

#: The columns of :func:`fct_summary`'s table.
FCT_SUMMARY_COLUMNS = [
    "bucket", "size_lo_bytes", "size_hi_bytes", "flows", "finished",
    "mean_fct_s", "p99_fct_s", "mean_slowdown", "median_slowdown", "p99_slowdown",
]


def _flows(result: Any) -> pd.DataFrame:
    flows = result.flows if hasattr(result, "flows") else result
    if not isinstance(flows, pd.DataFrame):
        raise TypeError(f"expected a Result or its flows table (a DataFrame), got {type(flows).__name__}")
    missing = [c for c in ("size_bytes", "fct_s", "slowdown") if c not in flows]
    if missing:
        raise ValueError(f"the flows table has no {missing[0]!r} column (a run of renolab before flow workloads?)")
    return flows


def _label(lo: float, hi: float) -> str:
    def size(b: float) -> str:
        for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
            if b >= scale:
                return f"{b / scale:g}{unit}"
        return f"{b:g}B"

    if np.isinf(hi):
        return f">{size(lo)}"
    return f"{size(lo)}-{size(hi)}" if lo > 0 else f"<={size(hi)}"


def size_buckets(sizes: Any, buckets: Sequence[float] = DEFAULT_BUCKETS) -> pd.Series:
    """The bucket label of each size in *sizes* (bytes): bucket ``i`` holds sizes in
    ``(buckets[i], buckets[i + 1]]``."""
    edges = [float(b) for b in buckets]
    if len(edges) < 2 or any(b >= a for a, b in zip(edges[1:], edges)):
        raise ValueError(f"buckets: expected at least two increasing size edges in bytes, got {list(buckets)!r}")
    labels = [_label(lo, hi) for lo, hi in zip(edges, edges[1:])]
    return pd.cut(pd.Series(sizes, dtype="float64"), bins=edges, labels=labels, right=True)


def fct_summary(result: Any, buckets: Sequence[float] = DEFAULT_BUCKETS) -> pd.DataFrame:
    """Completion times and slowdowns by flow size: one row per size bucket (bucket ``i``
    holds the finite flows of ``(buckets[i], buckets[i + 1]]`` bytes; default pFabric's
    small, medium and large) and a last row ``"all"``.

    *result* is a :class:`renolab.Result` or its ``flows`` table.  Columns
    :data:`FCT_SUMMARY_COLUMNS`: the flows in the bucket and how many finished; of the
    finished ones, the mean and 99th percentile FCT (seconds) and the mean, median and 99th
    percentile slowdown (NaN where none finished, or no ideal time is known).  Unlimited
    flows (no ``size_bytes``) are left out.
    """
    flows = _flows(result)
    finite = flows[flows["size_bytes"].notna()]
    edges = [float(b) for b in buckets]
    labels = size_buckets(finite["size_bytes"], edges)
    rows = []
    groups = [(lo, hi, finite[(labels == label).to_numpy()]) for (lo, hi), label in
              zip(zip(edges, edges[1:]), labels.cat.categories)]
    groups.append((edges[0], edges[-1], finite[labels.notna().to_numpy()]))
    for i, (lo, hi, part) in enumerate(groups):
        fct = part["fct_s"].dropna().to_numpy(dtype=np.float64)
        slowdown = part["slowdown"].dropna().to_numpy(dtype=np.float64)
        rows.append({
            "bucket": "all" if i == len(groups) - 1 else _label(lo, hi),
            "size_lo_bytes": lo,
            "size_hi_bytes": hi,
            "flows": len(part),
            "finished": len(fct),
            "mean_fct_s": float(fct.mean()) if len(fct) else np.nan,
            "p99_fct_s": float(np.percentile(fct, 99)) if len(fct) else np.nan,
            "mean_slowdown": float(slowdown.mean()) if len(slowdown) else np.nan,
            "median_slowdown": float(np.median(slowdown)) if len(slowdown) else np.nan,
            "p99_slowdown": float(np.percentile(slowdown, 99)) if len(slowdown) else np.nan,
        })
    return pd.DataFrame(rows, columns=FCT_SUMMARY_COLUMNS)
