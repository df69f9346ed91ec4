"""joo2000's setup as scenarios: the RED dumbbell, n existing flows and the new one.

n long-lived FTP flows share a RED bottleneck (1.6 Mb/s, limit 60, min_th 5, max_th 15,
max_p 0.1, 1000-byte packets); after 50 s a new NewReno flow starts at a random time and
we classify how it detects its first loss (timeout, or fast retransmit with 1, 2, 3, >3
drops from the window; Figs. 2-3), then measure its recovery: new packets sent during fast
recovery and the burst after it, with and without PWD (Table 1, Figs. 4-6).

The paper gives no link delays (its Fig. 1 is not in the text): this module uses 10 Mb/s,
2 ms access links and a 46 ms bottleneck, a 100 ms round trip (:data:`BOTTLENECK_DELAY`).
"""

from __future__ import annotations

from typing import Any

from renolab.scenario import Scenario

#: Number of existing connections (Fig. 2).
EXISTING_FLOWS = (3, 4, 5, 6, 7, 8, 9)
#: Bottleneck rates of Fig. 3 (n = 5), Mb/s.
BANDWIDTHS_MBPS = (0.8, 1.6, 2.4, 3.2)
FIG3_FLOWS = 5
BASE_MBPS = 1.6
PACKET_BYTES = 1000
ACCESS = {"rate": "10Mbps", "delay": "2ms"}
BOTTLENECK_DELAY = "46ms"
#: ns-2.1b5's RED in packet mode (``bytes_ false``, ``queue_in_bytes_ false``, ``gentle_
#: false``, ``wait_ true``, ``q_weight_ 0.002``) with the paper's thresholds.
RED = {
    "kind": "red",
    "limit": 60,
    "min_th": 5,
    "max_th": 15,
    "max_p": 0.1,
    "w_q": 0.002,
    "gentle": False,
    "wait": True,
    "byte_mode": False,
    "queue_in_bytes": False,
}
NEW_FLOW = "new"
#: Simulated time: 50 s of warm-up, the new flow's start within [50, 51] s, and enough for
#: its first recovery to end.
DURATION_S = 62


def sender_options(pwd: bool) -> dict[str, Any]:
    """NewReno as joo2000 ran it in ns-2.1b5: Slow-but-Steady timer, one retransmission per
    partial ACK, Less Careful, no Limited Transmit, no SYN, initial window 1, an unlimited
    receiver window; PWD on or off."""
    return {
        "initial_window": 1,
        "window": 100_000,
        "handshake": False,
        "limited_transmit": False,
        "timer_reset": "slow_but_steady",
        "careful": "less",
        "partial_window_deflation": pwd,
    }


def scenario(
    n: int,
    *,
    bandwidth_mbps: float = BASE_MBPS,
    delayed_ack: bool = False,
    pwd: bool = True,
    seed: int = 1,
    red: dict[str, Any] | None = None,
    bottleneck_delay: str | None = None,
) -> Scenario:
    """n existing NewReno flows (PWD on, random starts in [0, 1] s) and the new flow (PWD per
    *pwd*) starting at a random time in [50, 51] s; *delayed_ack* for every receiver."""
    from renolab.topology import dumbbell

    bottleneck = {
        "rate": f"{bandwidth_mbps:g}Mbps",
        "delay": bottleneck_delay or BOTTLENECK_DELAY,
        "queue": dict(red or RED),
        "reverse": {"queue": {"kind": "droptail", "limit": 1000}},
    }
    links = dumbbell(n + 1, access=dict(ACCESS, queue={"kind": "droptail", "limit": 1000}), bottleneck=bottleneck)
    receiver = {"delayed_ack": delayed_ack}
    flows = []
    for i in range(n + 1):
        new = i == n
        flows.append(
            {
                "name": NEW_FLOW if new else f"ftp{i + 1}",
                "variant": "newreno",
                "src": f"s{i + 1}",
                "dst": f"d{i + 1}",
                "start": {"uniform": ["50s", "51s"]} if new else {"uniform": ["0s", "1s"]},
                "mss": PACKET_BYTES,
                "header_bytes": 0,
                "receiver": receiver,
                "options": sender_options(pwd if new else True),
            }
        )
    return Scenario(
        simulation={"seed": seed, "profile": "ns2", "duration": f"{DURATION_S}s"},
        link=links,
        flow=flows,
    )


#: Full mode also reruns Fig. 2's end points (n = 3, 9, no delayed ACK) with a longer
#: bottleneck delay: the paper does not give its delays, and they matter.
SENSITIVITY_DELAY = "96ms"
SENSITIVITY_FLOWS = (3, 9)


def base_rtt_ms(bottleneck_delay: str) -> float:
    """Round-trip propagation delay (ms) of the dumbbell with this bottleneck delay."""
    from renolab.units import parse_duration_s

    return 2000 * (parse_duration_s(bottleneck_delay) + 2 * parse_duration_s(ACCESS["delay"]))
