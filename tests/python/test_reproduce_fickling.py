"""`renolab reproduce fickling --quick`: the files exist and the robust claims hold."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from conftest import read_csv, report_claims, verdict


@pytest.fixture(scope="module")
def out(reproduce: Callable[[str], Path]) -> Path:
    return reproduce("fickling")


def test_files_exist(out: Path) -> None:
    for name in ("report.md", "report.html", "table-r1.csv", "table-r2.csv", "table-r3.csv", "table-r3.md"):
        assert (out / name).is_file(), name
    for fig in (*(f"fig-{i}" for i in range(2, 11)), "fig-r1", "fig-r2"):
        assert (out / f"{fig}.png").stat().st_size > 1000, fig
        assert (out / f"{fig}.svg").is_file()
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") >= 11
    assert len(list((out / "scenarios").glob("*.toml"))) == 12


def test_scenarios_use_the_six_node_chain(out: Path) -> None:
    text = (out / "scenarios" / "exp1-vegas-cbr5.toml").read_text(encoding="utf-8")
    for link in ("N1-N2", "N2-N3", "N3-N4", "N4-N5", "N5-N6"):
        assert link in text


def test_vegas_avoids_loss_and_latency(out: Path) -> None:
    rows = read_csv(out / "table-r1.csv")
    for r in rows:
        cbr = float(r["cbr_mbps"])
        if cbr < 8:
            assert float(r["renolab_vegas_drop_rate_pct"]) == 0.0, r
        if cbr <= 8:
            # From 80 % congestion on ns-2.35's Vegas loses about a packet per run, and so
            # does renolab's (docs/studies/fickling.md): the paper's "no loss up to 90 %"
            # does not hold.
            assert float(r["renolab_vegas_drop_rate_pct"]) < 0.5, r
            others = min(float(r[f"renolab_{v}_latency_ms"]) for v in ("tahoe", "reno", "newreno"))
            assert float(r["renolab_vegas_latency_ms"]) < others, r


def test_throughput_falls_with_cbr_rate(out: Path) -> None:
    rows = sorted(read_csv(out / "table-r1.csv"), key=lambda r: float(r["cbr_mbps"]))
    for v in ("tahoe", "reno", "newreno", "vegas"):
        first, last = float(rows[0][f"renolab_{v}_throughput_mbps"]), float(rows[-1][f"renolab_{v}_throughput_mbps"])
        assert first > 5.0 and last < 0.5, (v, first, last)
    report = (out / "report.md").read_text(encoding="utf-8")
    # Two seeds, every claim from means: a quick run decides none of them (issue 31).
    assert verdict(report, "trends to zero") == "❔ inconclusive (quick run)"
    assert "0 of 18 claims hold, 0 do not, 18 are inconclusive (quick run)" in report


def test_the_report_says_when_the_cbr_flow_starts_as_the_runs_measured_it(out: Path) -> None:
    report = (out / "report.md").read_text(encoding="utf-8")
    scenario = (out / "scenarios" / "exp3-sack-red.toml").read_text(encoding="utf-8")
    assert 'name = "cbr"' in scenario and 'start = "5s"' in scenario
    assert "TCP drops after the CBR start (5 s)" in report and "(15 s)" not in report
    assert "mean TCP drops after 5 s: " in report


def test_fairness_claims(out: Path) -> None:
    report = (out / "report.md").read_text(encoding="utf-8")
    assert verdict(report, "Vegas gets overwhelmed") == "❔ inconclusive (quick run)"
    rows = read_csv(out / "table-r2.csv")
    mixed_rows = [r for r in rows if r["pair"] == "newreno-vegas" and float(r["cbr_mbps"]) < 10]
    # What the claims measure, from the table: NewReno out-sends Vegas, Vegas keeps a lower latency.
    assert all(float(r["renolab_a_mbps"]) > float(r["renolab_b_mbps"]) for r in mixed_rows)
    assert all(float(r["renolab_b_latency_ms"]) < float(r["renolab_a_latency_ms"]) for r in mixed_rows)
    vegas = {float(r["cbr_mbps"]): float(r["renolab_jain"]) for r in rows if r["pair"] == "vegas-vegas"}
    mixed = [float(r["renolab_jain"]) for r in rows if r["pair"] == "newreno-vegas" and float(r["cbr_mbps"]) < 10]
    # Two Vegas flows share equally under light congestion; from about 60 % on they drift
    # apart (Jain's index 0.8-0.97, as with ns-2.35's Vegas), yet stay fairer than a mixed pair.
    assert min(j for cbr, j in vegas.items() if cbr <= 3) > 0.99
    below = [j for cbr, j in vegas.items() if cbr < 10]
    assert sum(mixed) / len(mixed) < sum(below) / len(below)
    assert all(v.split()[0] in {"✅", "❌", "❔", "—"} for _, _, v in report_claims(report))
