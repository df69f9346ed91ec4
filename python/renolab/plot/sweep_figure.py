"""A sweep's metric against its parameters, from ``summary.parquet``: the mean with its 95 %
interval (clipped to the metric's range) per point, Mb/s and ms rather than bit/s and
seconds, a log-2 axis for doubling values, markers without lines for categories, metrics
shared by a bottleneck's flows (Jain's index) drawn once, and the legend outside the data."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from renolab.plot._common import target
from renolab.plot.figure import clipped_errors, dodged_errorbar, legend_outside, value_axis
from renolab.plot.quantities import SHARED_BY_FLOWS, metric, parameter

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def sweep_params(summary: pd.DataFrame) -> list[str]:
    """The parameter columns of a sweep's summary table (between ``point`` and ``flow``)."""
    columns = list(summary.columns)
    return columns[columns.index("point") + 1 : columns.index("flow")]


def _numeric(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def sweep_axes(summary: pd.DataFrame, *, x: str | None = None, y: str = "goodput_bps", hue: str | None = None) -> tuple[str, str | None]:
    """The parameters on the x axis and as the hue, defaults resolved: *x* the first numeric
    parameter (a rate or duration's ``_bps`` / ``_s`` column), else the first; *hue*
    another parameter, if any.  ValueError naming what is allowed for a name that is not
    a parameter (or metric) of the sweep."""
    params = sweep_params(summary)
    metrics = [str(m) for m in pd.unique(summary["metric"].astype(str))]
    if not params:
        raise ValueError("the sweep varies no parameter: nothing to plot against")
    numeric = [p for p in params if _numeric(summary[p])]
    x = x or (numeric[0] if numeric else params[0])
    for name, value, allowed in (("--x", x, params), ("--hue", hue, params), ("--y", y, metrics)):
        if value is not None and value not in allowed:
            raise ValueError(f"{name}: {value!r} is not a {'metric' if name == '--y' else 'parameter'} of this sweep; allowed: {', '.join(allowed)}")
    if hue is None:
        twins = {x, x.removesuffix("_bps").removesuffix("_s")}
        others = [p for p in params if p not in twins and f"{p}_bps" not in twins and f"{p}_s" not in twins
                  and p not in (f"{q}_bps" for q in params) and p not in (f"{q}_s" for q in params)]
        hue = others[0] if others else None
    return x, hue


def _series(rows: pd.DataFrame, hue: str | None, y: str) -> list[tuple[str | None, pd.DataFrame]]:
    """The lines to draw: one per hue value and flow; a metric the flows of a bottleneck
    share (Jain's index) once per distinct series, labelled by all its flows."""
    flows = [str(f) for f in pd.unique(rows["flow"].astype(str))]
    groups = [(None, rows)] if hue is None else list(rows.groupby(rows[hue].astype(str), sort=False))
    out: list[tuple[str | None, pd.DataFrame]] = []
    for value, part in groups:
        seen: dict[bytes, list[str]] = {}
        parts: dict[str, pd.DataFrame] = {}
        for flow in flows:
            points = part[part["flow"].astype(str) == flow]
            key = points[["mean", "ci95"]].to_numpy(dtype=np.float64).round(12).tobytes() if y in SHARED_BY_FLOWS else flow.encode()
            if key not in seen:
                seen[key], parts[flow] = [], points
            seen[key].append(flow)
        for members in seen.values():
            who = None if len(flows) == 1 or len(members) == len(flows) else ("flows " if len(members) > 1 else "") + ", ".join(members)
            label = ", ".join(v for v in ((f"{parameter(hue).name} = {value}" if hue else None), who) if v)
            out.append((label or None, parts[members[0]]))
    return out


def sweep(
    summary: pd.DataFrame,
    *,
    x: str | None = None,
    y: str = "goodput_bps",
    hue: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """A sweep's metric *y* against parameter *x*: the mean over the replications with its
    95 % confidence interval as an error bar, one series per value of parameter *hue* (and
    per flow when the sweep has several; once for a metric the flows share).  *summary* is
    ``summary.parquet`` (:func:`renolab.sweep.summarise`); defaults as :func:`sweep_axes`."""
    x, hue = sweep_axes(summary, x=x, y=y, hue=hue)
    fig, ax = target(ax, 9.0, 4.5)
    rows = summary[summary["metric"].astype(str) == y]
    categorical = not _numeric(rows[x])
    xq = parameter(x, rows[x] if not categorical else None)
    yq = metric(y, rows["mean"])
    low, high = yq.limits()
    series = _series(rows, hue, y)
    for i, (label, points) in enumerate(series):
        if categorical:
            xs: Any = points[x].astype(str).tolist()
            order = list(range(len(xs)))
        else:
            raw = points[x].to_numpy(dtype=np.float64)
            order = list(np.argsort(raw, kind="stable"))
            xs = xq.shown(raw[order])
        mean = yq.shown(points["mean"].to_numpy(dtype=np.float64)[order])
        half = yq.shown(points["ci95"].to_numpy(dtype=np.float64)[order])
        dodged_errorbar(ax, xs, mean, clipped_errors(mean, half, low, high), i, len(series), marker="o", ms=4,
                        capsize=3, lw=1.2, ls="none" if categorical else "-", color=f"C{i % 10}", label=label)
    if categorical:
        ax.margins(x=0.15)
    else:
        value_axis(ax, xq.shown(rows[x].to_numpy(dtype=np.float64)))
    if low is not None:
        ax.set_ylim(bottom=min(low, ax.get_ylim()[0]))
    if high is not None:
        ax.set_ylim(top=high * 1.02 if high else high)
    n = rows["n"]
    runs = f"{int(n.min())}" if len(n) and n.min() == n.max() else f"{int(n.min())}-{int(n.max())}" if len(n) else "0"
    ax.set_xlabel(xq.label)
    ax.set_ylabel(yq.label)
    ax.set_title(f"{yq.name} vs {xq.name}\nmean and 95 % confidence interval over {runs} runs", fontsize="medium")
    ax.grid(True, alpha=0.3)
    legend_outside(ax)
    return fig
