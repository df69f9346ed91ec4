"""Small text helpers for messages: counts with their noun, durations, aligned tables."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

__all__ = ["aligned", "format_duration", "human_bytes", "plural"]


def aligned(headers: Sequence[str], rows: Sequence[Sequence[str]], *, left: Collection[int] = (0,)) -> list[str]:
    """The lines of a plain-text table: columns two spaces apart, those numbered in *left*
    aligned left and the others right (numbers), no trailing spaces."""
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows)]

    def line(cells: Sequence[str]) -> str:
        padded = (c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
        return "  ".join(padded).rstrip()

    return [line(headers), *(line(r) for r in rows)]


def plural(n: int, word: str) -> str:
    """``"1 run"``, ``"3 runs"``."""
    return f"{n} {word}{'s' * (n != 1)}"


def format_duration(seconds: float) -> str:
    """``"7.0 s"``, ``"3 min 05 s"``, ``"1 h 02 min"``; ``"?"`` when not finite."""
    if not math.isfinite(seconds):
        return "?"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def human_bytes(n: float) -> str:
    """``"512 bytes"``, ``"3.2 MiB"``, ``"1.5 GiB"``."""
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} bytes"
