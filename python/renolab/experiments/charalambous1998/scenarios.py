"""charalambous1998's setup as scenarios: the OC-3c ATM/SONET path with bit errors, the
1998 hosts, and the models the report compares with (the loss probability of a packet,
Mathis et al.'s throughput).

The testbed: an OC-3c ATM/SONET path (155 Mb/s line rate; the paper's optimum 134.513 Mb/s of
TCP payload), a delay/error box inserting round-trip delays of 1, 50 and 100 ms (and the ACTS
satellite for 534 ms) and bit error rates 0.8e-7, 1.3e-8, 1.1e-9 and 1e-12; NetSpec measures
one bulk TCP transfer (Table 1).

How the testbed becomes a renolab scenario (every number below is derived, none fitted):

- **Line and cells.** Classical IP over ATM (RFC 1577) uses a 9180-byte MTU, so the MSS is
  9140 bytes. AAL5 adds an 8-byte trailer and pads to whole 48-byte cell payloads: 192
  cells of 53 bytes, 10176 bytes on the fibre per segment. The SONET payload of OC-3c is
  149.76 Mb/s. renolab's link carries 9180-byte IP packets at 149.76 x 9180 / 10176 =
  135.10 Mb/s, and the TCP payload rate is then 135.10 x 9140 / 9180 = 134.513 Mb/s -- the
  paper's optimum, to the kb/s.
- **Bit errors.** A bit error in any of the 192 cell payloads (9216 bytes) fails the AAL5
  CRC and loses the packet (single-bit header errors are corrected by the HEC), so a packet
  is lost with probability 1 - (1 - BER)^(8 x 9216). renolab's ``ber`` model counts the
  9180 bytes it puts on the link, so the BER is scaled by 9216 / 9180.
- **Hosts.** 1998 BSD-derived stacks: initial window 1, delayed ACKs, the 500 ms
  retransmission-timer tick and 1 s minimum RTO of BSD, no limited transmit, and a socket
  buffer (receive window) of 8 MiB = 917 segments -- the largest power of two the paper's
  534 ms / 1e-12 measurements (121 Mb/s, which needs at least 8.1 MB in flight) allow; the
  window caps 534 ms paths at 125.6 Mb/s. The sending host blocks rather than drops when
  its interface queue is full, so the only losses are bit errors.
- **Test length.** The paper does not give it; NetSpec runs a timed test. We use 180 s,
  and Fig. R3 shows how the satellite results depend on it.
"""

from __future__ import annotations

import math
from typing import Any

from renolab.scenario import Scenario

STUDY = "charalambous1998"
TITLE = "Performance of TCP extensions on noisy high BDP networks"

#: OC-3c SONET payload rate (bit/s) that carries the ATM cells.
SONET_PAYLOAD_BPS = 149.76e6
#: Classical IP over ATM MTU (RFC 1577) and the TCP MSS it leaves.
MTU_BYTES = 9180
MSS_BYTES = MTU_BYTES - 40
#: AAL5: datagram + 8-byte trailer, padded to whole 48-byte cell payloads.
CELLS_PER_PACKET = math.ceil((MTU_BYTES + 8) / 48)
CELL_BYTES_PER_PACKET = 53 * CELLS_PER_PACKET
#: The IP rate of the path: SONET payload less the cell tax of a 9180-byte datagram.
LINK_BPS = SONET_PAYLOAD_BPS * MTU_BYTES / CELL_BYTES_PER_PACKET
#: TCP payload rate of the path: the paper's "optimal throughput".
OPTIMUM_BPS = LINK_BPS * MSS_BYTES / MTU_BYTES
#: Bits whose corruption loses a packet (cell payloads) over the bits renolab puts on the link.
BER_SCALE = (48 * CELLS_PER_PACKET) / MTU_BYTES
#: The hosts' socket buffer (receive window), bytes and segments.
WINDOW_BYTES = 8 * 1024 * 1024
WINDOW_SEGMENTS = WINDOW_BYTES // MSS_BYTES
#: Length of one throughput test, seconds (not given in the paper).
TEST_S = 180.0
VARIANTS = ("reno", "newreno", "sack")
#: Mathis et al.'s constant with delayed ACKs (b = 2): sqrt(3 / (2 b)).
MATHIS_C_DELACK = math.sqrt(3.0 / 4.0)
#: ... and without (b = 1), the form MSS/RTT x sqrt(3/2)/sqrt(p) usually quoted.
MATHIS_C = math.sqrt(3.0 / 2.0)
#: A cell is "loss-dominated" when a test sees at least this many losses on average.
LOSS_DOMINATED_EVENTS = 20


def loss_probability(ber: float) -> float:
    """Probability that a segment is lost at bit error rate *ber* (any error in its 192 cell payloads)."""
    return -math.expm1(8 * 48 * CELLS_PER_PACKET * math.log1p(-ber))


def mathis_bps(rtt_s: float, p: float, c: float = MATHIS_C_DELACK) -> float:
    """Mathis, Semke, Mahdavi & Ott's steady-state throughput MSS/RTT x C/sqrt(p), bit/s."""
    return MSS_BYTES * 8.0 / rtt_s * c / math.sqrt(p)


def scenario(
    variant: str,
    rtt_ms: float,
    ber: float,
    *,
    seed: int = 1,
    duration_s: float = TEST_S,
    window_segments: int = WINDOW_SEGMENTS,
) -> Scenario:
    """One cell of Table 1: a bulk transfer across the OC-3c path of round trip *rtt_ms*
    with bit errors at rate *ber* on the data direction."""
    options: dict[str, Any] = {
        "initial_window": 1,
        "window": window_segments,
        "limited_transmit": False,
        "clock_granularity": "500ms",
        "min_rto": "1s",
        "initial_rto": "3s",
        "max_rto": "64s",
    }
    if variant == "sack":
        options["sack_recovery"] = "ns2"  # Fall & Floyd's Sack1, the 1996-98 algorithm
    return Scenario(
        description=(
            f"charalambous1998: {variant}, RTT {rtt_ms:g} ms, BER {ber:g}, OC-3c ATM path "
            f"({OPTIMUM_BPS / 1e6:.3f} Mb/s of TCP payload), {duration_s:g} s test"
        ),
        simulation={"seed": seed, "profile": "rfc", "duration": f"{duration_s:g}s"},
        link=[
            {
                "name": "oc3",
                "from": "sender",
                "to": "receiver",
                "rate": f"{LINK_BPS:.0f}bps",
                "delay": f"{rtt_ms / 2:g}ms",
                # The host's interface queue: the kernel blocks the socket, it never drops.
                "queue": {"kind": "droptail", "limit": 4 * window_segments},
                "loss": {"kind": "ber", "ber": ber * BER_SCALE, "applies_to": "data"},
            }
        ],
        flow=[
            {
                "name": "netspec",
                "variant": variant,
                "src": "sender",
                "dst": "receiver",
                "mss": MSS_BYTES,
                "header_bytes": MTU_BYTES - MSS_BYTES,
                # A 40-byte ACK is one cell on the wire.
                "receiver": {"delayed_ack": True, "ack_bytes": 53},
                "options": options,
            }
        ],
    )


def cell_key(variant: str, rtt_ms: float, ber: float) -> str:
    """``"reno-rtt534ms-ber1.1e-09"``: the name of a cell's scenario file."""
    return f"{variant}-rtt{rtt_ms:g}ms-ber{ber:g}"
