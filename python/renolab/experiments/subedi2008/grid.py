"""subedi2008's grid: every run (one for each deterministic wired case, seeds for the random
wired case and the wireless one) and the seed-1 runs whose traces the figures draw."""

from __future__ import annotations

from renolab.experiments.subedi2008.scenarios import VARIANTS, WIRED_CASES, wired, wireless
from renolab.scenario import Scenario

#: One run: (case: ``single``, ``two``, ``random`` or ``wireless``; variant; seed).
Run = tuple[str, str, int]


def seeds(quick: bool) -> int:
    """Seeds of the random-loss cases: 8 in quick mode, 20 in full."""
    return 8 if quick else 20


def plan(quick: bool) -> list[Run]:
    """Every run, variant by variant: the two scripted cases once, the random ones per seed."""
    reps = seeds(quick)
    runs: list[Run] = []
    for v in VARIANTS:
        runs.append(("single", v, 1))
        runs.append(("two", v, 1))
        runs += [("random", v, s + 1) for s in range(reps)]
        runs += [("wireless", v, s + 1) for s in range(reps)]
    return runs


def traced_plan() -> list[Run]:
    """The runs whose traces the figures draw: seed 1 of every case and variant."""
    return [(k, v, 1) for k in ("wireless", *WIRED_CASES) for v in VARIANTS]


def run_scenario(run: Run) -> Scenario:
    """The scenario of one run."""
    kind, v, seed = run
    return wireless(v, seed=seed) if kind == "wireless" else wired(v, kind, seed=seed)
