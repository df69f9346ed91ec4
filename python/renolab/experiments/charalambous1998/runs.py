"""charalambous1998's runs: Table 1's cells and the test-length runs, each test's
throughput, losses and timeouts averaged per cell with a 95 % interval, beside the paper's
values and the Mathis model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from renolab.experiments.charalambous1998.grid import Grid, length_runs, table1_runs
from renolab.experiments.charalambous1998.scenarios import OPTIMUM_BPS, STUDY, TEST_S, loss_probability, mathis_bps, scenario
from renolab.experiments.runner import RunOutput, run_many
from renolab.stats import mean_ci


def test_row(o: RunOutput, length_s: float) -> dict[str, Any]:
    """One test's throughput (payload delivered over the test length), losses and timeouts."""
    f = o.flow("netspec")
    return {"throughput_mbps": f["bytes_delivered"] * 8.0 / length_s / 1e6, "losses": f["data_drops"], "timeouts": f["timeouts"]}


def summarise(rows: list[dict[str, Any]], keys: list[str]) -> pd.DataFrame:
    """Per *keys*: mean throughput (``mbps``) with its 95 % CI half-width, the number of
    tests, and the mean losses and timeouts per test."""
    frame = pd.DataFrame(rows)
    out = []
    for key, group in frame.groupby(keys, sort=False):
        mean, half, n = mean_ci(group["throughput_mbps"])
        losses = float(group["losses"].mean())
        timeouts = float(group["timeouts"].mean())
        out.append({**dict(zip(keys, key)), "mbps": mean, "ci95": half, "n": n, "losses": losses, "timeouts": timeouts})
    return pd.DataFrame(out)


@dataclass
class Results:
    """``cells``: Table 1's cells (means, CIs, the paper's value, the Mathis model);
    ``lengths``: the test-length runs' means; ``paper``: the paper's Table 1."""

    grid: Grid
    cells: pd.DataFrame
    lengths: pd.DataFrame
    table1: dict[str, Any]
    runs: int

    def paper_mbps(self, variant: str, rtt: float, ber: float) -> float:
        """The paper's Table 1 throughput of a cell."""
        return float(self.table1[variant][self.grid.rtts.index(rtt)][self.grid.bers.index(ber)])

    def sim(self, variant: str, rtt: float, ber: float, col: str = "mbps") -> float:
        """renolab's *col* (default: mean throughput, Mb/s) of a cell."""
        cells = self.cells
        row = cells[(cells["variant"] == variant) & (cells["rtt_ms"] == rtt) & (cells["ber"] == ber)]
        return float(row[col].iloc[0])


def run_table1(g: Grid, workers: int | None) -> pd.DataFrame:
    """Every Table 1 run, summarised per cell."""
    plan = table1_runs(g)
    outputs = run_many((scenario(v, rtt, ber, seed=rep + 1) for v, rtt, ber, rep in plan), workers=workers, desc=f"{STUDY} Table 1")
    rows = [{"variant": v, "rtt_ms": rtt, "ber": ber, "rep": rep, **test_row(o, TEST_S)} for (v, rtt, ber, rep), o in zip(plan, outputs)]
    return summarise(rows, ["variant", "rtt_ms", "ber"])


def run_lengths(g: Grid, workers: int | None) -> pd.DataFrame:
    """Every test-length run (RTT 534 ms), summarised per (variant, BER, length)."""
    plan = length_runs(g)
    outputs = run_many(
        (scenario(v, 534.0, ber, seed=rep + 1, duration_s=length) for v, ber, length, rep in plan),
        workers=workers,
        desc=f"{STUDY} test length",
    )
    rows = [{"variant": v, "ber": ber, "length_s": length, "rep": rep, **test_row(o, length)} for (v, ber, length, rep), o in zip(plan, outputs)]
    return summarise(rows, ["variant", "ber", "length_s"])


def run_all(g: Grid, paper: dict[str, Any], workers: int | None) -> Results:
    """Run Table 1 and the test lengths; add to each cell the paper's value, the loss
    probability and the Mathis model (capped at the optimum), and the ratios to them."""
    cells = run_table1(g, workers)
    lengths = run_lengths(g, workers)
    results = Results(g, cells, lengths, paper["table1"], len(table1_runs(g)) + len(length_runs(g)))
    cells["paper_mbps"] = [results.paper_mbps(r.variant, r.rtt_ms, r.ber) for r in cells.itertuples()]
    cells["loss_probability"] = [loss_probability(b) for b in cells["ber"]]
    cells["mathis_mbps"] = [
        min(mathis_bps(r.rtt_ms / 1e3, loss_probability(r.ber)), OPTIMUM_BPS) / 1e6 for r in cells.itertuples()
    ]
    cells["renolab_over_paper"] = cells["mbps"] / cells["paper_mbps"]
    cells["renolab_over_mathis"] = cells["mbps"] / cells["mathis_mbps"]
    return results
