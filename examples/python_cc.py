"""Two congestion controllers written in Python, each run against the built-in NewReno.

    python examples/python_cc.py [FIGURE.png]

Writes the figure (default ``python_cc.png``) and prints each run's flow table; importing
it only defines the controllers (``variant = "python:examples/python_cc.py:Aimd"``). The
controllers are those of docs/extending.md: the AIMD of the issue, and a delay-based
controller in the style of Vegas, which keeps a few segments queued at the bottleneck and
records how many it thinks are queued in the ``cc`` trace. Each shares a 10 Mb/s, 40 ms
dumbbell with a NewReno flow that starts 5 s later.
"""

from __future__ import annotations

import sys

from renolab import Scenario
from renolab.cc import CongestionControl
from renolab.topology import dumbbell


class Aimd(CongestionControl):
    """Additive increase, multiplicative decrease; windows in segments (floats allowed)."""

    def on_start(self, conn):
        conn.cwnd = 10

    def on_ack(self, conn, ack):
        if conn.cwnd < conn.ssthresh:
            conn.cwnd += ack.acked
        else:
            conn.cwnd += ack.acked / conn.cwnd

    def on_congestion(self, conn, event):
        conn.ssthresh = max(conn.cwnd / 2, 2)
        conn.cwnd = 1 if event.kind == "timeout" else conn.ssthresh


class DelayBased(CongestionControl):
    """Vegas's idea (Brakmo & Peterson 1995): once per round trip, estimate the segments
    queued at the bottleneck, ``cwnd * (1 - min RTT / RTT)``, and keep them between
    *alpha* and *beta*: one more segment below, one less above. Slow start stops when more
    than *gamma* are queued. Losses halve the window, as Reno's."""

    trace = ("queued",)

    def __init__(self, alpha=2.0, beta=4.0, gamma=1.0):
        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        self.queued = None  # segments queued, as last estimated
        self.rtt = None  # the last RTT sample, seconds
        self.round_end = 0.0  # when the current round trip ends, seconds

    def on_ack(self, conn, ack):
        if ack.rtt_s is not None:
            self.rtt = ack.rtt_s
        if self.rtt is None or conn.now_s < self.round_end:
            if conn.cwnd < conn.ssthresh:
                conn.cwnd += ack.acked  # slow start, between the estimates
            return
        # A round trip has passed: estimate, then move the window by at most one segment.
        self.round_end = conn.now_s + self.rtt
        self.queued = conn.cwnd * (1 - ack.min_rtt_s / self.rtt)
        if conn.cwnd < conn.ssthresh:
            if self.queued > self.gamma:
                conn.ssthresh = conn.cwnd  # leave slow start
            else:
                conn.cwnd += ack.acked
        elif self.queued < self.alpha:
            conn.cwnd += 1
        elif self.queued > self.beta:
            conn.cwnd = max(conn.cwnd - 1, 2)

    def on_congestion(self, conn, event):
        conn.ssthresh = max(conn.cwnd / 2, 2)
        conn.cwnd = 1 if event.kind == "timeout" else conn.ssthresh


def against_newreno(controller: type[CongestionControl]) -> Scenario:
    """*controller* and a NewReno flow (from 5 s) over a 10 Mb/s, 20 ms bottleneck with a
    one-BDP (33-packet) buffer, 40 simulated seconds."""
    return Scenario(
        simulation={"seed": 1, "duration": "40s"},
        link=dumbbell(
            2,
            access={"rate": "100Mbps", "delay": "1ms"},
            bottleneck={"rate": "10Mbps", "delay": "18ms", "queue": {"kind": "droptail", "limit": 33}},
        ),
        flow=[
            {"name": controller.__name__, "variant": controller, "src": "s1", "dst": "d1"},
            {"name": "newreno", "variant": "newreno", "src": "s2", "dst": "d2", "start": "5s"},
        ],
    )


def main(figure: str = "python_cc.png") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=(8, 9), sharex=True)
    for ax, controller in zip(axes, (Aimd, DelayBased)):
        result = against_newreno(controller).run(trace=["cwnd", "cc"])
        print(result.flows[["flow", "variant", "throughput_bps", "retransmits", "timeouts"]].to_string(index=False))
        for name, points in result.trace("cwnd").groupby("flow", observed=True):
            ax.step(points["time_s"], points["cwnd"], where="post", label=name)
        ax.set_ylabel("cwnd (segments)")
        ax.legend(loc="upper right")
        if controller is DelayBased:
            cc = result.trace("cc")
            axes[2].step(cc["time_s"], cc["queued"], where="post", color="C0")
            axes[2].axhspan(2, 4, color="0.9", label="alpha to beta")
            axes[2].set_ylabel("queued (segments)")
            axes[2].set_ylim(0, 20)
            axes[2].legend(loc="upper right")
    axes[0].set_title("Python controllers (blue) against the built-in NewReno, 10 Mb/s, 40 ms RTT")
    axes[2].set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(figure, dpi=100)
    print(f"wrote {figure}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
