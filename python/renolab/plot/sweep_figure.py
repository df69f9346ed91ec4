"""A sweep's metric against its parameters, from ``summary.parquet``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from renolab.plot._common import target

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def sweep_params(summary: pd.DataFrame) -> list[str]:
    """The parameter columns of a sweep's summary table (between ``point`` and ``flow``)."""
    columns = list(summary.columns)
    return columns[columns.index("point") + 1 : columns.index("flow")]


def sweep(
    summary: pd.DataFrame,
    *,
    x: str | None = None,
    y: str = "goodput_bps",
    hue: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """A sweep's metric *y* against parameter *x*: the mean over the replications with its
    95 % confidence interval as an error bar, one line per value of parameter *hue* (and per
    flow when the sweep has several).  *summary* is ``summary.parquet``
    (:func:`renolab.sweep.summarise`).  Default *x*: the first numeric parameter (a rate or
    duration's ``_bps`` / ``_s`` column), else the first; default *hue*: another parameter,
    if any."""
    params = sweep_params(summary)
    metrics = [str(m) for m in pd.unique(summary["metric"].astype(str))]
    if not params:
        raise ValueError("the sweep varies no parameter: nothing to plot against")
    numeric = [p for p in params if pd.api.types.is_numeric_dtype(summary[p]) and not pd.api.types.is_bool_dtype(summary[p])]
    x = x or (numeric[0] if numeric else params[0])
    twins = {x, x.removesuffix("_bps").removesuffix("_s")}
    for name, value, allowed in (("--x", x, params), ("--hue", hue, params), ("--y", y, metrics)):
        if value is not None and value not in allowed:
            raise ValueError(f"{name}: {value!r} is not a {'metric' if name == '--y' else 'parameter'} of this sweep; allowed: {', '.join(allowed)}")
    if hue is None:
        others = [p for p in params if p not in twins and f"{p}_bps" not in twins and f"{p}_s" not in twins
                  and p not in (f"{q}_bps" for q in params) and p not in (f"{q}_s" for q in params)]
        hue = others[0] if others else None
    fig, ax = target(ax)
    rows = summary[summary["metric"].astype(str) == y]
    flows = [str(f) for f in pd.unique(rows["flow"].astype(str))]
    categorical = not (pd.api.types.is_numeric_dtype(rows[x]) and not pd.api.types.is_bool_dtype(rows[x]))
    if categorical:
        levels = [str(v) for v in pd.unique(rows[x].astype(str))]
        position = {v: i for i, v in enumerate(levels)}
        ax.set_xticks(range(len(levels)), levels)
    groups = [(None, rows)] if hue is None else list(rows.groupby(rows[hue].astype(str), sort=False))
    if categorical:
        dodge = 0.6
    else:
        steps = np.diff(np.unique(rows[x].to_numpy(dtype=np.float64)))
        dodge = 0.3 * float(steps.min()) if len(steps) else 0.0
    n_lines = len(groups) * len(flows)
    line = 0
    for value, part in groups:
        for flow in flows:
            points = part[part["flow"].astype(str) == flow]
            xs = (points[x].astype(str).map(position).to_numpy(dtype=np.float64) if categorical
                  else points[x].to_numpy(dtype=np.float64))
            order = np.argsort(xs, kind="stable")
            xs = xs[order]
            if n_lines > 1:  # dodge: error bars side by side, not on top of each other
                xs = xs + (line - (n_lines - 1) / 2) * dodge / n_lines
            label = ", ".join(str(v) for v in ((f"{hue} = {value}" if hue else None), (flow if len(flows) > 1 else None)) if v)
            ax.errorbar(xs, points["mean"].to_numpy(dtype=np.float64)[order],
                        yerr=points["ci95"].to_numpy(dtype=np.float64)[order], marker="o", ms=4, capsize=3,
                        lw=1.2, color=f"C{line % 10}", label=label or None)
            line += 1
    n = rows["n"]
    runs = f"{int(n.min())}" if len(n) and n.min() == n.max() else f"{int(n.min())}-{int(n.max())}" if len(n) else "0"
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title(f"{y} vs {x}: mean and 95 % confidence interval over {runs} runs")
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small", loc="best")
    return fig
