"""How ``renolab bench`` reads and prints: durations given on the command line, aligned
tables, numbers with SI prefixes, medians with their spread."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Callable

from renolab._text import aligned
from renolab.bench.measure import Run
from renolab.units import duration_ns


def spread(values: Sequence[float]) -> tuple[float, float, float]:
    """(min, median, max) of *values*."""
    return min(values), statistics.median(values), max(values)


def si(value: float) -> str:
    """*value* to 3 significant digits with a k, M or G prefix: ``"5.1 M"``."""
    for scale, suffix in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.3g}"


def ranged(values: Sequence[float], fmt: Callable[[float], str]) -> str:
    """``"median [min-max]"`` of *values*, each written by *fmt* (the median alone for one)."""
    lo, mid, hi = spread(values)
    if len(values) == 1:
        return fmt(mid)
    return f"{fmt(mid)} [{fmt(lo)}-{fmt(hi)}]"


def peak_rss(runs: Sequence[Run]) -> str:
    """The largest peak RSS of *runs* in MB ("n/a" when none is known)."""
    known = [r.peak_rss_bytes for r in runs if r.peak_rss_bytes is not None]
    return f"{max(known) / 1e6:.1f}" if known else "n/a"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """*headers* and *rows* as aligned lines: the first column left, the others right."""
    return aligned(headers, rows)


def rate_text(bps: int) -> str:
    """A bottleneck rate as ``"100 Mb/s"`` or ``"10 Gb/s"``."""
    return f"{bps / 1e9:g} Gb/s" if bps >= 1_000_000_000 else f"{bps / 1e6:g} Mb/s"


def parse_duration(text: str) -> float:
    """``"30s"``, ``"500ms"``, ``"1.5min"`` (read as a scenario's durations are,
    :func:`renolab.units.duration_ns`) or a bare number of seconds, in seconds."""
    try:
        seconds = float(text)
    except ValueError:
        try:
            seconds = duration_ns(text) / 1e9
        except ValueError:
            raise ValueError(f"{text!r} is not a duration; use e.g. 30s or 500ms") from None
    if not (seconds > 0 and math.isfinite(seconds)):
        raise ValueError(f"{text!r}: the duration must be positive")
    return seconds


def duration_text(seconds: float) -> str:
    """*seconds* as a scenario duration: ``"30s"``."""
    return f"{seconds:.9g}s"
