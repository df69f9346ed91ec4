"""How a quantity is written on an axis: its name, its unit, the scale from the stored value
(bit/s, seconds) to the shown one (Mb/s, ms), and the range its values can take -- so that
every axis carries a unit and an interval never leaves the range (Jain's index above 1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Metrics whose value is a fraction in [0, 1].
FRACTIONS = ("jain", "mu", "utilisation", "link_utilisation", "drop_rate", "airtime_share")
#: Metrics that count packets (segments, drops, ...), never below 0.
PACKET_COUNTS = ("retransmits", "timeouts", "fast_retransmits", "drops", "data_drops", "ack_drops", "segments_sent",
                 "segments_delivered", "link_drops", "link_max_queue", "max_queue")
#: Metrics (and parameters) measured in packets whose name ends so.
PACKET_SUFFIXES = ("limit", "queue", "window", "initial_window", "_packets", "_segments")
#: Metrics computed over a run's flows that share a bottleneck, the same for each of them:
#: a sweep figure draws them once, not once per flow.
SHARED_BY_FLOWS = ("jain", "link_utilisation", "link_drops", "link_max_queue")


@dataclass(frozen=True)
class Quantity:
    """A quantity as an axis shows it: ``name (unit)``, values multiplied by *scale*, and
    the range [*low*, *high*] (None: unbounded) its values and intervals stay in."""

    name: str
    unit: str = ""
    scale: float = 1.0
    low: float | None = None
    high: float | None = None

    @property
    def label(self) -> str:
        """The axis label: ``"goodput (Mb/s)"``."""
        return f"{self.name} ({self.unit})" if self.unit else self.name

    def shown(self, values: Any) -> Any:
        """*values* in the shown unit."""
        return values * self.scale

    def limits(self) -> tuple[float | None, float | None]:
        """The range in the shown unit."""
        return (None if self.low is None else self.low * self.scale, None if self.high is None else self.high * self.scale)


def _short(name: str) -> str:
    """A parameter path without its section names, in words: ``link.bottleneck.rate`` ->
    ``bottleneck rate``, ``link.bottleneck.queue.limit`` -> ``bottleneck queue limit``."""
    parts = [p.replace("_", " ") for p in name.split(".") if p not in ("link", "flow", "simulation", "options", "")]
    return " ".join(parts[-3:]) if parts else name


def _time_unit(values: Any) -> tuple[str, float]:
    import numpy as np

    v = np.asarray(values, dtype=np.float64) if values is not None else np.array([])
    v = v[np.isfinite(v)]
    return ("ms", 1e3) if len(v) and float(np.abs(v).max()) < 1.0 else ("s", 1.0)


def metric(name: str, values: Any = None) -> Quantity:
    """How a metric of ``flows.csv`` / a sweep's summary is shown: rates in Mb/s, delays in
    ms (or s when they reach a second), fractions in [0, 1], counts of packets from 0."""
    if name == "jain":
        return Quantity("Jain's fairness index", "", 1.0, 0.0, 1.0)
    if name in FRACTIONS:
        return Quantity(name.replace("_", " "), "fraction", 1.0, 0.0, 1.0)
    if name.endswith("_bps"):
        return Quantity(name[: -len("_bps")].replace("_", " "), "Mb/s", 1e-6, 0.0)
    if name.endswith("_s"):
        unit, scale = _time_unit(values)
        return Quantity(name[: -len("_s")].replace("_", " "), unit, scale, 0.0)
    if name in PACKET_COUNTS:
        return Quantity(name.replace("_", " "), "packets", 1.0, 0.0)
    if name.startswith("bytes") or name.endswith("_bytes"):
        return Quantity(name.replace("_", " "), "MB", 1e-6, 0.0)
    return Quantity(name.replace("_", " "))


def parameter(name: str, values: Any = None) -> Quantity:
    """How a sweep parameter is shown: its last path parts, and a unit read from its name
    (``_bps``: Mb/s; ``_s``: ms or s; a queue limit: packets; ``limit_bytes``, ``mss``: bytes)."""
    if name.endswith("_bps"):
        return Quantity(_short(name[: -len("_bps")]), "Mb/s", 1e-6)
    if name.endswith("_s"):
        unit, scale = _time_unit(values)
        return Quantity(_short(name[: -len("_s")]), unit, scale)
    last = name.rsplit(".", 1)[-1]
    if last in ("limit_bytes", "mss", "header_bytes", "packet_bytes", "bytes"):
        return Quantity(_short(name), "bytes")
    if last.endswith(PACKET_SUFFIXES):
        return Quantity(_short(name), "packets")
    return Quantity(_short(name))
