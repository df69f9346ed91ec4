"""Joo & Bahk (2000): start-up transition dynamics of TCP NewReno with and without partial
window deflation (``renolab reproduce joo2000``).

The modules, in the order the reproduction uses them: :mod:`~.scenarios` (the setup as
scenarios), :mod:`~.grid` (which runs), :mod:`~.runs` (running them; each run's first loss
episode), :mod:`~.tables`, :mod:`~.claims` and :mod:`~.figures` (what the report lists,
says and draws), :mod:`~.report` (:func:`reproduce`, the report in reading order).
"""

from __future__ import annotations

from renolab.experiments.joo2000.report import reproduce
from renolab.experiments.joo2000.scenarios import (
    BANDWIDTHS_MBPS,
    BASE_MBPS,
    BOTTLENECK_DELAY,
    EXISTING_FLOWS,
    NEW_FLOW,
    RED,
    scenario,
    sender_options,
)
from renolab.experiments.joo2000.tables import pwd_total

__all__ = [
    "BANDWIDTHS_MBPS",
    "BASE_MBPS",
    "BOTTLENECK_DELAY",
    "EXISTING_FLOWS",
    "NEW_FLOW",
    "RED",
    "pwd_total",
    "reproduce",
    "scenario",
    "sender_options",
]
