"""Small helpers shared by the study modules subedi2008, charalambous1998 and fickling:
variant colours and labels, figure construction, number formatting.  Replication
statistics (mean and Student-t confidence interval) are :func:`renolab.stats.mean_ci`."""

from __future__ import annotations

import math
from typing import Any

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
