"""Small text helpers for messages: counts with their noun, durations."""

from __future__ import annotations

import math

__all__ = ["format_duration", "human_bytes", "plural"]


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
