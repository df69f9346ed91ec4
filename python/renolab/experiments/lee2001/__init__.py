"""Lee, Lee & Choi (2001): the influence of the large bandwidth-delay product on TCP Reno,
NewReno and SACK (``renolab reproduce lee2001``).

The modules, in the order the reproduction uses them:

- :mod:`~.scenarios`: the paper's setup as scenarios (:func:`scenario`, :func:`era_scenario`);
- :mod:`~.grid`: which points run, full and quick;
- :mod:`~.runs`: running them and analysing each run in its worker;
- :mod:`~.claims`, :mod:`~.figures`, :mod:`~.tables`: what the report says, draws and lists;
- :mod:`~.report`: :func:`reproduce`, the report in reading order.
"""

from __future__ import annotations

from renolab.experiments.lee2001.report import reproduce
from renolab.experiments.lee2001.scenarios import (
    BUFFER_FRACTIONS,
    CAPACITIES_MBPS,
    NS2_BOOT_TIME,
    PACKET_BYTES,
    RTT_S,
    SETTING_LABELS,
    SETTINGS,
    TRANSFER_BYTES,
    VARIANT_LABELS,
    VARIANTS,
    buffer_packets,
    era_scenario,
    pipe_packets,
    scenario,
)

__all__ = [
    "BUFFER_FRACTIONS",
    "CAPACITIES_MBPS",
    "NS2_BOOT_TIME",
    "PACKET_BYTES",
    "RTT_S",
    "SETTINGS",
    "SETTING_LABELS",
    "TRANSFER_BYTES",
    "VARIANTS",
    "VARIANT_LABELS",
    "buffer_packets",
    "era_scenario",
    "pipe_packets",
    "reproduce",
    "scenario",
]
