"""lee2001's grid: which points run (every setting x variant x capacity x buffer; fewer
capacities in quick mode), each point's scenario and its name in the report."""

from __future__ import annotations

from renolab.experiments.lee2001.scenarios import (
    BUFFER_FRACTIONS,
    CAPACITIES_MBPS,
    SETTINGS,
    VARIANTS,
    buffer_packets,
    era_scenario,
    scenario,
)
from renolab.scenario import Scenario

#: Quick mode: a smaller grid (the robust claims still hold on it).
QUICK_CAPACITIES = (1, 8, 32)
QUICK_FRACTIONS = BUFFER_FRACTIONS

#: A grid point: (setting, variant, capacity in Mb/s, buffer as a fraction of W*).
Point = tuple[str, str, int, float]


def points(quick: bool) -> list[Point]:
    """Every point of the grid, settings outermost, buffer fractions innermost."""
    capacities = QUICK_CAPACITIES if quick else CAPACITIES_MBPS
    fractions = QUICK_FRACTIONS if quick else BUFFER_FRACTIONS
    return [(s, v, c, a) for s in SETTINGS for v in VARIANTS for c in capacities for a in fractions]


def point_scenario(point: Point) -> Scenario:
    """The scenario of one grid point."""
    setting, variant, capacity_mbps, fraction = point
    b = buffer_packets(capacity_mbps, fraction)
    if setting == "era2001":
        return era_scenario(capacity_mbps, b, variant)
    return scenario(capacity_mbps, b, variant)


def point_name(point: Point) -> str:
    """``"ns235-reno-c32-b160"``: the name of the point's scenario file."""
    setting, variant, capacity_mbps, fraction = point
    return f"{setting}-{variant}-c{capacity_mbps}-b{buffer_packets(capacity_mbps, fraction)}"
