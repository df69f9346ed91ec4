"""`renolab reproduce joo2000 --quick`: the files exist and the robust claims hold."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from renolab.cli import main


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("joo2000")
    assert main(["reproduce", "joo2000", "--quick", "--out", str(target), "--workers", "2"]) == 0
    return target


def _claims(report: str) -> list[tuple[str, str, str]]:
    section = report.split("## Claims", 1)[1].split("\n\n|", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| \d+ \| (.*?) \| (.*?) \| (.*?) \|$", "|" + section, flags=re.M)
    assert rows, "no claims table in report.md"
    return rows


def _verdicts(report: str, *fragments: str) -> list[str]:
    found = [v for paper, _, v in _claims(report) if all(f in paper for f in fragments)]
    assert found, f"no claim matching {fragments}"
    return found


def test_files_exist(out: Path) -> None:
    for name in ("report.md", "report.html", "table-1.csv", "table-1.md", "fig-2-data.csv", "fig-3-data.csv", "runs.csv"):
        assert (out / name).is_file(), name
    for fig in ("fig-2", "fig-3", "fig-4", "fig-5", "fig-6"):
        assert (out / f"{fig}.png").stat().st_size > 1000
        assert (out / f"{fig}.svg").is_file()
    assert (out / "report.html").read_text(encoding="utf-8").count("data:image/png;base64,") >= 5
    assert len(list((out / "scenarios").glob("*.toml"))) >= 8


def test_every_run_classified_with_confidence_intervals(out: Path) -> None:
    with open(out / "fig-2-data.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {3, 6} <= {int(r["n"]) for r in rows}
    for r in rows:
        shares = [float(r[f"{k}_pct"]) for k in ("rto", "d1", "d2", "d3", "dmore")]
        assert abs(sum(shares) - 100) < 1e-6
        assert float(r["multiple_lo"]) <= float(r["multiple_pct"]) <= float(r["multiple_hi"])


def test_table1_formulas_and_bursts_hold(out: Path) -> None:
    report = (out / "report.md").read_text(encoding="utf-8")
    # Deterministic consequences of the algorithms (Table 1, Fig. 6): robust at any seed count.
    for fragments in (
        ("Table 1, §IV", "with PWD sends N_k"),
        ("Table 1 (without delayed ACK)", "without PWD sends N_1"),
        ("Fig. 6 (a)", "with PWD the burst"),
        ("Fig. 6 (b)", "with PWD the burst"),
        ("Fig. 6 (a)", "without PWD the burst"),
        ("Fig. 6 (b)", "without PWD the burst"),
    ):
        assert all(v.startswith("✅") for v in _verdicts(report, *fragments)), fragments
    assert all(v.split()[0] in {"✅", "❌", "—"} for _, _, v in _claims(report))


def test_pwd_sends_more_new_packets(out: Path) -> None:
    with open(out / "fig-4-data.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    pooled = {True: [], False: []}
    for r in rows:
        pooled[r["pwd"] == "True"].append(float(r["mean_new_segments"]))
    assert sum(pooled[True]) / len(pooled[True]) > sum(pooled[False]) / len(pooled[False])
