"""The one figure factory: every figure renolab draws (a run's, a sweep's, a study
report's, the docs' own) is made by :func:`new_figure` or :func:`new_axes` and written by
:func:`save_figure`.

Figures are :class:`matplotlib.figure.Figure` objects without pyplot state, so they draw
headless and in notebooks alike, and nothing has to be closed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from renolab._files import new_path

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["RASTER_POINTS", "new_axes", "new_figure", "save_figure"]

#: Series longer than this are rasterised inside vector files (an SVG of a million points
#: is unreadable and slow).
RASTER_POINTS = 50_000
#: Matplotlib settings while a figure is written: element ids that do not change from one
#: run to the next (byte-identical SVGs), and text kept as text (searchable, small).
_SAVE_SETTINGS = {"svg.hashsalt": "renolab", "svg.fonttype": "none"}


def new_figure(width: float = 8.0, height: float = 4.5, *, layout: str | None = "constrained") -> Figure:
    """An empty figure of *width* x *height* inches.  *layout* ``"constrained"`` (default)
    keeps labels and legends inside the figure; ``None`` leaves the margins to the caller
    (faster for a page whose layout is fixed)."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout=layout)


def new_axes(
    width: float = 8.0, height: float = 4.5, rows: int = 1, cols: int = 1, *, squeeze: bool = True, **subplots: Any
) -> tuple[Figure, Any]:
    """A constrained-layout figure and its *rows* x *cols* axes (one ``Axes`` when both are 1
    and *squeeze*, else an array; always a 2-d array with ``squeeze=False``).  *subplots*
    goes to :meth:`matplotlib.figure.Figure.subplots` (``sharex``, ``sharey``, ...)."""
    fig = new_figure(width, height)
    return fig, fig.subplots(rows, cols, squeeze=squeeze, **subplots)


def save_figure(fig: Figure, path: Path | str, *, dpi: int = 120, fmt: str | None = None) -> Path:
    """Write *fig* to *path* (format from *fmt*, else from the suffix) without the date or
    the software version in the file, so the same figure gives the same bytes."""
    import matplotlib

    path = Path(path)
    fmt = fmt or path.suffix.lstrip(".")
    metadata = {"Date": None} if fmt in ("svg", "pdf") else {"Software": None}
    # A figure with a layout engine is laid out already; a second "tight" pass would only
    # double the drawing time.
    bbox = None if fig.get_layout_engine() is not None else "tight"
    # Under a temporary name, renamed at the end: never through a link planted at path.
    with matplotlib.rc_context(_SAVE_SETTINGS), new_path(path) as tmp:
        fig.savefig(tmp, format=fmt, dpi=dpi, metadata=metadata, bbox_inches=bbox)
    return path


# ----- conventions every figure follows -------------------------------------------------------------


def legend_outside(ax: Any, *, max_entries: int | None = None, **options: Any) -> Any:
    """A legend to the right of *ax*, outside the data (the constrained layout makes room
    for it); None when nothing is labelled.  With more than *max_entries* labels only the
    first *max_entries* are listed (*options* go to :meth:`matplotlib.axes.Axes.legend`)."""
    handles, labels = ax.get_legend_handles_labels()
    if "handles" in options:
        handles, labels = options.pop("handles"), None
    if not handles:
        return None
    if max_entries is not None and len(handles) > max_entries:
        handles = handles[:max_entries]
        labels = labels[:max_entries] if labels is not None else None
    settings = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0, "fontsize": "small", **options}
    if labels is None:
        return ax.legend(handles=handles, **settings)
    return ax.legend(handles, labels, **settings)


def geometric_base(values: Any) -> int | None:
    """The log base for an axis through *values*: 2 when each value doubles the one before
    (the sweeps of buffer sizes and rates), 10 for another constant ratio of at least 1.5,
    None when the values are not a geometric series of at least three positive numbers."""
    import numpy as np

    v = np.unique(np.asarray(values, dtype=np.float64))
    v = v[np.isfinite(v)]
    if len(v) < 3 or v[0] <= 0:
        return None
    ratios = v[1:] / v[:-1]
    exponents = np.log2(ratios)
    if np.allclose(exponents, np.round(exponents), atol=0.1) and (np.round(exponents) >= 1).all():
        return 2
    if np.allclose(ratios, ratios[0], rtol=0.02) and ratios[0] >= 1.5:
        return 10
    return None


def value_axis(ax: Any, values: Any, *, axis: str = "x", text: Any = None) -> None:
    """Scale the *axis* of *ax* for *values*: logarithmic (base 2 for doublings) when they are
    a geometric series, with a tick at each value written plainly (``text(v)``, default
    ``f"{v:g}"``), no minor ticks."""
    import numpy as np
    from matplotlib.ticker import NullFormatter, NullLocator

    base = geometric_base(values)
    if base is None:
        return
    ticks = np.unique(np.asarray(values, dtype=np.float64))
    labels = [text(v) if text else f"{v:g}" for v in ticks]
    target = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=base)
    (ax.set_xticks if axis == "x" else ax.set_yticks)(ticks, labels)
    target.set_minor_locator(NullLocator())
    target.set_minor_formatter(NullFormatter())


def clipped_errors(mean: Any, half: Any, low: float | None = None, high: float | None = None) -> Any:
    """Asymmetric error bars (a 2 x n array) for intervals ``mean ± half`` clipped to the
    metric's range [*low*, *high*] (Jain's index and fractions never above 1, counts and
    rates never below 0); a missing half-width draws no bar."""
    import numpy as np

    mean = np.asarray(mean, dtype=np.float64)
    half = np.nan_to_num(np.asarray(half, dtype=np.float64), nan=0.0)
    lower, upper = mean - half, mean + half
    if low is not None:
        lower = np.maximum(lower, low)
    if high is not None:
        upper = np.minimum(upper, high)
    return np.vstack([np.maximum(mean - lower, 0.0), np.maximum(upper - mean, 0.0)])


def dodge(ax: Any, index: int, count: int, *, spread_points: float = 16.0) -> Any:
    """A transform that shifts series *index* of *count* sideways by a few points, so that
    their markers and error bars at the same x stand side by side (on any scale, categorical
    axes included)."""
    from matplotlib.transforms import ScaledTranslation

    if count <= 1:
        return ax.transData
    offset = (index - (count - 1) / 2) * spread_points / max(count - 1, 1) / 72.0
    return ax.transData + ScaledTranslation(offset, 0.0, ax.figure.dpi_scale_trans)


def dodged_errorbar(ax: Any, x: Any, y: Any, yerr: Any, index: int, count: int, **style: Any) -> Any:
    """:meth:`~matplotlib.axes.Axes.errorbar` of series *index* of *count*, shifted by
    :func:`dodge`; the axes' limits still take in every point and bar (a shifted artist is
    not autoscaled by matplotlib itself).  *x* may be categories (strings)."""
    import numpy as np

    bars = ax.errorbar(x, y, yerr=yerr, transform=dodge(ax, index, count), **style)
    xs = np.asarray(ax.convert_xunits(list(x)), dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    err = np.zeros((2, len(y))) if yerr is None else np.broadcast_to(np.asarray(yerr, dtype=np.float64), (2, len(y)))
    points = np.column_stack([np.concatenate([xs, xs]), np.concatenate([y - err[0], y + err[1]])])
    ax.update_datalim(points[np.isfinite(points).all(axis=1)])
    ax.autoscale_view()
    return bars


def figure_legend(fig: Any, handles: Any = None, **options: Any) -> Any:
    """One legend for the whole figure, under its panels, outside the data (the constrained
    layout makes room; a title above stays clear), in up to six columns; *handles* default
    to the labelled artists of the first panel that has any."""
    if handles is None:
        handles = next((ax.get_legend_handles_labels()[0] for ax in fig.axes if ax.get_legend_handles_labels()[0]), [])
    if not handles:
        return None
    settings = {"loc": "outside lower center", "ncol": min(len(handles), 6), "fontsize": "small", **options}
    return fig.legend(handles=handles, **settings)
