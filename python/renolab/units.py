"""Rates, durations and sizes written with a unit (``"10Mbps"``, ``"48ms"``, ``"8MiB"``).

There is one parser of these, the core's (``crates/renolab-core/src/units.rs``): the
functions here call it through ``renolab._core``, so Python reads a quantity exactly as a
scenario file is read.

- :func:`rate_bps`, :func:`duration_ns` and :func:`size_bytes` return the exact integer
  and raise ``ValueError`` with the core's message (which says what is allowed).
- :func:`parse_rate_bps` and :func:`parse_duration_s` are lenient, for tables: a number
  passes through as it is, and text that is not a rate / duration gives NaN.
"""

from __future__ import annotations

import math
from typing import Any

from renolab import _core

__all__ = ["duration_ns", "parse_duration_s", "parse_rate_bps", "rate_bps", "size_bytes"]


def rate_bps(text: str) -> int:
    """Bits per second of a rate such as ``"10Mbps"``, ``"1.5 Mbit"`` or ``"50MBps"`` (bytes
    per second, x8): decimal prefixes, case-sensitive (docs/scenario.md, Units)."""
    return int(_core.parse_rate(text))


def duration_ns(text: str) -> int:
    """Nanoseconds of a duration such as ``"48ms"``, ``"0.5s"`` or ``"100us"`` (rounded)."""
    return int(_core.parse_duration(text))


def size_bytes(text: str) -> int:
    """Bytes of a size such as ``"8MiB"``, ``"10MB"`` or ``"1500B"``."""
    return int(_core.parse_bytes(text))


def parse_rate_bps(text: Any) -> float:
    """A rate in bit/s as a float; a number passes through; NaN if *text* is not a rate."""
    if isinstance(text, (int, float)):
        return float(text)
    try:
        return float(_core.parse_rate(str(text)))
    except ValueError:
        return math.nan


def parse_duration_s(text: Any) -> float:
    """A duration in seconds as a float; a number passes through; NaN if *text* is not a
    duration."""
    if isinstance(text, (int, float)):
        return float(text)
    try:
        return _core.parse_duration(str(text)) / 1e9
    except ValueError:
        return math.nan
