"""Fickling, Kelly & Douglas: Reno, NewReno, Tahoe and Vegas in ns-2
(``renolab reproduce fickling``).

The modules, in the order the reproduction uses them: :mod:`~.scenarios` (the six-node chain
and the three experiments as scenarios), :mod:`~.grid` (full and quick mode, the runs),
:mod:`~.runs` (running them, reductions in the workers, means over seeds),
:mod:`~.claims`, :mod:`~.figures`, :mod:`~.tables` (what the report says, draws and lists),
:mod:`~.report` (:func:`reproduce`, the report in reading order).
"""

from __future__ import annotations

from renolab.experiments.fickling.report import reproduce
from renolab.experiments.fickling.scenarios import (
    EXP3_CBR_MBPS,
    EXP3_CBR_START_S,
    PAIRS,
    VARIANTS,
    experiment1,
    experiment2,
    experiment3,
)

__all__ = ["EXP3_CBR_MBPS", "EXP3_CBR_START_S", "PAIRS", "VARIANTS", "experiment1", "experiment2", "experiment3", "reproduce"]
