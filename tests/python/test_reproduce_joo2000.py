"""`renolab reproduce joo2000 --quick`: the files exist and the robust claims hold."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from conftest import read_csv, report_claims, verdicts


@pytest.fixture(scope="module")
def out(reproduce: Callable[[str], Path]) -> Path:
    return reproduce("joo2000")


def test_files_exist(out: Path) -> None:
    for name in ("report.md", "report.html", "table-1.csv", "table-1.md", "fig-2-data.csv", "fig-3-data.csv", "runs.csv"):
        assert (out / name).is_file(), name
    for fig in ("fig-2", "fig-3", "fig-4", "fig-5", "fig-6"):
        assert (out / f"{fig}.png").stat().st_size > 1000
        assert (out / f"{fig}.svg").is_file()
    assert (out / "report.html").read_text(encoding="utf-8").count("data:image/png;base64,") >= 5
    assert len(list((out / "scenarios").glob("*.toml"))) >= 8


def test_every_run_classified_with_confidence_intervals(out: Path) -> None:
    rows = read_csv(out / "fig-2-data.csv")
    assert {3, 6} <= {int(r["n"]) for r in rows}
    for r in rows:
        shares = [float(r[f"{k}_pct"]) for k in ("rto", "d1", "d2", "d3", "dmore")]
        assert abs(sum(shares) - 100) < 1e-6
        assert float(r["multiple_lo"]) <= float(r["multiple_pct"]) <= float(r["multiple_hi"])


def test_table1_formulas_and_bursts_hold(out: Path) -> None:
    report = (out / "report.md").read_text(encoding="utf-8")
    # Consequences of the algorithms (Table 1, Fig. 6): every episode follows them, which the
    # table shows; the claims' verdicts (shares of episodes over 10 seeds, no interval) wait
    # for the full run.
    for fragments in (
        ("Table 1, §IV", "with PWD sends N_k"),
        ("Table 1 (without delayed ACK)", "without PWD sends N_1"),
        ("Fig. 6 (a)", "with PWD the burst"),
        ("Fig. 6 (b)", "with PWD the burst"),
        ("Fig. 6 (a)", "without PWD the burst"),
        ("Fig. 6 (b)", "without PWD the burst"),
    ):
        assert verdicts(report, *fragments) == ["❔ inconclusive (quick run)"], fragments
    table = {(r["delayed_ack"], r["pwd"]): r for r in read_csv(out / "table-1.csv")}
    assert float(table[("False", "True")]["pct_total_exact"]) >= 90
    assert float(table[("False", "False")]["pct_N_k_exact"]) >= 90 and float(table[("False", "False")]["pct_total_exact"]) >= 90
    assert float(table[("False", "True")]["pct_burst_rule"]) >= 90 and float(table[("True", "True")]["pct_burst_le_2"]) >= 90
    assert all(float(table[(dl, "False")]["pct_burst_rule"]) >= 95 for dl in ("False", "True"))
    assert all(v.split()[0] in {"✅", "❌", "❔", "—"} for _, _, v in report_claims(report))


def test_pwd_sends_more_new_packets(out: Path) -> None:
    rows = read_csv(out / "fig-4-data.csv")
    pooled = {True: [], False: []}
    for r in rows:
        pooled[r["pwd"] == "True"].append(float(r["mean_new_segments"]))
    assert sum(pooled[True]) / len(pooled[True]) > sum(pooled[False]) / len(pooled[False])
