"""`renolab reproduce subedi2008 --quick`: the files exist and the robust claims hold."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from conftest import read_csv, report_claims, verdict


@pytest.fixture(scope="module")
def out(reproduce: Callable[[str], Path]) -> Path:
    return reproduce("subedi2008")


def test_files_exist(out: Path) -> None:
    for name in ("report.md", "report.html", *(f"table-{i}.{ext}" for i in range(1, 6) for ext in ("csv", "md"))):
        assert (out / name).is_file(), name
    for i in range(1, 7):
        assert (out / f"fig-{i}.png").stat().st_size > 1000
        assert (out / f"fig-{i}.svg").is_file()
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") >= 6
    assert len(list((out / "scenarios").glob("*.toml"))) == 16


def test_opnet_parameter_table_matches_the_slides(out: Path) -> None:
    for row in read_csv(out / "table-1.csv"):
        if row["parameter"].startswith("Receive buffer"):
            assert 65535 - 1460 < float(row["renolab"]) <= 65535
        else:
            assert float(row["renolab"]) == pytest.approx(float(row["paper"])), row


def test_response_time_tables_carry_the_papers_values(out: Path) -> None:
    wireless = {r["variant"]: r for r in read_csv(out / "table-2.csv")}
    assert float(wireless["Reno"]["paper_response_s"]) == 480
    wired = {r["variant"]: r for r in read_csv(out / "table-3.csv")}
    assert float(wired["Reno with SACK"]["paper_response_s"]) == 164
    # 10 MB over a 1.5 Mb/s core takes at least 53 s; renolab stays within 10 % of that.
    for r in wired.values():
        assert 53.3 < float(r["renolab_response_s"]) < 60


def test_goodput_never_exceeds_throughput(out: Path) -> None:
    for r in read_csv(out / "table-5.csv"):
        assert 0.9 < float(r["renolab_goodput_over_throughput"]) <= 1.0


def test_robust_claims_hold(out: Path) -> None:
    report = (out / "report.md").read_text(encoding="utf-8")
    assert verdict(report, "Tahoe falls back to slow start").startswith("✅")
    assert verdict(report, "the four algorithms have the same").startswith("✅")
    assert verdict(report, "Reno has the worst performance").startswith("✅")
    assert verdict(report, "shorter download response time than the other three").startswith("✅")
    # 0.05 % loss: Tahoe's slow starts cost more than the others' fast recoveries.
    wired = {r["variant"]: float(r["renolab_response_s"]) for r in read_csv(out / "table-3.csv")}
    assert wired["Tahoe"] > wired["Reno with SACK"] and wired["Tahoe"] > wired["NewReno"]
    assert all(v.split()[0] in {"✅", "❌", "❔", "—"} for _, _, v in report_claims(report))
