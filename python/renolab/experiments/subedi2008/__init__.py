"""Subedi, Najiminaini & Trajković (2008): TCP Tahoe, Reno, Reno with SACK and NewReno in
OPNET Modeler, over a wired path and over a lossy wireless hop
(``renolab reproduce subedi2008``).

The modules, in the order the reproduction uses them: :mod:`~.scenarios` (the wired and
wireless paths as scenarios), :mod:`~.grid` (the runs, full and quick), :mod:`~.runs`
(running them, per-run reductions, comparisons between variants), :mod:`~.claims`,
:mod:`~.figures`, :mod:`~.tables` (what the report says, draws and lists), :mod:`~.report`
(:func:`reproduce`, the report in reading order).
"""

from __future__ import annotations

from renolab.experiments.subedi2008.report import reproduce
from renolab.experiments.subedi2008.scenarios import LABELS, VARIANTS, WIRED_CASES, wired, wireless

__all__ = ["LABELS", "VARIANTS", "WIRED_CASES", "reproduce", "wired", "wireless"]
