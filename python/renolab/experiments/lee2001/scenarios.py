"""lee2001's setup as scenarios: the dumbbell of one bottleneck, the grid's parameters and
the two sender settings (ns-2.35's defaults and the paper's older ns).

One bottleneck G1-G2 of capacity C (1-32 Mb/s), round-trip delay 100 ms, buffer B of
1/4 to 1 times W* (the pipe size in 640-byte packets), one 8 MiB transfer, no delayed ACKs,
every packet 640 bytes on the wire. NewReno uses Hoe's start-up ssthresh estimate.

The access links (100 Mb/s, 1 ms, 10000-packet buffers) are not in the paper; they are the
ones of ``tests/ns2/lee2001.tcl``, the ns-2 script renolab is validated against.
"""

from __future__ import annotations

from typing import Any

from renolab.scenario import Scenario

#: Bottleneck capacities, Mb/s (the paper's Table 1).
CAPACITIES_MBPS = (1, 2, 4, 8, 16, 32)
#: Buffer sizes as fractions of W*.
BUFFER_FRACTIONS = (0.25, 0.5, 0.75, 1.0)
#: Transfer size: 8 MiB.
TRANSFER_BYTES = 8 * 1024 * 1024
#: Packet size on the wire (the paper counts whole packets of 640 bytes).
PACKET_BYTES = 640
#: Round-trip propagation delay, seconds.
RTT_S = 0.100
#: ns-2.35's ``boot_time_`` under its default seed: the phase of the agent's 10 ms RTT
#: clock. Setting it makes renolab's timer arithmetic line up with the reference runs.
NS2_BOOT_TIME = "5558807ns"


def pipe_packets(capacity_mbps: int) -> int:
    """W*, the window that fills the pipe, as the paper's Table 1 gives it (20 per Mb/s)."""
    return 20 * capacity_mbps


def buffer_packets(capacity_mbps: int, fraction: float) -> int:
    """B = fraction x W*, in packets."""
    return round(fraction * pipe_packets(capacity_mbps))


def scenario(
    capacity_mbps: int,
    buffer_pkts: int,
    variant: str,
    *,
    hoe: bool | None = None,
    profile: str = "ns2",
    seed: int = 1,
) -> Scenario:
    """One grid point. ``hoe`` (NewReno only) defaults to the paper's choice (on).

    Under the ``ns2`` profile the settings are those of the reference ns-2 runs: no SYN,
    initial window 1, a receiver window that never limits, ns-2's DropTail semantics.
    """
    options: dict[str, Any] = {
        "initial_window": 1,
        "window": 100_000,
        "handshake": False,
    }
    if profile == "ns2":
        options["clock_phase"] = NS2_BOOT_TIME
    if variant == "newreno":
        options["ssthresh_estimation"] = True if hoe is None else hoe
    access = {"rate": "100Mbps", "delay": "1ms", "queue": {"kind": "droptail", "limit": 10_000}}
    return Scenario(
        simulation={"seed": seed, "profile": profile},
        link=[
            {"name": "access", "from": "s1", "to": "g1", **access},
            {
                "name": "bottleneck",
                "from": "g1",
                "to": "g2",
                "rate": f"{capacity_mbps}Mbps",
                "delay": "48ms",
                "queue": {"kind": "droptail", "limit": buffer_pkts},
            },
            {"name": "egress", "from": "g2", "to": "r1", **access},
        ],
        flow=[
            {
                "name": "f1",
                "variant": variant,
                "src": "s1",
                "dst": "r1",
                "bytes": TRANSFER_BYTES,
                "mss": PACKET_BYTES,
                "header_bytes": 0,
                "receiver": {"delayed_ack": False},
                "options": options,
            }
        ],
    )


#: The variants the paper compares, in its order, with the labels of its figures.
VARIANTS = ("reno", "newreno", "sack")
VARIANT_LABELS = {"reno": "Reno", "newreno": "NewReno (Hoe)", "sack": "SACK"}
#: Settings of the sender: "ns235" = ns-2.35's defaults, the setup validated against ns-2
#: (docs/validation.md); "era2001" = the three switches in which the paper's older ns differs
#: (tests/ns2/lee2001.tcl ``era2001``: bugFix_ false, singledup_ 0, newreno_changes1_ 0).
SETTINGS = ("ns235", "era2001")
SETTING_LABELS = {"ns235": "ns-2.35 defaults", "era2001": "2001-era ns"}
#: How the report writes each buffer size.
ALPHA_NAMES = {0.25: "B = W*/4", 0.5: "B = W*/2", 0.75: "B = 3W*/4", 1.0: "B = W*"}


def era_scenario(capacity_mbps: int, buffer_pkts: int, variant: str, *, hoe: bool | None = None, seed: int = 1) -> Scenario:
    """:func:`scenario` with the sender switches of the paper's ns (ns-2.1b era).

    ``limited_transmit = false`` (ns-2 ``singledup_ 0``) for every variant; for NewReno
    also ``careful = false`` (``bugFix_ false``: no protection against repeated fast
    retransmits) and ``timer_reset = "slow_but_steady"`` (``newreno_changes1_ 0``).  ns-2's
    ``bugFix_ false`` also affects Reno, which renolab does not model: renolab's Reno keeps
    the protection (see the report's notes).
    """
    data = scenario(capacity_mbps, buffer_pkts, variant, hoe=hoe, seed=seed).to_dict()
    options = data["flow"][0]["options"]
    options["limited_transmit"] = False
    if variant == "newreno":
        options["careful"] = False
        options["timer_reset"] = "slow_but_steady"
    return Scenario.from_dict(data)
