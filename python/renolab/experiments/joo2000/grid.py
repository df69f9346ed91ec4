"""joo2000's grid: which runs (n, bandwidth, delayed ACK, PWD, seed) the reproduction makes,
full and quick, and the round-trip sensitivity runs of full mode."""

from __future__ import annotations

from renolab.experiments.joo2000.scenarios import (
    BANDWIDTHS_MBPS,
    BASE_MBPS,
    EXISTING_FLOWS,
    FIG3_FLOWS,
    SENSITIVITY_DELAY,
    SENSITIVITY_FLOWS,
    scenario,
)
from renolab.scenario import Scenario

#: Seeds per point: with PWD (Figs. 2-6) and without (Figs. 4-6, paired with the first seeds).
FULL_SEEDS, FULL_SEEDS_NOPWD = 200, 100
QUICK_SEEDS = 10
QUICK_FLOWS = (3, 6)
QUICK_BANDWIDTHS = (0.8, 1.6, 3.2)

#: One run: (n, bandwidth in Mb/s, delayed ACK, PWD, seed).
Run = tuple[int, float, bool, bool, int]


def plan(quick: bool) -> list[Run]:
    """Every run: Fig. 2's n at the base bandwidth, Fig. 3's bandwidths at n = 5, without
    and with delayed ACK, with PWD and (the first seeds) without."""
    flows = QUICK_FLOWS if quick else EXISTING_FLOWS
    bands = QUICK_BANDWIDTHS if quick else BANDWIDTHS_MBPS
    points = [(n, BASE_MBPS) for n in flows] + [(FIG3_FLOWS, b) for b in bands if (FIG3_FLOWS, b) not in [(n, BASE_MBPS) for n in flows]]
    seeds_pwd = QUICK_SEEDS if quick else FULL_SEEDS
    seeds_nopwd = QUICK_SEEDS if quick else FULL_SEEDS_NOPWD
    runs = []
    for delack in (False, True):
        for n, b in points:
            runs += [(n, b, delack, True, s) for s in range(1, seeds_pwd + 1)]
            runs += [(n, b, delack, False, s) for s in range(1, seeds_nopwd + 1)]
    return runs


def run_scenario(run: Run) -> Scenario:
    """The scenario of one run."""
    n, b, delack, pwd, seed = run
    return scenario(n, bandwidth_mbps=b, delayed_ack=delack, pwd=pwd, seed=seed)


def sensitivity_plan() -> list[tuple[int, int]]:
    """(n, seed) of the runs with the longer bottleneck delay (full mode only)."""
    return [(n, s) for n in SENSITIVITY_FLOWS for s in range(1, FULL_SEEDS + 1)]


def sensitivity_scenario(n: int, seed: int) -> Scenario:
    """Fig. 2's scenario at *n* (no delayed ACK, PWD) with the longer bottleneck delay."""
    return scenario(n, seed=seed, bottleneck_delay=SENSITIVITY_DELAY)


def scenario_name(n: int, bandwidth_mbps: float, delayed_ack: bool, pwd: bool) -> str:
    """``"n3-1.6mbps-nodelack-pwd"``: the name of a point's scenario file."""
    return f"n{n}-{bandwidth_mbps:g}mbps-{'delack' if delayed_ack else 'nodelack'}-{'pwd' if pwd else 'nopwd'}"
