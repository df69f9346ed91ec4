"""Shared fixtures: a small, fast scenario (1 Mb/s bottleneck, 100 KB transfer); quick
reproductions of the studies and helpers to read their outputs."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, Callable

import pytest
import tomli_w

from renolab.experiments.report import ClaimRow, read_claims


def small_scenario_dict() -> dict[str, Any]:
    """s1 -> g1 (10 Mb/s) -> r1 (1 Mb/s bottleneck); one 100 KB Reno transfer."""
    return {
        "simulation": {"seed": 1},
        "link": [
            {"name": "access", "from": "s1", "to": "g1", "rate": "10Mbps", "delay": "1ms"},
            {
                "name": "bottleneck",
                "from": "g1",
                "to": "r1",
                "rate": "1Mbps",
                "delay": "10ms",
                "queue": {"kind": "droptail", "limit": 10},
            },
        ],
        "flow": [
            {
                "name": "f1",
                "kind": "tcp",
                "variant": "reno",
                "src": "s1",
                "dst": "r1",
                "start": "0s",
                "bytes": 100_000,
                "mss": 1000,
                "header_bytes": 40,
                "receiver": {"delayed_ack": False},
                "options": {"initial_window": 1},
            }
        ],
    }


@pytest.fixture
def small_scenario() -> dict[str, Any]:
    """A fresh copy of the small scenario as a plain dict."""
    return small_scenario_dict()


@pytest.fixture
def write_scenario(tmp_path: Path) -> Callable[..., Path]:
    """Write a scenario dict (or raw TOML text) to a file in tmp_path and return its path."""

    def write(scenario: dict[str, Any] | str, name: str = "scenario.toml") -> Path:
        path = tmp_path / name
        text = scenario if isinstance(scenario, str) else tomli_w.dumps(scenario)
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture(scope="session")
def reproduce(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """Run ``renolab reproduce <study> --quick --out DIR --workers 2`` (asserting it exits 0) and return DIR,
    once per session and study: the study's tests and the docs' commands share it."""
    from renolab.cli import main

    done: dict[str, Path] = {}

    def run(study: str) -> Path:
        if study not in done:
            target = tmp_path_factory.mktemp(study)
            assert main(["reproduce", study, "--quick", "--out", str(target), "--workers", "2"]) == 0
            done[study] = target
        return done[study]

    return run


def read_csv(path: Path) -> list[dict[str, str]]:
    """The rows of a CSV file with a header line, as dicts of text."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def report_claims(report: str) -> list[ClaimRow]:
    """The claims table of a report.md text; fails the test when it has none."""
    rows = read_claims(report)
    assert rows, "no claims table in report.md"
    return rows


def verdicts(report: str, *fragments: str) -> list[str]:
    """The verdict cells of every claim whose paper text contains all *fragments* (at least one)."""
    found = [c.verdict for c in report_claims(report) if all(f in c.paper for f in fragments)]
    assert found, f"no claim matching {fragments}"
    return found


def verdict(report: str, fragment: str) -> str:
    """The verdict cell of the one claim whose paper text contains *fragment*."""
    found = verdicts(report, fragment)
    assert len(found) == 1, f"{len(found)} claims match {fragment!r}"
    return found[0]
