"""The reproduction framework: `renolab reproduce` errors, Report, paper_values, run_many."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from renolab import experiments
from renolab.cli import main
from renolab.experiments.report import (
    INCONCLUSIVE,
    INCONCLUSIVE_QUICK,
    ClaimRow,
    Report,
    against,
    all_of,
    format_value,
    paper_values,
    read_claims,
    slug,
)
from renolab.experiments.runner import run_many


def test_unknown_study_lists_the_studies(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "nosuchstudy"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    for name in ("lee2001", "subedi2008", "joo2000", "charalambous1998", "fickling", "all"):
        assert name in err


def test_study_not_written_yet(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    monkeypatch.setitem(experiments.STUDIES, "future2030", "renolab.experiments.future2030")
    assert main(["reproduce", "future2030", "--out", str(tmp_path)]) == 2
    assert "not available yet" in capsys.readouterr().err


def test_bad_workers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "lee2001", "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err


@pytest.mark.parametrize("study", ["lee2001", "joo2000"])
def test_paper_values_cite_their_source(study: str) -> None:
    values = paper_values(study)
    assert values["paper"]["citation"]

    def leaves(table: dict, path: str = "") -> list[tuple[str, dict]]:
        found = []
        for key, value in table.items():
            if isinstance(value, dict):
                if "value" in value or "source" in value:
                    found.append((f"{path}{key}", value))
                else:
                    found += leaves(value, f"{path}{key}.")
        return found

    entries = leaves({k: v for k, v in values.items() if k != "paper"})
    assert entries
    for name, entry in entries:
        assert entry.get("source"), f"{study}: {name} has no source"


def test_report_writes_markdown_html_figures_tables(tmp_path: Path) -> None:
    from matplotlib.figure import Figure

    report = Report("demo", "A demo", "Someone, 2001", tmp_path)
    fig = Figure()
    fig.add_subplot().plot([0, 1], [1, 0])
    report.figure(fig, "Fig. 6 (a)", "a line")
    report.table(pd.DataFrame({"w": [20, 40], "renolab": [0.5, 0.25], "paper_value": [0.42, float("nan")]}), "Table 2", "slopes")
    report.claim("mu falls", "it does | twice", True)
    report.claim("a number", "off", False)
    report.claim("untestable", "needs hardware", None)
    report.note("Some `code` and **bold**.\n\n- one\n- two")
    report.scenario("one point", {"link": [{"from": "a", "to": "b", "rate": "1Mbps"}], "flow": [{"name": "f", "src": "a", "dst": "b", "bytes": 1000}]})
    path = report.write()
    assert path == tmp_path / "report.md"
    for name in ("fig-6-a.png", "fig-6-a.svg", "table-2.csv", "table-2.md", "report.html", "scenarios/one-point.toml"):
        assert (tmp_path / name).is_file(), name
    md = path.read_text(encoding="utf-8")
    assert "1 of 3 claims hold, 1 do not, 1 cannot be tested here" in md
    assert "it does \\| twice" in md
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "data:image/png;base64," in html and "<code>code</code>" in html
    assert main(["check", str(tmp_path / "scenarios" / "one-point.toml")]) == 0


def test_read_claims_reads_back_what_write_wrote(tmp_path: Path) -> None:
    report = Report("demo", "A demo", "Someone, 2001", tmp_path)
    report.claim("mu falls | rises", "it does | twice", True)
    report.claim("a number", "off by\nhalf", False)
    report.claim("untestable", "", None)
    report.claim("over 55 %", "40 % (95 % CI 16.8-68.7)", against(16.8, 68.7, 55.0))
    report.note("## Claims\n\n| 9 | a note | not | a claim |")
    text = report.write().read_text(encoding="utf-8")
    rows = read_claims(text)
    assert rows == [
        ClaimRow("mu falls | rises", "it does | twice", "✅ holds"),
        ClaimRow("a number", "off by half", "❌ does not hold"),
        ClaimRow("untestable", "", "— not testable"),
        ClaimRow("over 55 %", "40 % (95 % CI 16.8-68.7)", "❔ inconclusive (too few runs)"),
    ]
    assert "1 of 4 claims hold, 1 do not, 1 is inconclusive (too few runs), 1 cannot be tested here." in text
    assert [r.holds for r in rows] == [c.holds for c in report.claims]
    assert read_claims(Report("none", "No claims", "-", tmp_path / "none").write().read_text(encoding="utf-8")) == []
    with pytest.raises(ValueError, match="no claims table"):
        read_claims("# a report\n\nwithout claims\n")
    with pytest.raises(ValueError, match="unknown verdict"):
        ClaimRow("p", "m", "maybe").holds


def test_a_claim_whose_interval_contains_the_threshold_is_inconclusive() -> None:
    assert against(56.0, 70.0, 55.0) is True
    assert against(40.0, 54.0, 55.0) is False
    assert against(16.8, 68.7, 55.0) == INCONCLUSIVE
    assert against(1.0, 2.0, 3.0, above=False) is True
    assert against(float("nan"), float("nan"), 55.0) is None
    assert against(60.0, float("nan"), 55.0) is True  # one run: the estimate alone
    assert all_of([True, INCONCLUSIVE, True]) == INCONCLUSIVE
    assert all_of([INCONCLUSIVE, False]) is False
    assert all_of([True, True]) is True


def test_a_quick_run_decides_only_by_interval_or_exactly(tmp_path: Path) -> None:
    report = Report("quick2030", "Quick", "-", tmp_path, quick=True)
    report.claim("from means", "4.2 vs 3.9", True)
    report.claim("from means, false", "1 vs 2", False)
    report.claim("interval above 55 %", "60 % (95 % CI 56-64)", against(56.0, 64.0, 55.0), interval=True)
    report.claim("interval across 55 %", "50 % (95 % CI 40-60)", against(40.0, 60.0, 55.0), interval=True)
    report.claim("a deterministic point", "626 packets", True, exact=True)
    report.claim("not on this grid", "n/a", None)
    text = report.write().read_text(encoding="utf-8")
    assert [r.verdict for r in read_claims(text)] == [
        "❔ inconclusive (quick run)", "❔ inconclusive (quick run)", "✅ holds",
        "❔ inconclusive (too few runs)", "✅ holds", "— not testable",
    ]
    assert [c.holds for c in report.claims] == [INCONCLUSIVE_QUICK, INCONCLUSIVE_QUICK, True, INCONCLUSIVE, True, None]
    assert [r.holds for r in read_claims(text)] == [c.holds for c in report.claims]
    assert ("2 of 6 claims hold, 0 do not, 1 is inconclusive (too few runs), 2 are inconclusive (quick run), "
            "1 cannot be tested here.") in text
    # The same claims in a full run keep their verdicts.
    full = Report("full2030", "Full", "-", tmp_path / "full")
    full.claim("from means", "4.2 vs 3.9", True)
    assert full.claims[0].holds is True


def test_slug_and_format() -> None:
    assert slug("Fig. 2") == "fig-2" and slug("Table 1") == "table-1" and slug("Fig. 6 data") == "fig-6-data"
    assert format_value(14.292) == "14.292" and format_value(float("nan")) == "" and format_value(3.0) == "3"


def test_run_many_keeps_order_and_reduces(small_scenario: object) -> None:
    from renolab import Scenario

    base = small_scenario if isinstance(small_scenario, Scenario) else Scenario.from_dict(small_scenario)  # type: ignore[arg-type]
    scenarios = [base.with_seed(s) for s in (3, 1, 2)]
    outputs = run_many(scenarios, workers=2, desc="test", traces=("cwnd",), progress=False)
    assert [o.summary["seed"] for o in outputs] == [3, 1, 2]
    assert set(outputs[0].traces) == {"cwnd"} and len(outputs[0].trace("cwnd"))
    single = run_many(scenarios[:1], workers=1, reduce=_rows, keep_traces=False, traces=("cwnd",), progress=False)
    assert single[0].value == len(outputs[0].trace("cwnd")) and not single[0].traces


def _rows(result: object) -> int:
    return len(result.trace("cwnd"))  # type: ignore[attr-defined]


# -- one reproduction per directory --------------------------------------------------------


def _fake_study(tables: list[str]):
    """A study that writes a table per name in *tables*, a scenario and its report."""
    from conftest import small_scenario_dict

    def reproduce(out: Path, quick: bool = False, workers: int | None = None) -> Path:
        report = Report("fake", "A fake study", "Nobody (2030)", out, quick=quick)
        for number in tables:
            report.table(pd.DataFrame({"x": [1]}), number, "a table")
        report.scenario("one point", small_scenario_dict())
        return report.write()

    return reproduce


@pytest.fixture
def fake_study(monkeypatch: pytest.MonkeyPatch):
    """``renolab reproduce lee2001`` runs a fake study; ``fake_study(tables)`` says which
    tables it writes."""
    from renolab.cli import reproduce as cli_reproduce

    def use(tables: list[str]) -> None:
        monkeypatch.setattr(cli_reproduce, "reproducer", lambda name: _fake_study(tables))

    return use


def test_reproduce_replaces_its_earlier_files_and_lists_them(fake_study, tmp_path: Path) -> None:
    out = tmp_path / "study"
    fake_study(["Table 1", "Table 2"])
    assert main(["reproduce", "lee2001", "--out", str(out)]) == 0
    listing = json.loads((out / "reproduce.json").read_text())
    assert listing["files"] == sorted(
        ["report.html", "report.md", "scenarios/one-point.toml", "table-1.csv", "table-1.md", "table-2.csv", "table-2.md"]
    )
    # The next reproduction into it removes what the first wrote: no table 2 beside table 1.
    fake_study(["Table 1"])
    assert main(["reproduce", "lee2001", "--out", str(out)]) == 0
    assert not (out / "table-2.csv").exists() and (out / "table-1.csv").is_file()
    assert "table-2.csv" not in json.loads((out / "reproduce.json").read_text())["files"]


def test_reproduce_refuses_a_directory_of_other_files_unless_forced(
    fake_study, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_study(["Table 1"])
    out = tmp_path / "study"
    (out / "scenarios").mkdir(parents=True)
    (out / "notes.txt").write_text("mine")
    (out / "scenarios" / "mine.toml").write_text("# mine")
    assert main(["reproduce", "lee2001", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "notes.txt" in err and "--force" in err, err
    assert not (out / "report.md").exists()
    assert main(["reproduce", "lee2001", "--out", str(out), "--force"]) == 0
    listed = json.loads((out / "reproduce.json").read_text())["files"]
    assert "notes.txt" not in listed and "scenarios/mine.toml" not in listed
    # What it did not write stays, and stays foreign.
    assert main(["reproduce", "lee2001", "--out", str(out)]) == 2
    assert "notes.txt" in capsys.readouterr().err
    assert main(["reproduce", "lee2001", "--out", str(out), "--force"]) == 0
    assert (out / "notes.txt").read_text() == "mine" and (out / "scenarios" / "mine.toml").read_text() == "# mine"


def test_reproduce_all_checks_every_study_directory_before_it_starts(
    fake_study, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_study(["Table 1"])
    out = tmp_path / "all"
    (out / "fickling").mkdir(parents=True)
    (out / "fickling" / "notes.txt").write_text("mine")
    assert main(["reproduce", "all", "--out", str(out)]) == 2
    assert "fickling/notes.txt" in capsys.readouterr().err
    assert not (out / "lee2001").exists()
    (out / "fickling" / "notes.txt").unlink()
    (out / "notes.txt").write_text("mine")
    assert main(["reproduce", "all", "--out", str(out)]) == 2
    assert main(["reproduce", "all", "--out", str(out), "--force"]) == 0
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == sorted(experiments.STUDIES)
    assert main(["reproduce", "all", "--out", str(out), "--force"]) == 0  # its own: replaced


def test_reproduce_refuses_an_empty_out(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "lee2001", "--out", ""]) == 2
    assert "--out: an empty path" in capsys.readouterr().err
