"""subedi2008's setup as scenarios: the wired path with its "Internet cloud" (three loss
cases) and the path whose last hop crosses a fading 802.11b medium.

Every flow uses renolab's ``opnet`` profile, which is the slides' TCP parameter table
(initial window 1 MSS, 65,535-byte receive buffer, an ACK every 2 segments, initial / minimum
/ maximum RTO 1 / 0.5 / 64 s, gains 0.125 and 0.25, K = 4, 3 duplicate ACKs).

Wired (10 MB FTP download): server -10 Mb/s- router1 -1.5 Mb/s- cloud -1.5 Mb/s- router2
-10 Mb/s- client. The cloud adds 1 ms to every packet. Three cases, as in the slides:

- ``single``: exactly one data segment (number 1000, when the window is full) is dropped;
- ``two``: two segments of one window (1000 and 1002) are dropped;
- ``random``: the cloud drops 0.05 % of the packets in each direction.

Wireless (50 MB FTP download): server -10 Mb/s- router -1.5 Mb/s- base station ~802.11b~
client. The base station and the client share an 802.11b medium (renolab's DCF: contention,
MAC acknowledgements, up to 7 attempts per frame) at OPNET's default WLAN data rate, 1 Mb/s,
which the slides do not state but their times require (480-496 s for 50 MB is 0.81-0.83
Mb/s), with OPNET's default 256,000-bit (32,000-byte) WLAN buffer. "Packet losses occur due to
signal attenuation": the slides give no loss model, so each station's receiver loses frames
with a Gilbert-Elliott channel (a fade starts with probability 0.002 per frame and lasts 2.5
frames on average; 80 % of the frames in a fade are lost: about 0.4 % of the frames, in
bursts), MAC acknowledgements included. A lost frame costs MAC retries first; TCP sees a loss
only when a frame fails 7 times, or when the base station's buffer overflows.

Propagation delays are not given in the slides; links have none (OPNET's point-to-point links
default to distance 0), so the round trip is set by queueing at the 1.5 Mb/s link. Router
queues hold 100 packets: the receive window (44 segments) never overflows them, so -- as in
the slides' single-loss case -- the only losses are the scripted or random ones.
"""

from __future__ import annotations

from typing import Any

from renolab.experiments.report import paper_values
from renolab.scenario import Scenario

STUDY = "subedi2008"
TITLE = "Performance Evaluation of TCP Tahoe, Reno, Reno with SACK, and NewReno Using OPNET Modeler"

VARIANTS = ("tahoe", "reno", "sack", "newreno")
LABELS = {"tahoe": "Tahoe", "reno": "Reno", "sack": "Reno with SACK", "newreno": "NewReno"}
WIRED_CASES = ("single", "two", "random")
CASE_LABELS = {"single": "single packet loss", "two": "two packet losses", "random": "0.05 % loss, 1 ms latency"}
#: Segments dropped in the deterministic cases (the window is full, 44 segments, by then).
SINGLE_DROP = (1000,)
TWO_DROPS = (1000, 1002)
#: The radio channel: Gilbert-Elliott fades, per frame at each station's receiver.
WIRELESS_LOSS = {"kind": "gilbert_elliott", "p_gb": 0.002, "p_bg": 0.4, "loss_good": 0.0, "loss_bad": 0.8}
#: The receive window in segments (65,535 bytes / 1460).
RWND_SEGMENTS = 65535 // 1460
#: OPNET's WLAN defaults: data rate 1 Mb/s (control frames too), buffer 256,000 bits.
WIRELESS_RATE = "1Mbps"
WLAN_BUFFER = {"kind": "droptail", "limit_bytes": 256_000 // 8}
ROUTER_QUEUE = {"kind": "droptail", "limit": 100}
FLOW = "ftp"


def wired(variant: str, case: str, *, seed: int = 1) -> Scenario:
    """The wired scenario: *case* is ``single``, ``two`` or ``random`` (0.05 % loss)."""
    paper = paper_values(STUDY)["setup"]["wired"]
    access, core = f"{paper['access_mbps']:g}Mbps", f"{paper['core_mbps']:g}Mbps"
    latency = {"kind": "fixed", "delay": f"{paper['cloud_latency_s'] * 1e3:g}ms"}
    cloud: dict[str, Any] = {
        "name": "cloud-router2",
        "from": "cloud",
        "to": "router2",
        "rate": core,
        "delay": "0s",
        "queue": ROUTER_QUEUE,
        "latency": latency,
        "reverse": {"latency": latency},
    }
    if case == "single":
        cloud["loss"] = {"kind": "drop", "flow": FLOW, "segments": list(SINGLE_DROP)}
    elif case == "two":
        cloud["loss"] = {"kind": "drop", "flow": FLOW, "segments": list(TWO_DROPS)}
    elif case == "random":
        loss = {"kind": "uniform", "p": paper["cloud_loss"]}
        cloud["loss"] = loss
        cloud["reverse"]["loss"] = loss
    else:
        raise ValueError(f"unknown wired case {case!r}; allowed: {', '.join(WIRED_CASES)}")
    return Scenario(
        description=f"subedi2008 wired, {CASE_LABELS[case]}: {LABELS[variant]}, {paper['file_bytes']} B FTP download",
        simulation={"seed": seed, "profile": "opnet"},
        link=[
            {"name": "server-router1", "from": "server", "to": "router1", "rate": access, "delay": "0s", "queue": ROUTER_QUEUE},
            {"name": "router1-cloud", "from": "router1", "to": "cloud", "rate": core, "delay": "0s", "queue": ROUTER_QUEUE},
            cloud,
            {"name": "router2-client", "from": "router2", "to": "client", "rate": access, "delay": "0s", "queue": ROUTER_QUEUE},
        ],
        flow=[{"name": FLOW, "variant": variant, "src": "server", "dst": "client", "bytes": int(paper["file_bytes"])}],
    )


def wireless(variant: str, *, seed: int = 1) -> Scenario:
    """The wireless scenario: a 50 MB download whose last hop crosses a fading 802.11b medium."""
    paper = paper_values(STUDY)["setup"]["wireless"]
    return Scenario(
        description=f"subedi2008 wireless: {LABELS[variant]}, {paper['file_bytes']} B FTP download over a fading 802.11b hop",
        simulation={"seed": seed, "profile": "opnet"},
        link=[
            {"name": "server-router", "from": "server", "to": "router", "rate": f"{paper['access_mbps']:g}Mbps", "delay": "0s", "queue": ROUTER_QUEUE},
            {"name": "router-basestation", "from": "router", "to": "basestation", "rate": f"{paper['core_mbps']:g}Mbps", "delay": "0s", "queue": ROUTER_QUEUE},
        ],
        medium=[
            {
                "name": "radio",
                "kind": "wifi",
                "standard": "802.11b",
                "data_rate": WIRELESS_RATE,
                "basic_rate": WIRELESS_RATE,
                "nodes": ["basestation", "client"],
                "queue": dict(WLAN_BUFFER),
                "loss": dict(WIRELESS_LOSS),
            }
        ],
        flow=[{"name": FLOW, "variant": variant, "src": "server", "dst": "client", "bytes": int(paper["file_bytes"])}],
    )
