"""Shared fixtures: a small, fast scenario (1 Mb/s bottleneck, 100 KB transfer)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
import tomli_w


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
