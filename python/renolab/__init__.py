"""renolab: a fast, faithful packet-level simulator for TCP congestion-control research.

Build or load a :class:`Scenario` (links, flows, settings), call
:meth:`Scenario.run`, and inspect the :class:`Result` (per-flow statistics,
run summary, recorded traces such as ``cwnd``).  The simulation engine is
written in Rust and exposed as ``renolab._core``.

``import renolab`` loads neither pandas nor matplotlib: tables become DataFrames when they
are first read, and :class:`Sweep` is imported when first named.
"""

from __future__ import annotations

from typing import Any

from renolab._core import ScenarioError, SimulationError, __version__
from renolab.results import Result
from renolab.scenario import RenolabWarning, RunInterrupted, Scenario

__all__ = [
    "RenolabWarning",
    "Result",
    "RunInterrupted",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "Sweep",
    "__version__",
]


def __getattr__(name: str) -> Any:
    if name == "Sweep":
        from renolab.sweep import Sweep

        return Sweep
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), "Sweep"])
