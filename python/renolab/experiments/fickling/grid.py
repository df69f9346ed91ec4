"""fickling's grid: the run length, CBR rates and seeds of full and quick mode, and the runs
of the three experiments."""

from __future__ import annotations

from dataclasses import dataclass

from renolab.experiments.fickling.scenarios import NS2_WINDOW, PAIRS, VARIANTS, WINDOW


@dataclass(frozen=True)
class Mode:
    """How much a reproduction runs: *duration_s* per run of experiments 1-2 (experiment 3:
    20 s), the CBR *rates* (Mb/s), *reps* seeds per point, *exp3_reps* for experiment 3."""

    quick: bool
    duration_s: float
    rates: tuple[float, ...]
    reps: int
    exp3_reps: int


def mode(quick: bool) -> Mode:
    """Quick: 10 s runs, CBR every 1 Mb/s, 2 seeds (3 for experiment 3); full: 20 s, every
    0.5 Mb/s, 5 seeds (10)."""
    rates = tuple(float(r) for r in range(0, 11)) if quick else tuple(r / 2 for r in range(0, 21))
    return Mode(quick, 10.0 if quick else 20.0, rates, 2 if quick else 5, 3 if quick else 10)


def experiment1_plan(m: Mode) -> list[tuple[str, float, int]]:
    """(variant, CBR Mb/s, seed index) of experiment 1."""
    return [(v, r, s) for v in VARIANTS for r in m.rates for s in range(m.reps)]


def experiment2_plan(m: Mode) -> list[tuple[tuple[str, str], float, int]]:
    """(pair, CBR Mb/s, seed index) of experiment 2."""
    return [(p, r, s) for p in PAIRS for r in m.rates for s in range(m.reps)]


def experiment3_plan(m: Mode) -> list[tuple[str, str, int, int]]:
    """(variant, queue, window, seed index) of experiment 3: our window and ns-2's default."""
    return [(v, q, w, s) for w in (WINDOW, NS2_WINDOW) for v in ("reno", "sack") for q in ("droptail", "red") for s in range(m.exp3_reps)]
