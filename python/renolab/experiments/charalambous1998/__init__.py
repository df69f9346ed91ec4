"""Charalambous, Frost & Evans (1998): TCP Reno, NewReno and SACK on noisy, high-BDP
ATM/SONET paths (``renolab reproduce charalambous1998``).

The modules, in the order the reproduction uses them: :mod:`~.scenarios` (the OC-3c path and
the 1998 hosts as scenarios, the loss and Mathis models), :mod:`~.grid` (Table 1's cells and
the test lengths, full and quick), :mod:`~.runs` (running them, means and intervals per
cell), :mod:`~.claims`, :mod:`~.figures`, :mod:`~.tables` (what the report says, draws and
lists), :mod:`~.report` (:func:`reproduce`, the report in reading order);
:mod:`~.emulated`: the same grid run by real Linux kernels (``--emulate``).
"""

from __future__ import annotations

from renolab.experiments.charalambous1998.report import reproduce
from renolab.experiments.charalambous1998.scenarios import (
    LINK_BPS,
    MSS_BYTES,
    OPTIMUM_BPS,
    STUDY,
    TEST_S,
    TITLE,
    VARIANTS,
    WINDOW_SEGMENTS,
    loss_probability,
    mathis_bps,
    scenario,
)

__all__ = [
    "LINK_BPS",
    "MSS_BYTES",
    "OPTIMUM_BPS",
    "STUDY",
    "TEST_S",
    "TITLE",
    "VARIANTS",
    "WINDOW_SEGMENTS",
    "loss_probability",
    "mathis_bps",
    "reproduce",
    "scenario",
]
