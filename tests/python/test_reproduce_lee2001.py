"""`renolab reproduce lee2001 --quick`: the files exist and the paper's robust claims hold."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from renolab.cli import main

from conftest import read_csv, report_claims, verdicts


@pytest.fixture(scope="module")
def out(reproduce: Callable[[str], Path]) -> Path:
    return reproduce("lee2001")


def test_files_exist(out: Path) -> None:
    for name in ("report.md", "report.html", "table-1.csv", "table-1.md", "table-2.csv"):
        assert (out / name).is_file(), name
    for fig in ("fig-2", "fig-3", "fig-4", "fig-5", "fig-6", "fig-7"):
        assert (out / f"{fig}.png").stat().st_size > 1000
        assert (out / f"{fig}.svg").is_file()
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") >= 6  # self-contained
    scenarios = sorted((out / "scenarios").glob("*.toml"))
    assert len(scenarios) >= 36


def test_scenario_files_rerun(out: Path, tmp_path: Path) -> None:
    scenario = out / "scenarios" / "ns235-newreno-c32-b160.toml"
    assert main(["run", str(scenario), "--out", str(tmp_path / "run")]) == 0
    t_c = float(read_csv(tmp_path / "run" / "flows.csv")[0]["completion_time_s"])
    rows = [r for r in read_csv(out / "table-1.csv") if r["setting"] == "ns235" and r["variant"] == "newreno"
            and r["capacity_mbps"] == "32" and r["buffer"] == "160"]
    assert abs(float(rows[0]["t_c_s"]) - t_c) < 1e-9


def test_mu_falls_as_bdp_grows_for_every_variant_and_buffer(out: Path) -> None:
    rows = read_csv(out / "table-1.csv")
    curves: dict[tuple[str, str, str], dict[int, float]] = {}
    for r in rows:
        curves.setdefault((r["setting"], r["variant"], r["alpha"]), {})[int(r["w_star"])] = float(r["mu"])
    assert len(curves) == 2 * 3 * 4  # settings x variants x buffers
    for key, curve in curves.items():
        mus = [curve[w] for w in sorted(curve)]
        assert all(b < a for a, b in zip(mus, mus[1:])), (key, mus)
    report = (out / "report.md").read_text(encoding="utf-8")
    # A claim about the whole grid is not decided on the quick grid's part of it.
    assert verdicts(report, "Conclusion 1") == ["❔ inconclusive (quick run)"] * 2


def test_robust_claims_hold(out: Path) -> None:
    report = (out / "report.md").read_text(encoding="utf-8")
    assert verdicts(report, "Conclusion 2") == ["❔ inconclusive (quick run)"] * 2
    # Claims about W* = 640, B = W*/4, a point of the quick grid, are decided there exactly.
    assert all(v.startswith("✅") for v in verdicts(report, "626 packets"))
    # NewReno's one-packet-per-RTT recovery is slow with the paper's era settings.
    assert verdicts(report, "[2001-era ns]", "needs about")[0].startswith("✅")
    assert verdicts(report, "t_c of NewReno")[0].startswith("✅")
    # Every claim has a verdict and quick mode states what it could not test.
    assert all(v.split()[0] in {"✅", "❌", "❔", "—"} for _, _, v in report_claims(report))
