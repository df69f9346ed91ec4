"""Small helpers shared by the study modules subedi2008, charalambous1998 and fickling:
replication statistics (mean and Student-t confidence interval) and figure construction."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from renolab.sweep import student_t_quantile

#: One colour per TCP variant, the same in every figure of these studies.
VARIANT_COLOURS = {
    "tahoe": "#7f7f7f",
    "reno": "#d62728",
    "newreno": "#1f77b4",
    "sack": "#2ca02c",
    "vegas": "#9467bd",
    "cbr": "#ff7f0e",
}

#: How each variant is written in prose and legends.
VARIANT_LABELS = {
    "tahoe": "Tahoe",
    "reno": "Reno",
    "newreno": "NewReno",
    "sack": "SACK",
    "vegas": "Vegas",
    "cbr": "CBR/UDP",
}


def mean_ci(values: Iterable[float], confidence: float = 0.95) -> tuple[float, float, int]:
    """Mean, half-width of the *confidence* interval for the mean (Student's t) and n.

    NaN values are left out; with fewer than two values the half-width is NaN.
    """
    x = np.asarray([v for v in values], dtype=np.float64)
    x = x[~np.isnan(x)]
    n = int(x.size)
    if n == 0:
        return math.nan, math.nan, 0
    mean = float(x.mean())
    if n < 2:
        return mean, math.nan, n
    half = student_t_quantile(1.0 - (1.0 - confidence) / 2.0, n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
    return mean, half, n


def new_figure(width: float = 8.0, height: float = 4.5, rows: int = 1, cols: int = 1, **kwargs: Any) -> tuple[Any, Any]:
    """A pyplot-free matplotlib figure and its axes (an array when rows * cols > 1)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=True, **kwargs)
    return fig, axes


def pct(x: float, digits: int = 1) -> str:
    """A fraction as a percentage string."""
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100.0 * x:.{digits}f} %"


def fmt(x: float, digits: int = 3) -> str:
    """A number to *digits* significant digits ('n/a' for NaN)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:.{digits}g}"
