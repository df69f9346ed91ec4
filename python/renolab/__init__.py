"""renolab: a fast, faithful packet-level simulator for TCP congestion-control research.

Build or load a :class:`Scenario` (links, flows, settings), call
:meth:`Scenario.run`, and inspect the :class:`Result` (per-flow statistics,
run summary, recorded traces such as ``cwnd``).  The simulation engine is
written in Rust and exposed as ``renolab._core``.
"""

from renolab._core import ScenarioError, SimulationError, __version__
from renolab.results import Result
from renolab.scenario import Scenario
from renolab.sweep import Sweep

__all__ = ["Result", "Scenario", "ScenarioError", "SimulationError", "Sweep", "__version__"]
