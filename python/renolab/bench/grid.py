"""lee2001's grid as a sweep over every core (``renolab bench --lee2001-grid``): the wall
time of the 72 runs of C x B x {reno, newreno, sack}."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

from renolab.bench.text import spread
from renolab.pool import cpu_count, run_each

GRID_VARIANTS = ("reno", "newreno", "sack")


def lee2001_grid_points() -> list[tuple[int, int, str]]:
    """The 72 points (capacity Mb/s, buffer packets, variant) of C x B x {reno, newreno, sack}."""
    from renolab.experiments import lee2001

    return [
        (c, lee2001.buffer_packets(c, fraction), variant)
        for c in lee2001.CAPACITIES_MBPS
        for fraction in lee2001.BUFFER_FRACTIONS
        for variant in GRID_VARIANTS
    ]


def _grid_point(point: tuple[int, int, str]) -> tuple[int, int, str, Optional[float], int, float]:
    """One grid run (in a worker): (C, B, variant, completion s, events, wall s)."""
    from renolab.experiments import lee2001

    capacity, buffer, variant = point
    start = time.perf_counter()
    result = lee2001.scenario(capacity, buffer, variant).run()
    wall = time.perf_counter() - start
    completion = result.flows["completion_time_s"].iloc[0]
    done = None if completion is None or math.isnan(completion) else float(completion)
    return capacity, buffer, variant, done, int(result.summary["events"]), wall


@dataclass
class GridRun:
    """One sweep over the grid."""

    wall_s: float
    workers: int
    points: list[tuple[int, int, str, Optional[float], int, float]]


def run_lee2001_grid(
    jobs: Optional[int] = None, points: Optional[Sequence[tuple[int, int, str]]] = None
) -> GridRun:
    """Runs the lee2001 grid (or *points*) on *jobs* worker processes (default: every core).

    The wall time covers the whole sweep, starting the workers included.
    """
    todo = list(lee2001_grid_points() if points is None else points)
    workers = jobs or cpu_count()
    done: list[Any] = [None] * len(todo)
    start = time.perf_counter()
    for index, point, error in run_each(_grid_point, todo, workers=workers, in_process_errors=()):
        if error is not None:
            raise error
        done[index] = point
    return GridRun(wall_s=time.perf_counter() - start, workers=workers, points=done)


def format_grid(runs: Sequence[GridRun]) -> str:
    n = len(runs)
    first = runs[0]
    finished = sum(1 for p in first.points if p[3] is not None)
    events = sum(p[4] for p in first.points)
    cpu = statistics.median(sum(p[5] for p in r.points) for r in runs)
    lo, mid, hi = spread([r.wall_s for r in runs])
    return "\n".join(
        [
            f"lee2001 grid: {len(first.points)} runs (C x B x {{{', '.join(GRID_VARIANTS)}}}, 8 MiB each) "
            f"on {first.workers} worker process{'es' * (first.workers != 1)}; {n} repeat{'s' * (n != 1)}",
            f"  wall time: min {lo:.2f} s, median {mid:.2f} s, max {hi:.2f} s",
            f"  sum of the runs' own times: {cpu:.2f} s; {events:,} events; "
            f"{finished}/{len(first.points)} transfers finished",
        ]
    )
