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
    assert verdict(report, "trends to zero").startswith("✅")


def test_fairness_claims(out: Path) -> None:
    report = (out / "report.md").read_text(encoding="utf-8")
    assert verdict(report, "Vegas gets overwhelmed").startswith("✅")
    assert verdict(report, "lower latency than a competing New-Reno").startswith("✅")
    rows = read_csv(out / "table-r2.csv")
    vegas = {float(r["cbr_mbps"]): float(r["renolab_jain"]) for r in rows if r["pair"] == "vegas-vegas"}
    mixed = [float(r["renolab_jain"]) for r in rows if r["pair"] == "newreno-vegas" and float(r["cbr_mbps"]) < 10]
    # Two Vegas flows share equally under light congestion; from about 60 % on they drift
    # apart (Jain's index 0.8-0.97, as with ns-2.35's Vegas), yet stay fairer than a mixed pair.
    assert min(j for cbr, j in vegas.items() if cbr <= 3) > 0.99
    below = [j for cbr, j in vegas.items() if cbr < 10]
    assert sum(mixed) / len(mixed) < sum(below) / len(below)
    assert all(v.split()[0] in {"✅", "❌", "❔", "—"} for _, _, v in report_claims(report))
