"""charalambous1998's tables: Table 1 wide (renolab beside the paper) and in detail, Tables 2
and 3 of the satellite path, and the test lengths (Table R3)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from renolab.experiments.charalambous1998.runs import Results
from renolab.experiments.charalambous1998.scenarios import OPTIMUM_BPS, VARIANTS
from renolab.experiments.style import VARIANT_LABELS


def table1(r: Results) -> pd.DataFrame:
    """Table 1: a row per (variant, RTT), renolab's and the paper's throughput per BER."""
    name = r.grid.ber_name
    wide = []
    for v in VARIANTS:
        for rtt in r.grid.rtts:
            row: dict[str, Any] = {"variant": VARIANT_LABELS[v], "rtt_ms": rtt}
            for ber in r.grid.bers:
                row[f"renolab_{name(ber)}"] = round(r.sim(v, rtt, ber), 3)
                row[f"paper_{name(ber)}"] = r.paper_mbps(v, rtt, ber)
            wide.append(row)
    return pd.DataFrame(wide)


def table1_detail(r: Results) -> pd.DataFrame:
    """Table 1 (detail): every cell with its CI, the paper, the model, losses and timeouts."""
    return r.cells[
        [
            "variant", "rtt_ms", "ber", "loss_probability", "mbps", "ci95", "n", "paper_mbps",
            "renolab_over_paper", "mathis_mbps", "renolab_over_mathis", "losses", "timeouts",
        ]
    ].rename(columns={"mbps": "renolab_mbps", "ci95": "renolab_ci95_mbps", "losses": "losses_per_test", "timeouts": "timeouts_per_test"})


def satellite_tables(r: Results, paper: dict[str, Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Tables 2 and 3 at RTT 534 ms: the improvement over Reno (%), and the throughputs in
    Mb/s and in % of the optimum; NaN for the paper's BERs outside the grid."""
    name, sim, bers = r.grid.ber_name, r.sim, r.grid.bers
    optimum_mbps = OPTIMUM_BPS / 1e6
    t2, t3 = paper["table2"], paper["table3"]
    rows2, rows3 = [], []
    for i, ber in enumerate(t2["ber"]):
        simulated = ber in bers
        rows2.append(
            {
                "ber": name(ber),
                "renolab_newreno_over_reno_pct": round(100 * (sim("newreno", 534.0, ber) / sim("reno", 534.0, ber) - 1), 2) if simulated else math.nan,
                "paper_newreno_over_reno_pct": t2["newreno_over_reno"][i],
                "renolab_sack_over_reno_pct": round(100 * (sim("sack", 534.0, ber) / sim("reno", 534.0, ber) - 1), 2) if simulated else math.nan,
                "paper_sack_over_reno_pct": t2["sack_over_reno"][i],
            }
        )
        row3: dict[str, Any] = {"ber": name(ber)}
        for v in VARIANTS:
            row3[f"renolab_{v}_mbps"] = round(sim(v, 534.0, ber), 3) if simulated else math.nan
            row3[f"paper_{v}_mbps"] = t3[f"{v}_mbps"][i]
            row3[f"renolab_{v}_pct_opt"] = round(100 * sim(v, 534.0, ber) / optimum_mbps, 2) if simulated else math.nan
            row3[f"paper_{v}_pct_opt"] = t3[f"{v}_pct"][i]
        rows3.append(row3)
    return pd.DataFrame(rows2), pd.DataFrame(rows3)


def length_table(r: Results) -> pd.DataFrame:
    """Table R3: throughput at RTT 534 ms by test length, beside the paper's (unknown length)."""
    sens = r.lengths
    table = sens.rename(columns={"mbps": "renolab_mbps", "ci95": "renolab_ci95_mbps", "losses": "losses_per_test", "timeouts": "timeouts_per_test"})
    table["paper_mbps"] = [r.paper_mbps(row.variant, 534.0, row.ber) for row in sens.itertuples()]
    table["variant"] = [VARIANT_LABELS[v] for v in sens["variant"]]
    table["ber"] = [r.grid.ber_name(b) for b in sens["ber"]]
    return table
