"""The one figure factory: every figure renolab draws (a run's, a sweep's, a study
report's, the docs' own) is made by :func:`new_figure` or :func:`new_axes` and written by
:func:`save_figure`.

Figures are :class:`matplotlib.figure.Figure` objects without pyplot state, so they draw
headless and in notebooks alike, and nothing has to be closed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    with matplotlib.rc_context(_SAVE_SETTINGS):
        fig.savefig(path, format=fmt, dpi=dpi, metadata=metadata, bbox_inches=bbox)
    return path
