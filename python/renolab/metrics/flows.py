"""Per-flow figures: utilisation, goodput, drop rate, Jain's index, bottlenecks."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from renolab import stats
from renolab.metrics._common import Number
from renolab.routing import bottleneck_rows, flow_path

__all__ = ["bottlenecks", "drop_rate", "flow_path", "goodput", "jain_index", "utilisation"]


def jain_index(values: Iterable[Number]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2) of the allocations *values*.

    1 when all are equal, 1/n when one gets everything; NaN for no values or all zeros.
    Missing values (NaN) are left out.  (:func:`renolab.stats.jain_index`.)
    """
    if isinstance(values, (np.ndarray, pd.Series)):
        values = np.asarray(values, dtype=np.float64).tolist()
    return stats.jain_index(values)


def utilisation(bits: Any, capacity_bps: Any, completion_time_s: Any) -> Any:
    """lee2001's average link utilisation mu(x) = x / (C t_c(x)).

    *bits* is the payload transferred (x), *capacity_bps* the bottleneck capacity C and
    *completion_time_s* the transfer completion time t_c.  Works element-wise on arrays and
    Series; NaN where t_c is missing or zero.
    """
    bits = np.asarray(bits, dtype=np.float64)
    denominator = np.asarray(capacity_bps, dtype=np.float64) * np.asarray(completion_time_s, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.where(denominator > 0, bits / np.where(denominator > 0, denominator, 1.0), np.nan)
    return float(mu) if mu.ndim == 0 else mu


def goodput(bytes_delivered: Any, duration_s: Any) -> Any:
    """Goodput in bit/s: payload bytes delivered to the application, each byte once, over
    *duration_s*.  NaN where the duration is missing or zero."""
    b = np.asarray(bytes_delivered, dtype=np.float64)
    d = np.asarray(duration_s, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(d > 0, b * 8.0 / np.where(d > 0, d, 1.0), np.nan)
    return float(g) if g.ndim == 0 else g


def drop_rate(drops: Any, sent: Any) -> Any:
    """Fraction of the packets sent that were dropped (fickling's drop rate); NaN if none sent."""
    n = np.asarray(drops, dtype=np.float64)
    s = np.asarray(sent, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(s > 0, n / np.where(s > 0, s, 1.0), np.nan)
    return float(r) if r.ndim == 0 else r


def bottlenecks(flows: pd.DataFrame, links: pd.DataFrame) -> pd.DataFrame:
    """Each flow's bottleneck: the slowest link direction on its data path (the first of
    equals).  *links* needs ``rate_bps``.  Columns ``flow, bottleneck, bottleneck_bps, path``
    (path: the link direction names from source to destination)."""
    return pd.DataFrame(bottleneck_rows(flows, links), columns=["flow", "bottleneck", "bottleneck_bps", "path"])
